//! Output buffers for the writers.
//!
//! Writers reserve the worst case for a piece of output once, then write it with
//! unchecked pointer stores. That keeps bounds checks out of the per-byte loops.

/// Pieces from this size on are announced to the sink with [`Sink::bulk`].
pub const BULK: usize = 4 << 20;

/// A growable byte buffer the writers append to.
///
/// # Safety
/// Implementations must guarantee that after `reserve(n)`, `tail()` points at `n`
/// writable bytes, and that `advance(k)` for `k <= n` marks them as written.
pub unsafe trait Sink {
    /// Bytes written so far.
    fn len(&self) -> usize;
    /// Make sure at least `additional` bytes can be written past `len()`.
    fn reserve(&mut self, additional: usize);
    /// Pointer to the first unwritten byte.
    fn tail(&mut self) -> *mut u8;
    /// Marks `n` bytes past `len()` as written.
    ///
    /// # Safety
    /// Those bytes must have been reserved and initialised.
    unsafe fn advance(&mut self, n: usize);

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Says that the next `len` bytes, reserved already, are one large piece
    /// written in one go (a numpy array's data, a large bin). A sink may
    /// prepare that memory for it; the default does nothing.
    #[inline(always)]
    fn bulk(&mut self, _len: usize) {}

    #[inline(always)]
    fn push(&mut self, byte: u8) {
        self.reserve(1);
        // SAFETY: one byte reserved just above.
        unsafe {
            *self.tail() = byte;
            self.advance(1);
        }
    }

    #[inline(always)]
    fn extend(&mut self, bytes: &[u8]) {
        self.reserve(bytes.len());
        // SAFETY: `bytes.len()` bytes reserved just above; source and sink never overlap.
        unsafe {
            core::ptr::copy_nonoverlapping(bytes.as_ptr(), self.tail(), bytes.len());
            self.advance(bytes.len());
        }
    }
}

// SAFETY: Vec's spare capacity is exactly the contract.
unsafe impl Sink for Vec<u8> {
    #[inline(always)]
    fn len(&self) -> usize {
        Vec::len(self)
    }
    #[inline(always)]
    fn reserve(&mut self, additional: usize) {
        Vec::reserve(self, additional)
    }
    #[inline(always)]
    fn tail(&mut self) -> *mut u8 {
        let len = Vec::len(self);
        // SAFETY: `len <= capacity`, so the pointer stays inside (or one past) the allocation.
        unsafe { self.as_mut_ptr().add(len) }
    }
    #[inline(always)]
    unsafe fn advance(&mut self, n: usize) {
        self.set_len(Vec::len(self) + n)
    }
}
