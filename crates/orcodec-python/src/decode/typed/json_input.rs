//! JSON text as an input: the core crate's pull reader, one token per
//! request. `Any` parts are built as untyped `loads` builds them, with the
//! same key and value caches.

use orcodec_core::builder::Builder;
use orcodec_core::json::pull::{JsonKey, JsonKind, JsonNumber, JsonNumberValue, JsonPull, Key, NumberRun, RunNumber};

use crate::cpython::object::Owned;
use crate::decode::typed::error::Fail;
use crate::decode::typed::input::{
    pull_look_ahead, Cursor, Format, Head, Input, KeyRead, LookAhead, Run, RunItem, Value,
};
use crate::decode::typed::Ctx;

pub struct JsonInput<'a> {
    pub pull: JsonPull<'a>,
    ahead: LookAhead,
}

/// A number's value: integers beyond 64 bits keep their text.
#[inline(always)]
fn number_value<'a>(n: &JsonNumber<'a>) -> Value<'a> {
    match n.value {
        JsonNumberValue::I64(v) => Value::I64(v),
        JsonNumberValue::U64(v) => Value::U64(v),
        JsonNumberValue::F64(_) if n.is_integer => Value::BigInt(n.text),
        JsonNumberValue::F64(f) => Value::F64(f),
    }
}

impl<'a> JsonInput<'a> {
    pub fn new(pull: JsonPull<'a>) -> Self {
        let ahead = LookAhead::new(pull.input().len());
        JsonInput { pull, ahead }
    }

    /// The head of a number.
    #[inline(always)]
    fn number(&mut self, at: usize) -> Result<Head<'_>, Fail> {
        let n = self.pull.number()?;
        Ok(Head { v: number_value(&n), at, text: n.text })
    }
}

impl<'a> Input for JsonInput<'a> {
    const FORMAT: Format = Format::Json;

    #[inline(always)]
    fn next(&mut self) -> Result<Head<'_>, Fail> {
        let kind = self.pull.peek()?;
        let at = self.pull.pos();
        Ok(match kind {
            JsonKind::String => Head::new(Value::Str(self.pull.str()?), at),
            JsonKind::Number => return self.number(at),
            JsonKind::Object => {
                self.pull.begin_object()?;
                Head::new(Value::Map(None), at)
            }
            JsonKind::Array => {
                self.pull.begin_array()?;
                Head::new(Value::Array(None), at)
            }
            JsonKind::True | JsonKind::False => Head::new(Value::Bool(self.pull.bool()?), at),
            JsonKind::Null => {
                self.pull.null()?;
                Head::new(Value::Null, at)
            }
        })
    }

    #[inline(always)]
    fn open(&mut self, _len: Option<usize>) -> Cursor {
        Cursor::new(0)
    }

    #[inline(always)]
    fn next_item(&mut self, cursor: &mut Cursor) -> Result<bool, Fail> {
        let more = self.pull.next_item(cursor.first)?;
        cursor.first = false;
        Ok(more)
    }

    #[inline(always)]
    fn next_key(&mut self, cursor: &mut Cursor) -> Result<Option<Head<'_>>, Fail> {
        let first = core::mem::replace(&mut cursor.first, false);
        let at = self.pull.pos();
        Ok(self.pull.next_key(first)?.map(|k| Head::new(Value::Str(k), at)))
    }

    #[inline(always)]
    fn next_key_expecting(
        &mut self,
        cursor: &mut Cursor,
        expected: Option<&JsonKey>,
    ) -> Result<Option<KeyRead<'_>>, Fail> {
        let Some(expected) = expected else {
            return Ok(self.next_key(cursor)?.map(KeyRead::Other));
        };
        let first = core::mem::replace(&mut cursor.first, false);
        let at = self.pull.pos();
        Ok(self.pull.next_key_expecting(first, expected)?.map(|k| match k {
            Key::Expected => KeyRead::Expected(at),
            Key::Other(k) => KeyRead::Other(Head::new(Value::Str(k), at)),
        }))
    }

    #[inline(always)]
    fn number_run(&mut self, cursor: &mut Cursor, mut f: impl FnMut(RunItem<'_>) -> bool) -> Result<Run, Fail> {
        let first = core::mem::replace(&mut cursor.first, false);
        Ok(
            match self.pull.quick_number_run(
                first,
                #[inline(always)]
                |n| match n {
                    RunNumber::Quick(q) => f(RunItem::Quick(q)),
                    RunNumber::Full(n, at) => f(RunItem::Full(number_value(&n), at, n.text)),
                },
            )? {
                NumberRun::End => Run::End,
                NumberRun::Other => Run::Item,
                NumberRun::Stopped => Run::Stopped,
            },
        )
    }

    #[inline(always)]
    fn skip(&mut self, depth: usize) -> Result<(), Fail> {
        Ok(self.pull.skip_at_depth(depth)?)
    }

    pull_look_ahead!();

    fn any(&mut self, ctx: &mut Ctx) -> Result<Owned, Fail> {
        let kind = self.pull.peek()?;
        let at = self.pull.pos();
        let b = &mut ctx.builder;
        Ok(match kind {
            JsonKind::String => b.str(self.pull.str()?)?,
            JsonKind::Number => match self.pull.number()?.value {
                JsonNumberValue::I64(v) => b.i64(v)?,
                JsonNumberValue::U64(v) => b.u64(v)?,
                // As untyped `loads` (orjson) refuses it.
                JsonNumberValue::F64(v) if v.is_infinite() => return Err(out_of_range(at)),
                JsonNumberValue::F64(v) => b.f64(v)?,
            },
            JsonKind::True | JsonKind::False => b.bool(self.pull.bool()?)?,
            JsonKind::Null => {
                self.pull.null()?;
                b.null()?
            }
            JsonKind::Array => {
                ctx.enter(at)?;
                self.pull.begin_array()?;
                let start = ctx.stack.len();
                let mut first = true;
                while self.pull.next_item(first)? {
                    first = false;
                    let v = self.any(ctx)?;
                    ctx.keep(v)?;
                }
                let list = ctx.builder.array(&mut ctx.stack, start)?;
                ctx.leave();
                list
            }
            JsonKind::Object => {
                ctx.enter(at)?;
                self.pull.begin_object()?;
                let start = ctx.stack.len();
                let mut first = true;
                while let Some(k) = self.pull.next_key(first)? {
                    first = false;
                    let key = ctx.builder.key(k)?;
                    ctx.keep(key)?;
                    let v = self.any(ctx)?;
                    ctx.keep(v)?;
                }
                let dict = ctx.builder.map(&mut ctx.stack, start)?;
                ctx.leave();
                dict
            }
        })
    }
}

/// The error untyped `loads` raises for a number beyond the doubles at `at`.
#[cold]
pub fn out_of_range(at: usize) -> Fail {
    Fail::Syntax(orcodec_core::error::DecodeError::new(orcodec_core::error::DecodeErrorKind::NumberOutOfRange, at))
}
