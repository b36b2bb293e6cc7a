//! Base64 (RFC 4648, standard alphabet, `=` padding): how MessagePack bin
//! and extension payloads are written as JSON text when asked to.

use crate::sink::Sink;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Characters the base64 text of `len` bytes takes.
#[inline]
pub fn encoded_len(len: usize) -> usize {
    len.div_ceil(3) * 4
}

/// Appends the base64 text of `data` to `out`.
pub fn encode<S: Sink>(out: &mut S, data: &[u8]) {
    let n = encoded_len(data.len());
    if !out.reserve(n) {
        // The sink failed: it says so, and nothing more is written.
        return;
    }
    // SAFETY: `n` bytes reserved just above; every one of them is written
    // below (four per three input bytes, the last group padded to four).
    unsafe {
        let mut at = out.tail();
        let mut chunks = data.chunks_exact(3);
        for c in &mut chunks {
            let v = (c[0] as u32) << 16 | (c[1] as u32) << 8 | c[2] as u32;
            *at = ALPHABET[(v >> 18) as usize & 63];
            *at.add(1) = ALPHABET[(v >> 12) as usize & 63];
            *at.add(2) = ALPHABET[(v >> 6) as usize & 63];
            *at.add(3) = ALPHABET[v as usize & 63];
            at = at.add(4);
        }
        match *chunks.remainder() {
            [a] => {
                let v = (a as u32) << 16;
                *at = ALPHABET[(v >> 18) as usize & 63];
                *at.add(1) = ALPHABET[(v >> 12) as usize & 63];
                *at.add(2) = b'=';
                *at.add(3) = b'=';
            }
            [a, b] => {
                let v = (a as u32) << 16 | (b as u32) << 8;
                *at = ALPHABET[(v >> 18) as usize & 63];
                *at.add(1) = ALPHABET[(v >> 12) as usize & 63];
                *at.add(2) = ALPHABET[(v >> 6) as usize & 63];
                *at.add(3) = b'=';
            }
            _ => {}
        }
        out.advance(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_4648_vectors() {
        for (data, text) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            let mut out = Vec::new();
            encode(&mut out, data.as_bytes());
            assert_eq!(out, text.as_bytes());
            assert_eq!(encoded_len(data.len()), text.len());
        }
        let mut out = Vec::new();
        encode(&mut out, &[0xfb, 0xff, 0xbf]);
        assert_eq!(out, b"+/+/");
    }
}
