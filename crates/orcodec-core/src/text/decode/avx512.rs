//! The AVX-512 paths of [`measure`](super::measure),
//! [`measure_checked`](super::measure_checked), [`is_valid`](super::is_valid)
//! and [`decode`](super::decode), on 64-byte blocks.

use core::arch::x86_64::*;

/// Byte `k` is `k`: compressed by a lead mask, the leads' positions.
static IOTA: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut k = 0;
    while k < 64 {
        t[k] = k as u8;
        k += 1;
    }
    t
};
/// Byte `k` is `BASE + k / 4`: spreads 16 positions one to a 32-bit lane.
const fn spread(base: u8) -> [u8; 64] {
    let mut t = [0u8; 64];
    let mut k = 0;
    while k < 64 {
        t[k] = base + (k / 4) as u8;
        k += 1;
    }
    t
}
static SPREAD: [[u8; 64]; 3] = [spread(0), spread(16), spread(32)];
/// By a lead byte's high nibble: how far right the assembled lane is
/// shifted (dropping the bytes after the code point), and what is kept.
/// Nibbles 8-B are continuation bytes, never a lane's lead.
static SHIFT: [u32; 16] = [18, 18, 18, 18, 18, 18, 18, 18, 0, 0, 0, 0, 12, 12, 6, 0];
static KEEP: [u32; 16] = [0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0, 0, 0, 0, 0x7ff, 0x7ff, 0xffff, 0x1f_ffff];

/// [`super::measure`] on 64-byte blocks (the last one a masked load).
#[target_feature(enable = "avx512f,avx512bw,popcnt")]
pub(super) unsafe fn measure(bytes: &[u8]) -> (usize, u32) {
    let n = bytes.len();
    let p = bytes.as_ptr();
    let limit = _mm512_set1_epi8(-64);
    let mut maxv = _mm512_setzero_si512();
    let mut continuations = 0usize;
    let mut i = 0;
    // SAFETY: full loads end at `i + 64 <= n`; the last is masked to the
    // `n - i` bytes left (masked-off bytes are not read and are zero).
    while i + 64 <= n {
        let v = _mm512_loadu_si512(p.add(i) as *const _);
        continuations += _mm512_cmplt_epi8_mask(v, limit).count_ones() as usize;
        maxv = _mm512_max_epu8(maxv, v);
        i += 64;
    }
    if i < n {
        let v = _mm512_maskz_loadu_epi8(u64::MAX >> (64 - (n - i)), p.add(i) as *const i8);
        continuations += _mm512_cmplt_epi8_mask(v, limit).count_ones() as usize;
        maxv = _mm512_max_epu8(maxv, v);
    }
    (n - continuations, max_char(maxv))
}

// The lookup validation of Keiser and Lemire ("Validating UTF-8 in less
// than one instruction per byte", 2021), as simdjson and simdutf8 do it:
// three table look-ups by the nibbles of each byte and the byte before it
// flag every error of a two-byte window; the bytes two and three before
// say where a third or fourth byte must be a continuation.
const TOO_SHORT: u8 = 1 << 0;
const TOO_LONG: u8 = 1 << 1;
const OVERLONG_3: u8 = 1 << 2;
const TOO_LARGE: u8 = 1 << 3;
const SURROGATE: u8 = 1 << 4;
const OVERLONG_2: u8 = 1 << 5;
const TOO_LARGE_1000: u8 = 1 << 6;
const OVERLONG_4: u8 = 1 << 6;
const TWO_CONTS: u8 = 1 << 7;
const CARRY: u8 = TOO_SHORT | TOO_LONG | TWO_CONTS;
/// By the high nibble of the byte before.
static BYTE_1_HIGH: [u8; 16] = [
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TWO_CONTS,
    TWO_CONTS,
    TWO_CONTS,
    TWO_CONTS,
    TOO_SHORT | OVERLONG_2,
    TOO_SHORT,
    TOO_SHORT | OVERLONG_3 | SURROGATE,
    TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
];
/// By the low nibble of the byte before.
static BYTE_1_LOW: [u8; 16] = [
    CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4,
    CARRY | OVERLONG_2,
    CARRY,
    CARRY,
    CARRY | TOO_LARGE,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
];
/// By the high nibble of the byte itself.
static BYTE_2_HIGH: [u8; 16] = [
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
];

/// The largest byte that does not start a sequence running past the
/// block: any at the last byte, below 0xE0 at the one before, below 0xF0
/// two before.
static LAST_BYTES_MAX: [u8; 64] = {
    let mut t = [0xffu8; 64];
    t[61] = 0xef;
    t[62] = 0xdf;
    t[63] = 0xbf;
    t
};

/// What [`measure_checked`] keeps across blocks.
struct Checked {
    errors: __m512i,
    max: __m512i,
    continuations: u64,
    tables: [__m512i; 3],
}

impl Checked {
    /// No errors, nothing counted yet.
    #[inline(always)]
    unsafe fn new() -> Self {
        Checked {
            errors: _mm512_setzero_si512(),
            max: _mm512_setzero_si512(),
            continuations: 0,
            tables: [table16(&BYTE_1_HIGH), table16(&BYTE_1_LOW), table16(&BYTE_2_HIGH)],
        }
    }

    /// Checks block `v` (bytes past the end zero) with `prev1`, `prev2`
    /// and `prev3`, the blocks starting one, two and three bytes earlier
    /// (bytes before the start zero).
    #[inline(always)]
    unsafe fn check(&mut self, v: __m512i, prev1: __m512i, prev2: __m512i, prev3: __m512i) {
        let nibble = _mm512_set1_epi8(0x0f);
        let b1h = _mm512_shuffle_epi8(self.tables[0], _mm512_and_si512(_mm512_srli_epi16::<4>(prev1), nibble));
        let b1l = _mm512_shuffle_epi8(self.tables[1], _mm512_and_si512(prev1, nibble));
        let b2h = _mm512_shuffle_epi8(self.tables[2], _mm512_and_si512(_mm512_srli_epi16::<4>(v), nibble));
        // a & b & c
        let special = _mm512_ternarylogic_epi32::<0x80>(b1h, b1l, b2h);
        // Where the byte two before leads three bytes or more, or the byte
        // three before leads four: the high bit set.
        let must23 = _mm512_or_si512(
            _mm512_subs_epu8(prev2, _mm512_set1_epi8(0xe0u8 as i8 - 0x80u8 as i8)),
            _mm512_subs_epu8(prev3, _mm512_set1_epi8(0xf0u8 as i8 - 0x80u8 as i8)),
        );
        // (a & b) ^ c: a continuation where none may be (TWO_CONTS
        // without must23) or none where one must be.
        let e = _mm512_ternarylogic_epi32::<0x6a>(must23, _mm512_set1_epi8(0x80u8 as i8), special);
        self.errors = _mm512_or_si512(self.errors, e);
    }

    /// [`is_valid`]'s step: block `v` loaded from `at` (at least 3 bytes
    /// into the input) checked, or if it is ASCII, the block before it
    /// checked for a sequence it leaves unfinished (`incomplete`).
    #[inline(always)]
    unsafe fn aligned_block(&mut self, v: __m512i, at: *const u8, incomplete: &mut __m512i, limits: __m512i) {
        if _mm512_movepi8_mask(v) == 0 {
            self.errors = _mm512_or_si512(self.errors, *incomplete);
            *incomplete = _mm512_setzero_si512();
        } else {
            self.check(v, load(at.sub(1)), load(at.sub(2)), load(at.sub(3)));
            *incomplete = _mm512_subs_epu8(v, limits);
        }
    }

    /// [`Checked::check`], and counts and measures block `v`.
    #[inline(always)]
    unsafe fn block(&mut self, v: __m512i, prev1: __m512i, prev2: __m512i, prev3: __m512i) {
        self.check(v, prev1, prev2, prev3);
        self.continuations += _mm512_cmplt_epi8_mask(v, _mm512_set1_epi8(-64)).count_ones() as u64;
        self.max = _mm512_max_epu8(self.max, v);
    }
}

/// [`super::measure_checked`] on 64-byte blocks; each block's bytes before
/// it are read with loads 1, 2 and 3 bytes earlier (masked in the first
/// block and the last).
#[target_feature(enable = "avx512f,avx512bw,popcnt")]
pub(super) unsafe fn measure_checked(bytes: &[u8]) -> Option<(usize, u32)> {
    let n = bytes.len();
    let p = bytes.as_ptr();
    let mut c = Checked::new();
    // SAFETY (all loads): plain loads cover `i - 3 .. i + 64` with
    // `3 <= i` and `i + 64 <= n`; masked loads enable only bytes inside
    // `bytes` (their addresses are formed with wrapping arithmetic, and
    // masked-off bytes are never accessed).
    let mut i = 0;
    if n >= 64 {
        c.block(load(p), masked(!0 << 1, p, 1), masked(!0 << 2, p, 2), masked(!0 << 3, p, 3));
        i = 64;
        while i + 64 <= n {
            c.block(load(p.add(i)), load(p.add(i - 1)), load(p.add(i - 2)), load(p.add(i - 3)));
            i += 64;
        }
    }
    // The last bytes (none if `n` is a multiple of 64): zeros past the
    // end, so a sequence cut short there is an error like any other.
    let [b0, b1, b2, b3] = tail_blocks(p, i, n);
    c.block(b0, b1, b2, b3);
    if _mm512_test_epi8_mask(c.errors, c.errors) != 0 {
        return None;
    }
    Some((n - c.continuations as usize, max_char(c.max)))
}

/// [`super::is_valid`]: as [`measure_checked`] without the measuring,
/// and blocks that are ASCII, as are the three bytes before them, skipped.
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn is_valid(bytes: &[u8]) -> bool {
    let n = bytes.len();
    let p = bytes.as_ptr();
    let mut c = Checked::new();
    // SAFETY (all loads): as in `measure_checked`; aligned loads are
    // plain loads at a 64-byte boundary.
    let mut i = 0;
    if n >= 64 {
        c.check(load(p), masked(!0 << 1, p, 1), masked(!0 << 2, p, 2), masked(!0 << 3, p, 3));
        i = 64;
    }
    if n >= 192 {
        // On from the first 64-byte boundary at least 3 bytes in (blocks
        // checked twice are no harm), so that blocks load without line
        // splits; a boundary at 65 or 66 leaves 1 or 2 bytes after the
        // first block, which one more block covers.
        let a = p.align_offset(64);
        i = if a >= 3 { a } else { a + 64 };
        if a == 1 || a == 2 {
            c.check(load(p.add(64)), load(p.add(63)), load(p.add(62)), load(p.add(61)));
        }
        let limits = _mm512_loadu_si512(LAST_BYTES_MAX.as_ptr() as *const _);
        let v = _mm512_load_si512(p.add(i) as *const _);
        c.check(v, load(p.add(i - 1)), load(p.add(i - 2)), load(p.add(i - 3)));
        // Whether the block before may end inside a sequence (its last
        // three bytes lead more bytes than they have): set only by blocks
        // that were checked, and an error if the next block is ASCII.
        let mut incomplete = _mm512_subs_epu8(v, limits);
        i += 64;
        // Four blocks at a time while they are ASCII (one test for 256 bytes).
        while i + 256 <= n {
            let a = _mm512_load_si512(p.add(i) as *const _);
            let b = _mm512_load_si512(p.add(i + 64) as *const _);
            let d = _mm512_load_si512(p.add(i + 128) as *const _);
            let e = _mm512_load_si512(p.add(i + 192) as *const _);
            if _mm512_movepi8_mask(_mm512_or_si512(_mm512_or_si512(a, b), _mm512_or_si512(d, e))) == 0 {
                c.errors = _mm512_or_si512(c.errors, incomplete);
                incomplete = _mm512_setzero_si512();
            } else {
                for (k, v) in [a, b, d, e].into_iter().enumerate() {
                    c.aligned_block(v, p.add(i + 64 * k), &mut incomplete, limits);
                }
            }
            i += 256;
        }
        while i + 64 <= n {
            c.aligned_block(_mm512_load_si512(p.add(i) as *const _), p.add(i), &mut incomplete, limits);
            i += 64;
        }
        // (The tail below reads the last block's bytes again as its bytes
        // before, so a sequence cut short there is found.)
    } else {
        while i + 64 <= n {
            c.check(load(p.add(i)), load(p.add(i - 1)), load(p.add(i - 2)), load(p.add(i - 3)));
            i += 64;
        }
    }
    let [b0, b1, b2, b3] = tail_blocks(p, i, n);
    c.check(b0, b1, b2, b3);
    _mm512_test_epi8_mask(c.errors, c.errors) == 0
}

#[inline(always)]
unsafe fn table16(t: &[u8; 16]) -> __m512i {
    _mm512_broadcast_i32x4(_mm_loadu_si128(t.as_ptr() as *const __m128i))
}

#[inline(always)]
unsafe fn load(at: *const u8) -> __m512i {
    _mm512_loadu_si512(at as *const _)
}

/// The 64 bytes from `at - back` that `mask` enables, zero elsewhere.
#[inline(always)]
unsafe fn masked(mask: u64, at: *const u8, back: usize) -> __m512i {
    _mm512_maskz_loadu_epi8(mask, at.wrapping_sub(back) as *const i8)
}

/// The block at `i` of the `n` bytes at `p` (`n - i < 64`) and the same
/// block seen from one, two and three bytes back, as the block steps
/// load them: zeros past the end, and before the start when `i` is 0.
#[inline(always)]
unsafe fn tail_blocks(p: *const u8, i: usize, n: usize) -> [__m512i; 4] {
    let left = n - i;
    let upto = |k: usize| match left + k {
        0 => 0,
        m @ 1..=63 => u64::MAX >> (64 - m),
        _ => u64::MAX,
    };
    let from = |k: usize| if i == 0 { u64::MAX << k } else { u64::MAX };
    let at = p.wrapping_add(i);
    [
        masked(upto(0), at, 0),
        masked(upto(1) & from(1), at, 1),
        masked(upto(2) & from(2), at, 2),
        masked(upto(3) & from(3), at, 3),
    ]
}

/// The kind's largest code point for the byte-wise maximum of valid UTF-8.
#[inline(always)]
unsafe fn max_char(maxv: __m512i) -> u32 {
    if _mm512_cmpge_epu8_mask(maxv, _mm512_set1_epi8(0xf0u8 as i8)) != 0 {
        0x10ffff
    } else if _mm512_cmpge_epu8_mask(maxv, _mm512_set1_epi8(0xc4u8 as i8)) != 0 {
        0xffff
    } else if _mm512_movepi8_mask(maxv) != 0 {
        0xff
    } else {
        0x7f
    }
}

/// Stores the low `count` (at most 16) code points of `c` as units of
/// `W` bytes at `out`.
#[inline(always)]
unsafe fn store16<const W: usize>(out: *mut u8, c: __m512i, count: usize) {
    let mask = ((1u32 << count) - 1) as u16;
    match W {
        1 => _mm512_mask_cvtepi32_storeu_epi8(out as *mut i8, mask, c),
        2 => _mm512_mask_cvtepi32_storeu_epi16(out as *mut i16, mask, c),
        _ => _mm512_mask_storeu_epi32(out as *mut i32, mask, c),
    }
}

/// The code point in each 32-bit lane holding a sequence's bytes from its
/// lead down (lead in the top byte, later bytes below it, then whatever
/// follows the sequence).
#[inline(always)]
unsafe fn code_points(x: __m512i, shift: __m512i, keep: __m512i) -> __m512i {
    let nibble = _mm512_srli_epi32::<28>(x);
    // Lead to 7 bits, continuations to their 6 payload bits; then the four
    // groups side by side: b0 << 18 | b1 << 12 | b2 << 6 | b3.
    let y = _mm512_and_si512(x, _mm512_set1_epi32(0x7f3f_3f3f));
    let pairs = _mm512_maddubs_epi16(y, _mm512_set1_epi16(0x4001));
    let z = _mm512_madd_epi16(pairs, _mm512_set1_epi32(0x1000_0001));
    // Drop the groups past the sequence's length and the lead's length bits.
    let c = _mm512_srlv_epi32(z, _mm512_permutexvar_epi32(nibble, shift));
    _mm512_and_si512(c, _mm512_permutexvar_epi32(nibble, keep))
}

/// Code points decoded per 64-byte load: those whose lead byte is among
/// the first `STEP` bytes, which all end inside the block (a lead at
/// byte 47 ends by byte 50). The next load starts `STEP` bytes on, and
/// continuation bytes at its start are simply not leads: so where each
/// load starts does not wait for the one before (no loop-carried chain
/// through the bytes), and each step decodes at most 48 code points.
const STEP: usize = 48;

/// Decodes the code points whose leads are set in `leads` (bits below
/// [`STEP`]) of block `v` to `out`; returns how many.
#[inline(always)]
unsafe fn step<const W: usize>(v: __m512i, leads: u64, out: *mut u8, t: &Tables) -> usize {
    let count = leads.count_ones() as usize;
    let positions = _mm512_maskz_compress_epi8(leads, t.iota);
    store16::<W>(out, group(v, positions, t.spread[0], t), count.min(16));
    if count > 16 {
        store16::<W>(out.add(16 * W), group(v, positions, t.spread[1], t), (count - 16).min(16));
        if count > 32 {
            store16::<W>(out.add(32 * W), group(v, positions, t.spread[2], t), count - 32);
        }
    }
    count
}

/// The code points of the 16 leads at `positions` that `spread` picks.
#[inline(always)]
unsafe fn group(v: __m512i, positions: __m512i, spread: __m512i, t: &Tables) -> __m512i {
    let gather = _mm512_add_epi8(_mm512_permutexvar_epi8(spread, positions), t.order);
    code_points(_mm512_permutexvar_epi8(gather, v), t.shift, t.keep)
}

struct Tables {
    iota: __m512i,
    spread: [__m512i; 3],
    order: __m512i,
    shift: __m512i,
    keep: __m512i,
}

/// Widens the bytes of all-ASCII block `v` that `in_block` selects (the
/// low ones) to units of `W` bytes.
#[inline(always)]
unsafe fn widen<const W: usize>(v: __m512i, out: *mut u8, in_block: u64) {
    match W {
        1 => _mm512_mask_storeu_epi8(out as *mut i8, in_block, v),
        2 => {
            let lo = _mm512_cvtepu8_epi16(_mm512_castsi512_si256(v));
            let hi = _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64::<1>(v));
            _mm512_mask_storeu_epi16(out as *mut i16, in_block as u32, lo);
            _mm512_mask_storeu_epi16(out.add(64) as *mut i16, (in_block >> 32) as u32, hi);
        }
        _ => {
            let q0 = _mm512_cvtepu8_epi32(_mm512_castsi512_si128(v));
            let q1 = _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<1>(v));
            let q2 = _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<2>(v));
            let q3 = _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<3>(v));
            _mm512_mask_storeu_epi32(out as *mut i32, in_block as u16, q0);
            _mm512_mask_storeu_epi32(out.add(64) as *mut i32, (in_block >> 16) as u16, q1);
            _mm512_mask_storeu_epi32(out.add(128) as *mut i32, (in_block >> 32) as u16, q2);
            _mm512_mask_storeu_epi32(out.add(192) as *mut i32, (in_block >> 48) as u16, q3);
        }
    }
}

/// [`super::decode`] into units of `W` bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,popcnt")]
pub(super) unsafe fn decode<const W: usize>(bytes: &[u8], out: *mut u8, chars: usize) {
    let _ = chars;
    let n = bytes.len();
    let p = bytes.as_ptr();
    let t = Tables {
        iota: _mm512_loadu_si512(IOTA.as_ptr() as *const _),
        spread: [
            _mm512_loadu_si512(SPREAD[0].as_ptr() as *const _),
            _mm512_loadu_si512(SPREAD[1].as_ptr() as *const _),
            _mm512_loadu_si512(SPREAD[2].as_ptr() as *const _),
        ],
        // Lane byte 3 takes the lead, bytes 2, 1, 0 the three after it.
        order: _mm512_set1_epi32(0x0001_0203),
        shift: _mm512_loadu_si512(SHIFT.as_ptr() as *const _),
        keep: _mm512_loadu_si512(KEEP.as_ptr() as *const _),
    };
    // Lead bytes are the signed bytes from -64 (0xC0) up, and ASCII.
    let lead_min = _mm512_set1_epi8(-64);
    let window = u64::MAX >> (64 - STEP);
    let mut o = out;
    let mut i = 0;
    // SAFETY (reads): whole blocks end at `i + 64 <= n`, the last ones are
    // masked loads of the bytes left. (writes): every store is masked to
    // the code points decoded from this block, and there are `chars`.
    while i + 64 <= n {
        let v = _mm512_loadu_si512(p.add(i) as *const _);
        if _mm512_movepi8_mask(v) == 0 {
            // All ASCII (so starting and ending on code points): widen.
            widen::<W>(v, o, u64::MAX);
            o = o.add(64 * W);
            i += 64;
            continue;
        }
        let leads = _mm512_cmpge_epi8_mask(v, lead_min) & window;
        o = o.add(step::<W>(v, leads, o, &t) * W);
        i += STEP;
    }
    // The last bytes: every lead's sequence is complete (valid UTF-8 does
    // not end inside one), so all of them are decoded, 48 at most a step.
    while i < n {
        let left = n - i;
        let in_block = u64::MAX >> (64 - left);
        let v = _mm512_maskz_loadu_epi8(in_block, p.add(i) as *const i8);
        let leads = _mm512_cmpge_epi8_mask(v, lead_min) & in_block & window;
        o = o.add(step::<W>(v, leads, o, &t) * W);
        i += STEP;
    }
}
