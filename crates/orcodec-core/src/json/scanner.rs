//! The JSON decoder: strict RFC 8259 over UTF-8 input, in one pass, without
//! recursion (nesting lives in an explicit frame stack, capped at
//! [`MAX_DECODE_DEPTH`](crate::MAX_DECODE_DEPTH)).

use super::lex::{check_utf8, err, skip_whitespace_run, Lex, NumberSink, Span};
use super::partial::{self, PartialMode};
use crate::builder::Builder;
use crate::error::{no_memory, DecodeError, DecodeErrorKind as Kind, Failure};
use crate::fallible;

/// An open array or object: where its items start on the value stack.
#[derive(Clone, Copy)]
struct Frame {
    is_map: bool,
    start: usize,
}

struct Scanner<'a, V> {
    input: &'a [u8],
    pos: usize,
    stack: Vec<V>,
    frames: Vec<Frame>,
    scratch: Vec<u8>,
    /// See [`Lex::short_numbers`].
    short_numbers: bool,
    /// In partial mode, the string the input ended in (set by `run` when
    /// the lexing of a string fails).
    open: Open,
}

/// The string a partial decode was reading when it failed: a value's or a
/// key's, with the offset of its opening quote.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    None,
    Value(usize),
    Key(usize),
}

impl<'a, V> Lex<'a> for Scanner<'a, V> {
    #[inline(always)]
    fn input(&self) -> &'a [u8] {
        self.input
    }
    #[inline(always)]
    fn pos(&self) -> usize {
        self.pos
    }
    #[inline(always)]
    fn pos_mut(&mut self) -> &mut usize {
        &mut self.pos
    }
    #[inline(always)]
    fn scratch(&self) -> &[u8] {
        &self.scratch
    }
    #[inline(always)]
    fn scratch_mut(&mut self) -> &mut Vec<u8> {
        &mut self.scratch
    }
    #[inline(always)]
    fn short_numbers(&mut self) -> &mut bool {
        &mut self.short_numbers
    }
}

/// String values at least this long try the one-pass ASCII check and copy.
const LONG_STR: usize = 64;

/// The value and frame stacks and the unescape buffer a decode works in. A
/// caller that decodes often keeps one and passes it to [`parse_with`], so
/// that a small document allocates nothing of its own; it is empty between
/// calls.
pub struct ScanStacks<V> {
    stack: Vec<V>,
    frames: Vec<Frame>,
    scratch: Vec<u8>,
}

impl<V> ScanStacks<V> {
    /// Empty stacks: they grow (fallibly) as a decode needs them, and a
    /// caller that keeps them between decodes pays for that once. (Making
    /// room up front, in the decoder, cost its loop registers.)
    pub fn new() -> Self {
        ScanStacks { stack: Vec::new(), frames: Vec::new(), scratch: Vec::new() }
    }

    /// Bytes the stacks and buffer hold room for (a caller may drop large ones).
    pub fn capacity_bytes(&self) -> usize {
        self.stack.capacity() * core::mem::size_of::<V>()
            + self.frames.capacity() * core::mem::size_of::<Frame>()
            + self.scratch.capacity()
    }
}

impl<V> Default for ScanStacks<V> {
    fn default() -> Self {
        Self::new()
    }
}

/// Decodes one JSON document from `input`; anything but whitespace after it is an error.
pub fn parse<B: Builder>(input: &[u8], builder: &mut B) -> Result<B::Value, Failure<B::Error>> {
    parse_with(input, builder, &mut ScanStacks::new())
}

/// [`parse`] in the stacks of `stacks`, which it leaves empty.
pub fn parse_with<B: Builder>(
    input: &[u8],
    builder: &mut B,
    stacks: &mut ScanStacks<B::Value>,
) -> Result<B::Value, Failure<B::Error>> {
    check_utf8(input)?;
    let mut s = Scanner::in_stacks(input, stacks);
    s.skip_whitespace();
    let result = if s.pos == input.len() { err(Kind::EmptyDocument, s.pos) } else { s.run::<B, false, false>(builder) };
    s.give_back(stacks);
    result
}

/// The value at the front of `input`, which anything may follow (a
/// stream of values), and the offset where it ends; [`parse_with`]'s
/// errors otherwise (the input ending in the value is `UnexpectedEnd`; a
/// number or literal running to the end is taken as it is). `input` is
/// text, so valid UTF-8 (a stream checks its bytes as they arrive).
pub fn parse_prefix_with<B: Builder>(
    input: &str,
    builder: &mut B,
    stacks: &mut ScanStacks<B::Value>,
) -> Result<(B::Value, usize), Failure<B::Error>> {
    let input = input.as_bytes();
    let mut s = Scanner::in_stacks(input, stacks);
    s.skip_whitespace();
    let result = if s.pos == input.len() { err(Kind::EmptyDocument, s.pos) } else { s.run::<B, false, true>(builder) };
    let end = s.pos;
    s.give_back(stacks);
    result.map(|v| (v, end))
}

/// [`parse_with`] for a document that may be cut off anywhere (see
/// [`partial`](super::partial)): the value as far as it is complete.
/// Without a cut it is `parse_with`'s value; an error before the cut is
/// `parse_with`'s error.
pub fn parse_partial_with<B: Builder>(
    input: &[u8],
    builder: &mut B,
    stacks: &mut ScanStacks<B::Value>,
    mode: PartialMode,
) -> Result<B::Value, Failure<B::Error>> {
    // A character cut in the middle is left out, as a string's end.
    let whole = input;
    let input = &input[..partial::without_cut_character(input)];
    check_utf8(input)?;
    let mut s = Scanner::in_stacks(input, stacks);
    s.skip_whitespace();
    let result = if s.pos == input.len() {
        err(Kind::EmptyDocument, s.pos)
    } else {
        match s.run::<B, true, false>(builder) {
            Err(Failure::Syntax(e)) => s.close_partial(builder, e, mode),
            done => done,
        }
    };
    // A cut character is the end of a string, or it is no JSON.
    let result = match result {
        Ok(_) if input.len() != whole.len() && s.open == Open::None => err(Kind::InvalidUtf8, input.len()),
        other => other,
    };
    s.give_back(stacks);
    result
}

impl<'a, V> Scanner<'a, V> {
    /// A decoder of `input` working in the (empty) stacks of `stacks`.
    fn in_stacks(input: &'a [u8], stacks: &mut ScanStacks<V>) -> Self {
        debug_assert!(stacks.stack.is_empty() && stacks.frames.is_empty());
        Scanner {
            input,
            pos: 0,
            stack: core::mem::take(&mut stacks.stack),
            frames: core::mem::take(&mut stacks.frames),
            scratch: core::mem::take(&mut stacks.scratch),
            short_numbers: true,
            open: Open::None,
        }
    }

    /// Returns the stacks to `stacks`, emptied (after an error, values of
    /// unfinished containers are still there).
    fn give_back(mut self, stacks: &mut ScanStacks<V>) {
        self.stack.clear();
        self.frames.clear();
        self.scratch.clear();
        (stacks.stack, stacks.frames, stacks.scratch) = (self.stack, self.frames, self.scratch);
    }

    /// After `run` (partial) failed with `e`: the document closed at the end
    /// of the input if `e` is the input ending (see [`partial`](super::partial)),
    /// else `e`.
    #[cold]
    fn close_partial<B: Builder<Value = V>>(
        &mut self,
        b: &mut B,
        e: DecodeError,
        mode: PartialMode,
    ) -> Result<V, Failure<B::Error>> {
        let input = self.input;
        let end = input.len();
        let cut_string = matches!(e.kind, Kind::UnexpectedEnd | Kind::LoneSurrogate);
        match self.open {
            Open::Value(quote) | Open::Key(quote) if cut_string => {
                let kept = partial::string_start(input, quote + 1)?;
                if let Open::Value(_) = self.open {
                    if mode == PartialMode::TrailingStrings {
                        // The kept part, read as a whole string.
                        let mut whole = Vec::new();
                        fallible::extend(&mut whole, &input[quote..kept]).map_err(|_| no_memory(quote))?;
                        fallible::push(&mut whole, b'"').map_err(|_| no_memory(quote))?;
                        let mut reader = super::pull::JsonPull::new(&whole)?;
                        let value = b.str(reader.str()?).map_err(Failure::Build)?;
                        if self.frames.is_empty() {
                            return Ok(value);
                        }
                        self.push(value)?;
                    }
                }
            }
            Open::None if e.kind == Kind::UnexpectedEnd => debug_assert_eq!(e.offset, end),
            Open::None if e.kind == Kind::InvalidNumber && partial::is_number_start(&input[e.offset..]) => {}
            Open::None if e.kind == Kind::InvalidLiteral && partial::is_literal_start(&input[e.offset..]) => {}
            _ => return Err(Failure::Syntax(e)),
        }
        if self.frames.is_empty() {
            // A scalar cut at the top: there is no value.
            return Err(Failure::Syntax(e));
        }
        while let Some(frame) = self.frames.pop() {
            if frame.is_map && (self.stack.len() - frame.start) % 2 == 1 {
                // A key whose value is missing or was dropped.
                self.stack.pop();
            }
            let container =
                if frame.is_map { b.map(&mut self.stack, frame.start) } else { b.array(&mut self.stack, frame.start) }
                    .map_err(Failure::Build)?;
            self.push(container)?;
        }
        #[expect(clippy::unreachable, reason = "the outermost container was just pushed")]
        match self.stack.pop() {
            Some(v) => Ok(v),
            None => unreachable!("the closed document is on the stack"),
        }
    }

    /// The document's value; with `PREFIX`, the first value's, `pos` left
    /// where it ends (whatever follows it).
    fn run<B: Builder<Value = V>, const PARTIAL: bool, const PREFIX: bool>(
        &mut self,
        b: &mut B,
    ) -> Result<V, Failure<B::Error>> {
        loop {
            // A value starts here.
            self.skip_whitespace();
            let at = self.pos;
            let value = match self.peek() {
                None => return err(Kind::UnexpectedEnd, at),
                Some(open @ (b'[' | b'{')) => {
                    let is_map = open == b'{';
                    let close = if is_map { b'}' } else { b']' };
                    if self.frames.len() >= crate::MAX_DECODE_DEPTH {
                        return err(Kind::DepthLimit, at);
                    }
                    self.pos += 1;
                    self.skip_whitespace();
                    let start = self.stack.len();
                    if self.peek() == Some(close) {
                        self.pos += 1;
                        if is_map { b.map(&mut self.stack, start) } else { b.array(&mut self.stack, start) }
                            .map_err(Failure::Build)?
                    } else {
                        fallible::push(&mut self.frames, Frame { is_map, start }).map_err(|_| no_memory(at))?;
                        if is_map {
                            self.key::<B, PARTIAL>(b)?;
                        }
                        continue;
                    }
                }
                Some(b'"') => {
                    self.pos += 1;
                    let span = match self.string() {
                        Ok(span) => span,
                        Err(e) => {
                            if PARTIAL {
                                self.open = Open::Value(at);
                            }
                            return Err(e);
                        }
                    };
                    self.str_value(b, span).map_err(Failure::Build)?
                }
                Some(b't') => {
                    self.literal(b"true")?;
                    b.bool(true).map_err(Failure::Build)?
                }
                Some(b'f') => {
                    self.literal(b"false")?;
                    b.bool(false).map_err(Failure::Build)?
                }
                Some(b'n') => {
                    self.literal(b"null")?;
                    b.null().map_err(Failure::Build)?
                }
                Some(b'-' | b'0'..=b'9') => self.numbers(b)?,
                Some(found) => return err(Kind::UnexpectedByte { found, expected: "a JSON value" }, at),
            };
            self.push(value)?;

            // Close every container this value completes, then find the next value.
            loop {
                if PREFIX && self.frames.is_empty() {
                    #[expect(clippy::unreachable, reason = "the value was just pushed")]
                    return match self.stack.pop() {
                        Some(v) => Ok(v),
                        None => unreachable!("a complete value is on the stack"),
                    };
                }
                self.skip_whitespace();
                let Some(frame) = self.frames.last().copied() else {
                    if self.pos != self.input.len() {
                        return err(Kind::TrailingData, self.pos);
                    }
                    #[expect(clippy::unreachable, reason = "every value is pushed before its container closes")]
                    return match self.stack.pop() {
                        Some(v) => Ok(v),
                        None => unreachable!("a complete document leaves its value on the stack"),
                    };
                };
                let close = if frame.is_map { b'}' } else { b']' };
                match self.peek() {
                    Some(b',') => {
                        self.pos += 1;
                        self.skip_whitespace();
                        if self.peek() == Some(close) {
                            return err(Kind::TrailingComma, self.pos - 1);
                        }
                        if frame.is_map {
                            self.key::<B, PARTIAL>(b)?;
                        }
                        break;
                    }
                    Some(c) if c == close => {
                        self.pos += 1;
                        self.frames.pop();
                        let container = if frame.is_map {
                            b.map(&mut self.stack, frame.start)
                        } else {
                            b.array(&mut self.stack, frame.start)
                        }
                        .map_err(Failure::Build)?;
                        self.push(container)?;
                    }
                    Some(found) => {
                        let expected = if frame.is_map { "',' or '}'" } else { "',' or ']'" };
                        return err(Kind::UnexpectedByte { found, expected }, self.pos);
                    }
                    None => return err(Kind::UnexpectedEnd, self.pos),
                }
            }
        }
    }

    /// Reads `"key":` and pushes the key; leaves `pos` at the value.
    #[inline(always)]
    fn key<B: Builder<Value = V>, const PARTIAL: bool>(&mut self, b: &mut B) -> Result<(), Failure<B::Error>> {
        let at = self.pos;
        let span = match self.key_string() {
            Ok(span) => span,
            Err(e) => {
                // Past the quote: the key's text is what failed.
                if PARTIAL && self.pos == at + 1 {
                    self.open = Open::Key(at);
                }
                return Err(e);
            }
        };
        let key = b.key(self.text(span)).map_err(Failure::Build)?;
        self.push(key)?;
        self.colon()
    }

    /// Pushes `value` on the value stack, which grows as values arrive
    /// (doubling, like `Vec::push`); not getting the memory is an error.
    #[inline(always)]
    fn push<E>(&mut self, value: V) -> Result<(), Failure<E>> {
        fallible::push(&mut self.stack, value).map_err(|_| no_memory(self.pos))
    }

    /// A string value. Long text that starts with ASCII is checked and
    /// copied into the value in one pass ([`Builder::try_ascii_str`]; the
    /// 16-byte peek keeps text that is not ASCII from building a value that
    /// is thrown away), the rest goes to [`Builder::str`].
    #[inline(always)]
    fn str_value<B: Builder<Value = V>>(&self, b: &mut B, span: Span) -> Result<V, B::Error> {
        let text = self.text(span);
        if text.len() >= LONG_STR && crate::text::ascii::is_ascii(&text.as_bytes()[..16]) {
            if let Some(value) = b.try_ascii_str(text.as_bytes())? {
                return Ok(value);
            }
        }
        b.str(text)
    }

    /// The number at `pos` and, in an array, the numbers that follow it
    /// (`,` then a number, whitespace allowed after the comma). When the
    /// array ends right after them (`]`), the array is built and returned;
    /// otherwise the last number is, all before it pushed, and `run` goes on
    /// from the byte after it.
    ///
    /// Out of line, so that this loop keeps the input, the position and the
    /// number's state in registers instead of competing for them with the
    /// rest of `run`: arrays of numbers (coordinates, vectors, ids) then cost
    /// one call, not one trip through `run` per item.
    #[inline(never)]
    fn numbers<B: Builder<Value = V>>(&mut self, b: &mut B) -> Result<V, Failure<B::Error>> {
        let array_start = match self.frames.last() {
            Some(&Frame { is_map: false, start }) => Some(start),
            _ => None,
        };
        let input = self.input;
        loop {
            let value = self.number(b)?;
            let Some(start) = array_start else {
                return Ok(value);
            };
            match input.get(self.pos) {
                Some(b',') => {
                    let mut next = self.pos + 1;
                    if matches!(input.get(next), Some(b' ' | b'\n' | b'\r' | b'\t')) {
                        next = skip_whitespace_run(input, next + 1);
                    }
                    // Anything but a number (or an error) is `run`'s, from the comma.
                    if matches!(input.get(next), Some(b'-' | b'0'..=b'9')) {
                        self.push(value)?;
                        self.pos = next;
                        continue;
                    }
                }
                Some(b']') => {
                    self.pos += 1;
                    self.frames.pop();
                    self.push(value)?;
                    return b.array(&mut self.stack, start).map_err(Failure::Build);
                }
                _ => {}
            }
            return Ok(value);
        }
    }

    /// A number ([`Lex::lex_number`]), built by `b`.
    #[inline(always)]
    fn number<B: Builder<Value = V>>(&mut self, b: &mut B) -> Result<V, Failure<B::Error>> {
        self.lex_number(&mut Values(b))
    }
}

/// A builder as the lexer's [`NumberSink`].
struct Values<'b, B>(&'b mut B);

impl<B: Builder> NumberSink for Values<'_, B> {
    type Value = B::Value;
    type Error = B::Error;
    const FINITE: bool = B::FINITE_NUMBERS;
    #[inline(always)]
    fn u64(&mut self, v: u64) -> Result<B::Value, B::Error> {
        self.0.u64(v)
    }
    #[inline(always)]
    fn i64(&mut self, v: i64) -> Result<B::Value, B::Error> {
        self.0.i64(v)
    }
    #[inline(always)]
    fn f64(&mut self, v: f64, is_float: bool) -> Result<B::Value, B::Error> {
        // Not a float: an integer that did not fit 64 bits.
        if is_float {
            self.0.f64(v)
        } else {
            self.0.big_int(v)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::unescape;
    use crate::testing::{json_all_ways, Echo, Rng};

    // Every input goes through `parse`, the pull reader and its `skip`
    // (`json_all_ways` asserts they agree); the tests check `parse`'s answer.
    fn ok(s: &str) -> String {
        json_all_ways(s.as_bytes()).unwrap_or_else(|e| panic!("{s:?}: {e:?}"))
    }

    fn fail(s: &[u8]) -> (Kind, usize) {
        match json_all_ways(s) {
            Err(e) => e,
            other => panic!("{s:?} gave {other:?}"),
        }
    }

    #[test]
    fn values() {
        assert_eq!(ok(" [1, -2, 3.5, true, false, null, \"a\"] "), r#"[u1,i-2,f3.5,true,false,null,"a"]"#);
        assert_eq!(ok(r#"{"a": {"b": []}, "c": {}}"#), r#"{k"a":{k"b":[]},k"c":{}}"#);
        assert_eq!(ok("18446744073709551615"), "u18446744073709551615");
        assert_eq!(ok("18446744073709551616"), "f1.8446744073709552e19");
        assert_eq!(ok("-9223372036854775808"), "i-9223372036854775808");
        assert_eq!(ok("-9223372036854775809"), "f-9.223372036854776e18");
        assert_eq!(ok("-0"), "i0");
        assert_eq!(ok("-0.0"), "f-0.0");
        assert_eq!(ok("1E+2"), "f100.0");
        // An infinity for builders that do not ask for finite numbers (numbers_beyond_the_doubles).
        assert_eq!(ok("1e400"), "finf");
    }

    #[test]
    fn escapes() {
        assert_eq!(ok(r#""a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00z""#), format!("{:?}", "a\"\\/\u{8}\u{c}\n\r\té😀z"));
        assert_eq!(
            ok(r#""long text before the escape \n and after it""#),
            format!("{:?}", "long text before the escape \n and after it")
        );
    }

    #[test]
    fn escape_runs_of_every_shape() {
        for v in unescape::Variant::available() {
            unescape::FORCED.with(|f| f.set(Some(v)));
            escape_runs_of_every_shape_with_blocks();
        }
    }

    fn escape_runs_of_every_shape_with_blocks() {
        // Random texts dense and sparse in escapes, at every offset from the
        // string's start and the input's end, spelled with short and \u
        // escapes; decoding gives the text back.
        let alphabet = ['a', 'b', '"', '\\', '\n', '\t', '/', '\u{1}', '\u{1f}', 'é', '中', '😀', ' '];
        let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
        for round in 0..20_000 {
            let len = rng.below(if round % 4 == 0 { 200 } else { 40 }) as usize;
            let sparse = rng.below(3) == 0;
            let text: String = (0..len)
                .map(|_| {
                    if sparse && rng.below(8) != 0 {
                        'x'
                    } else {
                        alphabet[rng.below(alphabet.len() as u64) as usize]
                    }
                })
                .collect();
            let mut json = String::from("\"");
            for c in text.chars() {
                match (c, rng.below(6)) {
                    ('"', _) => json.push_str("\\\""),
                    ('\\', _) => json.push_str("\\\\"),
                    ('\n', 0) => json.push_str("\\u000a"),
                    ('\n', _) => json.push_str("\\n"),
                    ('\t', _) => json.push_str("\\t"),
                    ('/', 0) => json.push_str("\\/"),
                    (c, _) if (c as u32) < 0x20 => json.push_str(&format!("\\u{:04x}", c as u32)),
                    ('😀', 0) => json.push_str("\\ud83d\\ude00"),
                    (c, _) => json.push(c),
                }
            }
            json.push('"');
            let pad = " ".repeat(rng.below(40) as usize);
            let tail = " ".repeat(rng.below(40) as usize);
            assert_eq!(ok(&format!("{pad}[{json}]{tail}")), format!("[{text:?}]"), "{json}");
            // Cut anywhere inside, or broken by a raw control byte or a bad escape: an error.
            let cut = rng.below(json.len() as u64) as usize;
            if json.is_char_boundary(cut) && cut > 0 {
                let broken = format!("[{}", &json[..cut]);
                assert!(json_all_ways(broken.as_bytes()).is_err(), "{broken}");
                // A raw control byte inserted anywhere is refused, at its
                // place or at the escape it splits.
                for bad in ["\u{1}", "\u{1f}", "\n"] {
                    let s = format!("[{}{bad}{}]{tail}", &json[..cut], &json[cut..]);
                    match json_all_ways(s.as_bytes()) {
                        Err((kind, offset)) => assert!(offset <= cut + 1 && offset + 12 >= cut, "{s:?}: {kind:?}"),
                        other => panic!("{s:?} gave {other:?}"),
                    }
                }
            }
        }
    }

    /// `Echo`, asking for finite numbers.
    struct FiniteEcho;

    impl Builder for FiniteEcho {
        type Value = String;
        type Error = ();
        const FINITE_NUMBERS: bool = true;
        fn null(&mut self) -> Result<String, ()> {
            Echo.null()
        }
        fn bool(&mut self, v: bool) -> Result<String, ()> {
            Echo.bool(v)
        }
        fn i64(&mut self, v: i64) -> Result<String, ()> {
            Echo.i64(v)
        }
        fn u64(&mut self, v: u64) -> Result<String, ()> {
            Echo.u64(v)
        }
        fn f64(&mut self, v: f64) -> Result<String, ()> {
            Echo.f64(v)
        }
        fn str(&mut self, v: &str) -> Result<String, ()> {
            Echo.str(v)
        }
        fn key(&mut self, v: &str) -> Result<String, ()> {
            Echo.key(v)
        }
        fn bytes(&mut self, v: &[u8]) -> Result<String, ()> {
            Echo.bytes(v)
        }
        fn timestamp(&mut self, seconds: i64, nanoseconds: u32) -> Result<String, ()> {
            Echo.timestamp(seconds, nanoseconds)
        }
        fn array(&mut self, items: &mut Vec<String>, start: usize) -> Result<String, ()> {
            Echo.array(items, start)
        }
        fn map(&mut self, items: &mut Vec<String>, start: usize) -> Result<String, ()> {
            Echo.map(items, start)
        }
    }

    #[test]
    fn numbers_beyond_the_doubles() {
        let finite = |s: &str| match parse(s.as_bytes(), &mut FiniteEcho) {
            Ok(v) => Ok(v),
            Err(Failure::Syntax(e)) => Err((e.kind, e.offset)),
            Err(Failure::Build(())) => panic!("{s}"),
        };
        for (text, offset) in
            [("1e400", 0), ("-1e400", 0), ("[1, 2e308]", 4), ("1.5e999999999", 0), (&*"9".repeat(400), 0)]
                .into_iter()
                .chain([("1.8e308", 0), ("17976931348623159e292", 0), ("-1797693134862315808e290", 0)])
        {
            assert_eq!(finite(text), Err((Kind::NumberOutOfRange, offset)), "{text}");
            // Other builders get the infinity.
            assert!(ok(text).contains("inf"), "{text}");
        }
        // The largest double and numbers that round to zero are values.
        assert_eq!(finite("1.7976931348623157e308"), Ok("f1.7976931348623157e308".into()));
        assert_eq!(finite("[1e-400,-1e-400]"), Ok("[f0.0,f-0.0]".into()));
        assert_eq!(finite("18446744073709551616"), Ok("f1.8446744073709552e19".into()));
    }

    #[test]
    fn errors_with_offsets() {
        assert_eq!(fail(b""), (Kind::EmptyDocument, 0));
        assert_eq!(fail(b"  "), (Kind::EmptyDocument, 2));
        assert_eq!(fail(b"1 2"), (Kind::TrailingData, 2));
        assert_eq!(fail(b"[1,x]").1, 3);
        assert_eq!(fail(b"[1"), (Kind::UnexpectedEnd, 2));
        assert_eq!(fail(br#"{"a" 1}"#).1, 5);
        assert_eq!(fail(b"[1,]"), (Kind::TrailingComma, 2));
        assert_eq!(fail(br#"{"a":1,}"#), (Kind::TrailingComma, 6));
        assert_eq!(fail(b"01"), (Kind::TrailingData, 1));
        assert_eq!(fail(b"-"), (Kind::InvalidNumber, 0));
        assert_eq!(fail(b"1."), (Kind::InvalidNumber, 0));
        assert_eq!(fail(b"1e"), (Kind::InvalidNumber, 0));
        assert_eq!(fail(b"tru"), (Kind::InvalidLiteral, 0));
        assert_eq!(fail(b"\"a\x01\""), (Kind::ControlCharacterInString, 2));
        assert_eq!(fail(br#""\x""#), (Kind::InvalidEscape, 1));
        assert_eq!(fail(br#""\ud800""#), (Kind::LoneSurrogate, 1));
        assert_eq!(fail(br#""\udc00""#), (Kind::LoneSurrogate, 1));
        assert_eq!(fail(br#""\ud800\u0041""#), (Kind::LoneSurrogate, 1));
        assert_eq!(fail(b"\"abc"), (Kind::UnexpectedEnd, 4));
        assert_eq!(fail(b"[\"\xff\"]"), (Kind::InvalidUtf8, 2));
        assert_eq!(fail(b"NaN").0, Kind::UnexpectedByte { found: b'N', expected: "a JSON value" });
    }

    #[test]
    fn floats_match_the_standard_parser() {
        let mut texts: Vec<String> = [
            "0.1",
            "0.0",
            "1e22",
            "1e23",
            "9007199254740993.0",
            "9007199254740992e-22",
            "123456789012345678.5",
            "0.000000000000000000001",
            "1.7976931348623157e308",
            "5e-324",
            "2.2250738585072014e-308",
            "1E-22",
            "43.474709000000132",
            "65.613616999999977",
            "1e0000000000000000000001",
            "1e-400",
            "2e308",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
        for _ in 0..20000 {
            let x = rng.next_u64();
            let digits = (x % 18) as u32 + 1;
            let mut t = (x % 10u64.pow(digits)).to_string();
            let frac = ((x >> 20) % (t.len() as u64 + 1)) as usize;
            if frac > 0 && frac < t.len() {
                t.insert(t.len() - frac, '.');
            } else {
                t.push_str(".5");
            }
            if x & 2 == 0 {
                t = format!("{t}e{}", ((x >> 40) % 60) as i64 - 30);
            }
            texts.push(t);
        }
        for t in &texts {
            let want: f64 = t.parse().unwrap();
            assert_eq!(ok(t), format!("f{want:?}"), "{t}");
            assert_eq!(ok(&format!("-{t}")), format!("f{:?}", -want), "-{t}");
        }
    }

    /// What a JSON number text of at most 19 digits decodes to, by the
    /// grammar and std's parsers; None if it is no number.
    fn number_reference(text: &str) -> Option<String> {
        let body = text.strip_prefix('-').unwrap_or(text);
        let (mantissa, exponent) = match body.find(['e', 'E']) {
            Some(at) => (&body[..at], Some(&body[at + 1..])),
            None => (body, None),
        };
        let (int, fraction) = match mantissa.split_once('.') {
            Some((int, fraction)) => (int, Some(fraction)),
            None => (mantissa, None),
        };
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        let exponent_ok = exponent.is_none_or(|e| digits(e.strip_prefix(['+', '-']).unwrap_or(e)));
        if !digits(int) || (int.len() > 1 && int.starts_with('0')) || !fraction.is_none_or(digits) || !exponent_ok {
            return None;
        }
        if fraction.is_none() && exponent.is_none() {
            let v: i128 = text.parse().ok()?;
            return Some(if v < 0 || text.starts_with('-') { format!("i{v}") } else { format!("u{v}") });
        }
        Some(format!("f{:?}", text.parse::<f64>().ok()?))
    }

    #[test]
    fn short_numbers_of_every_shape() {
        // Numbers that end within the word read at their digits (integers
        // up to 7 digits, fractions up to 6 digits in all) and just past it,
        // each followed by every kind of byte, at every distance from the
        // input's end (the word needs 8 bytes): the value std reads, or the
        // error the general path reports.
        let mut rng = Rng::new(0x05ee_d0ff_10a7);
        let mut texts: Vec<String> = Vec::new();
        for int_digits in 1..=9 {
            for fraction_digits in 0..=8 {
                for _ in 0..4 {
                    let mut t: String = (0..int_digits).map(|_| (b'0' + rng.below(10) as u8) as char).collect();
                    if int_digits > 1 && t.starts_with('0') {
                        t.replace_range(..1, "7");
                    }
                    if fraction_digits > 0 {
                        t.push('.');
                        t.extend((0..fraction_digits).map(|_| (b'0' + rng.below(10) as u8) as char));
                    }
                    texts.push(t);
                }
            }
        }
        texts.extend(["0", "0.0", "0.5", "9999999", "1.00000", "99999.9", "9.99999", "0.000001"].map(String::from));
        for t in &texts {
            let want = if t.contains('.') { format!("f{:?}", t.parse::<f64>().unwrap()) } else { format!("u{t}") };
            let negative = if t.contains('.') {
                format!("f{:?}", -t.parse::<f64>().unwrap())
            } else if t.bytes().all(|b| b == b'0') {
                "i0".to_string()
            } else {
                format!("i-{t}")
            };
            for pad in 0..10 {
                let spaces = " ".repeat(pad);
                assert_eq!(ok(&format!("{t}{spaces}")), want, "{t:?} + {pad}");
                assert_eq!(ok(&format!("-{t}{spaces}")), negative, "-{t:?} + {pad}");
                assert_eq!(ok(&format!("[{t},{t}]{spaces}")), format!("[{want},{want}]"), "{t:?} + {pad}");
                assert_eq!(ok(&format!("{{\"k\":{t}}}{spaces}")), format!("{{k\"k\":{want}}}"), "{t:?}");
                for follow in ["e2", "E-1", "e", ".", ".e1", "x", "0", "-", "5.5", "\u{e9}"] {
                    let text = format!("{t}{follow}{spaces}");
                    assert_eq!(json_all_ways(text.as_bytes()).ok(), number_reference(text.trim_end()), "{text:?}");
                }
            }
        }
        // Short and long numbers mixed: the attempt is skipped after a long
        // one and taken again after a short one read the general way.
        let mixed = ["1.5", "123456789.25", "2.5", "-3", "12345678", "7", "0.125", "1e5", "4.75", "99999999999", "5"];
        let want: Vec<String> = mixed.iter().map(|t| number_reference(t).unwrap()).collect();
        assert_eq!(ok(&format!("[{}]", mixed.join(","))), format!("[{}]", want.join(",")));
        assert_eq!(ok(&format!("[{}]", mixed.join(", "))), format!("[{}]", want.join(",")));
        // Leading zeros and lone points are errors, as before.
        for bad in ["01", "00.5", "-01", "1.", "-.5", ".5", "1.e5", "012345", "0123.4"] {
            for pad in [0, 8] {
                let text = format!("{bad}{}", " ".repeat(pad));
                assert!(json_all_ways(text.as_bytes()).is_err(), "{text:?}");
            }
        }
        assert_eq!(fail(b"[12.5,01]"), (Kind::UnexpectedByte { found: b'1', expected: "',' or ']'" }, 7));
    }

    #[test]
    fn numbers_at_every_distance_from_the_end() {
        // Numbers away from the input's end are read by pointer, checked
        // once for 64 bytes from their start; `json_all_ways` holds every
        // input to the checked path (same values, same errors at the same
        // offsets). Every shape that path takes or refuses, followed by
        // every kind of byte, with 0 to 80 bytes after it (across that
        // boundary) and at offsets from the input's start where the fraction
        // reread (16 bytes ending at the run's end) cannot reach back.
        let mut rng = Rng::new(0xfa57_0000_0001);
        let mut digits = |n: usize| -> String { (0..n).map(|_| (b'0' + rng.below(10) as u8) as char).collect() };
        let mut texts: Vec<String> = Vec::new();
        for int_digits in 1..=21 {
            let mut int = digits(int_digits);
            if int_digits > 1 && int.starts_with('0') {
                int.replace_range(..1, "4");
            }
            texts.push(int.clone());
            for fraction_digits in [1, 2, 5, 6, 7, 8, 9, 12, 15, 16, 17, 18, 19, 20, 24] {
                if int_digits > 9 && fraction_digits % 3 != 0 {
                    continue;
                }
                texts.push(format!("{int}.{}", digits(fraction_digits)));
            }
        }
        texts.extend(
            concat!(
                "0 0.0 0.5 0.5488135039273248 0.12345678901234567 0.123456789012345678 9.999999999999999 ",
                "9007199254740993.0 1.7976931348623157 1e5 1.5e3 1.5E-3 12.25e+2 0.000001 ",
                "1.00000000000000000000 99999999.5 1234567.1234567 12345678.5 1. 1.e5 01 00.5 012.5 ",
                "0123456789.5 1e 1e+ 1.5e .5 - --1 -.5 -01 1.x 1.5.5 9223372036854775807 ",
                "9223372036854775808 9223372036854775809 9999999999999999999 10000000000000000000 ",
                "000000000 100000000 12345678e5 1234567890123456.5 123456789012345.25 ",
            )
            .split_whitespace()
            .map(String::from),
        );
        for t in texts.clone() {
            texts.push(format!("-{t}"));
        }
        for t in &texts {
            // The reference covers 19 digits; longer ones are the checked
            // path's alone (held to it by `json_all_ways`), and so are
            // negative integers below i64 (the reference has no floats for them).
            let whole = number_reference(t);
            let referenced = t.bytes().filter(u8::is_ascii_digit).count() <= 19
                && whole.as_deref().is_none_or(|r| !r.starts_with('i') || r[1..].parse::<i64>().is_ok());
            for follow in ["", ",", " ", "]", "e5", "E-2", ".", "x", "0", "\u{e9}"] {
                for before in [0usize, 1, 14, 17] {
                    for after in (0..=80).filter(|a| before == 0 || a % 7 == 0) {
                        let (lead, pad) = (" ".repeat(before), " ".repeat(after));
                        let top = format!("{lead}{t}{follow}{pad}");
                        let got = json_all_ways(top.as_bytes());
                        if referenced && matches!(follow, "" | " ") {
                            assert_eq!(got.as_ref().ok(), whole.as_ref(), "{top:?}");
                        }
                        let array = format!("[{lead}{t}{follow},{t}]{pad}");
                        let got = json_all_ways(array.as_bytes());
                        if referenced && matches!(follow, "" | " ") {
                            let want = whole.as_ref().map(|w| format!("[{w},{w}]"));
                            assert_eq!(got.as_ref().ok(), want.as_ref(), "{array:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn whitespace_runs_of_every_length() {
        for n in 0..70 {
            for ws in [" ", "\n", "\r", "\t", "\n  "] {
                let pad = ws.repeat(n);
                assert_eq!(ok(&format!("{pad}[{pad}1{pad},{pad}2{pad}]{pad}")), "[u1,u2]");
                assert_eq!(ok(&format!("{pad}{{{pad}\"a\"{pad}:{pad}1{pad}}}{pad}")), "{k\"a\":u1}");
            }
            assert_eq!(fail(format!("[1{}x]", " ".repeat(n)).as_bytes()).1, n + 2);
        }
    }

    fn partial(s: &[u8], mode: PartialMode) -> Result<String, (Kind, usize)> {
        match parse_partial_with(s, &mut Echo, &mut ScanStacks::new(), mode) {
            Ok(v) => Ok(v),
            Err(Failure::Syntax(e)) => Err((e.kind, e.offset)),
            Err(Failure::Build(())) => panic!("{s:?}"),
        }
    }

    #[test]
    fn partial_documents() {
        use PartialMode::{On, TrailingStrings as Trailing};
        // (input, partial=True, "trailing-strings"), as jiter reads them.
        let cases: &[(&[u8], &str, &str)] = &[
            (b"[1, 2", "[u1,u2]", "[u1,u2]"),
            (b"[1, 2.", "[u1]", "[u1]"),
            (b"[1e+", "[]", "[]"),
            (b"[-0", "[i0]", "[i0]"),
            (b"[tr", "[]", "[]"),
            (b"[true", "[true]", "[true]"),
            (br#"{"a": nul"#, "{}", "{}"),
            (br#"{"a"#, "{}", "{}"),
            (br#"{"a":"#, "{}", "{}"),
            (br#"{"a": "b"#, "{}", r#"{k"a":"b"}"#),
            (br#"{"a":1,"#, r#"{k"a":u1}"#, r#"{k"a":u1}"#),
            (br#"["ab\u00e"#, "[]", r#"["ab"]"#),
            (br#"["ab\ud83d\"#, "[]", r#"["ab"]"#),
            (b"[\"a\xe4\xb8", "[]", r#"["a"]"#),
            (b"[[", "[[]]", "[[]]"),
            (br#"{"a": [1, {"b": "c"#, r#"{k"a":[u1,{}]}"#, r#"{k"a":[u1,{k"b":"c"}]}"#),
            (b"12", "u12", "u12"),
        ];
        for &(input, on, trailing) in cases {
            assert_eq!(partial(input, On).as_deref(), Ok(on), "{:?}", String::from_utf8_lossy(input));
            assert_eq!(partial(input, Trailing).as_deref(), Ok(trailing), "{:?}", String::from_utf8_lossy(input));
        }
        // Nothing to return, and errors before the cut: parse's errors.
        assert_eq!(partial(br#""abc"#, On), Err((Kind::UnexpectedEnd, 4)));
        assert_eq!(partial(br#""abc"#, Trailing), Ok(r#""abc""#.into()));
        for input in [&b"-"[..], b"tr", b"", b"[1, x", b"[1x]", b"[1, 2]x", br#"["a\x"#, b"[1.x", b"[\xff"] {
            let whole = match parse(input, &mut Echo) {
                Err(Failure::Syntax(e)) => (e.kind, e.offset),
                other => panic!("{input:?}: {other:?}"),
            };
            assert_eq!(partial(input, On), Err(whole.clone()), "{input:?}");
            assert_eq!(partial(input, Trailing), Err(whole), "{input:?}");
        }
        assert_eq!(partial(br#"["a\u12""#, On), Err((Kind::InvalidEscape, 3)));
        assert_eq!(partial(b"[1]\xc3", On).unwrap_err().0, Kind::InvalidUtf8);
        // Every cut of a document gives a value; the whole gives parse's.
        let doc = r#"{"a": [1, -2.5e3, "x\u00e9\ud83d\ude00y", true, null, {"b": []}], "c": "中文"}"#.as_bytes();
        for cut in 1..doc.len() {
            for mode in [On, Trailing] {
                assert!(partial(&doc[..cut], mode).is_ok(), "{:?}", &doc[..cut]);
            }
        }
        assert_eq!(partial(doc, On), Ok(ok(core::str::from_utf8(doc).unwrap())));
    }

    #[test]
    fn prefixes() {
        let prefix = |s: &str| match parse_prefix_with(s, &mut Echo, &mut ScanStacks::new()) {
            Ok((v, end)) => Ok((v, end)),
            Err(Failure::Syntax(e)) => Err((e.kind, e.offset)),
            Err(Failure::Build(())) => panic!("{s:?}"),
        };
        assert_eq!(prefix(" [1, 2] [3]"), Ok(("[u1,u2]".into(), 7)));
        assert_eq!(prefix(r#"{"a":[{}]}x"#), Ok((r#"{k"a":[{}]}"#.into(), 10)));
        assert_eq!(prefix("12 3"), Ok(("u12".into(), 2)));
        assert_eq!(prefix("-1.5e3"), Ok(("f-1500.0".into(), 6)));
        assert_eq!(prefix(r#""ab""c""#), Ok((r#""ab""#.into(), 4)));
        assert_eq!(prefix("true1"), Ok(("true".into(), 4)));
        assert_eq!(prefix("[1, 2"), Err((Kind::UnexpectedEnd, 5)));
        assert_eq!(prefix("  "), Err((Kind::EmptyDocument, 2)));
        assert_eq!(prefix("[1,] 2").unwrap_err().0, Kind::TrailingComma);
        assert_eq!(prefix(&"[".repeat(2000)).unwrap_err().0, Kind::DepthLimit);
        // Stacks given back empty, as after parse_with.
        let mut stacks = ScanStacks::new();
        assert!(parse_prefix_with("[[1, 2], [3", &mut Echo, &mut stacks).is_err());
        assert_eq!(parse_prefix_with("[0] 1", &mut Echo, &mut stacks).ok(), Some(("[u0]".into(), 3)));
    }

    #[test]
    fn depth_limit() {
        let ok_depth = "[".repeat(1024) + &"]".repeat(1024);
        assert!(json_all_ways(ok_depth.as_bytes()).is_ok());
        let too_deep = "[".repeat(1025) + &"]".repeat(1025);
        assert_eq!(fail(too_deep.as_bytes()), (Kind::DepthLimit, 1024));
        assert_eq!(fail("[".repeat(100_000).as_bytes()), (Kind::DepthLimit, 1024));
    }
}
