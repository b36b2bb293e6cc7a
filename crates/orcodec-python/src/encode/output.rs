//! The output buffer is the `bytes` object handed back to the caller: encoders
//! write straight into it and it is shrunk once at the end, so there is no
//! final copy.

use orcodec_core::sink::Sink;
use pyo3_ffi::*;

use crate::cpython::bytes::{data_of, new_bytes, realloc_bytes, set_len};
use crate::cpython::ffi::_PyBytes_Resize;

/// Bytes allocated up front: small enough that the object (33-byte header
/// included) comes from pymalloc, whose limit is 512 bytes, rather than the
/// system allocator, whose call would cost a small document more than its
/// encoding; a larger document grows (see `grow`).
const INITIAL_CAPACITY: usize = 256;

/// From this capacity on the buffer only doubles, so a huge output never
/// asks for many times its size in address space. Below it, it grows
/// eight-fold: each grow may copy everything written so far (glibc can
/// rarely extend a heap block in place, and once an earlier output freed a
/// large mapping it serves big blocks from the heap too), so fewer, larger
/// steps copy less: eight-fold copies about a seventh of the output in all,
/// doubling about all of it. Pages never written are never touched, so
/// resident memory stays that of the output; `finish` trims the rest.
const LARGE: usize = 64 << 20;
/// The new capacity, in eighths of the old: eight-fold below `LARGE`, then
/// doubling; when memory is short and that cannot be had, the smaller steps
/// are tried in turn: 2, 1.5, 1.25 and 1.125 times. Never the exact size
/// needed: growth stays geometric, so an output still costs O(log n)
/// reallocations, where growing by what each write needs would copy the
/// whole output at every write (quadratic: a hang).
const STEPS_EIGHTHS: [usize; 5] = [64, 16, 12, 10, 9];

/// What a small output's first block holds beyond the expected output:
/// about what the last write reserves past what it writes (a string's
/// 16-byte block store, a number's widest form). More would often leave the
/// block over a quarter empty, and `finish` would move the output.
const SMALL_HEADROOM: usize = 24;

/// A bytes object's size beyond its data: the header and the trailing NUL.
const OBJECT_OVERHEAD: usize = core::mem::offset_of!(PyBytesObject, ob_sval) + 1;

/// The most data a bytes object in pymalloc's largest block (512 bytes) holds.
const PYMALLOC_LARGEST: usize = 512 - OBJECT_OVERHEAD;

/// pymalloc's size classes are multiples of this.
const PYMALLOC_ALIGNMENT: usize = 16;

/// Outputs larger than this keep up to a sixteenth spare (see `finish`);
/// smaller ones live in pymalloc's size classes and are trimmed exactly.
pub const TRIM_UP_TO: usize = 512;

/// What an output of `len` bytes keeps allocated, and what the next call's
/// size hint asks for (`encode/mod.rs`): the same number, so the request fits
/// the block this one frees. (Once outputs repeat one length the hint asks
/// for less, which such an output fills without a trim.)
pub fn output_with_slack(len: usize) -> usize {
    len + len / 16
}

pub struct BytesSink {
    /// While the GIL is released around a write that touches no Python
    /// object (`release_gil`): the thread state to take it back with, for
    /// the rare step that needs the allocator; NULL while it is held.
    detached: *mut PyThreadState,
    /// The bytes object being filled; NULL once growing it failed (it is
    /// then freed, and `data`, `at` and `end` point nowhere).
    bytes: *mut PyObject,
    /// The object's first data byte.
    data: *mut u8,
    /// The next byte to write (`data` plus the length so far) and the end
    /// of the area: pointers rather than counts, so the writers' capacity
    /// check is one subtraction and the tail a plain load.
    at: *mut u8,
    end: *mut u8,
    /// The most any reservation that had to grow the area asked for (the
    /// length written then plus the reservation), 0 if none did.
    peak_needed: usize,
    /// What the large pieces written so far found of the area's pages
    /// (`bulk`); forgotten when the area moves.
    pages: orcodec_core::pages::Known,
}

impl BytesSink {
    /// A new buffer with room for `capacity` bytes (at least
    /// `INITIAL_CAPACITY`), or None with MemoryError raised. A larger
    /// `capacity` is only a guess (the previous output's size): when that
    /// much cannot be had, the buffer starts small instead.
    pub fn with_capacity(capacity: usize) -> Option<BytesSink> {
        let mut capacity = capacity.max(INITIAL_CAPACITY);
        let mut bytes = new_bytes(capacity);
        if bytes.is_null() && capacity > INITIAL_CAPACITY {
            // SAFETY: clears the MemoryError just raised; no other exception is set.
            unsafe { PyErr_Clear() };
            capacity = INITIAL_CAPACITY;
            bytes = new_bytes(capacity);
        }
        Self::over(bytes, capacity)
    }

    /// A new buffer for an output expected to be about `expected` bytes
    /// (the previous call's, at most `TRIM_UP_TO`): the pymalloc block that
    /// holds that and the reserve of one more write (`SMALL_HEADROOM`), so
    /// that an output of about that size ends in the block it started in.
    /// pymalloc keeps a block that shrinks by less than a quarter in place;
    /// from a 256-byte start, `finish` would move a typical small output to
    /// a smaller block, copying it.
    pub fn for_small_output(expected: usize) -> Option<BytesSink> {
        let block = (expected + SMALL_HEADROOM + OBJECT_OVERHEAD).next_multiple_of(PYMALLOC_ALIGNMENT);
        let capacity = block - OBJECT_OVERHEAD;
        Self::over(new_bytes(capacity), capacity)
    }

    /// A buffer over `bytes`, a new bytes object of `capacity` data bytes,
    /// or None if it is NULL (MemoryError raised).
    fn over(bytes: *mut PyObject, capacity: usize) -> Option<BytesSink> {
        if bytes.is_null() {
            return None;
        }
        // SAFETY: `bytes` is a live bytes object.
        let data = unsafe { data_of(bytes) };
        // SAFETY: the object has `capacity` data bytes.
        let end = unsafe { data.add(capacity) };
        Some(BytesSink {
            detached: core::ptr::null_mut(),
            bytes,
            data,
            at: data,
            end,
            peak_needed: 0,
            pages: Default::default(),
        })
    }

    /// Releases the GIL (other threads of this interpreter run meanwhile)
    /// until [`BytesSink::take_gil`]: for a writer whose only contact with
    /// Python objects is this buffer. Growing the buffer takes the GIL back
    /// for the reallocation (bytes objects come from the interpreter's
    /// allocator) and releases it again.
    ///
    /// # Safety
    /// The GIL is held, and nothing that needs it runs before `take_gil`
    /// but this sink's own growing.
    pub unsafe fn release_gil(&mut self) {
        debug_assert!(self.detached.is_null());
        self.detached = PyEval_SaveThread();
    }

    /// Takes back the GIL [`BytesSink::release_gil`] released (nothing if it is held).
    pub fn take_gil(&mut self) {
        let detached = core::mem::replace(&mut self.detached, core::ptr::null_mut());
        if !detached.is_null() {
            // SAFETY: the thread state this thread released the GIL with.
            unsafe { PyEval_RestoreThread(detached) };
        }
    }

    /// How far past the output's end a reservation that grew the area
    /// reached: the writers reserve room for their widest form (a string's
    /// block stores, a number's longest spelling) before they write, so an
    /// area exactly as long as the output is too short for its last writes.
    /// 0 when no reservation grew the area past the output's length.
    pub fn reserved_past_end(&self) -> usize {
        self.peak_needed.saturating_sub(self.len())
    }

    /// Bytes the area holds.
    #[inline(always)]
    fn capacity(&self) -> usize {
        self.end as usize - self.data as usize
    }

    /// Trims the object to what was written and hands it over; NULL with
    /// MemoryError set if growing it failed.
    ///
    /// An output past pymalloc's sizes keeps up to `len / 16` spare bytes
    /// past its end (never written, so never resident). The next call's size
    /// hint asks for exactly that much, so a document encoded again needs no
    /// realloc at either end, where trimming to the byte would split the
    /// block and free the tail on every call. For large outputs it matters
    /// more: glibc serves a request from its heap only if it is smaller than
    /// the largest mapping freed so far, so trimmed to the byte, every later
    /// request of the same document would get a fresh mapping and fault in
    /// each page.
    pub fn finish(mut self) -> *mut PyObject {
        self.take_gil();
        let mut obj = core::mem::replace(&mut self.bytes, core::ptr::null_mut());
        if obj.is_null() {
            // SAFETY: sets MemoryError.
            unsafe { PyErr_NoMemory() };
            return obj;
        }
        if self.len() <= TRIM_UP_TO {
            // SAFETY: `obj` is our own, unshared bytes object; resizing writes
            // the size (on failure CPython frees it and sets NULL). It writes
            // the trailing NUL too, except when the size does not change (an
            // output exactly as long as a grown area, whose NUL was never
            // written): the NUL is written here, inside the `len + 1` bytes
            // the object has.
            unsafe {
                if _PyBytes_Resize(&mut obj, self.len() as Py_ssize_t) != 0 {
                    return core::ptr::null_mut();
                }
                *data_of(obj).add(self.len()) = 0;
            }
            return obj;
        }
        let keep = output_with_slack(self.len());
        // SAFETY: `obj` is our own, unshared bytes object with room for
        // `capacity >= len` data bytes and the NUL. Shrinking keeps the
        // first `keep >= len` bytes; if it fails the larger block stays,
        // which is as good. The object then says `len` bytes, ends them
        // with the NUL, and has no cached hash yet.
        unsafe {
            if self.capacity() > keep {
                let fresh = realloc_bytes(obj, keep);
                if !fresh.is_null() {
                    obj = fresh;
                }
            }
            set_len(obj, self.len());
        }
        obj
    }

    /// Gives the bytes object room for `target >= len()` data bytes; false,
    /// the object untouched, when that cannot be had.
    fn move_to(&mut self, target: usize) -> bool {
        let len = self.len();
        // SAFETY: the bytes object is ours alone (refcount 1, never handed
        // out, not tracked by the GC, no cached hash yet), so it may move:
        // PyObject_Realloc is the allocator it came from (bytes objects are
        // allocated with PyObject_Malloc) and keeps the first `len` data
        // bytes. Large blocks are grown in place or remapped by the system
        // allocator instead of copied. On failure it returns NULL and the old
        // block is untouched, so a smaller size can still be tried. `ob_size`
        // is updated to the new capacity; `finish` sets the real length and
        // the NUL.
        unsafe {
            let fresh = realloc_bytes(self.bytes, target);
            if fresh.is_null() {
                return false;
            }
            self.bytes = fresh;
            self.data = data_of(fresh);
            self.at = self.data.add(len);
            self.end = self.data.add(target);
        }
        self.pages = Default::default();
        true
    }

    /// Makes room for `additional` more bytes: returns false, having freed
    /// the output, when the memory cannot be had. Sets no exception (Python
    /// code may still run before the encoder stops; `finish` raises).
    #[cold]
    #[inline(never)]
    fn grow(&mut self, additional: usize) -> bool {
        if self.bytes.is_null() {
            return false;
        }
        if self.detached.is_null() {
            return self.grow_holding_gil(additional);
        }
        self.take_gil();
        let grown = self.grow_holding_gil(additional);
        // SAFETY: the GIL was released by this thread for this sink's writer
        // and is given back to it (see `release_gil`).
        unsafe { self.release_gil() };
        grown
    }

    fn grow_holding_gil(&mut self, additional: usize) -> bool {
        let len = self.len();
        let capacity = self.capacity();
        if let Some(needed) = len.checked_add(additional) {
            self.peak_needed = self.peak_needed.max(needed);
            if capacity < PYMALLOC_LARGEST && needed <= PYMALLOC_LARGEST {
                // A small output stays in pymalloc's blocks while it fits
                // them: the system allocator's blocks cost more to get and
                // to free than a small copy.
                if self.move_to(PYMALLOC_LARGEST) {
                    return true;
                }
            }
            let first = if capacity < LARGE { 0 } else { 1 };
            for &eighths in &STEPS_EIGHTHS[first..] {
                let target = (capacity / 8).saturating_mul(eighths).max(needed);
                if self.move_to(target) {
                    return true;
                }
                if target == needed {
                    break;
                }
            }
        }
        // The output is lost: free it, and write nothing more.
        // SAFETY: an unfinished buffer is ours alone.
        unsafe { Py_DECREF(self.bytes) };
        self.bytes = core::ptr::null_mut();
        let nowhere = core::ptr::NonNull::dangling().as_ptr();
        (self.data, self.at, self.end) = (nowhere, nowhere, nowhere);
        false
    }
}

impl Drop for BytesSink {
    fn drop(&mut self) {
        self.take_gil();
        if !self.bytes.is_null() {
            // SAFETY: an unfinished buffer is ours alone.
            unsafe { Py_DECREF(self.bytes) }
        }
    }
}

// SAFETY: `data..end` are writable bytes (the bytes object's data area)
// and `data <= at <= end`; `reserve` grows before any write past `end`, and
// returns false when it cannot. After a failure `data`, `at` and `end` are
// one dangling pointer: nothing can be reserved but zero bytes, and `bytes`
// stays NULL.
unsafe impl Sink for BytesSink {
    #[inline(always)]
    fn len(&self) -> usize {
        self.at as usize - self.data as usize
    }
    #[inline(always)]
    fn reserve(&mut self, additional: usize) -> bool {
        if (self.end as usize - self.at as usize) < additional {
            return self.grow(additional);
        }
        true
    }
    #[inline(always)]
    fn failed(&self) -> bool {
        self.bytes.is_null()
    }
    #[inline(always)]
    fn tail(&mut self) -> *mut u8 {
        self.at
    }
    #[inline(always)]
    unsafe fn advance(&mut self, n: usize) {
        self.at = self.at.add(n);
    }
    #[inline(always)]
    fn truncate(&mut self, len: usize) {
        debug_assert!(len <= self.len());
        // SAFETY: `len` is within what was written.
        self.at = unsafe { self.data.add(len.min(self.len())) };
    }
    /// A large piece about to be written (reserved already): fresh pages
    /// under it are faulted in at once, and the largest pieces get huge
    /// pages (`orcodec_core::pages`). Only the piece's own range is touched,
    /// so a document that merely grows large keeps the memory it had.
    #[inline(never)]
    fn bulk(&mut self, len: usize) {
        if !self.bytes.is_null() {
            // SAFETY: `at..at + len` is reserved memory of the buffer, not
            // written yet.
            unsafe { orcodec_core::pages::prepare(self.at, len, &mut self.pages) }
        }
    }
}

// SAFETY: until the sink failed, the bytes written so far are `data..at`,
// the first `len()` data bytes of the bytes object, and `at..end` is
// writable. After a failure (the transcoders do not call `written` then)
// the slice is empty and there is no room (`at == end`).
unsafe impl orcodec_core::transcode::Output for BytesSink {
    #[inline(always)]
    fn written(&mut self) -> &mut [u8] {
        if self.bytes.is_null() {
            return &mut [];
        }
        // SAFETY: see above; the slice borrows the sink mutably.
        unsafe { core::slice::from_raw_parts_mut(self.data, self.len()) }
    }
    #[inline(always)]
    fn room(&self) -> usize {
        self.end as usize - self.at as usize
    }
}
