//! Output buffers for the writers.
//!
//! Writers reserve the room a piece of output can take once, then write it
//! with unchecked pointer stores. That keeps bounds checks out of the
//! per-byte loops.
//!
//! Reserving can fail (the memory is not there): `reserve` then returns
//! false, the writer writes nothing more of that piece, and the sink stays
//! failed, so whoever drives the writer checks [`Sink::failed`] (the walker
//! does at every container) and raises MemoryError instead of handing out
//! output with a piece missing. Nothing input can drive may abort the
//! process, so no piece may ask for much more room than it is about to
//! write: large pieces (long strings) are written in bounded chunks, see
//! [`CHUNK`].

/// Most code units (or bytes) of a long string a writer takes per
/// reservation: its worst case (six bytes per unit for JSON escapes) is then
/// a few hundred KiB, whatever the string's length, so a text whose output
/// fits is never refused for the room its worst case would need, and the
/// writers never need more room at once than this.
pub const CHUNK: usize = 64 * 1024;

/// Pieces from this size on are announced to the sink with [`Sink::bulk`]:
/// 64 pages. Taking fresh pages' faults at once (see [`crate::pages`]) saves
/// about 40% of such a copy's time; asking whether the pages are in memory
/// (about 1.2 us) costs about a seventh of copying into pages that are, so
/// a smaller piece stands to lose more than it gains.
pub const BULK: usize = 256 * 1024;

/// A growable byte buffer the writers append to.
///
/// # Safety
/// Implementations must guarantee that after `reserve(n)` returned true,
/// `tail()` points at `n` writable bytes, that `advance(k)` for `k <= n`
/// marks them as written, and that the `len()` bytes written so far are
/// contiguous and end at `tail()`. Once `reserve` returned false, `failed()`
/// is true for good.
pub unsafe trait Sink {
    /// Bytes written so far.
    fn len(&self) -> usize;
    /// Makes sure at least `additional` bytes can be written past `len()`.
    /// False when that memory could not be had: the sink has then failed,
    /// and nothing may be written to it.
    #[must_use]
    fn reserve(&mut self, additional: usize) -> bool;
    /// Whether a reservation failed: the output is incomplete and must not
    /// be used (the encoder raises MemoryError).
    fn failed(&self) -> bool;
    /// Pointer to the first unwritten byte.
    fn tail(&mut self) -> *mut u8;
    /// Marks `n` bytes past `len()` as written.
    ///
    /// # Safety
    /// Those bytes must have been reserved and initialised.
    unsafe fn advance(&mut self, n: usize);
    /// Forgets what was written past the first `len` bytes (`len <= self.len()`):
    /// a piece that turned out not to be writable (a lone surrogate) is taken back.
    fn truncate(&mut self, len: usize);

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Says that the next `len` bytes, reserved already, are one large piece
    /// written in one go (a numpy array's data, a large bin or str). A sink
    /// may prepare that memory for it; the default does nothing.
    #[inline(always)]
    fn bulk(&mut self, _len: usize) {}

    #[inline(always)]
    fn push(&mut self, byte: u8) {
        if !self.reserve(1) {
            return;
        }
        // SAFETY: one byte reserved just above.
        unsafe {
            *self.tail() = byte;
            self.advance(1);
        }
    }

    #[inline(always)]
    fn extend(&mut self, bytes: &[u8]) {
        if !self.reserve(bytes.len()) {
            return;
        }
        // SAFETY: `bytes.len()` bytes reserved just above; source and sink never overlap.
        unsafe {
            core::ptr::copy_nonoverlapping(bytes.as_ptr(), self.tail(), bytes.len());
            self.advance(bytes.len());
        }
    }
}

/// A `Vec` as a sink, for tests, fuzzing and pure-Rust callers: it grows
/// the way `Vec` does, and like every `Vec` it aborts the process when the
/// allocator fails (it has no failure state to report). The extension
/// writes into its own sink, which fails cleanly instead.
// SAFETY: Vec's spare capacity is exactly the contract; it never fails.
unsafe impl Sink for Vec<u8> {
    #[inline(always)]
    fn len(&self) -> usize {
        Vec::len(self)
    }
    #[inline(always)]
    #[expect(
        clippy::disallowed_methods,
        reason = "the Vec sink is for tests and pure-Rust callers, and documented to abort"
    )]
    fn reserve(&mut self, additional: usize) -> bool {
        Vec::reserve(self, additional);
        true
    }
    #[inline(always)]
    fn failed(&self) -> bool {
        false
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
    #[inline(always)]
    fn truncate(&mut self, len: usize) {
        Vec::truncate(self, len)
    }
}
