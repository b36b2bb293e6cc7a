//! Getting an output's memory ready for a large piece (a long str, a bin, a
//! numpy array's data) before it is copied in.
//!
//! A bytes object that holds a large output often lands in memory the
//! process has never touched: a program that keeps its outputs (a cache, a
//! batch being assembled, a queue) gets new pages from the kernel for each
//! one. Copying into such pages faults each 4 KiB page in on its first
//! store, and taking the faults one by one costs more than the copy: a
//! 1 MiB copy into fresh pages takes about twenty times as long as into
//! pages in use. Asking for the whole range at once (`MADV_POPULATE_WRITE`,
//! Linux 5.14) takes about two thirds of that time. For pages already in
//! use the same request costs more than the copy itself, so it is made only
//! after `mincore` says the range's first page is not in memory; a range
//! seen in memory is remembered, so an output freed and made again in the
//! same place (the usual loop) asks the kernel nothing, and what the first
//! piece of a buffer found holds for the pieces after it ([`Known`]).
//!
//! Pieces of `HUGE` bytes and more are also advised to use transparent huge
//! pages, as numpy does for large arrays. Only the piece about to be written
//! is touched, so an output's resident memory stays what it writes.
//!
//! Everything here is a hint: a request the kernel refuses changes nothing
//! but the time, and other systems skip it.

#[cfg(target_os = "linux")]
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// From this size on a piece is advised to use transparent huge pages.
pub const HUGE: usize = 4 << 20;

/// The size of a page: the unit of the requests below.
const PAGE: usize = 4096;

/// The whole pages inside `len` bytes at `data`, as `(start, end)`
/// addresses, or None if the range holds none.
pub fn whole_pages(data: usize, len: usize) -> Option<(usize, usize)> {
    let start = data.checked_next_multiple_of(PAGE)?;
    let end = data.checked_add(len)? & !(PAGE - 1);
    (end > start).then_some((start, end))
}

/// The last whole-page ranges found in memory (or populated), as
/// `(start, end)` pairs: a piece that lies inside one is not checked again.
/// A few, so that a program alternating between outputs (JSON and
/// MessagePack, a request and its log line) keeps all of them. A stale entry
/// (the memory was given back and mapped again at the same address) costs
/// only the page faults the check would have saved.
#[cfg(target_os = "linux")]
static RESIDENT: [(AtomicUsize, AtomicUsize); 4] = [const { (AtomicUsize::new(0), AtomicUsize::new(0)) }; 4];
/// Where the next range found in memory is recorded in `RESIDENT`.
#[cfg(target_os = "linux")]
static NEXT_RESIDENT: AtomicUsize = AtomicUsize::new(0);
/// Cleared when the kernel does not know `MADV_POPULATE_WRITE` (before 5.14).
#[cfg(target_os = "linux")]
static CAN_POPULATE: AtomicBool = AtomicBool::new(true);

/// Whether `start..end` lies inside a range recorded in `RESIDENT`.
#[cfg(target_os = "linux")]
fn known_resident(start: usize, end: usize) -> bool {
    RESIDENT.iter().any(|(s, e)| start >= s.load(Ordering::Relaxed) && end <= e.load(Ordering::Relaxed))
}

/// Records `start..end` as in memory, in place of the oldest record.
#[cfg(target_os = "linux")]
fn remember_resident(start: usize, end: usize) {
    let slot = &RESIDENT[NEXT_RESIDENT.fetch_add(1, Ordering::Relaxed) % RESIDENT.len()];
    slot.0.store(start, Ordering::Relaxed);
    slot.1.store(end, Ordering::Relaxed);
}

#[cfg(target_os = "linux")]
mod sys {
    extern "C" {
        pub fn madvise(addr: *mut core::ffi::c_void, len: usize, advice: core::ffi::c_int) -> core::ffi::c_int;
        pub fn mincore(addr: *mut core::ffi::c_void, len: usize, vec: *mut u8) -> core::ffi::c_int;
    }
    pub const MADV_HUGEPAGE: core::ffi::c_int = 14;
    pub const MADV_POPULATE_WRITE: core::ffi::c_int = 23;
}

/// What a buffer's owner learnt of its pages from the first large piece
/// written into it, for the pieces after: a document of many large strs
/// would otherwise ask the kernel about each one, and `mincore` costs about
/// as much as copying 64 KiB into pages in memory. Reset it whenever the
/// buffer moves or grows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Known {
    /// Nothing yet: the next piece is checked.
    #[default]
    Nothing,
    /// A piece was found in memory: so is, most likely, the rest of a
    /// buffer that was memory in use (nothing more is asked).
    InMemory,
    /// A piece was found fresh and faulted in: the pages after it, further
    /// from the memory in use, are fresh too (faulted in without asking).
    Fresh,
}

/// Prepares the `len` bytes at `data`, writable memory the caller is about
/// to fill, for being written in one go (see the module's text); `known`
/// is what earlier pieces of the same buffer found, and is updated.
///
/// # Safety
/// `data..data + len` is writable memory of one allocation, not yet holding
/// anything that must be kept: populating maps zeroed pages only where no
/// page is mapped yet, and leaves mapped pages as they are.
pub unsafe fn prepare(data: *mut u8, len: usize, known: &mut Known) {
    #[cfg(target_os = "linux")]
    {
        let Some((start, end)) = whole_pages(data as usize, len) else {
            return;
        };
        // SAFETY (every call): whole pages inside memory the caller owns;
        // no request changes its contents.
        if len >= HUGE {
            sys::madvise(start as *mut core::ffi::c_void, end - start, sys::MADV_HUGEPAGE);
        }
        match *known {
            Known::InMemory => return,
            Known::Fresh => {
                populate(start, end);
                return;
            }
            Known::Nothing => {}
        }
        if len < HUGE && known_resident(start, end) {
            *known = Known::InMemory;
            return;
        }
        let mut first = 0u8;
        // A failed call (it cannot fail on mapped memory) reads as in memory.
        if sys::mincore(start as *mut core::ffi::c_void, PAGE, &mut first) != 0 || first & 1 != 0 {
            remember_resident(start, end);
            *known = Known::InMemory;
            return;
        }
        if populate(start, end) {
            *known = Known::Fresh;
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (data, len, known);
}

/// Faults in the pages `start..end` with one request; whether it was made.
///
/// # Safety
/// Whole pages of memory the caller owns.
#[cfg(target_os = "linux")]
unsafe fn populate(start: usize, end: usize) -> bool {
    if !CAN_POPULATE.load(Ordering::Relaxed) {
        return false;
    }
    // SAFETY: as the function's.
    if unsafe { sys::madvise(start as *mut core::ffi::c_void, end - start, sys::MADV_POPULATE_WRITE) } != 0 {
        // EINVAL: a kernel without the request; anything else (no memory
        // for the pages) leaves them to be faulted in as usual.
        if std::io::Error::last_os_error().raw_os_error() == Some(22) {
            CAN_POPULATE.store(false, Ordering::Relaxed);
        }
        return false;
    }
    remember_resident(start, end);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Taken by the tests that map memory of their own: one at a time, each
    /// clearing the ranges remembered as in memory once its mapping is made
    /// (a range another test unmapped may have been mapped again there).
    #[cfg(target_os = "linux")]
    static MAPPING: std::sync::Mutex<()> = std::sync::Mutex::new(());

    #[cfg(target_os = "linux")]
    fn forget_resident() {
        for (s, e) in &RESIDENT {
            s.store(0, Ordering::Relaxed);
            e.store(0, Ordering::Relaxed);
        }
    }

    #[test]
    fn whole_pages_are_the_ones_inside_the_range() {
        assert_eq!(whole_pages(0, 4096), Some((0, 4096)));
        assert_eq!(whole_pages(1, 4096), None);
        assert_eq!(whole_pages(1, 8191), Some((4096, 8192)));
        assert_eq!(whole_pages(4095, 4097), Some((4096, 8192)));
        assert_eq!(whole_pages(4096 * 3 + 33, 1 << 20), Some((4096 * 4, (4096 * 3 + 33 + (1 << 20)) & !4095)));
        assert_eq!(whole_pages(100, 3000), None);
        assert_eq!(whole_pages(usize::MAX - 10, 5), None);
    }

    #[test]
    fn prepared_memory_keeps_what_it_holds() {
        for len in [100, 5000, 70_000, 1 << 20, HUGE + 12_345] {
            let mut buf = vec![0xA5u8; len + 64];
            for offset in [0, 1, 33, 63] {
                // SAFETY: `len` bytes of `buf` from `offset`.
                unsafe { prepare(buf.as_mut_ptr().add(offset), len, &mut Known::Nothing) };
                assert!(buf.iter().all(|&b| b == 0xA5));
            }
        }
    }

    /// What the first piece of a buffer found serves the pieces after it:
    /// found fresh, the next piece is faulted in without asking; found in
    /// memory, a later piece is left alone even where it is not.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_first_piece_speaks_for_the_rest_of_the_buffer() {
        extern "C" {
            fn mmap(addr: *mut core::ffi::c_void, len: usize, prot: i32, flags: i32, fd: i32, off: i64) -> *mut u8;
            fn munmap(addr: *mut core::ffi::c_void, len: usize) -> i32;
        }
        let resident = |data: *mut u8, len: usize| {
            let (start, end) = whole_pages(data as usize, len).unwrap();
            let mut pages = vec![0u8; (end - start) / PAGE];
            // SAFETY: whole pages of a live mapping.
            assert_eq!(unsafe { sys::mincore(start as *mut core::ffi::c_void, end - start, pages.as_mut_ptr()) }, 0);
            pages.iter().filter(|&&p| p & 1 != 0).count() * PAGE
        };
        let piece = 64 * PAGE;
        let _one_at_a_time = MAPPING.lock();
        // SAFETY: new private mappings of 4 pieces and a page, unmapped at the
        // end; nothing else uses them.
        unsafe {
            let size = 4 * piece + PAGE;
            let map = mmap(core::ptr::null_mut(), size, 3, 0x22, -1, 0);
            assert!(!map.is_null() && map as isize != -1);
            forget_resident();
            let mut known = Known::Nothing;
            prepare(map.add(1), piece, &mut known);
            if !CAN_POPULATE.load(Ordering::Relaxed) {
                munmap(map as *mut core::ffi::c_void, size);
                return;
            }
            assert_eq!(known, Known::Fresh);
            prepare(map.add(piece + 1), piece, &mut known);
            // Each piece's whole pages: all but the page the two share.
            assert_eq!(resident(map.add(1), 2 * piece), 2 * piece - 2 * PAGE);
            // A buffer found in memory leaves the rest alone.
            let mut known = Known::InMemory;
            prepare(map.add(2 * piece + 1), piece, &mut known);
            assert_eq!(resident(map.add(2 * piece + 1), piece), 0);
            assert_eq!(known, Known::InMemory);
            // One found in memory says so.
            let mut buf = vec![1u8; 4 * piece];
            let mut known = Known::Nothing;
            prepare(buf.as_mut_ptr().add(3), piece, &mut known);
            assert_eq!(known, Known::InMemory);
            assert_eq!(munmap(map as *mut core::ffi::c_void, size), 0);
        }
    }

    /// Fresh pages of a new anonymous mapping, faulted in by `prepare` at
    /// once where the kernel can (Linux 5.14 on), then written and read.
    #[cfg(target_os = "linux")]
    #[test]
    fn fresh_pages_are_faulted_in_at_once() {
        extern "C" {
            fn mmap(addr: *mut core::ffi::c_void, len: usize, prot: i32, flags: i32, fd: i32, off: i64) -> *mut u8;
            fn munmap(addr: *mut core::ffi::c_void, len: usize) -> i32;
        }
        const PROT_READ_WRITE: i32 = 1 | 2;
        const MAP_PRIVATE_ANONYMOUS: i32 = 0x02 | 0x20;
        let _one_at_a_time = MAPPING.lock();
        for len in [3 * PAGE, 70_000, 1 << 20, HUGE + 12_345] {
            let size = len + 2 * PAGE;
            // SAFETY: a new private mapping, unmapped below; nothing else
            // uses it.
            unsafe {
                let map = mmap(core::ptr::null_mut(), size, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1, 0);
                assert!(!map.is_null() && map as isize != -1);
                forget_resident();
                let data = map.add(7);
                let mut known = Known::Nothing;
                prepare(data, len, &mut known);
                let (start, end) = whole_pages(data as usize, len).unwrap();
                let mut pages = vec![0u8; (end - start) / PAGE];
                assert_eq!(sys::mincore(start as *mut core::ffi::c_void, end - start, pages.as_mut_ptr()), 0);
                if CAN_POPULATE.load(Ordering::Relaxed) {
                    assert!(pages.iter().all(|&p| p & 1 != 0), "{len}");
                    assert_eq!(known, Known::Fresh);
                }
                core::ptr::write_bytes(data, 0x3C, len);
                assert!(core::slice::from_raw_parts(data, len).iter().all(|&b| b == 0x3C));
                assert_eq!(munmap(map as *mut core::ffi::c_void, size), 0);
            }
        }
    }
}
