//! Checking that bytes are exactly one MessagePack value, without decoding
//! it: what `packb` asks of a `Fragment` before copying it into its output.

/// Whether `data` is exactly one well-formed MessagePack value, as
/// ormsgpack's `Fragment` checks: every length within the input, str valid
/// UTF-8, timestamp extensions (type -1) of a valid form, no reserved byte,
/// nothing after the value. Iterative (a count of the values still owed), so
/// any nesting is checked without recursion.
pub fn is_one_value(data: &[u8]) -> bool {
    let mut pos = 0usize;
    // Values still expected; each takes at least one byte.
    let mut owed: u64 = 1;
    let take = |pos: &mut usize, n: usize| -> Option<usize> {
        let start = *pos;
        let end = start.checked_add(n).filter(|&end| end <= data.len())?;
        *pos = end;
        Some(start)
    };
    let be = |bytes: &[u8]| bytes.iter().fold(0usize, |acc, &b| acc << 8 | b as usize);
    while owed > 0 {
        if owed > (data.len() - pos) as u64 {
            return false;
        }
        owed -= 1;
        let Some(at) = take(&mut pos, 1) else { return false };
        let marker = data[at];
        // (length-field size, what follows: 0 none, 1 str, 2 bin, 3 ext, 4 array, 5 map)
        let (size, kind, fixed) = match marker {
            0x00..=0x7f | 0xc0 | 0xc2 | 0xc3 | 0xe0..=0xff => continue,
            0x80..=0x8f => (0, 5, (marker & 0x0f) as usize),
            0x90..=0x9f => (0, 4, (marker & 0x0f) as usize),
            0xa0..=0xbf => (0, 1, (marker & 0x1f) as usize),
            0xc1 => return false,
            0xc4 => (1, 2, 0),
            0xc5 => (2, 2, 0),
            0xc6 => (4, 2, 0),
            0xc7 => (1, 3, 0),
            0xc8 => (2, 3, 0),
            0xc9 => (4, 3, 0),
            0xca => (0, 2, 4),
            0xcb => (0, 2, 8),
            0xcc | 0xd0 => (0, 2, 1),
            0xcd | 0xd1 => (0, 2, 2),
            0xce | 0xd2 => (0, 2, 4),
            0xcf | 0xd3 => (0, 2, 8),
            0xd4 => (0, 3, 1),
            0xd5 => (0, 3, 2),
            0xd6 => (0, 3, 4),
            0xd7 => (0, 3, 8),
            0xd8 => (0, 3, 16),
            0xd9 => (1, 1, 0),
            0xda => (2, 1, 0),
            0xdb => (4, 1, 0),
            0xdc => (2, 4, 0),
            0xdd => (4, 4, 0),
            0xde => (2, 5, 0),
            0xdf => (4, 5, 0),
        };
        let len = if size == 0 {
            fixed
        } else {
            let Some(at) = take(&mut pos, size) else { return false };
            be(&data[at..at + size])
        };
        match kind {
            1 => {
                let Some(at) = take(&mut pos, len) else { return false };
                if core::str::from_utf8(&data[at..at + len]).is_err() {
                    return false;
                }
            }
            2 => {
                if take(&mut pos, len).is_none() {
                    return false;
                }
            }
            3 => {
                let Some(at) = take(&mut pos, 1) else { return false };
                let tag = data[at] as i8;
                let Some(at) = take(&mut pos, len) else { return false };
                if tag == -1 && !is_timestamp(&data[at..at + len]) {
                    return false;
                }
            }
            4 => owed += len as u64,
            _ => owed += 2 * len as u64,
        }
    }
    pos == data.len()
}

/// A timestamp extension payload: 4, 8 or 12 bytes, nanoseconds below 10**9.
fn is_timestamp(payload: &[u8]) -> bool {
    let nanos = match payload.len() {
        4 => 0,
        8 => u32::from_be_bytes([payload[0], payload[1], payload[2], payload[3]]) >> 2,
        12 => u32::from_be_bytes([payload[0], payload[1], payload[2], payload[3]]),
        _ => return false,
    };
    nanos < 1_000_000_000
}

#[cfg(test)]
mod tests {
    use super::is_one_value as ok;

    #[test]
    fn one_value() {
        for good in [&b"\xc0"[..], b"\x01", b"\xa1a", b"\x92\x01\x02", b"\x81\xa1a\x90", b"\xd6\xff\x00\x00\x00\x01"] {
            assert!(ok(good), "{good:?}");
        }
        for bad in [
            &b""[..],
            b"\xc0\xc0",
            b"\xc1",
            b"\x91",
            b"\xa2a",
            b"\xa1\xff",
            b"\xdd\xff\xff\xff\xff",
            b"\xd5\xff\x00\x00",
            b"\xcd\x01",
        ] {
            assert!(!ok(bad), "{bad:?}");
        }
    }
}
