//! Simple escapes (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`) and the
//! plain runs between them, unescaped a block of input at a time.
//!
//! [`simple_escapes`] starts at a backslash and goes on until the string
//! ends, something else needs the scanner (a `\u` escape, an invalid escape,
//! a control byte), or too little input is left for a whole block. The
//! variant is picked once, the best the CPU has:
//!
//! * AVX-512 (VBMI and VBMI2): 64 bytes per step. One table lookup over the
//!   block (`vpermi2b`) gives each escape letter's value, one compress
//!   (`vpcompressb`) squeezes the block, one store writes it.
//! * AVX2, 32 bytes per step, and SSSE3, 16: the same, with two 16-entry
//!   lookups (`pshufb`, by nibble) for the values and, for the compress, a
//!   shuffle from a table per 8 bytes and a store per 8 bytes.
//! * SSE2 (and other architectures, with scalar masks): 16 bytes per step,
//!   each escape written on its own.
//!
//! All share how escapes are found: per block, the masks of the
//! backslashes, quotes and control bytes, and from the backslash mask the
//! escape starts (the 1st, 3rd, 5th, ... backslash of each run), worked out
//! on the whole mask at once ([`escape_starts`]). The table variants look
//! the letters up in the block one byte further on, so each escape's value
//! lands on its backslash and the compress drops its letter: the backslash
//! compare doubles as the blend mask, and an escape cut by the block's edge
//! is finished in that block (the next one only skips the letter, which
//! keeps the next block's address off the masks' critical path).

use core::sync::atomic::{AtomicU8, Ordering::Relaxed};

/// What `\\c` stands for, by `c`: the byte, 1 for `u` (four hex digits
/// follow), 0 for no escape at all.
pub(super) static ESCAPES: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t[b'/' as usize] = b'/';
    t[b'b' as usize] = 0x08;
    t[b'f' as usize] = 0x0c;
    t[b'n' as usize] = b'\n';
    t[b'r' as usize] = b'\r';
    t[b't' as usize] = b'\t';
    t[b'u' as usize] = 1;
    t
};

/// Bits at even positions; and at odd ones.
const EVEN: u64 = 0x5555_5555_5555_5555;
const ODD: u64 = 0xaaaa_aaaa_aaaa_aaaa;

/// Of the backslashes in `backslash` (bit k for byte k of a block that does
/// not start inside an escape), those that start an escape: the 1st, 3rd,
/// ... of each run. Adding a run's lowest bit clears the run, which picks
/// out the runs that start at an even offset; their starts are the even
/// bits, the other runs' the odd ones.
#[inline(always)]
fn escape_starts(backslash: u64) -> u64 {
    let run_starts = backslash & !(backslash << 1);
    let even_runs = backslash & !backslash.wrapping_add(run_starts & EVEN);
    (even_runs & EVEN) | (backslash & !even_runs & ODD)
}

/// How block unescaping is done.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Variant {
    Sse2,
    #[cfg(target_arch = "x86_64")]
    Ssse3,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl Variant {
    /// Every variant, the best first.
    const ALL: &[Variant] = &[
        #[cfg(target_arch = "x86_64")]
        Variant::Avx512,
        #[cfg(target_arch = "x86_64")]
        Variant::Avx2,
        #[cfg(target_arch = "x86_64")]
        Variant::Ssse3,
        Variant::Sse2,
    ];

    /// Whether this CPU can run the variant.
    fn supported(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        match self {
            Variant::Avx512 => crate::cpu::avx512_vbmi2(),
            Variant::Avx2 => crate::cpu::avx2_popcnt(),
            Variant::Ssse3 => crate::cpu::ssse3_popcnt(),
            Variant::Sse2 => true,
        }
        #[cfg(not(target_arch = "x86_64"))]
        true
    }

    /// Every variant this CPU can run.
    #[cfg(any(test, fuzzing))]
    pub(crate) fn available() -> Vec<Variant> {
        Variant::ALL.iter().copied().filter(|v| v.supported()).collect()
    }
}

/// The variant in use, as its index in `Variant::ALL` plus 1 (0 until the
/// first use picks the best one the CPU can run).
static CHOSEN: AtomicU8 = AtomicU8::new(0);

#[cfg(any(test, fuzzing))]
thread_local! {
    /// A variant the tests (and fuzz targets) force on their own thread.
    pub(crate) static FORCED: core::cell::Cell<Option<Variant>> = const { core::cell::Cell::new(None) };
}

#[inline(always)]
fn variant() -> Variant {
    #[cfg(any(test, fuzzing))]
    if let Some(v) = FORCED.with(|f| f.get()) {
        return v;
    }
    match CHOSEN.load(Relaxed) {
        0 => choose(),
        k => Variant::ALL[k as usize - 1],
    }
}

#[cold]
fn choose() -> Variant {
    let k = Variant::ALL.iter().position(|v| v.supported()).unwrap_or(Variant::ALL.len() - 1);
    CHOSEN.store(k as u8 + 1, Relaxed);
    Variant::ALL[k]
}

/// Unescapes from the backslash at `input[i]` into `scratch` (appending):
/// simple escapes and the runs between them. Returns where it stopped,
/// never inside an escape: at a byte the caller must handle (the closing
/// quote, a control byte, the backslash of a `\u` or invalid escape), or
/// anywhere before the last block's worth of input, or where the scratch
/// could not grow. Returns `i` itself when it did nothing (too little input
/// left, no simple escape at `i`, no memory).
#[inline(always)]
pub(super) fn simple_escapes(input: &[u8], i: usize, scratch: &mut Vec<u8>) -> usize {
    match variant() {
        // SAFETY: each variant is chosen only where the CPU has its features
        // (`Variant::supported`): here AVX-512 F, BW, VBMI, VBMI2 and POPCNT.
        #[cfg(target_arch = "x86_64")]
        Variant::Avx512 => unsafe { avx512(input, i, scratch) },
        // SAFETY: as above; AVX2 and POPCNT.
        #[cfg(target_arch = "x86_64")]
        Variant::Avx2 => unsafe { avx2(input, i, scratch) },
        // SAFETY: as above; SSSE3 and POPCNT.
        #[cfg(target_arch = "x86_64")]
        Variant::Ssse3 => unsafe { ssse3(input, i, scratch) },
        Variant::Sse2 => sse2(input, i, scratch),
    }
}

/// What `vpermi2b` looks up by the low 7 bits of an escape letter: its
/// value, or 0 for no simple escape (`u` included).
#[cfg(target_arch = "x86_64")]
static VALUES_BY_7_BITS: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut k = 0;
    while k < 128 {
        if ESCAPES[k] > 1 {
            t[k] = ESCAPES[k];
        }
        k += 1;
    }
    t
};

/// `simple_escapes` with AVX-512, 64 input bytes per step.
///
/// # Safety
/// The CPU must have AVX-512 F, BW, VBMI and VBMI2, and POPCNT.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,popcnt")]
unsafe fn avx512(input: &[u8], i: usize, scratch: &mut Vec<u8>) -> usize {
    use core::arch::x86_64::*;
    let src = input.as_ptr();
    let mut b = i;
    let mut o = scratch.len();
    // SAFETY: the loads read `b..b + 65` with `b + 65 <= input.len()`; each
    // store writes `o..o + 64` with `o + 64 <= capacity`. What is kept is
    // input bytes other than escapes, escape values (ASCII), and runs cut
    // only next to ASCII bytes, so the scratch stays UTF-8; the bytes below
    // `o` are always written.
    unsafe {
        let table_low = _mm512_loadu_si512(VALUES_BY_7_BITS.as_ptr() as *const __m512i);
        let table_high = _mm512_loadu_si512(VALUES_BY_7_BITS.as_ptr().add(64) as *const __m512i);
        let backslashes = _mm512_set1_epi8(b'\\' as i8);
        let quotes = _mm512_set1_epi8(b'"' as i8);
        let space = _mm512_set1_epi8(0x20);
        // 1 when the block's first byte is the letter of an escape whose
        // backslash ended the block before.
        let mut c = 0u64;
        while b + 65 <= input.len() {
            if scratch.capacity() - o < 64 {
                scratch.set_len(o);
                if crate::fallible::reserve(scratch, 256).is_err() {
                    // Stopped as at the end of the input; the caller's own
                    // growth then fails with the error.
                    return b + c as usize;
                }
            }
            let v = _mm512_loadu_si512(src.add(b) as *const __m512i);
            let next = _mm512_loadu_si512(src.add(b + 1) as *const __m512i);
            let backslash = _mm512_cmpeq_epi8_mask(v, backslashes);
            let starts = escape_starts(backslash & !c);
            let escaped = starts << 1 | c;
            // Byte k: the value of byte k + 1 as an escape letter, 0 for none.
            let values = _mm512_permutex2var_epi8(table_low, next, table_high);
            let letters = _mm512_test_epi8_mask(values, values) & !_mm512_movepi8_mask(next);
            // Where the block stops: an unescaped quote, a control byte, the
            // backslash of any other escape.
            let stop =
                (_mm512_cmpeq_epi8_mask(v, quotes) & !escaped) | _mm512_cmplt_epu8_mask(v, space) | (starts & !letters);
            // Below the first stop (all bits when there is none), less the letters.
            let keep = !escaped & stop.wrapping_sub(1) & !stop;
            // Values over every backslash: those that start an escape are
            // kept, the others are escaped letters and dropped.
            let merged = _mm512_mask_blend_epi8(backslash, v, values);
            let out = _mm512_maskz_compress_epi8(keep, merged);
            _mm512_storeu_si512(scratch.as_mut_ptr().add(o) as *mut __m512i, out);
            o += keep.count_ones() as usize;
            if stop != 0 {
                scratch.set_len(o);
                return b + stop.trailing_zeros() as usize;
            }
            // The next block's address never waits on this one's masks.
            c = starts >> 63;
            b += 64;
        }
        scratch.set_len(o);
        // An escape cut at the edge is done: go on after its letter.
        b + c as usize
    }
}

/// Shuffle indices that gather the bytes at the set bits of `k` (an 8-bit
/// mask) to the front, in order; the unused indices are 0.
#[cfg(target_arch = "x86_64")]
static PACK_8: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut k = 0;
    while k < 256 {
        let mut n = 0;
        let mut bit = 0;
        while bit < 8 {
            if k & (1 << bit) != 0 {
                t[k] |= (bit as u64) << (8 * n);
                n += 1;
            }
            bit += 1;
        }
        k += 1;
    }
    t
};

/// An escape letter's value is `LOW_VALUE[low nibble] + HIGH_VALUE[high
/// nibble]` (wrapping); it is a simple escape letter when
/// `LOW_CLASS[low] & HIGH_CLASS[high]` is not 0 (a bit per high nibble:
/// 2x `"` `/`, 5x `\`, 6x `b` `f` `n`, 7x `r` `t`).
#[cfg(target_arch = "x86_64")]
const LOW_VALUE: [u8; 16] = [0, 0, 0, 0, 0xfc, 0, 4, 0, 0, 0, 0, 0, 0x5c, 0, 2, 0x0d];
#[cfg(target_arch = "x86_64")]
const HIGH_VALUE: [u8; 16] = [0, 0, 0x22, 0, 0, 0, 0x08, 0x0d, 0, 0, 0, 0, 0, 0, 0, 0];
#[cfg(target_arch = "x86_64")]
const LOW_CLASS: [u8; 16] = [0, 0, 1 | 4 | 8, 0, 8, 0, 4, 0, 0, 0, 0, 0, 2, 0, 4, 1];
#[cfg(target_arch = "x86_64")]
const HIGH_CLASS: [u8; 16] = [0, 0, 1, 0, 0, 2, 4, 8, 0, 0, 0, 0, 0, 0, 0, 0];

/// `simple_escapes` with SSSE3, 16 input bytes per step.
///
/// # Safety
/// The CPU must have SSSE3 and POPCNT.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3,popcnt")]
unsafe fn ssse3(input: &[u8], i: usize, scratch: &mut Vec<u8>) -> usize {
    use core::arch::x86_64::*;
    let src = input.as_ptr();
    let mut b = i;
    let mut o = scratch.len();
    // SAFETY: the loads read `b..b + 17` with `b + 17 <= input.len()`; the
    // two 8-byte stores write inside `o..o + 16`, with `o + 16 <= capacity`.
    // What is kept is as in `avx512`.
    unsafe {
        let table = |t: &[u8; 16]| _mm_loadu_si128(t.as_ptr() as *const __m128i);
        let (low_value, high_value) = (table(&LOW_VALUE), table(&HIGH_VALUE));
        let (low_class, high_class) = (table(&LOW_CLASS), table(&HIGH_CLASS));
        let nibble = _mm_set1_epi8(0x0f);
        let backslashes = _mm_set1_epi8(b'\\' as i8);
        let quotes = _mm_set1_epi8(b'"' as i8);
        let below_space = _mm_set1_epi8(0x1f);
        let zero = _mm_setzero_si128();
        // 1 when the block's first byte is the letter of an escape whose
        // backslash ended the block before.
        let mut c = 0u64;
        while b + 17 <= input.len() {
            if scratch.capacity() - o < 16 {
                scratch.set_len(o);
                if crate::fallible::reserve(scratch, 256).is_err() {
                    return b + c as usize;
                }
            }
            let v = _mm_loadu_si128(src.add(b) as *const __m128i);
            let next = _mm_loadu_si128(src.add(b + 1) as *const __m128i);
            let is_backslash = _mm_cmpeq_epi8(v, backslashes);
            let backslash = _mm_movemask_epi8(is_backslash) as u64;
            let quote = _mm_movemask_epi8(_mm_cmpeq_epi8(v, quotes)) as u64;
            let control = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(v, below_space), v)) as u64;
            let starts = escape_starts(backslash & !c);
            let escaped = (starts << 1 | c) & 0xffff;
            // Byte k: the value and class of byte k + 1.
            let low = _mm_and_si128(next, nibble);
            let high = _mm_and_si128(_mm_srli_epi16(next, 4), nibble);
            let values = _mm_add_epi8(_mm_shuffle_epi8(low_value, low), _mm_shuffle_epi8(high_value, high));
            let class = _mm_and_si128(_mm_shuffle_epi8(low_class, low), _mm_shuffle_epi8(high_class, high));
            let letters = !(_mm_movemask_epi8(_mm_cmpeq_epi8(class, zero)) as u64);
            // Stops, kept bytes and values over the backslashes as in `avx512`.
            let stop = (quote & !escaped) | control | (starts & !letters);
            let keep = !escaped & stop.wrapping_sub(1) & !stop & 0xffff;
            let merged = _mm_or_si128(_mm_and_si128(is_backslash, values), _mm_andnot_si128(is_backslash, v));
            let (keep_low, keep_high) = ((keep & 0xff) as usize, (keep >> 8) as usize);
            let order = _mm_set_epi64x((PACK_8[keep_high] | 0x0808_0808_0808_0808) as i64, PACK_8[keep_low] as i64);
            let packed = _mm_shuffle_epi8(merged, order);
            let out = scratch.as_mut_ptr().add(o);
            _mm_storel_epi64(out as *mut __m128i, packed);
            _mm_storel_epi64(
                out.add(keep_low.count_ones() as usize) as *mut __m128i,
                _mm_unpackhi_epi64(packed, packed),
            );
            o += keep.count_ones() as usize;
            if stop != 0 {
                scratch.set_len(o);
                return b + stop.trailing_zeros() as usize;
            }
            c = starts >> 15;
            b += 16;
        }
        scratch.set_len(o);
        // An escape cut at the edge is done: go on after its letter.
        b + c as usize
    }
}

/// `simple_escapes` with AVX2, 32 input bytes per step: `ssse3` on both
/// 16-byte lanes at once.
///
/// # Safety
/// The CPU must have AVX2 and POPCNT.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
unsafe fn avx2(input: &[u8], i: usize, scratch: &mut Vec<u8>) -> usize {
    use core::arch::x86_64::*;
    let src = input.as_ptr();
    let mut b = i;
    let mut o = scratch.len();
    // SAFETY: the loads read `b..b + 33` with `b + 33 <= input.len()`; the
    // four 8-byte stores write inside `o..o + 32`, with `o + 32 <= capacity`.
    // What is kept is as in `avx512`.
    unsafe {
        let table = |t: &[u8; 16]| _mm256_broadcastsi128_si256(_mm_loadu_si128(t.as_ptr() as *const __m128i));
        let (low_value, high_value) = (table(&LOW_VALUE), table(&HIGH_VALUE));
        let (low_class, high_class) = (table(&LOW_CLASS), table(&HIGH_CLASS));
        let nibble = _mm256_set1_epi8(0x0f);
        let backslashes = _mm256_set1_epi8(b'\\' as i8);
        let quotes = _mm256_set1_epi8(b'"' as i8);
        let below_space = _mm256_set1_epi8(0x1f);
        let zero = _mm256_setzero_si256();
        let mut c = 0u64;
        while b + 33 <= input.len() {
            if scratch.capacity() - o < 32 {
                scratch.set_len(o);
                if crate::fallible::reserve(scratch, 256).is_err() {
                    return b + c as usize;
                }
            }
            let v = _mm256_loadu_si256(src.add(b) as *const __m256i);
            let next = _mm256_loadu_si256(src.add(b + 1) as *const __m256i);
            let is_backslash = _mm256_cmpeq_epi8(v, backslashes);
            let backslash = _mm256_movemask_epi8(is_backslash) as u32 as u64;
            let quote = _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, quotes)) as u32 as u64;
            let control = _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_min_epu8(v, below_space), v)) as u32 as u64;
            let starts = escape_starts(backslash & !c);
            let escaped = (starts << 1 | c) & 0xffff_ffff;
            let low = _mm256_and_si256(next, nibble);
            let high = _mm256_and_si256(_mm256_srli_epi16(next, 4), nibble);
            let values = _mm256_add_epi8(_mm256_shuffle_epi8(low_value, low), _mm256_shuffle_epi8(high_value, high));
            let class = _mm256_and_si256(_mm256_shuffle_epi8(low_class, low), _mm256_shuffle_epi8(high_class, high));
            let letters = !(_mm256_movemask_epi8(_mm256_cmpeq_epi8(class, zero)) as u32 as u64);
            let stop = (quote & !escaped) | control | (starts & !letters);
            let keep = !escaped & stop.wrapping_sub(1) & !stop & 0xffff_ffff;
            let merged = _mm256_blendv_epi8(v, values, is_backslash);
            let k = |n: u32| (keep >> n & 0xff) as usize;
            let order = _mm256_set_epi64x(
                (PACK_8[k(24)] | 0x0808_0808_0808_0808) as i64,
                PACK_8[k(16)] as i64,
                (PACK_8[k(8)] | 0x0808_0808_0808_0808) as i64,
                PACK_8[k(0)] as i64,
            );
            let packed = _mm256_shuffle_epi8(merged, order);
            let (first, second) = (_mm256_castsi256_si128(packed), _mm256_extracti128_si256::<1>(packed));
            let out = scratch.as_mut_ptr().add(o);
            let at1 = (keep & 0xff).count_ones() as usize;
            let at2 = (keep & 0xffff).count_ones() as usize;
            let at3 = (keep & 0xff_ffff).count_ones() as usize;
            _mm_storel_epi64(out as *mut __m128i, first);
            _mm_storel_epi64(out.add(at1) as *mut __m128i, _mm_unpackhi_epi64(first, first));
            _mm_storel_epi64(out.add(at2) as *mut __m128i, second);
            _mm_storel_epi64(out.add(at3) as *mut __m128i, _mm_unpackhi_epi64(second, second));
            o += keep.count_ones() as usize;
            if stop != 0 {
                scratch.set_len(o);
                return b + stop.trailing_zeros() as usize;
            }
            c = starts >> 31;
            b += 32;
        }
        scratch.set_len(o);
        b + c as usize
    }
}

/// Input bytes `sse2` needs from the backslash it starts at.
const BLOCKS_NEED: usize = 34;
/// Spare scratch capacity one block of `sse2` may write into.
const BLOCK_ROOM: usize = 33;

/// `simple_escapes` 16 input bytes per step with SSE2 (scalar masks on
/// other architectures), writing each escape on its own.
///
/// Each escape is found by clearing the lowest bit of the block's escape
/// starts, and its output offset is its input offset less the escapes
/// before it: no escape waits on the one before it. Each escape writes its
/// value and stores the 16 input bytes after it; what lies between two
/// escapes is kept from that store.
fn sse2(input: &[u8], i: usize, scratch: &mut Vec<u8>) -> usize {
    if i + BLOCKS_NEED > input.len() {
        return i;
    }
    let src = input.as_ptr();
    // Block start `b`; the scratch offset `o_b` its byte maps to; `c` is
    // 1 when that byte is the escaped character of the previous block's
    // last escape (already written).
    let mut b = i;
    let mut o_b = scratch.len();
    let mut c = 0u64;
    loop {
        if scratch.capacity() - o_b < BLOCK_ROOM {
            // SAFETY: the bytes below `o_b + c` are written (below, or before).
            unsafe { scratch.set_len(o_b + c as usize) };
            if crate::fallible::reserve(scratch, 4 * BLOCK_ROOM).is_err() {
                // Stopped as at the end of the input (see below).
                return b + c as usize;
            }
        }
        // SAFETY: input reads stay below `b + 33 <= b + BLOCKS_NEED`
        // (block at `b`, escaped bytes up to `b + 16`, stores from up to
        // `b + 17 + 16`); output writes stay below `o_b + 33 <= capacity`
        // (escape offsets are at most `o_b + 15`, each followed by a
        // 16-byte store). Kept output bytes are escape values (ASCII)
        // and input bytes cut next to ASCII bytes, so the scratch stays
        // UTF-8.
        unsafe {
            let (backslash, quote, control) = block_masks(src.add(b));
            let out = scratch.as_mut_ptr().add(o_b);
            let starts = escape_starts(backslash & !c) & 0xffff;
            let escaped = (starts << 1) | c;
            let stop = (quote & !escaped | control) & 0xffff;
            let mut todo = if stop != 0 { starts & ((1 << stop.trailing_zeros()) - 1) } else { starts };
            core::ptr::copy_nonoverlapping(src.add(b + c as usize), out.add(c as usize), 16);
            let mut done = 0usize;
            while todo != 0 {
                let p = todo.trailing_zeros() as usize;
                todo &= todo - 1;
                let value = ESCAPES[*src.add(b + p + 1) as usize];
                let o = p - done;
                if value <= 1 {
                    // `\u` or invalid: the caller takes it from here.
                    scratch.set_len(o_b + o);
                    return b + p;
                }
                *out.add(o) = value;
                core::ptr::copy_nonoverlapping(src.add(b + p + 2), out.add(o + 1), 16);
                done += 1;
            }
            if stop != 0 {
                let p = stop.trailing_zeros() as usize;
                scratch.set_len(o_b + p - done);
                return b + p;
            }
            o_b += 16 - done;
            c = (starts >> 15) & 1;
            b += 16;
            if b + BLOCKS_NEED > input.len() {
                scratch.set_len(o_b + c as usize);
                return b + c as usize;
            }
        }
    }
}

/// Masks of the backslashes, quotes and control bytes among the 16 bytes
/// at `src` (bit k for byte k).
///
/// # Safety
/// 16 bytes must be readable at `src`.
#[inline(always)]
pub(super) unsafe fn block_masks(src: *const u8) -> (u64, u64, u64) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 is part of the x86-64 baseline; one unaligned 16-byte
    // load within what the caller guarantees.
    unsafe {
        use core::arch::x86_64::*;
        let v = _mm_loadu_si128(src as *const __m128i);
        let backslash = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8))) as u64;
        let quote = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8))) as u64;
        let control = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v)) as u64;
        (backslash, quote, control)
    }
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: as the caller guarantees.
    unsafe {
        let (mut backslash, mut quote, mut control) = (0, 0, 0);
        for k in 0..16 {
            let c = *src.add(k);
            backslash |= ((c == b'\\') as u64) << k;
            quote |= ((c == b'"') as u64) << k;
            control |= ((c < 0x20) as u64) << k;
        }
        (backslash, quote, control)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Failure;
    use crate::json::scanner::parse;
    use crate::testing::{Echo, Rng};

    /// The plain reading of `input` from `i`: each simple escape becomes its
    /// value and other bytes stay, up to the first quote, control byte or
    /// other escape (or the end). Returns that stop, the output, and every
    /// offset the reading passes between two pieces.
    fn reference(input: &[u8], mut i: usize) -> (usize, Vec<u8>, Vec<usize>) {
        let (mut out, mut between) = (Vec::new(), vec![i]);
        while let Some(&c) = input.get(i) {
            if c == b'"' || c < 0x20 {
                break;
            }
            if c == b'\\' {
                match input.get(i + 1).map(|&e| ESCAPES[e as usize]) {
                    Some(value) if value > 1 => {
                        out.push(value);
                        i += 2;
                    }
                    _ => break,
                }
            } else {
                out.push(c);
                i += 1;
            }
            between.push(i);
        }
        (i, out, between)
    }

    /// Input bytes each variant leaves to the caller at the end.
    fn tail(v: Variant) -> usize {
        match v {
            Variant::Sse2 => BLOCKS_NEED + 1,
            #[cfg(target_arch = "x86_64")]
            Variant::Ssse3 => 17,
            #[cfg(target_arch = "x86_64")]
            Variant::Avx2 => 33,
            #[cfg(target_arch = "x86_64")]
            Variant::Avx512 => 65,
        }
    }

    /// `simple_escapes` from `i` with every variant against `reference`.
    fn check(input: &[u8], i: usize) {
        let (stop, want, between) = reference(input, i);
        for v in Variant::available() {
            // Something already in the scratch, which must stay.
            let mut scratch = b"prefix".to_vec();
            let got = FORCED.with(|f| {
                f.set(Some(v));
                let got = simple_escapes(input, i, &mut scratch);
                f.set(None);
                got
            });
            let ctx = || format!("{v:?} from {i} in {:?}", String::from_utf8_lossy(input));
            assert!(scratch.starts_with(b"prefix"), "{}", ctx());
            assert!(between.contains(&got), "stopped inside an escape at {got}: {}", ctx());
            assert_eq!(&scratch[6..], &reference(&input[..got], i).1[..], "{}", ctx());
            assert!(got <= stop, "{}", ctx());
            if got < stop {
                // Short of the stop only near the end of the input.
                assert!(got + tail(v) > input.len(), "stopped at {got} of {stop}: {}", ctx());
            } else {
                assert_eq!(scratch.len() - 6, want.len(), "{}", ctx());
            }
        }
    }

    /// What `check` runs over: every escape kind (and the things that stop
    /// a block) at every offset of plain runs of every length up to 100.
    const PIECES: [&[u8]; 22] = [
        b"\\\"",
        b"\\\\",
        b"\\/",
        b"\\b",
        b"\\f",
        b"\\n",
        b"\\r",
        b"\\t",
        b"\\u00e9",
        b"\\x",
        b"\\\x01",
        b"\\\xc3\xa9",
        // A backslash before a byte whose low 7 bits spell `b` or a backslash.
        "\\€".as_bytes(),
        "\\\u{070f}".as_bytes(),
        b"\"",
        b"\x01",
        b"\x1f",
        b"\\\\\\\"",
        b"\\\\\\",
        b"\\\\\\\\",
        "é".as_bytes(),
        "😀".as_bytes(),
    ];

    #[test]
    fn every_piece_at_every_offset() {
        for len in 0..100 {
            for piece in PIECES {
                for at in 0..=len {
                    // A run of simple escapes before the piece, plain text
                    // around it, and a closing quote with room after it.
                    let mut input = b"\\n".to_vec();
                    input.extend((0..at).map(|k| b'a' + (k % 26) as u8));
                    input.extend_from_slice(piece);
                    input.extend((at..len).map(|k| b'A' + (k % 26) as u8));
                    input.push(b'"');
                    for room in [0, 15, 70] {
                        let mut padded = input.clone();
                        padded.extend(std::iter::repeat_n(b' ', room));
                        check(&padded, 0);
                    }
                }
            }
        }
    }

    #[test]
    fn dense_escapes_across_block_edges() {
        // Back-to-back escapes and backslash runs of every length, so that
        // escapes straddle every block edge of every block width.
        let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
        for round in 0..20_000 {
            let x = rng.next_u64();
            let mut input = b"\\\\".to_vec();
            let mut y = x;
            let n = (round % 150) + 1;
            for _ in 0..n {
                let piece: &[u8] = match y % 16 {
                    0..=3 => b"\\\\",
                    4 => b"\\\"",
                    5 => b"\\n",
                    6 => b"\\/",
                    7 => b"\\t",
                    8 => b"a",
                    9 => b"\\\\\\\\\\\\",
                    10 => "é".as_bytes(),
                    11 if y.is_multiple_of(97) => b"\\u0041",
                    12 if y.is_multiple_of(89) => b"\"",
                    _ => b"\\r",
                };
                input.extend_from_slice(piece);
                y = y.rotate_right(5) ^ x;
            }
            input.extend_from_slice(b"\"   ");
            input.extend(std::iter::repeat_n(b' ', (x % 80) as usize));
            check(&input, 0);
        }
    }

    /// Decodes `json` with every variant forced: each must give what the
    /// SSE2 one gives (today's behaviour, value or error and offset).
    fn same_for_every_variant(json: &[u8]) -> Result<String, (String, usize)> {
        let mut first = None;
        for v in Variant::available() {
            FORCED.with(|f| f.set(Some(v)));
            let got = match parse(json, &mut Echo) {
                Ok(s) => Ok(s),
                Err(Failure::Syntax(e)) => Err((format!("{:?}", e.kind), e.offset)),
                Err(Failure::Build(())) => unreachable!(),
            };
            FORCED.with(|f| f.set(None));
            match &first {
                None => first = Some(got),
                Some(want) => assert_eq!(&got, want, "{v:?} on {:?}", String::from_utf8_lossy(json)),
            }
        }
        first.unwrap()
    }

    #[test]
    fn whole_strings_agree_across_variants() {
        for len in 0..100 {
            for piece in PIECES {
                for at in 0..=len {
                    let mut body: Vec<u8> = (0..at).map(|k| b'a' + (k % 26) as u8).collect();
                    body.extend_from_slice(piece);
                    body.extend((at..len).map(|k| b'0' + (k % 10) as u8));
                    // Strings whose end is the end of the input and strings
                    // followed by more document.
                    for (before, after) in [
                        ("[\"\\t", "\"]"),
                        ("{\"k\\\\\":\"", "\",\"z\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]}"),
                    ] {
                        let mut json = before.as_bytes().to_vec();
                        json.extend_from_slice(&body);
                        json.extend_from_slice(after.as_bytes());
                        let got = same_for_every_variant(&json);
                        let (stop, text, _) = reference(&body, 0);
                        if stop == body.len() {
                            let text = String::from_utf8(text).unwrap();
                            assert!(
                                got.as_ref().is_ok_and(|s| s.contains(&format!("{text:?}")[1..])),
                                "{got:?} for {text:?}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn escape_starts_by_hand() {
        assert_eq!(escape_starts(0b1), 0b1);
        assert_eq!(escape_starts(0b11), 0b1);
        assert_eq!(escape_starts(0b111), 0b101);
        assert_eq!(escape_starts(0b1110), 0b1010);
        assert_eq!(escape_starts(0b1101_1100), 0b0101_0100);
        assert_eq!(escape_starts(u64::MAX), EVEN);
        assert_eq!(escape_starts(u64::MAX << 1), ODD);
        assert_eq!(escape_starts(1 << 63), 1 << 63);
        // Against counting through each run.
        let mut rng = Rng::new(1);
        for _ in 0..100_000 {
            let x = rng.next_u64();
            let mask = x & x.rotate_left(7);
            let (mut want, mut run) = (0u64, 0);
            for k in 0..64 {
                if mask >> k & 1 == 1 {
                    if run % 2 == 0 {
                        want |= 1 << k;
                    }
                    run += 1;
                } else {
                    run = 0;
                }
            }
            assert_eq!(escape_starts(mask), want, "{mask:064b}");
        }
    }
}
