//! JSON to MessagePack and back with no values in between: one format's pull
//! reader drives the other format's writer, token by token.
//!
//! * [`json_to_msgpack`]: the bytes `packb(loads(data))` gives.
//! * [`msgpack_to_json`]: the bytes `dumps(unpackb(data), option)` gives.
//!
//! Both validate the whole input as the readers do (UTF-8, structure,
//! lengths, depth), so invalid input fails with the reader's
//! [`DecodeError`], kind and offset. What the two-step would do that has no
//! counterpart here (a value the other format cannot hold, nesting past the
//! encoders' limit) ends the transcode with [`TranscodeError::Unsupported`]:
//! a caller that must match the two-step in every case (the extension) then
//! runs the two-step, which raises exactly what it raises.
//!
//! What the objects in between would have done is done on the bytes:
//! * A map key seen twice keeps its first place and takes the last value
//!   (a dict's rule), so the entry is spliced in the output ([`keys`] finds
//!   repeated keys: in a small map a filter of its keys' bits, then a scan
//!   of its keys only for a key whose bit is set; a hash table for larger
//!   maps).
//! * MessagePack needs a container's count before its items, and JSON gives
//!   it only at the end (and repeated keys lower it). Each container gets a
//!   one-byte placeholder, enough for the fix forms (under 16 items, the
//!   common case, patched in place when it closes); a larger container
//!   leaves a patch, and one pass at the end, from the back, moves every byte
//!   at most once to make room for the 3- or 5-byte headers.
//! * `OPT_SORT_KEYS` orders a map's entries when it closes, by the text its
//!   keys would have as str (UTF-8 order, which is code point order).

pub mod base64;
mod json_to_msgpack;
mod keys;
mod msgpack_to_json;
#[cfg(any(test, fuzzing))]
pub mod reference;

pub use json_to_msgpack::{json_to_msgpack, JsonToMsgpack};
pub use msgpack_to_json::{msgpack_to_json, MsgpackToJson, ToJsonOptions};

use crate::error::DecodeError;
use crate::sink::Sink;

/// Deepest nesting the extension's encoders write (its walker's limit): a
/// container opened inside this many is [`Unsupported::Depth`].
pub const MAX_ENCODE_DEPTH: usize = 255;

/// An output the transcoders can rewrite: a [`Sink`] whose bytes written so
/// far are one slice. Once the sink failed (`Sink::failed`), the transcoders
/// stop at once and never look at `written()` again.
///
/// # Safety
/// Until the sink failed, `written()` must be exactly the `len()` bytes
/// written so far, and `room()` bytes past `tail()` must be writable (as if
/// reserved) without a call to `reserve`; once it failed, `room()` is 0.
pub unsafe trait Output: Sink {
    /// The bytes written so far.
    fn written(&mut self) -> &mut [u8];
    /// Bytes that can be written past `tail()` without growing: a writer
    /// that would rather not grow the output for room it may not use (a
    /// block stored whole before its end is known) asks this first.
    fn room(&self) -> usize;
}

// SAFETY: a Vec's bytes are one slice of its length; its spare capacity is
// writable.
unsafe impl Output for Vec<u8> {
    #[inline(always)]
    fn written(&mut self) -> &mut [u8] {
        self
    }
    #[inline(always)]
    fn room(&self) -> usize {
        self.capacity() - self.len()
    }
}

/// What a transcoder does not do itself, where the two-step either raises
/// an encode error or needs the objects to decide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unsupported {
    /// A container nested deeper than [`MAX_ENCODE_DEPTH`].
    Depth,
    /// A MessagePack bin value, which JSON cannot hold (unless base64).
    Bin,
    /// A MessagePack extension value, which JSON cannot hold (unless base64).
    Ext(i8),
    /// A map key JSON has no text for (bin, ext, array).
    Key,
    /// An integer beyond 53 bits with the strict-integer option.
    Integer53,
    /// A timestamp outside years 1 to 9999 (no datetime).
    Timestamp,
    /// A str or container longer than MessagePack can declare (2**32-1).
    TooLong,
    /// The output could not be grown.
    Output,
}

/// Why a transcode stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TranscodeError {
    /// The input is not valid: the reader's error, kind and offset.
    Decode(DecodeError),
    /// A value the transcoder leaves to the two-step, at this input offset.
    Unsupported(Unsupported, usize),
}

impl From<DecodeError> for TranscodeError {
    #[inline(always)]
    fn from(e: DecodeError) -> Self {
        TranscodeError::Decode(e)
    }
}

/// Pushes `value` written in place: `Vec::push` keeps the value on the
/// stack across the growth it may call and copies it from there with wide
/// loads that wait for the narrow stores that built it (a stall measured at
/// a tenth of a transcode for its frames and map entries). Growth is
/// fallible: [`no_memory`] when the room cannot be had.
#[inline(always)]
fn push<T>(v: &mut Vec<T>, value: T) -> Result<(), TranscodeError> {
    crate::fallible::reserve(v, 1).map_err(|_| no_memory())?;
    // SAFETY: room for one more was reserved just above; it is written
    // whole before the length counts it.
    unsafe {
        let len = v.len();
        v.as_mut_ptr().add(len).write(value);
        v.set_len(len + 1);
    }
    Ok(())
}

/// A transcoder's own working memory (its stacks, tables and scratch) could
/// not be grown: the caller raises MemoryError, as for a reader's
/// [`DecodeErrorKind::NoMemory`](crate::error::DecodeErrorKind::NoMemory).
#[cold]
fn no_memory() -> TranscodeError {
    TranscodeError::Decode(DecodeError::new(crate::error::DecodeErrorKind::NoMemory, 0))
}

/// Grows `out` by `n` zero bytes (to be overwritten).
fn grow<O: Output>(out: &mut O, n: usize) -> Result<(), TranscodeError> {
    if !out.reserve(n) {
        return Err(TranscodeError::Unsupported(Unsupported::Output, 0));
    }
    // SAFETY: `n` bytes reserved just above, each written before it is
    // marked as written.
    unsafe {
        core::ptr::write_bytes(out.tail(), 0, n);
        out.advance(n);
    }
    check(out)
}

/// `Unsupported::Output` once the output failed.
#[inline(always)]
fn check<O: Output>(out: &O) -> Result<(), TranscodeError> {
    if out.failed() {
        return Err(TranscodeError::Unsupported(Unsupported::Output, 0));
    }
    Ok(())
}

/// A map entry that repeated the key of its entry `j` ended: the entry,
/// which starts at `entry_start` (its separator and key) and whose value is
/// `value_start..` (to the end of the output), goes, and its value takes the
/// place of entry `j`'s, as a dict keeps a repeated key's first place and
/// last value. Returns the range the replaced value had and how far what
/// followed it moved (new minus old value length).
#[cold]
fn splice_repeat<O: Output>(
    keys: &mut keys::Keys,
    map: keys::MapKeys,
    j: usize,
    entry_start: usize,
    value_start: usize,
    tmp: &mut Vec<u8>,
    out: &mut O,
) -> Result<(core::ops::Range<usize>, isize), TranscodeError> {
    let old = keys.entry(map, j).value_start..keys.value_end(map, j, entry_start);
    let delta = replace_value(out, tmp, old.clone(), entry_start, value_start)?;
    keys.shift(map, j + 1, delta);
    Ok((old, delta))
}

/// The entry that starts at `entry_start` (its separator and key) and whose
/// value is `value_start..` (to the end of the output) goes, and that value
/// replaces `old` (the earlier value of the same key). Returns how far what
/// followed `old` moved (new minus old value length).
fn replace_value<O: Output>(
    out: &mut O,
    tmp: &mut Vec<u8>,
    old: core::ops::Range<usize>,
    entry_start: usize,
    value_start: usize,
) -> Result<isize, TranscodeError> {
    check(out)?;
    tmp.clear();
    crate::fallible::extend(tmp, &out.written()[value_start..]).map_err(|_| no_memory())?;
    out.truncate(entry_start);
    let (old_len, new_len) = (old.end - old.start, tmp.len());
    let end = out.len();
    if new_len > old_len {
        grow(out, new_len - old_len)?;
        out.written().copy_within(old.end..end, old.start + new_len);
    } else {
        out.written().copy_within(old.end..end, old.start + new_len);
        out.truncate(end - (old_len - new_len));
    }
    out.written()[old.start..old.start + new_len].copy_from_slice(tmp);
    Ok(new_len as isize - old_len as isize)
}

#[cfg(test)]
mod tests;
