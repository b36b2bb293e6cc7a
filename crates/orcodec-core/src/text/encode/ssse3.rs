//! The SSSE3 kernel for UCS2 and UCS4 text, escaped for JSON or plain
//! UTF-8: four code units encoded side by side and packed by one `pshufb`.

use super::escape_unit;
use super::unit::WideUnit;
use crate::text::SurrogateError;

/// [`escape_wide`](super::wide::escape_wide) with SSSE3. From a non-ASCII unit on, eight units go at
/// once if they are all two-byte with clean ASCII between (Cyrillic, Greek,
/// accented Latin words and spaces) or all three-byte (CJK); otherwise four,
/// whatever their mix of one- to four-byte forms. Natural text switches
/// between ASCII and its own script every few characters, and a branch per
/// unit on its length mispredicts at each switch; here each unit's encoding
/// is computed in its lane and the used bytes gathered by one `pshufb` from
/// a table indexed by the lengths. A run of three-byte text then goes on
/// eight at a time. From an ASCII unit on, as much of the next eight as is
/// clean is copied. Escapes and surrogates go one by one.
///
/// Against the unit-by-unit loop, counting instructions and mispredictions,
/// this costs far less on Cyrillic text and less on Japanese with ASCII and
/// on CJK; English with emoji, whose length seldom switches, costs more.
///
/// # Safety
/// As [`escape_wide`](super::wide::escape_wide), and the caller is compiled for SSSE3.
#[inline(always)]
pub(super) unsafe fn escape_wide_ssse3<T: WideUnit, const ESC: bool>(
    src: &[T],
    mut out: *mut u8,
) -> Result<*mut u8, SurrogateError> {
    let n = src.len();
    let p = src.as_ptr();
    let mut i = 0;
    while i < n {
        let c = (*p.add(i)).to_u32();
        if c < 0x80 && n - i >= 8 {
            // ASCII: as much of the next eight as is clean, then on.
            let clean = T::clean_ascii8::<ESC>(p.add(i), out);
            if clean > 0 {
                i += clean;
                out = out.add(clean);
                continue;
            }
        } else if c >= 0x80 && n - i >= 4 {
            if n - i >= 8 {
                // Eight units of two bytes with ASCII between, or of three.
                let written = T::multibyte8::<true, ESC>(p.add(i), out);
                if written != 0 {
                    i += 8;
                    out = out.add(written);
                    continue;
                }
            }
            match encode4::<T, ESC>(T::load4(p.add(i)), out) {
                Ok((written, lengths)) => {
                    i += 4;
                    out = out.add(written);
                    // A run of three-byte text goes on eight units at a time.
                    if lengths == ALL_THREE_BYTE {
                        while n - i >= 8 {
                            let written = T::multibyte8::<true, ESC>(p.add(i), out);
                            if written == 0 {
                                break;
                            }
                            i += 8;
                            out = out.add(written);
                        }
                    }
                    continue;
                }
                Err(refused) => {
                    // The units before the first refused one, and it, one
                    // by one, so the next try starts past it.
                    for k in 0..=refused {
                        out = escape_unit::<ESC>((*p.add(i + k)).to_u32(), out)?;
                    }
                    i += refused + 1;
                    continue;
                }
            }
        }
        out = escape_unit::<ESC>(c, out)?;
        i += 1;
    }
    Ok(out)
}

/// The four code points in the 32-bit lanes of `c` as UTF-8 at `out`, if
/// none needs an escape or is a surrogate; returns the bytes written and the
/// lengths code (bit k: lane k's length less one is odd; bit 4 + k: it is 2
/// or 3). Otherwise the first such lane, writing nothing.
///
/// # Safety
/// `out` writable for 16 bytes; the caller is compiled for SSSE3.
#[inline(always)]
unsafe fn encode4<T: WideUnit, const ESC: bool>(
    c: core::arch::x86_64::__m128i,
    out: *mut u8,
) -> Result<(usize, usize), usize> {
    use core::arch::x86_64::*;
    let splat = _mm_set1_epi32;
    let mut refused = _mm_cmpeq_epi32(_mm_and_si128(c, splat(0x1F_F800)), splat(0xD800));
    if ESC {
        refused = _mm_or_si128(
            _mm_or_si128(_mm_cmplt_epi32(c, splat(0x20)), _mm_cmpeq_epi32(c, splat(b'"' as i32))),
            _mm_or_si128(_mm_cmpeq_epi32(c, splat(b'\\' as i32)), refused),
        );
    }
    let refused = _mm_movemask_ps(_mm_castsi128_ps(refused));
    if refused != 0 {
        return Err(refused.trailing_zeros() as usize);
    }
    let two_or_more = _mm_cmpgt_epi32(c, splat(0x7F));
    let three_or_more = _mm_cmpgt_epi32(c, splat(0x7FF));
    // UCS2 units are never beyond U+FFFF: no four-byte lanes to make.
    let four = if T::ASTRAL { _mm_cmpgt_epi32(c, splat(0xFFFF)) } else { _mm_setzero_si128() };
    // Continuation bytes: 10xxxxxx from bits 0-5, 6-11 and 12-17.
    let cont = |shift: i32| {
        let bits = _mm_and_si128(_mm_srl_epi32(c, _mm_cvtsi32_si128(shift)), splat(0x3F));
        _mm_or_si128(bits, splat(0x80))
    };
    let (c0, c6, c12) = (cont(0), cont(6), cont(12));
    // Each form's bytes, the first lowest.
    let two = _mm_or_si128(_mm_or_si128(_mm_srli_epi32(c, 6), splat(0xC0)), _mm_slli_epi32(c0, 8));
    let three = _mm_or_si128(
        _mm_or_si128(_mm_srli_epi32(c, 12), splat(0xE0)),
        _mm_or_si128(_mm_slli_epi32(c6, 8), _mm_slli_epi32(c0, 16)),
    );
    let four_bytes = _mm_or_si128(
        _mm_or_si128(_mm_or_si128(_mm_srli_epi32(c, 18), splat(0xF0)), _mm_slli_epi32(c12, 8)),
        _mm_or_si128(_mm_slli_epi32(c6, 16), _mm_slli_epi32(c0, 24)),
    );
    let select = |mask, a, b| _mm_or_si128(_mm_and_si128(mask, a), _mm_andnot_si128(mask, b));
    let mut encoded = select(three_or_more, three, select(two_or_more, two, c));
    if T::ASTRAL {
        encoded = select(four, four_bytes, encoded);
    }
    // Length less one per lane (the masks are -1 where set), as two bits.
    let extra = _mm_sub_epi32(_mm_setzero_si128(), _mm_add_epi32(_mm_add_epi32(two_or_more, three_or_more), four));
    let low = _mm_movemask_ps(_mm_castsi128_ps(_mm_slli_epi32(extra, 31)));
    let high = _mm_movemask_ps(_mm_castsi128_ps(_mm_slli_epi32(extra, 30)));
    let lengths = (low | high << 4) as usize;
    let gather = _mm_loadu_si128(GATHER_UTF8[lengths].as_ptr() as *const __m128i);
    _mm_storeu_si128(out as *mut __m128i, _mm_shuffle_epi8(encoded, gather));
    Ok((4 + (low.count_ones() + 2 * high.count_ones()) as usize, lengths))
}

/// All four lanes three bytes long, in [`encode4`]'s code.
const ALL_THREE_BYTE: usize = 0xF0;

/// `pshufb` tables for [`encode4`]: for each lengths code, the bytes of
/// each lane's encoding that are used (lane k's at 4k..), one after the
/// other; 0x80 (zero) after them.
pub(super) const GATHER_UTF8: [[u8; 16]; 256] = {
    let mut tables = [[0x80u8; 16]; 256];
    let mut code = 0;
    while code < 256 {
        let mut at = 0;
        let mut lane = 0;
        while lane < 4 {
            let len = 1 + (code >> lane & 1) + 2 * (code >> (4 + lane) & 1);
            let mut b = 0;
            while b < len {
                tables[code][at] = (4 * lane + b) as u8;
                at += 1;
                b += 1;
            }
            lane += 1;
        }
        code += 1;
    }
    tables
};

/// UCS2/UCS4 units to plain UTF-8 (nothing escaped, lone surrogates
/// refused) through the SSSE3 steps of [`escape_wide`](super::wide::escape_wide): MessagePack's
/// transcoder where the CPU lacks AVX-512 VBMI2.
///
/// # Safety
/// `out` has room for 3 (UCS2) or 4 (UCS4) bytes per unit plus
/// [`crate::text::WRITE_SLACK`]; the CPU has SSSE3.
#[target_feature(enable = "ssse3")]
pub(crate) unsafe fn utf8_wide_ssse3<T: WideUnit>(src: &[T], out: *mut u8) -> Result<*mut u8, SurrogateError> {
    escape_wide_ssse3::<T, false>(src, out)
}
