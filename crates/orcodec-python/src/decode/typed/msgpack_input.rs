//! MessagePack as an input: the core crate's pull reader, one item per
//! request. Typed decoding reads map keys of any scalar type (a
//! `dict[int, str]` needs int keys); `Any` parts keep untyped `unpackb`'s
//! rules (str keys unless `OPT_NON_STR_KEYS`, timestamps as datetimes with
//! `OPT_DATETIME_AS_TIMESTAMP_EXT`, other extensions through `ext_hook`).

use orcodec_core::builder::Builder;
use orcodec_core::error::{DecodeError, DecodeErrorKind};
use orcodec_core::msgpack::pull::{decode_timestamp, MsgpackItem, MsgpackPull};
use orcodec_core::msgpack::reader::ReadOptions;

use crate::cpython::object::Owned;
use crate::decode::typed::error::{invalid, Fail};
use crate::decode::typed::input::{pull_look_ahead, Cursor, Format, Head, Input, LookAhead, Value};
use crate::decode::typed::path::{Path, Seg};
use crate::decode::typed::Ctx;

pub struct MsgpackInput<'a> {
    pub pull: MsgpackPull<'a>,
    /// The caller's options, for `Any` parts.
    pub opts: ReadOptions,
    ahead: LookAhead,
}

impl<'a> MsgpackInput<'a> {
    pub fn new(input: &'a [u8], opts: ReadOptions) -> Self {
        // Keys of every scalar type are read; which ones fit is the key
        // type's business.
        let pull_opts = ReadOptions { non_str_keys: true, ..opts };
        MsgpackInput { pull: MsgpackPull::with_options(input, pull_opts), opts, ahead: LookAhead::new(input.len()) }
    }
}

#[inline(always)]
fn value(item: MsgpackItem<'_>) -> Value<'_> {
    match item {
        MsgpackItem::Nil => Value::Null,
        MsgpackItem::Bool(b) => Value::Bool(b),
        MsgpackItem::I64(v) => Value::I64(v),
        MsgpackItem::U64(v) => Value::U64(v),
        MsgpackItem::F32(f) => Value::F64(f as f64),
        MsgpackItem::F64(f) => Value::F64(f),
        MsgpackItem::Str(s) => Value::Str(s),
        MsgpackItem::Bin(b) => Value::Bytes(b),
        MsgpackItem::Array(n) => Value::Array(Some(n)),
        MsgpackItem::Map(n) => Value::Map(Some(n)),
        MsgpackItem::Ext(tag, data) => Value::Ext(tag, data),
    }
}

impl<'a> Input for MsgpackInput<'a> {
    const FORMAT: Format = Format::Msgpack;

    #[inline(always)]
    fn next(&mut self) -> Result<Head<'_>, Fail> {
        let at = self.pull.pos();
        Ok(Head::new(value(self.pull.next()?), at))
    }

    #[inline(always)]
    fn open(&mut self, len: Option<usize>) -> Cursor {
        Cursor::new(len.unwrap_or(0))
    }

    #[inline(always)]
    fn next_item(&mut self, cursor: &mut Cursor) -> Result<bool, Fail> {
        if cursor.remaining == 0 {
            return Ok(false);
        }
        cursor.remaining -= 1;
        Ok(true)
    }

    #[inline(always)]
    fn next_key(&mut self, cursor: &mut Cursor) -> Result<Option<Head<'_>>, Fail> {
        if cursor.remaining == 0 {
            return Ok(None);
        }
        cursor.remaining -= 1;
        let at = self.pull.pos();
        let item = self.pull.next_key()?;
        if let MsgpackItem::Array(_) | MsgpackItem::Map(_) = item {
            // Typed decoding reads scalar keys only.
            return Err(invalid("Expected `str`, got `array`", &Path::ROOT.push(Seg::Key), at));
        }
        Ok(Some(Head::new(value(item), at)))
    }

    #[inline(always)]
    fn skip(&mut self, depth: usize) -> Result<(), Fail> {
        Ok(self.pull.skip_at_depth(depth)?)
    }

    pull_look_ahead!();

    fn any(&mut self, ctx: &mut Ctx) -> Result<Owned, Fail> {
        let at = self.pull.pos();
        let item = self.pull.next()?;
        self.any_item(ctx, item, at, false)
    }

    fn numpy_map(&mut self, ctx: &mut Ctx, len: Option<usize>, at: usize) -> Result<Option<Owned>, Fail> {
        // `bin_keys` is on exactly when msgpack-numpy's maps are read.
        if !self.opts.bin_keys {
            return Ok(None);
        }
        Ok(Some(self.any_item(ctx, MsgpackItem::Map(len.unwrap_or(0)), at, false)?))
    }
}

impl<'a> MsgpackInput<'a> {
    /// `item` (read at `at`) and what follows it, as untyped decoding builds
    /// them; `in_key`: inside a map key (arrays become tuples).
    fn any_item(&mut self, ctx: &mut Ctx, item: MsgpackItem<'a>, at: usize, in_key: bool) -> Result<Owned, Fail> {
        let b = &mut ctx.builder;
        Ok(match item {
            MsgpackItem::Nil => b.null()?,
            MsgpackItem::Bool(v) => b.bool(v)?,
            MsgpackItem::I64(v) => b.i64(v)?,
            MsgpackItem::U64(v) => b.u64(v)?,
            MsgpackItem::F32(v) => b.f64(v as f64)?,
            MsgpackItem::F64(v) => b.f64(v)?,
            MsgpackItem::Str(s) => b.str(s)?,
            MsgpackItem::Bin(data) => b.bytes(data)?,
            MsgpackItem::Ext(-1, data) if self.opts.timestamps => {
                let Some((seconds, nanos)) = decode_timestamp(data) else {
                    return Err(DecodeError::new(DecodeErrorKind::InvalidTimestamp { len: data.len() }, at).into());
                };
                b.timestamp(seconds, nanos)?
            }
            MsgpackItem::Ext(tag, data) => match b.ext(tag, data)? {
                Some(v) => v,
                None => return Err(DecodeError::new(DecodeErrorKind::ExtensionType(tag), at).into()),
            },
            MsgpackItem::Array(n) => {
                ctx.enter(at)?;
                let start = ctx.stack.len();
                for _ in 0..n {
                    let at = self.pull.pos();
                    let item = if in_key { self.pull.next_key()? } else { self.pull.next()? };
                    let v = self.any_item(ctx, item, at, in_key)?;
                    ctx.keep(v)?;
                }
                let out = if in_key {
                    ctx.builder.tuple(&mut ctx.stack, start)?
                } else {
                    ctx.builder.array(&mut ctx.stack, start)?
                };
                ctx.leave();
                out
            }
            MsgpackItem::Map(n) => {
                ctx.enter(at)?;
                let start = ctx.stack.len();
                for _ in 0..n {
                    let at = self.pull.pos();
                    let key = self.pull.next_key()?;
                    let k = match key {
                        MsgpackItem::Str(s) => ctx.builder.key(s)?,
                        // msgpack-numpy's maps have bin keys (`OPT_MSGPACK_NUMPY`).
                        MsgpackItem::Bin(_) if self.opts.bin_keys => self.any_item(ctx, key, at, true)?,
                        _ if !self.opts.non_str_keys => {
                            return Err(DecodeError::new(DecodeErrorKind::NonStrKey, at).into());
                        }
                        other => self.any_item(ctx, other, at, true)?,
                    };
                    ctx.keep(k)?;
                    let at = self.pull.pos();
                    let item = self.pull.next()?;
                    let v = self.any_item(ctx, item, at, false)?;
                    ctx.keep(v)?;
                }
                let dict = ctx.builder.map(&mut ctx.stack, start)?;
                ctx.leave();
                dict
            }
        })
    }
}
