//! JSON Lines: one document per line. Finding the line ends (a newline
//! cannot occur inside a JSON document but as whitespace, so every `\n`
//! ends a line) and telling which lines hold nothing.

/// Offset of the first `\n` in `buf` at or after `from`.
#[inline]
pub fn find_newline(buf: &[u8], from: usize) -> Option<usize> {
    let rest = buf.get(from..)?;
    #[cfg(target_arch = "x86_64")]
    {
        find_sse2(rest).map(|i| from + i)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        find_swar(rest).map(|i| from + i)
    }
}

/// 16 bytes a step (SSE2 is part of x86-64).
#[cfg(target_arch = "x86_64")]
fn find_sse2(buf: &[u8]) -> Option<usize> {
    use core::arch::x86_64::*;
    let mut i = 0;
    // SAFETY: SSE2 is always there on x86-64; each load reads 16 bytes at
    // `i`, and `i + 16 <= len`.
    unsafe {
        let newline = _mm_set1_epi8(b'\n' as i8);
        while i + 16 <= buf.len() {
            let block = _mm_loadu_si128(buf.as_ptr().add(i) as *const __m128i);
            let mask = _mm_movemask_epi8(_mm_cmpeq_epi8(block, newline)) as u32;
            if mask != 0 {
                return Some(i + mask.trailing_zeros() as usize);
            }
            i += 16;
        }
    }
    buf[i..].iter().position(|&b| b == b'\n').map(|j| i + j)
}

/// A word a step.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn find_swar(buf: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let mut words = buf.chunks_exact(8);
    let mut i = 0;
    for w in &mut words {
        let word = [w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]];
        let x = u64::from_le_bytes(word) ^ (ONES * b'\n' as u64);
        let found = x.wrapping_sub(ONES) & !x & (ONES << 7);
        if found != 0 {
            return Some(i + found.trailing_zeros() as usize / 8);
        }
        i += 8;
    }
    words.remainder().iter().position(|&b| b == b'\n').map(|j| i + j)
}

/// The line without its `\r` before the `\n`, if it has one.
#[inline]
pub fn strip_cr(line: &[u8]) -> &[u8] {
    match line {
        [rest @ .., b'\r'] => rest,
        _ => line,
    }
}

/// Whether a line holds only JSON whitespace (a blank line, skipped).
#[inline]
pub fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|&b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_newline_at_every_offset() {
        for len in 0..70 {
            for at in 0..=len {
                let mut buf = vec![b'x'; len];
                if at < len {
                    buf[at] = b'\n';
                }
                let want = (at < len).then_some(at);
                assert_eq!(find_newline(&buf, 0), want, "{len} {at}");
                assert_eq!(find_swar(&buf), want);
                for from in 0..=len {
                    assert_eq!(find_newline(&buf, from), want.filter(|&w| w >= from), "{len} {at} {from}");
                }
            }
        }
        assert_eq!(find_newline(b"ab", 3), None);
        // Bytes with the high bit set are no newline.
        assert_eq!(find_swar(&[0x8a; 20]), None);
        assert_eq!(find_newline(&[0x8a; 20], 0), None);
    }

    #[test]
    fn blank_lines_and_carriage_returns() {
        assert_eq!(strip_cr(b"{}\r"), b"{}");
        assert_eq!(strip_cr(b"{}"), b"{}");
        assert!(is_blank(b""));
        assert!(is_blank(b" \t\r"));
        assert!(!is_blank(b" 1"));
    }
}
