//! The event interface between the object walker and a format backend.
//!
//! The walker (in the extension) knows Python types; an `Emitter` knows bytes.
//! The walker is generic over `Emitter` and monomorphized per format, so these
//! calls are direct and inlined: no dynamic dispatch per value.

use crate::text::{SurrogateError, Text};

pub trait Emitter {
    /// Whether the format has a binary type. Without one (JSON), the walker
    /// sends `bytes`-like objects to `default` instead of calling `bin`.
    const HAS_BIN: bool;
    /// Whether map keys may be any value (MessagePack). Without it (JSON), the
    /// walker turns non-str keys into text and calls `key`/`ascii_key`.
    const NATIVE_KEYS: bool;

    /// Whether the output could not be grown (see [`Sink::failed`]): what was
    /// written since is lost, and the driver stops and raises MemoryError.
    /// The walker checks it at every container, so a failed write is not
    /// followed by a walk through the rest of the object.
    ///
    /// [`Sink::failed`]: crate::sink::Sink::failed
    fn failed(&self) -> bool;

    fn null(&mut self);
    fn bool(&mut self, value: bool);
    fn i64(&mut self, value: i64);
    fn u64(&mut self, value: u64);
    fn f64(&mut self, value: f64);
    /// A single-precision float (numpy float32/float16), written as such.
    fn f32(&mut self, value: f32);
    fn str(&mut self, value: Text<'_>) -> Result<(), SurrogateError>;
    /// A str whose text is at hand as valid UTF-8 (a compact ASCII str's
    /// characters): the output of `str(Text::Utf8(value))`, which cannot
    /// fail. Its own event so the walker's hot path never builds a `Text`
    /// (an enum assembled on the stack and read back whole stalls the store
    /// buffer).
    fn utf8(&mut self, value: &[u8]);
    /// A map key that is a string; both formats write it as a string value.
    #[inline(always)]
    fn key(&mut self, value: Text<'_>) -> Result<(), SurrogateError> {
        self.str(value)
    }
    /// A map key given as `utf8` is.
    #[inline(always)]
    fn utf8_key(&mut self, value: &[u8]) {
        self.utf8(value)
    }
    /// A whole map key given as `utf8_key` is, with what goes around it:
    /// the output of `map_key(index)`, `utf8_key(value)` and `map_value()`,
    /// which is what the default does. A backend may write it in one step.
    #[inline(always)]
    fn utf8_entry_key(&mut self, index: usize, value: &[u8]) {
        self.map_key(index);
        self.utf8_key(value);
        self.map_value();
    }
    /// Binary data; only called when `HAS_BIN`.
    fn bin(&mut self, value: &[u8]);
    /// ASCII text with nothing to escape (formatted dates, UUIDs, numbers as
    /// keys): the walker vouches for it, so no scan is needed.
    fn ascii(&mut self, value: &[u8]);
    /// Such ASCII text, at most `MAX` (< 256) bytes, written by `fill`
    /// straight into the output: `fill` gets `MAX` writable bytes and returns
    /// how many it wrote. Text built elsewhere and copied in is read back
    /// right after its byte stores, which stalls the store buffer.
    #[inline(always)]
    fn ascii_in_place<const MAX: usize>(&mut self, fill: impl FnOnce(*mut u8) -> usize) {
        let mut buffer = [0u8; MAX];
        let len = fill(buffer.as_mut_ptr());
        self.ascii(&buffer[..len]);
    }
    /// A map key of such ASCII text.
    #[inline(always)]
    fn ascii_key(&mut self, value: &[u8]) {
        self.ascii(value)
    }
    /// Content already encoded in this format, copied verbatim (`Fragment`).
    fn raw(&mut self, value: &[u8]);
    /// An extension value (tag, payload); only called when `HAS_BIN`.
    fn ext(&mut self, tag: i8, data: &[u8]);
    /// The header of an extension value whose `len` payload bytes follow
    /// (written with `raw` and `raw_in_place`); only called when `HAS_BIN`.
    /// Lets a large payload be written in place rather than assembled first.
    fn ext_header(&mut self, tag: i8, len: usize);
    /// The header of a bin value whose `len` bytes follow likewise; only
    /// called when `HAS_BIN`.
    fn bin_header(&mut self, len: usize);
    /// Bytes written so far (where the next byte goes in the output).
    fn position(&self) -> usize;
    /// `len` bytes written straight into the output by `fill`, which gets a
    /// pointer to `len` writable bytes and must initialize every one of them.
    /// When that room cannot be had, `fill` is not called and the output
    /// has failed (see [`crate::sink::Sink::failed`]); only called when `HAS_BIN`.
    fn raw_in_place(&mut self, len: usize, fill: impl FnOnce(*mut u8));

    /// An array of exactly `len` items follows: `array_item` before each, then `end_array`.
    fn begin_array(&mut self, len: usize);
    fn array_item(&mut self, index: usize);
    fn end_array(&mut self, len: usize);

    /// A map of exactly `len` entries follows: for each entry `map_key`, the
    /// key, `map_value`, the value; then `end_map`.
    fn begin_map(&mut self, len: usize);
    fn map_key(&mut self, index: usize);
    fn map_value(&mut self);
    fn end_map(&mut self, len: usize);

    /// An empty array (`begin_array(0)` then `end_array(0)`), in one step.
    #[inline(always)]
    fn empty_array(&mut self) {
        self.begin_array(0);
        self.end_array(0);
    }
    /// An empty map (`begin_map(0)` then `end_map(0)`), in one step.
    #[inline(always)]
    fn empty_map(&mut self) {
        self.begin_map(0);
        self.end_map(0);
    }

    /// All the items of an array of integers held in memory (a numpy row),
    /// between `begin_array` and `end_array`: the same output as
    /// `array_item(i)` and `i64` for each, which is what the default does.
    /// A backend may write them in one loop of its own.
    #[inline]
    fn i64_items<T: Copy + Ord + Into<i64>>(&mut self, values: &[T]) {
        items_one_by_one(self, values, |e, v| e.i64(v.into()));
    }
    /// As `i64_items`, for unsigned integers (`u64` for each).
    #[inline]
    fn u64_items<T: Copy + Ord + Into<u64>>(&mut self, values: &[T]) {
        items_one_by_one(self, values, |e, v| e.u64(v.into()));
    }
    /// As `i64_items`, for doubles (`f64` for each).
    #[inline]
    fn f64_items(&mut self, values: &[f64]) {
        items_one_by_one(self, values, |e, v| e.f64(v));
    }
    /// A whole array of doubles (a short list of floats: a coordinate pair,
    /// a bounding box): the same output as `begin_array`, `array_item(i)`
    /// and `f64` for each, then `end_array`, which is what the default does.
    #[inline(always)]
    fn f64_array(&mut self, values: &[f64]) {
        self.begin_array(values.len());
        for (i, &v) in values.iter().enumerate() {
            self.array_item(i);
            self.f64(v);
        }
        self.end_array(values.len());
    }
    /// Items `index`, `index + 1`, ... of an array (`index < end`), each a
    /// double that `value` reads, up to `end` or to the first item it gives
    /// None for: the same output as `array_item(i)` and `f64` for each,
    /// which is what the default does. Returns the index of the first item
    /// not written (`end` when all were). A backend may write the run in
    /// one loop of its own (the lists of floats of coordinates and
    /// measurements); `value` must not run code that changes the array.
    #[inline(always)]
    fn f64_run(&mut self, index: usize, end: usize, value: impl Fn(usize) -> Option<f64>) -> usize {
        f64_run_one_by_one(self, index, end, value)
    }
    /// `f64_run` for items that are integers (ids, counts): the same output
    /// as `array_item(i)` and `i64` for each, which is what the default
    /// does.
    #[inline(always)]
    fn i64_run(&mut self, index: usize, end: usize, value: impl Fn(usize) -> Option<i64>) -> usize {
        i64_run_one_by_one(self, index, end, value)
    }
    /// As `i64_items`, for bools stored one per byte, any non-zero byte
    /// being true (`bool` for each).
    #[inline]
    fn bool_items(&mut self, values: &[u8]) {
        items_one_by_one(self, values, |e, v| e.bool(v != 0));
    }
}

/// What the `*_items` events do by default: `array_item` and the value's
/// own event for each item. Also the JSON writer's pretty form of them.
#[inline(always)]
pub fn items_one_by_one<E: Emitter + ?Sized, T: Copy>(emitter: &mut E, values: &[T], write: impl Fn(&mut E, T)) {
    for (i, &value) in values.iter().enumerate() {
        emitter.array_item(i);
        write(emitter, value);
    }
}

/// What `i64_run` does by default: `array_item` and `i64` for each item
/// from `index` until `end` or the first `value` gives None for; returns
/// the index of the first item not written. Also the JSON writer's pretty
/// form of it.
#[inline(always)]
pub fn i64_run_one_by_one<E: Emitter + ?Sized>(
    emitter: &mut E,
    index: usize,
    end: usize,
    value: impl Fn(usize) -> Option<i64>,
) -> usize {
    let mut i = index;
    while i < end {
        let Some(v) = value(i) else {
            break;
        };
        emitter.array_item(i);
        emitter.i64(v);
        i += 1;
    }
    i
}

/// What `f64_run` does by default: `array_item` and `f64` for each item
/// from `index` until `end` or the first `value` gives None for; returns
/// the index of the first item not written. Also the JSON writer's pretty
/// form of it.
#[inline(always)]
pub fn f64_run_one_by_one<E: Emitter + ?Sized>(
    emitter: &mut E,
    index: usize,
    end: usize,
    value: impl Fn(usize) -> Option<f64>,
) -> usize {
    let mut i = index;
    while i < end {
        let Some(v) = value(i) else {
            break;
        };
        emitter.array_item(i);
        emitter.f64(v);
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::Emitter;
    use crate::json::writer::{CompactJsonWriter, PrettyJsonWriter};
    use crate::msgpack::writer::MsgpackWriter;
    use crate::text::Text;

    /// `utf8`/`utf8_key` write what `str`/`key` write for the same UTF-8 text.
    fn same_as_str<E: Emitter>(new: impl Fn() -> E, output: impl Fn(E) -> Vec<u8>, text: &str) {
        let (mut a, mut b) = (new(), new());
        a.utf8(text.as_bytes());
        a.utf8_key(text.as_bytes());
        b.str(Text::Utf8(text.as_bytes())).unwrap();
        b.key(Text::Utf8(text.as_bytes())).unwrap();
        assert_eq!(output(a), output(b), "{text:?}");
    }

    #[test]
    fn ascii_in_place_equals_ascii() {
        // Every length up to the most a caller asks for, across MessagePack's
        // fixstr/str8 boundary at 32.
        for len in 0..=40usize {
            let text: Vec<u8> = (0..len).map(|k| b'0' + (k % 10) as u8).collect();
            let fill = |at: *mut u8| {
                // SAFETY: the emitter hands over 40 writable bytes.
                unsafe { core::ptr::copy_nonoverlapping(text.as_ptr(), at, len) };
                len
            };
            let (mut a, mut b) = (CompactJsonWriter::new(Vec::new()), CompactJsonWriter::new(Vec::new()));
            a.ascii_in_place::<40>(fill);
            b.ascii(&text);
            assert_eq!(a.out, b.out);
            let (mut a, mut b) = (MsgpackWriter::new(Vec::new()), MsgpackWriter::new(Vec::new()));
            a.ascii_in_place::<40>(fill);
            b.ascii(&text);
            assert_eq!(a.out, b.out, "{len}");
        }
    }

    #[test]
    fn utf8_events_equal_str_events() {
        let pieces = ["a", "\"", "\\", "\n", "\u{1}", "é", "中", "😀", "\u{7f}"];
        for len in 0..300 {
            for piece in pieces {
                let text: String = (0..len).map(|k| if k % 37 == 5 { piece } else { "x" }).collect();
                same_as_str(|| CompactJsonWriter::new(Vec::new()), |w| w.out, &text);
                same_as_str(|| PrettyJsonWriter::new(Vec::new()), |w| w.out, &text);
                same_as_str(|| MsgpackWriter::new(Vec::new()), |w| w.out, &text);
            }
        }
    }
}
