//! UCS2 and UCS4 text to JSON string content, one code unit at a time
//! with eight-unit steps over runs of one kind (SSE2, or SSSE3 where the CPU
//! has it); [`escape_wide_best`] picks the SSSE3 kernel when it can.

#[cfg(target_arch = "x86_64")]
use super::ssse3;
pub(crate) use super::unit::WideUnit;
use super::{put_escape, ESCAPE};
use crate::text::SurrogateError;

/// Escapes UCS2 or UCS4 code units into UTF-8.
///
/// One unit per step, branching on its UTF-8 length, which stays the same
/// along a run of text in one script (CJK: three bytes, Cyrillic: two), so
/// the branch predicts well; each sequence is one unaligned word store
/// (into the slack past it). Only an ASCII unit tries the eight-at-a-time
/// copy, so text without ASCII runs never pays for a failed attempt.
///
/// # Safety
/// `out` must have room for `6 * src.len() + SLACK` bytes.
#[inline(always)]
pub(super) unsafe fn escape_wide<T: WideUnit, const SSSE3: bool>(
    src: &[T],
    mut out: *mut u8,
) -> Result<*mut u8, SurrogateError> {
    #[cfg(target_arch = "x86_64")]
    if SSSE3 {
        return ssse3::escape_wide_ssse3::<T, true>(src, out);
    }
    let n = src.len();
    let p = src.as_ptr();
    let mut i = 0;
    // Where the next eight-unit block may be tried: after a failed try, the
    // units it covered go one by one (mixed text pays once per eight).
    let mut blocks_from = 0;
    while i < n {
        let c: u32 = (*p.add(i)).to_u32();
        if c >= 0x80 && i >= blocks_from && n - i >= 8 {
            // Eight units that all take two (or, with SSSE3, all three)
            // bytes: a whole run of Cyrillic or CJK text goes eight at a time.
            let written = T::multibyte8::<SSSE3, true>(p.add(i), out);
            if written != 0 {
                i += 8;
                out = out.add(written);
                continue;
            }
            blocks_from = i + 8;
        }
        if c < 0x80 {
            if n - i >= 8 {
                let k = T::clean_ascii8::<true>(p.add(i), out);
                if k > 0 {
                    i += k;
                    out = out.add(k);
                    continue;
                }
            }
            let b = c as u8;
            if ESCAPE[b as usize] != 0 {
                out = put_escape(out, b);
            } else {
                *out = b;
                out = out.add(1);
            }
        } else if c < 0x800 {
            let pair = (0xC0 | c >> 6) | (0x80 | (c & 0x3F)) << 8;
            (out as *mut [u8; 2]).write_unaligned((pair as u16).to_le_bytes());
            out = out.add(2);
        } else if c < 0x10000 {
            if c & 0xF800 == 0xD800 {
                return Err(SurrogateError);
            }
            let triple = (0xE0 | c >> 12) | (0x80 | (c >> 6 & 0x3F)) << 8 | (0x80 | (c & 0x3F)) << 16;
            (out as *mut [u8; 4]).write_unaligned(triple.to_le_bytes());
            out = out.add(3);
        } else {
            let quad = (0xF0 | c >> 18)
                | (0x80 | (c >> 12 & 0x3F)) << 8
                | (0x80 | (c >> 6 & 0x3F)) << 16
                | (0x80 | (c & 0x3F)) << 24;
            (out as *mut [u8; 4]).write_unaligned(quad.to_le_bytes());
            out = out.add(4);
        }
        i += 1;
    }
    Ok(out)
}

/// [`escape_wide`] with its SSSE3 steps where the CPU has them.
///
/// # Safety
/// As [`escape_wide`].
#[inline(always)]
pub(super) unsafe fn escape_wide_best<T: WideUnit>(src: &[T], out: *mut u8) -> Result<*mut u8, SurrogateError> {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::ssse3() {
        return escape_wide_with_ssse3(src, out);
    }
    escape_wide::<T, false>(src, out)
}

/// [`escape_wide`] compiled for SSSE3.
///
/// # Safety
/// As [`escape_wide`], and the CPU has SSSE3.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
unsafe fn escape_wide_with_ssse3<T: WideUnit>(src: &[T], out: *mut u8) -> Result<*mut u8, SurrogateError> {
    escape_wide::<T, true>(src, out)
}

#[cfg(test)]
mod tests {
    use super::super::{MAX_ESCAPED_PER_UNIT, SLACK};
    use super::*;
    use crate::testing::{json_string as reference, Rng};

    /// Wide text as `escape_wide` writes it with and without SSSE3 blocks
    /// (both checked to agree), or None for a lone surrogate.
    fn wide_json<T: WideUnit>(units: &[T]) -> Option<Vec<u8>> {
        let mut results = Vec::new();
        for ssse3 in [false, true] {
            if ssse3 && !cfg!(target_arch = "x86_64") {
                continue;
            }
            let mut out = vec![0u8; units.len() * MAX_ESCAPED_PER_UNIT + SLACK];
            // SAFETY: room for every unit escaped plus the slack; the SSSE3
            // variant only where the CPU has it.
            let end = unsafe {
                let body = out.as_mut_ptr();
                match ssse3 {
                    #[cfg(target_arch = "x86_64")]
                    true if crate::cpu::ssse3() => escape_wide_with_ssse3(units, body),
                    true => continue,
                    false => escape_wide::<T, false>(units, body),
                }
            };
            results.push(end.ok().map(|end| {
                // SAFETY: `end` points into `out`, at or after its start.
                let n = unsafe { end.offset_from(out.as_ptr()) } as usize;
                out[..n].to_vec()
            }));
        }
        assert!(results.windows(2).all(|w| w[0] == w[1]), "variants disagree");
        results.pop().unwrap()
    }

    #[test]
    fn wide_runs_of_every_utf8_length() {
        // Random text in runs of one UTF-8 length (so eight-unit blocks of
        // two- and three-byte units occur at every offset), against std.
        let classes: [&[u32]; 5] = [
            &[0x61, 0x20, 0x22, 0x5C, 0x0A, 0x01, 0x7F],
            &[0x80, 0xE9, 0xFF, 0x100, 0x430, 0x7FF],
            &[0x800, 0x3042, 0x4E2D, 0xD7FF, 0xE000, 0xFFFF],
            &[0x10000, 0x1F600, 0x10FFFF],
            &[0xD800, 0xDBFF, 0xDC00, 0xDFFF],
        ];
        let mut rng = Rng::new(0x2545_F491_4F6C_DD1D);
        for round in 0..30_000 {
            let len = rng.below(70) as usize;
            let mut class = rng.below(4) as usize;
            // A third of the strings interleave ASCII with one other length
            // unit by unit, as words and spaces do.
            let interleave = [None, Some(1), Some(2)][round % 3];
            let units: Vec<u32> = (0..len)
                .map(|_| {
                    if let Some(other) = interleave {
                        class = if rng.below(3) == 0 { 0 } else { other };
                    } else if rng.below(10) == 0 {
                        // A lone surrogate in one string in about four.
                        class = if round % 4 == 0 && rng.below(8) == 0 { 4 } else { rng.below(4) as usize };
                    }
                    let c = classes[class];
                    let unit = c[rng.below(c.len() as u64) as usize];
                    if class == 4 {
                        class = 2;
                    }
                    unit
                })
                .collect();
            let text: Option<String> = units.iter().map(|&u| char::from_u32(u)).collect();
            let expected = text.as_ref().map(|t| {
                let quoted = reference(t);
                quoted.as_bytes()[1..quoted.len() - 1].to_vec()
            });
            assert_eq!(wide_json(&units), expected, "ucs4 {units:x?}");
            if units.iter().all(|&u| u < 0x10000) {
                let narrow: Vec<u16> = units.iter().map(|&u| u as u16).collect();
                assert_eq!(wide_json(&narrow), expected, "ucs2 {units:x?}");
            }
        }
    }
}
