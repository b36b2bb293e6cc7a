//! Every allocation the decoders make is fallible: with the allocator cut off
//! at each budget from nothing to what a decode needs, a decode (push or
//! pull, JSON or MessagePack) either gives its usual result or stops with
//! `DecodeErrorKind::NoMemory`. A failed allocation that aborted (a plain
//! `Vec::push`, `reserve`, `extend_from_slice`) ends this test binary.
//!
//! The allocator counts the live bytes of the calling thread while a budget
//! is set, so tests run side by side each have their own.

// The harness's own bookkeeping may allocate as it likes.
#![allow(clippy::disallowed_methods)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use orcodec_core::builder::Builder;
use orcodec_core::error::{DecodeError, DecodeErrorKind, Failure};
use orcodec_core::json::pull::{JsonKind, JsonPull};
use orcodec_core::json::scanner;
use orcodec_core::msgpack::pull::MsgpackPull;
use orcodec_core::msgpack::reader::{self, ReadOptions};

struct Budgeted;

thread_local! {
    /// Bytes this thread may hold live; `usize::MAX` for no limit.
    static LIMIT: Cell<usize> = const { Cell::new(usize::MAX) };
    static LIVE: Cell<usize> = const { Cell::new(0) };
    /// The most bytes held live at once since the last `run_with_budget`.
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every request is passed to the system allocator unchanged, or
// refused with a null pointer, as `GlobalAlloc` allows.
unsafe impl GlobalAlloc for Budgeted {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !take(layout.size()) {
            return core::ptr::null_mut();
        }
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        give(layout.size());
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() && !take(new_size - layout.size()) {
            return core::ptr::null_mut();
        }
        let fresh = System.realloc(ptr, layout, new_size);
        if fresh.is_null() {
            give(new_size.saturating_sub(layout.size()));
        } else if new_size < layout.size() {
            give(layout.size() - new_size);
        }
        fresh
    }
}

fn take(size: usize) -> bool {
    let live = LIVE.with(Cell::get);
    if live.saturating_add(size) > LIMIT.with(Cell::get) {
        return false;
    }
    LIVE.with(|l| l.set(live + size));
    PEAK.with(|p| p.set(p.get().max(live + size)));
    true
}

fn give(size: usize) {
    LIVE.with(|l| l.set(l.get().saturating_sub(size)));
}

#[global_allocator]
static ALLOCATOR: Budgeted = Budgeted;

/// Runs `f` with at most `budget` more bytes live on this thread; returns
/// its result and the most it held at once.
fn run_with_budget<T>(budget: usize, f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.with(Cell::get);
    LIMIT.with(|l| l.set(base.saturating_add(budget)));
    PEAK.with(|p| p.set(base));
    let result = f();
    LIMIT.with(|l| l.set(usize::MAX));
    (result, PEAK.with(Cell::get) - base)
}

/// A builder that allocates nothing: each value is a hash of what it holds.
struct Hash;

fn mix(h: u64, v: u64) -> u64 {
    (h ^ v).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29)
}

fn fold(items: &mut Vec<u64>, start: usize, tag: u64) -> u64 {
    let h = items[start..].iter().fold(tag, |h, &v| mix(h, v));
    items.truncate(start);
    h
}

impl Builder for Hash {
    type Value = u64;
    type Error = ();
    fn null(&mut self) -> Result<u64, ()> {
        Ok(1)
    }
    fn bool(&mut self, v: bool) -> Result<u64, ()> {
        Ok(2 + v as u64)
    }
    fn i64(&mut self, v: i64) -> Result<u64, ()> {
        Ok(mix(4, v as u64))
    }
    fn u64(&mut self, v: u64) -> Result<u64, ()> {
        Ok(mix(5, v))
    }
    fn f64(&mut self, v: f64) -> Result<u64, ()> {
        Ok(mix(6, v.to_bits()))
    }
    fn str(&mut self, v: &str) -> Result<u64, ()> {
        Ok(v.bytes().fold(7, |h, b| mix(h, b as u64)))
    }
    fn key(&mut self, v: &str) -> Result<u64, ()> {
        self.str(v)
    }
    fn bytes(&mut self, v: &[u8]) -> Result<u64, ()> {
        Ok(v.iter().fold(8, |h, &b| mix(h, b as u64)))
    }
    fn timestamp(&mut self, s: i64, n: u32) -> Result<u64, ()> {
        Ok(mix(mix(9, s as u64), n as u64))
    }
    fn array(&mut self, items: &mut Vec<u64>, start: usize) -> Result<u64, ()> {
        Ok(fold(items, start, 10))
    }
    fn map(&mut self, items: &mut Vec<u64>, start: usize) -> Result<u64, ()> {
        Ok(fold(items, start, 11))
    }
}

/// Budgets from nothing to a little past `peak`: every small one, then
/// steps that meet each doubling of the decoder's buffers.
fn budgets(peak: usize) -> Vec<usize> {
    let mut out: Vec<usize> = (0..256).collect();
    let mut b = 256;
    while b < peak + 4096 {
        out.extend([b - 1, b, b + 1, b + b / 3]);
        b *= 2;
    }
    out.extend((0..64).map(|k| peak * k / 64));
    out.push(peak);
    out
}

/// `decode` under every budget: its unlimited result, or `NoMemory`.
fn check<T: PartialEq + std::fmt::Debug>(name: &str, decode: impl Fn() -> Result<T, DecodeError>) {
    let (full, peak) = run_with_budget(usize::MAX, &decode);
    let full = full.unwrap_or_else(|e| panic!("{name}: {e:?}"));
    assert!(peak > 0, "{name} allocates nothing: nothing is tested");
    let mut refused = 0;
    for budget in budgets(peak) {
        let (result, _) = run_with_budget(budget, &decode);
        match result {
            Ok(value) => assert_eq!(value, full, "{name} under {budget} bytes"),
            Err(e) => {
                assert_eq!(e.kind, DecodeErrorKind::NoMemory, "{name} under {budget} bytes");
                refused += 1;
            }
        }
    }
    assert!(refused > 0, "{name}: no budget was too small");
}

fn syntax(f: Failure<()>) -> DecodeError {
    match f {
        Failure::Syntax(e) => e,
        Failure::Build(()) => panic!("the hashing builder never fails"),
    }
}

fn json_document() -> Vec<u8> {
    let mut doc = String::from("{\"items\": [");
    for i in 0..3000 {
        doc.push_str(&format!("{i}, {i}.5e-3, "));
    }
    doc.push_str("0],\n \"strings\": [");
    for i in 0..200 {
        // Runs of simple escapes (the block paths), \u escapes, surrogate
        // pairs, and text between them, in ever longer strings.
        let run = "ab\\n\\t\\\"\\\\c".repeat(i);
        doc.push_str(&format!("\"{run}\\u00e9\\ud83d\\ude00{}\", ", "x".repeat(i * 3)));
    }
    doc.push_str("\"end\"],\n \"nested\": ");
    doc.push_str(&"[{\"k\": ".repeat(300));
    doc.push('1');
    doc.push_str(&"}]".repeat(300));
    doc.push_str(&format!(",\n \"long\": 1{}e-3000}}", "0".repeat(5000)));
    doc.into_bytes()
}

#[test]
fn json_push_decoder_runs_out_of_memory_cleanly() {
    let doc = json_document();
    check("json parse", || scanner::parse(&doc, &mut Hash).map_err(syntax));
}

/// Walks a whole document with the pull reader, hashing strings and
/// numbers. `open` (the containers still open, innermost last: whether each
/// is an object, and whether its first item is still to come) has its room
/// already, so only the reader allocates.
fn pull_json(doc: &[u8], open: &mut Vec<(bool, bool)>) -> Result<u64, DecodeError> {
    open.clear();
    let mut p = JsonPull::new(doc)?;
    let mut h = 0u64;
    let mut value = true;
    loop {
        if value {
            match p.peek()? {
                JsonKind::Array => {
                    p.begin_array()?;
                    open.push((false, true));
                }
                JsonKind::Object => {
                    p.begin_object()?;
                    open.push((true, true));
                }
                JsonKind::String => h = p.str()?.bytes().fold(h, |h, b| mix(h, b as u64)),
                JsonKind::Number => h = mix(h, p.number_text()?.0.len() as u64),
                _ => p.skip()?,
            }
        }
        let Some(&(is_map, first)) = open.last() else {
            p.finish()?;
            return Ok(h);
        };
        let more = if is_map {
            match p.next_key(first)? {
                Some(key) => {
                    h = key.bytes().fold(h, |h, b| mix(h, b as u64));
                    true
                }
                None => false,
            }
        } else {
            p.next_item(first)?
        };
        if let Some(top) = open.last_mut() {
            top.1 = false;
        }
        value = more;
        if !more {
            open.pop();
        }
    }
}

#[test]
fn json_pull_reader_runs_out_of_memory_cleanly() {
    let doc = json_document();
    // The walk's own container stack is made before the budget applies.
    let open = std::cell::RefCell::new(Vec::with_capacity(1100));
    check("json pull", || pull_json(&doc, &mut open.borrow_mut()));
    check("json skip", || {
        let mut p = JsonPull::new(&doc)?;
        p.skip()?;
        p.finish()
    });
}

fn msgpack_document() -> Vec<u8> {
    let mut doc = vec![0x84];
    // An array32 of 70 000 small ints: past the stack's presize limit.
    doc.extend([0xa5, b'i', b't', b'e', b'm', b's', 0xdd]);
    doc.extend(70_000u32.to_be_bytes());
    doc.extend((0..70_000u32).map(|i| (i % 128) as u8));
    // A map16 of 3000 str keys to arrays.
    doc.extend([0xa4, b'm', b'a', b'p', b's', 0xde]);
    doc.extend(3000u16.to_be_bytes());
    for i in 0..3000u32 {
        let key = format!("k{i}");
        doc.push(0xa0 | key.len() as u8);
        doc.extend(key.bytes());
        doc.extend([0x93, 0xc0, 0xc3, 0xcb]);
        doc.extend((i as f64).to_be_bytes());
    }
    // Nested arrays 500 deep, then bin and str of some size.
    doc.extend([0xa6, b'n', b'e', b's', b't', b'e', b'd']);
    doc.extend(std::iter::repeat_n(0x91, 500));
    doc.extend([0xc5, 0x10, 0x00]);
    doc.extend(std::iter::repeat_n(7u8, 0x1000));
    doc.extend([0xa4, b'l', b'a', b's', b't', 0xda, 0x01, 0x00]);
    doc.extend(std::iter::repeat_n(b'z', 256));
    doc
}

#[test]
fn msgpack_push_decoder_runs_out_of_memory_cleanly() {
    let doc = msgpack_document();
    check("msgpack read", || reader::read(&doc, &mut Hash, ReadOptions::default()).map_err(syntax));
}

#[test]
fn msgpack_pull_reader_runs_out_of_memory_cleanly() {
    let doc = msgpack_document();
    check("msgpack skip", || {
        let mut p = MsgpackPull::new(&doc);
        p.skip()?;
        Ok(p.pos())
    });
}

#[test]
fn a_container_declaring_all_its_input_reserves_only_a_bounded_start() {
    // 4 MiB of input really holding the 2^22 items its array32 declares:
    // the decoder does not ask for 2^22 slots before reading them.
    let n = 1usize << 22;
    let mut doc = vec![0xdd];
    doc.extend((n as u32).to_be_bytes());
    doc.resize(5 + n, 0);
    let (result, peak) = run_with_budget(usize::MAX, || reader::read(&doc, &mut Hash, ReadOptions::default()));
    assert!(result.is_ok());
    // The stack ends at 2^22 eight-byte values (32 MiB) grown by doubling;
    // under a budget of a few MiB it stops with NoMemory instead of asking
    // for 32 MiB at the header.
    assert!(peak >= n * 8, "{peak}");
    let (result, peak) = run_with_budget(4 << 20, || reader::read(&doc, &mut Hash, ReadOptions::default()));
    assert_eq!(result.map_err(|f| syntax(f).kind), Err(DecodeErrorKind::NoMemory));
    assert!(peak <= 4 << 20);
}

#[test]
fn growth_falls_back_to_smaller_steps_when_doubling_is_refused() {
    // 1024 eight-byte items fill 8 KiB; with 5 KiB more allowed, doubling
    // (8 KiB more) is refused but half as much again (4 KiB) is not: the
    // vector takes 512 more items, then stops with an error (the next steps,
    // even an eighth more, would exceed the budget).
    let mut v: Vec<u64> = Vec::new();
    orcodec_core::fallible::reserve(&mut v, 1024).unwrap();
    v.resize(1024, 0);
    assert_eq!(v.capacity(), 1024);
    let (pushed, _) = run_with_budget(5 << 10, || {
        let mut n = 0;
        while orcodec_core::fallible::push(&mut v, 1).is_ok() {
            n += 1;
        }
        n
    });
    assert_eq!((pushed, v.capacity()), (512, 1536));
    assert_eq!(v.len(), 1536);
    assert_eq!(orcodec_core::fallible::reserve(&mut v, 1), Ok(()));
}
