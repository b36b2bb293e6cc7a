//! Where a top-level JSON value ends, in a stream of values arriving in
//! pieces (`{"a":1}{"b":2}`, whitespace- or newline-separated values).
//!
//! [`JsonExtent`] tracks only what decides a value's end: the nesting depth,
//! whether it is inside a string (and just after a backslash there), and
//! whether a number or literal at the top level is running. It keeps its
//! place between calls, so each byte is looked at once however the stream
//! is cut; the value's bytes are then decoded whole by the push decoder,
//! which checks everything else (and reports what is wrong with a value
//! this scan delimited, which it consumes).
//!
//! A number or literal at the top level ends at the first byte that cannot
//! continue it (whitespace or a bracket or quote, or the end of the stream):
//! at the end of the bytes received so far it may continue, so it waits.
//! Nesting deeper than [`MAX_DECODE_DEPTH`](crate::MAX_DECODE_DEPTH) ends the
//! value at the bracket too many, for the decoder to refuse at once.

/// The scan of the stream's next value, resumable.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JsonExtent {
    /// Offset of the next byte to look at.
    pub pos: usize,
    /// Offset of the value's first byte, once seen.
    pub start: Option<usize>,
    depth: u32,
    in_string: bool,
    escape: bool,
    scalar: bool,
}

/// Whether `c` ends a number or literal at the top level.
pub fn ends_scalar(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'[' | b']' | b'{' | b'}' | b'"' | b',')
}

impl JsonExtent {
    pub fn new() -> Self {
        Self::default()
    }

    /// The packed form of the state (depth and flags) for a caller that keeps it.
    pub fn state(&self) -> u64 {
        self.depth as u64 | (self.in_string as u64) << 32 | (self.escape as u64) << 33 | (self.scalar as u64) << 34
    }

    /// A scan at `pos`, with the value begun at `start`, in the packed `state`.
    pub fn from_parts(pos: usize, start: Option<usize>, state: u64) -> Self {
        JsonExtent {
            pos,
            start,
            depth: state as u32,
            in_string: state >> 32 & 1 != 0,
            escape: state >> 33 & 1 != 0,
            scalar: state >> 34 & 1 != 0,
        }
    }

    /// Reads on in `buf` (the stream's bytes from where this scan started;
    /// each call gives at least those of the last). `Some((start, end))`: the
    /// next value is `buf[start..end]`, and the scan starts over at `end`
    /// for the value after it. None: more bytes are needed (whitespace only
    /// so far, or a value still open). `eof`: no more bytes will come, so a
    /// number or literal running to the end is complete.
    pub fn next(&mut self, buf: &[u8], eof: bool) -> Option<(usize, usize)> {
        let mut i = self.pos;
        while i < buf.len() {
            if self.in_string {
                if self.escape {
                    // The byte after a backslash.
                    self.escape = false;
                    i += 1;
                    continue;
                }
                // To the next quote or backslash.
                match buf[i..].iter().position(|&c| c == b'"' || c == b'\\') {
                    None => {
                        i = buf.len();
                        break;
                    }
                    Some(k) => i += k,
                }
                if buf[i] == b'\\' {
                    self.escape = true;
                } else {
                    self.in_string = false;
                    if self.depth == 0 {
                        return Some(self.done(i + 1));
                    }
                }
                i += 1;
                continue;
            }
            let c = buf[i];
            if self.scalar {
                if ends_scalar(c) {
                    return Some(self.done(i));
                }
                i += 1;
                continue;
            }
            match c {
                b' ' | b'\t' | b'\n' | b'\r' => {}
                b'"' => {
                    self.begin(i);
                    self.in_string = true;
                }
                b'[' | b'{' => {
                    self.begin(i);
                    self.depth += 1;
                    if self.depth as usize > crate::MAX_DECODE_DEPTH {
                        return Some(self.done(i + 1));
                    }
                }
                b']' | b'}' => {
                    self.begin(i);
                    if self.depth <= 1 {
                        return Some(self.done(i + 1));
                    }
                    self.depth -= 1;
                }
                _ => {
                    if self.depth == 0 {
                        self.begin(i);
                        self.scalar = true;
                    }
                }
            }
            i += 1;
        }
        self.pos = i;
        if eof && self.scalar {
            return Some(self.done(buf.len()));
        }
        None
    }

    fn begin(&mut self, i: usize) {
        if self.start.is_none() {
            self.start = Some(i);
        }
    }

    fn done(&mut self, end: usize) -> (usize, usize) {
        let start = self.start.unwrap_or(end);
        *self = JsonExtent { pos: end, ..JsonExtent::default() };
        (start, end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(stream: &[u8], chunk: usize) -> Vec<String> {
        let mut out = Vec::new();
        let mut scan = JsonExtent::new();
        let mut have = 0;
        loop {
            let eof = have == stream.len();
            while let Some((a, b)) = scan.next(&stream[..have], eof) {
                out.push(String::from_utf8(stream[a..b].to_vec()).unwrap());
            }
            if eof {
                return out;
            }
            have = (have + chunk).min(stream.len());
        }
    }

    #[test]
    fn values_under_every_chunking() {
        let stream = r#"{"a": [1, "x]\"}"]}[]"x\\"12 true
{"b":{}}-3.5e2
"é"7"#
            .as_bytes();
        let want = [r#"{"a": [1, "x]\"}"]}"#, "[]", r#""x\\""#, "12", "true", r#"{"b":{}}"#, "-3.5e2", "\"é\"", "7"];
        for chunk in 1..stream.len() + 1 {
            assert_eq!(values(stream, chunk), want, "chunks of {chunk}");
        }
    }

    #[test]
    fn a_number_at_the_end_waits() {
        let mut scan = JsonExtent::new();
        assert_eq!(scan.next(b"12", false), None);
        assert_eq!(scan.next(b"123 ", false), Some((0, 3)));
        let mut scan = JsonExtent::new();
        assert_eq!(scan.next(b" 12", true), Some((1, 3)));
        assert_eq!(JsonExtent::new().next(b"  \n", true), None);
    }

    #[test]
    fn resumes_from_its_parts() {
        let mut scan = JsonExtent::new();
        assert_eq!(scan.next(br#"[{"a": "\"#, false), None);
        let mut again = JsonExtent::from_parts(scan.pos, scan.start, scan.state());
        assert_eq!(again, scan);
        assert_eq!(again.next(br#"[{"a": "\"x"}]"#, false), Some((0, 14)));
    }

    #[test]
    fn too_deep_ends_at_once() {
        let deep = vec![b'['; 5000];
        assert_eq!(JsonExtent::new().next(&deep, false), Some((0, crate::MAX_DECODE_DEPTH + 1)));
        assert_eq!(JsonExtent::new().next(b"]", false), Some((0, 1)));
    }
}
