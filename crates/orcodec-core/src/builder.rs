//! The interface both decoders build values through.
//!
//! Containers are built bottom-up from a value stack the decoder keeps: when an
//! array or map closes, its items are the top of the stack and are handed over
//! at once, so the builder can allocate the container at its exact size.

/// Turns decoded scalars and finished containers into values.
///
/// `Value` owns what it holds (the extension's values release their Python
/// reference on drop), so a decoder that stops half way drops its stack and
/// leaks nothing.
pub trait Builder {
    type Value;
    type Error;

    /// Whether a JSON number whose value is beyond the doubles (`1e400`,
    /// 400 digits) is an error (`NumberOutOfRange` at its start) rather
    /// than an infinity.
    const FINITE_NUMBERS: bool = false;

    fn null(&mut self) -> Result<Self::Value, Self::Error>;
    fn bool(&mut self, value: bool) -> Result<Self::Value, Self::Error>;
    fn i64(&mut self, value: i64) -> Result<Self::Value, Self::Error>;
    fn u64(&mut self, value: u64) -> Result<Self::Value, Self::Error>;
    fn f64(&mut self, value: f64) -> Result<Self::Value, Self::Error>;
    /// A JSON integer beyond 64 bits, given as the nearest double (what
    /// orjson reads it as, and the default). A builder that needs such
    /// integers exactly refuses here.
    #[inline(always)]
    fn big_int(&mut self, value: f64) -> Result<Self::Value, Self::Error> {
        self.f64(value)
    }
    /// A string value.
    fn str(&mut self, value: &str) -> Result<Self::Value, Self::Error>;
    /// A string value the decoder already knows is all ASCII.
    #[inline(always)]
    fn ascii_str(&mut self, value: &str) -> Result<Self::Value, Self::Error> {
        self.str(value)
    }
    /// A string value the decoder already knows holds a character beyond ASCII.
    #[inline(always)]
    fn non_ascii_str(&mut self, value: &str) -> Result<Self::Value, Self::Error> {
        self.str(value)
    }
    /// A string value of `bytes`, which hold a byte beyond ASCII and may or
    /// may not be valid UTF-8; `None` if they are not (nothing built). Lets a
    /// builder validate and measure the text in one pass.
    #[inline(always)]
    fn checked_non_ascii_str(&mut self, bytes: &[u8]) -> Result<Option<Self::Value>, Self::Error> {
        match simdutf8::basic::from_utf8(bytes) {
            Ok(text) => self.non_ascii_str(text).map(Some),
            Err(_) => Ok(None),
        }
    }
    /// A string value of `bytes`, which may or may not be valid UTF-8, built
    /// only if every byte is ASCII; `None` otherwise (nothing built, the
    /// decoder goes on to validate). Lets a builder check and copy in one
    /// pass; decoders call it for long strings.
    #[inline(always)]
    fn try_ascii_str(&mut self, bytes: &[u8]) -> Result<Option<Self::Value>, Self::Error> {
        if !crate::text::ascii::is_ascii(bytes) {
            return Ok(None);
        }
        // SAFETY: ASCII is valid UTF-8.
        self.ascii_str(unsafe { core::str::from_utf8_unchecked(bytes) }).map(Some)
    }
    /// A map key: the same text may come back many times, so builders cache.
    fn key(&mut self, value: &str) -> Result<Self::Value, Self::Error>;
    /// A map key of `bytes`, which hold a byte beyond ASCII and may or may
    /// not be valid UTF-8; `None` if they are not (nothing built). A builder
    /// that reads invalid text its own way (an error handler, str as bytes)
    /// overrides it.
    #[inline(always)]
    fn checked_key(&mut self, bytes: &[u8]) -> Result<Option<Self::Value>, Self::Error> {
        if !crate::text::decode::is_valid(bytes) {
            return Ok(None);
        }
        // SAFETY: just validated.
        self.key(unsafe { core::str::from_utf8_unchecked(bytes) }).map(Some)
    }
    /// Binary data (MessagePack bin).
    fn bytes(&mut self, value: &[u8]) -> Result<Self::Value, Self::Error>;
    /// A MessagePack extension value; `None` when the builder has no use for
    /// this tag (the decoder then reports an unsupported extension).
    fn ext(&mut self, _tag: i8, _data: &[u8]) -> Result<Option<Self::Value>, Self::Error> {
        Ok(None)
    }
    /// A MessagePack timestamp (extension -1), when the decoder was asked to
    /// decode them: seconds since the Unix epoch and nanoseconds (< 10**9).
    fn timestamp(&mut self, seconds: i64, nanoseconds: u32) -> Result<Self::Value, Self::Error>;
    /// An array made of `items`, in order.
    fn array(&mut self, items: &mut Vec<Self::Value>, start: usize) -> Result<Self::Value, Self::Error>;
    /// An array used as (part of) a map key, where the value must be hashable.
    fn tuple(&mut self, items: &mut Vec<Self::Value>, start: usize) -> Result<Self::Value, Self::Error> {
        self.array(items, start)
    }
    /// A map made of `items[start..]`, alternating key and value.
    fn map(&mut self, items: &mut Vec<Self::Value>, start: usize) -> Result<Self::Value, Self::Error>;
}
