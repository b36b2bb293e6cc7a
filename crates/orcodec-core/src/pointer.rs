//! JSON Pointer (RFC 6901) lookups that build nothing: the pull readers walk
//! the path, skipping (and so validating) every value before the target,
//! and return where the target's bytes are, for the caller to decode only
//! those. Nothing after the target is read.
//!
//! A key repeated in an object: the first occurrence is followed (reading on
//! for a later one would mean reading the rest of the object).

use core::fmt;

use crate::error::DecodeError;
use crate::json::pull::{JsonKind, JsonPull};
use crate::msgpack::pull::{MsgpackItem, MsgpackPull};
use crate::msgpack::reader::ReadOptions;
use crate::MAX_DECODE_DEPTH;

/// Why a pointer does not lead to a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PointerErrorKind {
    /// A non-empty pointer must start with `/`.
    NoLeadingSlash,
    /// `~` followed by anything but `0` or `1`.
    BadEscape,
    /// More tokens than documents can nest.
    TooManyTokens(usize),
    NoSuchKey,
    IndexPastEnd {
        len: usize,
    },
    /// `-`: the element after the last, which never exists.
    AfterLast,
    LeadingZero,
    NotAnIndex,
    IndexTooLarge,
    /// A token applied to a value that is no container.
    Scalar(&'static str),
}

/// A pointer that does not lead to a value: why, which token (from 0), and
/// the byte offset in the document of the value the lookup stopped at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PointerError {
    pub kind: PointerErrorKind,
    pub token: usize,
    pub offset: usize,
}

/// What a lookup stopped at: the document is not valid before the target,
/// or the pointer does not lead to a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LookupError {
    Syntax(DecodeError),
    Pointer(PointerError),
}

impl From<DecodeError> for LookupError {
    fn from(e: DecodeError) -> Self {
        LookupError::Syntax(e)
    }
}

/// The reference tokens of `pointer`, unescaped (`~1` is `/`, `~0` is `~`).
#[expect(
    clippy::disallowed_methods,
    reason = "the tokens take what the pointer text does, which the caller holds already"
)]
pub fn tokens(pointer: &str) -> Result<Vec<String>, PointerError> {
    let fail = |kind, token| PointerError { kind, token, offset: 0 };
    if pointer.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = pointer.strip_prefix('/') else { return Err(fail(PointerErrorKind::NoLeadingSlash, 0)) };
    let count = rest.split('/').count();
    if count > MAX_DECODE_DEPTH {
        return Err(fail(PointerErrorKind::TooManyTokens(count), MAX_DECODE_DEPTH));
    }
    let mut out = Vec::with_capacity(count);
    for (i, raw) in rest.split('/').enumerate() {
        let mut token = String::with_capacity(raw.len());
        let mut chars = raw.chars();
        while let Some(c) = chars.next() {
            if c != '~' {
                token.push(c);
                continue;
            }
            match chars.next() {
                Some('0') => token.push('~'),
                Some('1') => token.push('/'),
                _ => return Err(fail(PointerErrorKind::BadEscape, i)),
            }
        }
        out.push(token);
    }
    Ok(out)
}

/// A token as an array index (RFC 6901: `0` or digits without a leading zero).
fn index(token: &str, i: usize, offset: usize) -> Result<usize, PointerError> {
    let fail = |kind| PointerError { kind, token: i, offset };
    if token == "-" {
        return Err(fail(PointerErrorKind::AfterLast));
    }
    if token.is_empty() || !token.bytes().all(|b| b.is_ascii_digit()) {
        return Err(fail(PointerErrorKind::NotAnIndex));
    }
    if token.len() > 1 && token.starts_with('0') {
        return Err(fail(PointerErrorKind::LeadingZero));
    }
    token.parse().map_err(|_| fail(PointerErrorKind::IndexTooLarge))
}

fn missing(kind: PointerErrorKind, token: usize, offset: usize) -> LookupError {
    LookupError::Pointer(PointerError { kind, token, offset })
}

/// Where the value `tokens` leads to in the JSON document `input` is: its
/// byte range, the value checked. Everything before it is checked as
/// `parse` checks it; nothing after it is read.
pub fn find_json(input: &[u8], tokens: &[String]) -> Result<(usize, usize), LookupError> {
    let mut p = JsonPull::new(input)?;
    for (depth, token) in tokens.iter().enumerate() {
        let kind = p.peek()?;
        let at = p.pos();
        match kind {
            JsonKind::Object => {
                p.begin_object()?;
                let mut first = true;
                loop {
                    match p.next_key(first)? {
                        None => return Err(missing(PointerErrorKind::NoSuchKey, depth, at)),
                        Some(key) if key == token => break,
                        Some(_) => {}
                    }
                    first = false;
                    p.skip_at_depth(depth + 1)?;
                }
            }
            JsonKind::Array => {
                let want = index(token, depth, at).map_err(LookupError::Pointer)?;
                p.begin_array()?;
                let mut i = 0;
                loop {
                    if !p.next_item(i == 0)? {
                        return Err(missing(PointerErrorKind::IndexPastEnd { len: i }, depth, at));
                    }
                    if i == want {
                        break;
                    }
                    p.skip_at_depth(depth + 1)?;
                    i += 1;
                }
            }
            JsonKind::String => return Err(missing(PointerErrorKind::Scalar("a string"), depth, at)),
            JsonKind::Number => return Err(missing(PointerErrorKind::Scalar("a number"), depth, at)),
            JsonKind::Null | JsonKind::True | JsonKind::False => {
                return Err(missing(PointerErrorKind::Scalar("a literal"), depth, at))
            }
        }
    }
    p.peek()?;
    let start = p.pos();
    p.skip_at_depth(tokens.len())?;
    Ok((start, p.pos()))
}

/// [`find_json`] for a MessagePack value: map keys are compared when they
/// are str (others are passed over, under the key rules of `opts`).
pub fn find_msgpack(input: &[u8], tokens: &[String], opts: ReadOptions) -> Result<(usize, usize), LookupError> {
    let mut p = MsgpackPull::with_options(input, opts);
    for (depth, token) in tokens.iter().enumerate() {
        let at = p.pos();
        match p.next()? {
            MsgpackItem::Map(n) => {
                let mut found = false;
                for _ in 0..n {
                    match p.next_key()? {
                        MsgpackItem::Str(key) if key == token => {
                            found = true;
                            break;
                        }
                        // A key's own items (a tuple key).
                        MsgpackItem::Array(items) => {
                            for _ in 0..items {
                                p.skip_at_depth(depth + 2)?;
                            }
                        }
                        _ => {}
                    }
                    p.skip_at_depth(depth + 1)?;
                }
                if !found {
                    return Err(missing(PointerErrorKind::NoSuchKey, depth, at));
                }
            }
            MsgpackItem::Array(n) => {
                let want = index(token, depth, at).map_err(LookupError::Pointer)?;
                if want >= n {
                    return Err(missing(PointerErrorKind::IndexPastEnd { len: n }, depth, at));
                }
                for _ in 0..want {
                    p.skip_at_depth(depth + 1)?;
                }
            }
            MsgpackItem::Str(_) => return Err(missing(PointerErrorKind::Scalar("a string"), depth, at)),
            MsgpackItem::Bin(_) => return Err(missing(PointerErrorKind::Scalar("bin"), depth, at)),
            MsgpackItem::Ext(..) => return Err(missing(PointerErrorKind::Scalar("an extension value"), depth, at)),
            MsgpackItem::Nil | MsgpackItem::Bool(_) => {
                return Err(missing(PointerErrorKind::Scalar("a literal"), depth, at))
            }
            _ => return Err(missing(PointerErrorKind::Scalar("a number"), depth, at)),
        }
    }
    let start = p.pos();
    p.skip_at_depth(tokens.len())?;
    Ok((start, p.pos()))
}

/// The pointer made of the first `n` tokens, escaped again.
pub fn prefix(tokens: &[String], n: usize) -> String {
    tokens[..n.min(tokens.len())].iter().map(|t| format!("/{}", t.replace('~', "~0").replace('/', "~1"))).collect()
}

impl PointerError {
    /// The message, for the pointer `pointer` made of `tokens`.
    pub fn message(&self, pointer: &str, tokens: &[String]) -> String {
        let token = tokens.get(self.token).map(String::as_str).unwrap_or("");
        let at = prefix(tokens, self.token);
        let at = if at.is_empty() { "the document's root".to_string() } else { format!("'{at}'") };
        let why = match &self.kind {
            PointerErrorKind::NoLeadingSlash => "a JSON Pointer is empty or starts with '/'".to_string(),
            PointerErrorKind::BadEscape => format!("'~' must be followed by 0 or 1 (token {})", self.token + 1),
            PointerErrorKind::TooManyTokens(n) => {
                format!("{n} tokens, more than documents can nest ({MAX_DECODE_DEPTH} levels)")
            }
            PointerErrorKind::NoSuchKey => format!("no key {token:?} in the object at {at}"),
            PointerErrorKind::IndexPastEnd { len } => {
                format!("index {token} is past the end of the array at {at} ({len} items)")
            }
            PointerErrorKind::AfterLast => format!("'-' (the item after the last) does not exist in the array at {at}"),
            PointerErrorKind::LeadingZero => format!("array index {token:?} has a leading zero (at {at})"),
            PointerErrorKind::NotAnIndex => format!("{token:?} is not an array index (the value at {at} is an array)"),
            PointerErrorKind::IndexTooLarge => format!("array index {token} is too large (at {at})"),
            PointerErrorKind::Scalar(what) => format!("the value at {at} is {what}, not an object or array"),
        };
        format!("pointer {pointer:?}: {why}")
    }
}

impl fmt::Display for PointerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} at token {} (byte {})", self.kind, self.token, self.offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(doc: &str, pointer: &str) -> Result<String, LookupError> {
        let t = tokens(pointer).map_err(LookupError::Pointer)?;
        let (a, b) = find_json(doc.as_bytes(), &t)?;
        Ok(doc[a..b].to_string())
    }

    #[test]
    fn lookups() {
        let doc = r#"{"a": [1, {"b": "x", "c/d": 2, "e~f": [true]}], "": 3, "a": 9}"#;
        assert_eq!(json(doc, "/a/1/b").unwrap(), r#""x""#);
        assert_eq!(json(doc, "/a/1/c~1d").unwrap(), "2");
        assert_eq!(json(doc, "/a/1/e~0f/0").unwrap(), "true");
        assert_eq!(json(doc, "/").unwrap(), "3");
        assert_eq!(json(doc, "/a/0").unwrap(), "1");
        let pointer_error = |p: &str| match json(doc, p) {
            Err(LookupError::Pointer(e)) => (e.kind, e.token, e.offset),
            other => panic!("{p}: {other:?}"),
        };
        assert_eq!(pointer_error("/x"), (PointerErrorKind::NoSuchKey, 0, 0));
        assert_eq!(pointer_error("/a/2"), (PointerErrorKind::IndexPastEnd { len: 2 }, 1, 6));
        assert_eq!(pointer_error("/a/-"), (PointerErrorKind::AfterLast, 1, 6));
        assert_eq!(pointer_error("/a/01"), (PointerErrorKind::LeadingZero, 1, 6));
        assert_eq!(pointer_error("/a/x"), (PointerErrorKind::NotAnIndex, 1, 6));
        assert_eq!(pointer_error("/a/99999999999999999999999"), (PointerErrorKind::IndexTooLarge, 1, 6));
        assert_eq!(pointer_error("/a/0/x"), (PointerErrorKind::Scalar("a number"), 2, 7));
        assert_eq!(pointer_error("a"), (PointerErrorKind::NoLeadingSlash, 0, 0));
        assert_eq!(pointer_error("/a~2"), (PointerErrorKind::BadEscape, 0, 0));
        let long = "/a".repeat(100_000);
        assert_eq!(pointer_error(&long).0, PointerErrorKind::TooManyTokens(100_000));
        // Invalid before the target: the syntax error; after it: not read.
        assert!(matches!(json(r#"{"x": [1,], "a": 1}"#, "/a"), Err(LookupError::Syntax(_))));
        assert_eq!(json(r#"{"a": 1, "x": [1,]"#, "/a").unwrap(), "1");
    }
}
