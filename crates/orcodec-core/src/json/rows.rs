//! Rows of numbers (numpy arrays) for the JSON writer's `*_items` events:
//! one reservation per chunk, then plain stores.

use crate::number::float::zmij_in_place;
use crate::number::int;
use crate::sink::Sink;

/// Items written per reservation: bounds how far ahead space is reserved.
const ROW_CHUNK: usize = 256;

/// Most decimal digits of an unsigned integer of `size` bytes.
pub(super) const fn decimal_width(size: usize) -> usize {
    match size {
        1 => 3,
        2 => 5,
        4 => 10,
        _ => 20,
    }
}

/// What [`put_f64`] may reserve for one item (zmij writes at most 24 bytes).
pub(super) const F64_ITEM_RESERVE: usize = 32;

/// A [`Sink`] over space already reserved in another one, so a row's loop
/// keeps its write position in a register. `reserve` only checks (it
/// cannot grow); the row writers reserve each item's worst case up front.
pub(crate) struct Reserved {
    at: *mut u8,
    len: usize,
    cap: usize,
}

#[cold]
#[inline(never)]
#[expect(
    clippy::panic,
    reason = "an invariant: each row writer reserves its items' worst case, tested for every width"
)]
fn reserved_too_little() -> ! {
    panic!("orcodec: a row writer reserved too little space")
}

// SAFETY: `reserve` never returns unless `cap - len >= additional`, and the
// constructor's contract is that `at` points at `cap` writable bytes.
unsafe impl Sink for Reserved {
    #[inline(always)]
    fn len(&self) -> usize {
        self.len
    }
    #[inline(always)]
    fn reserve(&mut self, additional: usize) -> bool {
        if self.cap - self.len < additional {
            reserved_too_little();
        }
        true
    }
    #[inline(always)]
    fn failed(&self) -> bool {
        false
    }
    #[inline(always)]
    fn truncate(&mut self, len: usize) {
        self.len = len;
    }
    #[inline(always)]
    fn tail(&mut self) -> *mut u8 {
        // SAFETY: `len <= cap`: inside (or one past) the reserved space.
        unsafe { self.at.add(self.len) }
    }
    #[inline(always)]
    unsafe fn advance(&mut self, n: usize) {
        self.len += n;
    }
}

/// Writes each of `values` with `put`, which may write at most `width`
/// bytes, back to back (MessagePack rows: no separators). One reservation
/// per chunk, so the per-item loop keeps its position in a register.
#[inline(always)]
pub(crate) fn write_rows<S: Sink, T: Copy>(out: &mut S, values: &[T], width: usize, put: impl Fn(&mut Reserved, T)) {
    for chunk in values.chunks(ROW_CHUNK) {
        let need = chunk.len() * width;
        if !out.reserve(need) {
            return;
        }
        // SAFETY: `need` bytes reserved just above.
        let mut r = Reserved { at: out.tail(), len: 0, cap: need };
        for &value in chunk {
            put(&mut r, value);
        }
        // SAFETY: `r.len` bytes were written into the reserved space.
        unsafe { out.advance(r.len) };
    }
}

/// Writes `values` as the items of an array (commas between): `put`
/// writes one, and may write at most `width` bytes. A function rather than
/// a closure: inlined here, its address is a constant, and an
/// `#[inline(always)]` item writer is inlined into the loop whatever its
/// size (a closure's call is inlined only while it is small).
#[inline(always)]
pub(super) fn write_items<S: Sink, T: Copy>(out: &mut S, values: &[T], width: usize, put: fn(&mut Reserved, T)) {
    for (c, chunk) in values.chunks(ROW_CHUNK).enumerate() {
        if !write_chunk(out, chunk, c != 0, width, put) {
            return;
        }
    }
}

/// One chunk of [`write_items`], after a comma when `comma`; false when
/// the output could not grow (the sink then holds the error).
#[inline(always)]
fn write_chunk<S: Sink, T: Copy>(
    out: &mut S,
    chunk: &[T],
    comma: bool,
    width: usize,
    put: impl Fn(&mut Reserved, T),
) -> bool {
    // The last item's store may run past its text (see `put_digits`).
    let need = chunk.len() * (width + 1) + 16;
    if !out.reserve(need) {
        return false;
    }
    // SAFETY: `need` bytes reserved just above.
    let mut r = Reserved { at: out.tail(), len: 0, cap: need };
    let Some((first, rest)) = chunk.split_first() else {
        return true;
    };
    if comma {
        r.push(b',');
    }
    put(&mut r, *first);
    for &value in rest {
        r.push(b',');
        put(&mut r, value);
    }
    // SAFETY: `r.len` bytes were written into the reserved space.
    unsafe { out.advance(r.len) };
    true
}

/// Integers as the items of an array, as [`write_items`], a chunk at a
/// time in one of three loops, by the chunk's smallest and largest values.
/// A chunk whose values all have the same number of digits and no sign
/// (`arange`, ids of one width) is written at a fixed stride, every value
/// formatted the same way ([`write_fixed_chunk`]). Other chunks of small
/// values (counts: below 2**17, at most 6 digits) go digit pair by digit
/// pair, with branches on the length that such rows predict; the rest,
/// whose lengths vary at random in real data (ids, timestamps), without a
/// branch on the length ([`put_digits`]). Each loop is a function of its
/// own: one loop's constants and registers would slow another's even where
/// never taken.
#[inline(always)]
pub(super) fn write_int_items<S: Sink, T: Copy + Ord>(
    out: &mut S,
    values: &[T],
    width: usize,
    magnitude: impl Fn(T) -> u64 + Copy,
    plain: impl Fn(T) -> u64 + Copy,
    pairs: impl Fn(&mut Reserved, T) + Copy,
    digits: impl Fn(&mut Reserved, T) + Copy,
) {
    for (c, chunk) in values.chunks(ROW_CHUNK).enumerate() {
        let comma = c != 0;
        let written = if let Some(n) = one_width(chunk, plain) {
            match n {
                1 => write_fixed_chunk::<S, T, 1>(out, chunk, comma, plain),
                2 => write_fixed_chunk::<S, T, 2>(out, chunk, comma, plain),
                3 => write_fixed_chunk::<S, T, 3>(out, chunk, comma, plain),
                4 => write_fixed_chunk::<S, T, 4>(out, chunk, comma, plain),
                5 => write_fixed_chunk::<S, T, 5>(out, chunk, comma, plain),
                6 => write_fixed_chunk::<S, T, 6>(out, chunk, comma, plain),
                7 => write_fixed_chunk::<S, T, 7>(out, chunk, comma, plain),
                8 => write_fixed_chunk::<S, T, 8>(out, chunk, comma, plain),
                9 => write_fixed_chunk::<S, T, 9>(out, chunk, comma, plain),
                10 => write_fixed_chunk::<S, T, 10>(out, chunk, comma, plain),
                _ => write_chunk_apart(out, chunk, comma, width, digits),
            }
        } else if chunk.iter().fold(0, |m, &v| m | magnitude(v)) < 1 << 17 {
            write_chunk_apart(out, chunk, comma, width, pairs)
        } else {
            write_chunk_apart(out, chunk, comma, width, digits)
        };
        if !written {
            return;
        }
    }
}

/// How many digits each of `chunk`'s values has (at most 10), if they all
/// have as many and none is negative (`plain` gives a negative value 19 or
/// 20 digits). A block at a time, each one's least and greatest by value
/// (vectorized): a chunk of values of random lengths is given up after its
/// first block.
#[inline(always)]
fn one_width<T: Copy + Ord>(chunk: &[T], plain: impl Fn(T) -> u64) -> Option<usize> {
    let first = *chunk.first()?;
    let n = int::digit_count(plain(first));
    if n > 10 {
        return None;
    }
    for block in chunk.chunks(32) {
        let (lo, hi) = block.iter().fold((first, first), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        if int::digit_count(plain(lo)) != n || int::digit_count(plain(hi)) != n {
            return None;
        }
    }
    Some(n)
}

/// [`write_chunk`] out of line: each item writer gets a loop of its own.
#[inline(never)]
fn write_chunk_apart<S: Sink, T: Copy>(
    out: &mut S,
    chunk: &[T],
    comma: bool,
    width: usize,
    put: impl Fn(&mut Reserved, T),
) -> bool {
    write_chunk(out, chunk, comma, width, put)
}

/// One chunk of [`write_int_items`] whose values all have `N` digits and
/// no sign: each value and a comma at a fixed stride of `N + 1` bytes, one
/// store per value and no branch at all; the last comma is not kept.
/// False when the output could not grow (the sink then holds the error).
#[inline(never)]
fn write_fixed_chunk<S: Sink, T: Copy, const N: usize>(
    out: &mut S,
    chunk: &[T],
    comma: bool,
    plain: impl Fn(T) -> u64,
) -> bool {
    // Each value's store is 8 bytes (up to 7 digits and the comma), else 16.
    let need = 1 + chunk.len() * (N + 1) + 16;
    if !out.reserve(need) {
        return false;
    }
    // SAFETY: `need` bytes reserved just above. Item k's store starts at
    // `comma + k * (N + 1)` and is at most 16 bytes: the last one ends by
    // `1 + (len - 1) * (N + 1) + 16 < need`.
    unsafe {
        let start = out.tail();
        *start = b',';
        let mut at = start.add(comma as usize);
        let put = |at: *mut u8, word: u128| {
            if N < 8 {
                (at as *mut u64).write_unaligned((word as u64).to_le());
            } else {
                (at as *mut u128).write_unaligned(word.to_le());
            }
        };
        let mut pairs = chunk.chunks_exact(2);
        for pair in &mut pairs {
            let (a, b) = int::exact_digits_pair::<N>(plain(pair[0]), plain(pair[1]), b',');
            put(at, a);
            put(at.add(N + 1), b);
            at = at.add(2 * (N + 1));
        }
        if let [last] = *pairs.remainder() {
            put(at, int::exact_digits::<N>(plain(last), b','));
            at = at.add(N + 1);
        }
        out.advance(at.offset_from(start) as usize - 1);
    }
    true
}

/// `v` in decimal, straight into the reserved space (at most 20 bytes),
/// digit pair by digit pair from the end.
#[inline(always)]
pub(super) fn put_u64(r: &mut Reserved, v: u64) {
    let n = int::digit_count(v);
    let _ = r.reserve(n);
    // SAFETY: `n` bytes reserved just above, which the digits fill exactly.
    unsafe {
        int::write_digits(r.tail(), v, n);
        r.advance(n);
    }
}

/// `v` in decimal as [`put_u64`], without a branch on its length below
/// 10**10: a 16-byte store of all ten digits, shifted past the leading
/// zeros, of which only the digits are kept.
#[inline(always)]
pub(super) fn put_digits(r: &mut Reserved, v: u64) {
    if v >= 10_000_000_000 {
        return put_u64_long(r, v);
    }
    let _ = r.reserve(16);
    // SAFETY: 16 bytes reserved just above.
    unsafe {
        let n = int::write_below_1e10(r.tail(), v);
        r.advance(n);
    }
}

/// `put_u64` of 11 digits or more: out of line, so that the rows' loops
/// stay small.
#[inline(never)]
fn put_u64_long(r: &mut Reserved, v: u64) {
    put_u64(r, v);
}

/// A `-`, kept only for a negative value. The sign of array data is often
/// random: the `-` is always written, instead of a branch that mispredicts
/// on half of them (numpy int32 rows: one misprediction per value).
#[inline(always)]
fn put_sign(r: &mut Reserved, v: i64) {
    let _ = r.reserve(1);
    // SAFETY: one byte reserved just above.
    unsafe {
        *r.tail() = b'-';
        r.advance((v < 0) as usize);
    }
}

#[inline(always)]
pub(super) fn put_i64(r: &mut Reserved, v: i64) {
    put_sign(r, v);
    put_u64(r, v.unsigned_abs());
}

/// The row item writers for [`write_int_items`]: signed and unsigned, each
/// digit pair by digit pair (`*_pairs`) or without a branch on the length.
#[inline(always)]
pub(super) fn put_i64_pairs<T: Into<i64>>(r: &mut Reserved, v: T) {
    put_i64(r, v.into());
}

#[inline(always)]
pub(super) fn put_i64_digits<T: Into<i64>>(r: &mut Reserved, v: T) {
    let v = v.into();
    put_sign(r, v);
    put_digits(r, v.unsigned_abs());
}

#[inline(always)]
pub(super) fn put_u64_pairs<T: Into<u64>>(r: &mut Reserved, v: T) {
    put_u64(r, v.into());
}

#[inline(always)]
pub(super) fn put_u64_digits<T: Into<u64>>(r: &mut Reserved, v: T) {
    put_digits(r, v.into());
}

/// The text of each byte value as an int8 (`SIGNED`) or uint8, indexed by
/// the byte: up to four characters, then the length in the last byte.
const fn byte_texts(signed: bool) -> [[u8; 5]; 256] {
    let mut table = [[0u8; 5]; 256];
    let mut b = 0;
    while b < 256 {
        let value: i32 = if signed && b >= 128 { b as i32 - 256 } else { b as i32 };
        let mut text = [0u8; 5];
        let mut n = 0;
        if value < 0 {
            text[0] = b'-';
            n = 1;
        }
        let abs = if value < 0 { -value } else { value };
        let digits = if abs >= 100 {
            3
        } else if abs >= 10 {
            2
        } else {
            1
        };
        let mut i = digits;
        let mut rest = abs;
        while i > 0 {
            text[n + i - 1] = b'0' + (rest % 10) as u8;
            rest /= 10;
            i -= 1;
        }
        text[4] = (n + digits) as u8;
        table[b] = text;
        b += 1;
    }
    table
}

pub(super) static I8_TEXT: [[u8; 5]; 256] = byte_texts(true);

pub(super) static U8_TEXT: [[u8; 5]; 256] = byte_texts(false);

/// A one-byte integer from its table: one 4-byte store, no branches.
#[inline(always)]
pub(super) fn put_byte(r: &mut Reserved, table: &[[u8; 5]; 256], byte: u8) {
    let text = &table[byte as usize];
    let _ = r.reserve(4);
    // SAFETY: 4 bytes reserved just above; `text[4]` (at most 4) of them are the text.
    unsafe {
        (r.tail() as *mut [u8; 4]).write_unaligned([text[0], text[1], text[2], text[3]]);
        r.advance(text[4] as usize);
    }
}

/// One double as [`write_f64`](crate::number::float::write_f64) writes it, formatted in place.
#[inline(always)]
pub(super) fn put_f64(r: &mut Reserved, value: f64) {
    if !value.is_finite() {
        r.extend(b"null");
        return;
    }
    let _ = r.reserve(F64_ITEM_RESERVE);
    // SAFETY: F64_ITEM_RESERVE (32) bytes reserved just above.
    unsafe {
        let n = zmij_in_place(value, r.tail());
        r.advance(n);
    }
}

/// Bools (one per byte, non-zero true) as the items of an array: each one
/// an 8-byte store of `,true` or `,false` picked without a branch (random
/// data would mispredict it half the time), advancing by 5 or 6.
pub(super) fn write_bool_items<S: Sink>(out: &mut S, values: &[u8]) {
    const TRUE: u64 = u64::from_le_bytes(*b",true\0\0\0");
    const FALSE: u64 = u64::from_le_bytes(*b",false\0\0");
    let Some((&first, rest)) = values.split_first() else {
        return;
    };
    out.extend(if first != 0 { b"true" } else { b"false" });
    for chunk in rest.chunks(ROW_CHUNK) {
        // Item k ends its 8-byte store at most at 6 * k + 8.
        let need = chunk.len() * 6 + 2;
        if !out.reserve(need) {
            return;
        }
        // SAFETY: `need` bytes reserved just above; every store lies within
        // them (see above), and `at` ends at most at `6 * len`.
        unsafe {
            let start = out.tail();
            let mut at = start;
            for &value in chunk {
                let t = (value != 0) as u64;
                let word = FALSE ^ ((TRUE ^ FALSE) & t.wrapping_neg());
                (at as *mut u64).write_unaligned(word.to_le());
                at = at.add(6 - t as usize);
            }
            out.advance(at.offset_from(start) as usize);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::Emitter;
    use crate::json::writer::{CompactJsonWriter, PrettyJsonWriter};
    use crate::testing::Rng;

    fn by_events<T: Copy>(values: &[T], event: impl Fn(&mut CompactJsonWriter<Vec<u8>>, T)) -> Vec<u8> {
        let mut w = CompactJsonWriter::new(Vec::new());
        w.begin_array(values.len());
        for (i, &v) in values.iter().enumerate() {
            w.array_item(i);
            event(&mut w, v);
        }
        w.end_array(values.len());
        w.out
    }

    fn by_rows<T: Copy>(values: &[T], rows: impl Fn(&mut CompactJsonWriter<Vec<u8>>, &[T])) -> Vec<u8> {
        let mut w = CompactJsonWriter::new(Vec::new());
        w.begin_array(values.len());
        rows(&mut w, values);
        w.end_array(values.len());
        w.out
    }

    #[test]
    fn integer_rows_of_both_loops_equal_events() {
        // Chunks whose values all stay below 2**17 (the digit-pair loop),
        // chunks with larger ones (the branch-free loop), and the values
        // at the threshold, of every length and sign, across chunk edges.
        let mut rng = crate::testing::Rng::new(17);
        for round in 0..200 {
            let n = 1 + rng.below(3 * ROW_CHUNK as u64) as usize;
            let limit = [1u64 << 17, 10_000_000_000, u64::MAX][round % 3];
            let v: Vec<i64> = (0..n)
                .map(|_| {
                    let digits = 1 + rng.below(20) as u32;
                    let x = rng.next_u64() % 10u64.saturating_pow(digits).max(1) % limit;
                    let x = if rng.below(5) == 0 { (1 << 17) - 1 + rng.below(3) } else { x };
                    if rng.below(2) == 0 {
                        (x as i64).wrapping_neg()
                    } else {
                        x as i64
                    }
                })
                .collect();
            assert_eq!(by_rows(&v, |w, v| w.i64_items(v)), by_events(&v, |w, x| w.i64(x)));
            let u: Vec<u64> = v.iter().map(|&x| x.unsigned_abs()).collect();
            assert_eq!(by_rows(&u, |w, v| w.u64_items(v)), by_events(&u, |w, x| w.u64(x)));
            let i32s: Vec<i32> = v.iter().map(|&x| x as i32).collect();
            assert_eq!(by_rows(&i32s, |w, v| w.i64_items(v)), by_events(&i32s, |w, x| w.i64(x as i64)));
            let u32s: Vec<u32> = v.iter().map(|&x| x as u32).collect();
            assert_eq!(by_rows(&u32s, |w, v| w.u64_items(v)), by_events(&u32s, |w, x| w.u64(x as u64)));
        }
    }

    #[test]
    fn integer_rows_of_one_width_equal_events() {
        // Chunks whose values all have the same number of digits (the
        // fixed-stride loop) for every width, as one run or broken by a
        // value one digit shorter or longer, or by a sign, at the start, the
        // end or inside a chunk; rows of every length around the chunk size.
        let mut rng = crate::testing::Rng::new(5);
        for n in 1..=20usize {
            let low = int::POWERS_OF_TEN[n - 1] * (n > 1) as u64;
            let high = int::POWERS_OF_TEN.get(n).map_or(u64::MAX, |p| p - 1);
            for len in [1, 2, 3, 7, ROW_CHUNK - 1, ROW_CHUNK, ROW_CHUNK + 1, 2 * ROW_CHUNK + 3] {
                for breaker in 0..6 {
                    let mut u: Vec<u64> = (0..len)
                        .map(|k| match k % 5 {
                            0 => low,
                            1 => high,
                            _ => low + rng.next_u64() % (high - low).max(1),
                        })
                        .collect();
                    let at = [0, len - 1, len / 2, ROW_CHUNK.min(len - 1), 0, 0][breaker];
                    match breaker {
                        0..=3 if n > 1 => u[at] = low - 1,
                        4 => u[at] = high.saturating_add(1),
                        _ => {}
                    }
                    assert_eq!(by_rows(&u, |w, v| w.u64_items(v)), by_events(&u, |w, x| w.u64(x)), "{n} {len}");
                    let mut v: Vec<i64> = u.iter().map(|&x| x.min(i64::MAX as u64) as i64).collect();
                    assert_eq!(by_rows(&v, |w, v| w.i64_items(v)), by_events(&v, |w, x| w.i64(x)), "{n} {len}");
                    if breaker == 5 {
                        // `!x` is `-x - 1`, which never overflows.
                        v[len / 2] = !v[len / 2];
                        assert_eq!(by_rows(&v, |w, v| w.i64_items(v)), by_events(&v, |w, x| w.i64(x)));
                        for x in &mut v {
                            *x = !*x;
                        }
                        assert_eq!(by_rows(&v, |w, v| w.i64_items(v)), by_events(&v, |w, x| w.i64(x)));
                    }
                    if n <= 10 {
                        let u32s: Vec<u32> = u.iter().map(|&x| x.min(u32::MAX as u64) as u32).collect();
                        assert_eq!(by_rows(&u32s, |w, v| w.u64_items(v)), by_events(&u32s, |w, x| w.u64(x as u64)));
                        let i32s: Vec<i32> = u.iter().map(|&x| x.min(i32::MAX as u64) as i32).collect();
                        assert_eq!(by_rows(&i32s, |w, v| w.i64_items(v)), by_events(&i32s, |w, x| w.i64(x as i64)));
                    }
                    if n <= 5 {
                        let u16s: Vec<u16> = u.iter().map(|&x| x.min(u16::MAX as u64) as u16).collect();
                        assert_eq!(by_rows(&u16s, |w, v| w.u64_items(v)), by_events(&u16s, |w, x| w.u64(x as u64)));
                        let i16s: Vec<i16> = u.iter().map(|&x| x.min(i16::MAX as u64) as i16).collect();
                        assert_eq!(by_rows(&i16s, |w, v| w.i64_items(v)), by_events(&i16s, |w, x| w.i64(x as i64)));
                    }
                }
            }
        }
        // `arange`: every chunk of one width but those crossing a power of ten.
        let v: Vec<i32> = (0..120_000).collect();
        assert_eq!(by_rows(&v, |w, v| w.i64_items(v)), by_events(&v, |w, x| w.i64(x as i64)));
        let v: Vec<u64> = (0..3 * ROW_CHUNK as u64).map(|k| 9_999_999_000 + k).collect();
        assert_eq!(by_rows(&v, |w, v| w.u64_items(v)), by_events(&v, |w, x| w.u64(x)));
        let row = vec![i64::MAX; ROW_CHUNK + 1];
        assert_eq!(by_rows(&row, |w, v| w.i64_items(v)), by_events(&row, |w, x| w.i64(x)));
        let row = vec![u64::MAX; ROW_CHUNK + 1];
        assert_eq!(by_rows(&row, |w, v| w.u64_items(v)), by_events(&row, |w, x| w.u64(x)));
    }

    #[test]
    fn integer_rows_equal_events() {
        let mut ints: Vec<i64> = vec![0, 1, -1, 9, 10, -10, 99, 100, i64::MIN, i64::MAX, i64::MIN + 1];
        for &p in &int::POWERS_OF_TEN[..19] {
            let p = p as i64;
            ints.extend([p - 1, p, p + 1, -p + 1, -p, -p - 1]);
        }
        // Longer than a chunk, so the chunk boundary is crossed.
        for n in [0, 1, 2, ROW_CHUNK - 1, ROW_CHUNK, ROW_CHUNK + 1, 3 * ROW_CHUNK + 5] {
            let v: Vec<i64> = (0..n).map(|i| ints[i % ints.len()]).collect();
            assert_eq!(by_rows(&v, |w, v| w.i64_items(v)), by_events(&v, |w, x| w.i64(x)));
            let u: Vec<u64> = v.iter().map(|&x| x as u64).collect();
            assert_eq!(by_rows(&u, |w, v| w.u64_items(v)), by_events(&u, |w, x| w.u64(x)));
        }
        for v in [i8::MIN, -1, 0, 1, 9, 10, 99, 100, i8::MAX] {
            assert_eq!(by_rows(&[v, v], |w, v| w.i64_items(v)), by_events(&[v, v], |w, x| w.i64(x as i64)));
        }
        let all_i8: Vec<i8> = (i8::MIN..=i8::MAX).collect();
        assert_eq!(by_rows(&all_i8, |w, v| w.i64_items(v)), by_events(&all_i8, |w, x| w.i64(x as i64)));
        // Widest texts only, over several chunks: the reservations must hold.
        for v in [u8::MAX, 100] {
            let row = vec![v; 3 * ROW_CHUNK + 1];
            assert_eq!(by_rows(&row, |w, v| w.u64_items(v)), by_events(&row, |w, x| w.u64(x as u64)));
        }
        let row = vec![i8::MIN; 3 * ROW_CHUNK + 1];
        assert_eq!(by_rows(&row, |w, v| w.i64_items(v)), by_events(&row, |w, x| w.i64(x as i64)));
        for v in [u16::MAX, 10_000] {
            let row = vec![v; 3 * ROW_CHUNK + 1];
            assert_eq!(by_rows(&row, |w, v| w.u64_items(v)), by_events(&row, |w, x| w.u64(x as u64)));
        }
        let row = vec![i64::MIN; 3 * ROW_CHUNK + 1];
        assert_eq!(by_rows(&row, |w, v| w.i64_items(v)), by_events(&row, |w, x| w.i64(x)));
        let row = vec![-1.2345678901234567e-300f64; 3 * ROW_CHUNK + 1];
        assert_eq!(by_rows(&row, |w, v| w.f64_items(v)), by_events(&row, |w, x| w.f64(x)));
        let all_u8: Vec<u8> = (0..=u8::MAX).collect();
        assert_eq!(by_rows(&all_u8, |w, v| w.u64_items(v)), by_events(&all_u8, |w, x| w.u64(x as u64)));
        let i32s = [i32::MIN, i32::MAX, -1_000_000_000, 999_999_999, 0];
        assert_eq!(by_rows(&i32s, |w, v| w.i64_items(v)), by_events(&i32s, |w, x| w.i64(x as i64)));
        let u32s = [u32::MAX, 4_000_000_000, 0];
        assert_eq!(by_rows(&u32s, |w, v| w.u64_items(v)), by_events(&u32s, |w, x| w.u64(x as u64)));
    }

    #[test]
    fn float_rows_equal_events() {
        let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
        let mut floats = vec![
            0.0,
            -0.0,
            1.0,
            -1.5,
            0.1,
            1e-7,
            1e15,
            1e16,
            1e22,
            1e300,
            -1e-300,
            5e-324,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            123456.789,
            0.001,
            0.000999,
        ];
        for _ in 0..5000 {
            let state = rng.next_u64();
            floats.push(f64::from_bits(state));
            floats.push((state >> 11) as f64 / (1u64 << 40) as f64 - 4000.0);
        }
        assert_eq!(by_rows(&floats, |w, v| w.f64_items(v)), by_events(&floats, |w, x| w.f64(x)));
    }

    #[test]
    fn bool_rows_equal_events() {
        for n in [0, 1, 2, 7, ROW_CHUNK, ROW_CHUNK + 1, ROW_CHUNK + 2, 1000] {
            let v: Vec<u8> = (0..n).map(|i| [0u8, 1, 1, 0, 0, 0, 1, 255, 2][i % 9]).collect();
            assert_eq!(by_rows(&v, |w, v| w.bool_items(v)), by_events(&v, |w, x| w.bool(x != 0)));
        }
        for v in [[0u8; 3], [1; 3]] {
            assert_eq!(by_rows(&v, |w, v| w.bool_items(v)), by_events(&v, |w, x| w.bool(x != 0)));
        }
    }

    #[test]
    fn pretty_rows_equal_events() {
        let mut w = PrettyJsonWriter::new(Vec::new());
        w.begin_array(3);
        w.i64_items(&[1i32, -2, 3]);
        w.end_array(3);
        let mut e = PrettyJsonWriter::new(Vec::new());
        e.begin_array(3);
        for (i, v) in [1i64, -2, 3].into_iter().enumerate() {
            e.array_item(i);
            e.i64(v);
        }
        e.end_array(3);
        assert_eq!(w.out, e.out);
    }
}
