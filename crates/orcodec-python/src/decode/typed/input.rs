//! What the validators read: one trait, three inputs (the JSON pull reader,
//! the MessagePack pull reader, Python objects for `convert`). A validator
//! asks for the next value's head ([`Input::next`]), so the type expected is
//! known before a container is built; containers are then read item by item
//! through a [`Cursor`].

use pyo3_ffi::*;

use orcodec_core::json::pull::{JsonKey, Quick};

use crate::cpython::object::Owned;
use crate::decode::typed::error::Fail;
use crate::decode::typed::Ctx;

/// The head of the next value. Containers are open once returned: their
/// items follow, read with `next_item` / `next_key`.
#[derive(Clone, Copy)]
pub enum Value<'a> {
    Null,
    Bool(bool),
    I64(i64),
    U64(u64),
    F64(f64),
    /// A JSON integer beyond 64 bits: its text.
    BigInt(&'a str),
    Str(&'a str),
    Bytes(&'a [u8]),
    Ext(i8, &'a [u8]),
    /// An array of `n` items if known ahead.
    Array(Option<usize>),
    Map(Option<usize>),
    /// A Python object that is no list, tuple, set or dict (`convert`).
    Py(*mut PyObject),
}

/// A value's head with what messages and some targets need besides.
#[derive(Clone, Copy)]
pub struct Head<'a> {
    pub v: Value<'a>,
    /// Byte offset where the value starts (0 for Python objects).
    pub at: usize,
    /// A JSON number's text as written (for `Decimal`); empty otherwise.
    pub text: &'a str,
}

impl<'a> Head<'a> {
    #[inline(always)]
    pub fn new(v: Value<'a>, at: usize) -> Head<'a> {
        Head { v, at, text: "" }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Msgpack,
    Python,
}

/// Where reading an open container is. Stream inputs use `first` and
/// `remaining`; the Python input holds the container and its current item.
pub struct Cursor {
    pub first: bool,
    pub remaining: usize,
    pub index: usize,
    /// The container (Python input; owned or NULL).
    pub container: *mut PyObject,
    /// An iterator over a set (owned or NULL).
    pub iter: *mut PyObject,
    /// The current item, or key and value (owned or NULL).
    pub held: [*mut PyObject; 2],
}

impl Cursor {
    #[inline(always)]
    pub fn new(remaining: usize) -> Cursor {
        Cursor {
            first: true,
            remaining,
            index: 0,
            container: core::ptr::null_mut(),
            iter: core::ptr::null_mut(),
            held: [core::ptr::null_mut(); 2],
        }
    }
}

impl Drop for Cursor {
    #[inline(always)]
    fn drop(&mut self) {
        if !self.container.is_null() {
            // SAFETY: owned references or NULL.
            unsafe {
                Py_XDECREF(self.held[0]);
                Py_XDECREF(self.held[1]);
                Py_XDECREF(self.iter);
                Py_DECREF(self.container);
            }
        }
    }
}

/// How [`Input::number_run`] stopped.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Run {
    /// The input has no such reading: nothing was read.
    Unsupported,
    /// The array ended.
    End,
    /// An item that is no number follows, to read with `next` (not `next_item`).
    Item,
    /// The callback returned false.
    Stopped,
}

/// A number of a run, as [`Input::number_run`] hands it.
pub enum RunItem<'v> {
    /// A number's value alone (an input's common shapes); refusing it asks
    /// for the same number again as [`RunItem::Full`].
    Quick(Quick),
    /// A number as [`Input::next`] reads it: the value, its byte offset and
    /// its text (as in [`Head`]).
    Full(Value<'v>, usize, &'v str),
}

/// What [`Input::next_key_expecting`] read.
pub enum KeyRead<'a> {
    /// The expected key, which started at this byte offset.
    Expected(usize),
    /// A key (possibly the expected one all the same).
    Other(Head<'a>),
}

pub trait Input {
    const FORMAT: Format;

    /// The head of the next value (containers opened).
    fn next(&mut self) -> Result<Head<'_>, Fail>;
    /// A cursor over the container `next` just opened (`len` as it said).
    fn open(&mut self, len: Option<usize>) -> Cursor;
    /// Whether another item follows in an open array (positioned at it).
    fn next_item(&mut self, cursor: &mut Cursor) -> Result<bool, Fail>;
    /// The next key of an open map (positioned at its value), or None at its end.
    fn next_key(&mut self, cursor: &mut Cursor) -> Result<Option<Head<'_>>, Fail>;
    /// [`next_key`](Self::next_key) when the key is likely `expected` (a
    /// class's next field in definition order): inputs that can tell that
    /// key without reading it out say [`KeyRead::Expected`] (JSON).
    #[inline(always)]
    fn next_key_expecting(
        &mut self,
        cursor: &mut Cursor,
        expected: Option<&JsonKey>,
    ) -> Result<Option<KeyRead<'_>>, Fail> {
        let _ = expected;
        Ok(self.next_key(cursor)?.map(KeyRead::Other))
    }
    /// Reads the items of an open array for as long as they are numbers,
    /// each handed to `f` (see [`RunItem`]); `f` returns whether to go on
    /// (for a quick number: whether it took it). For arrays read into a
    /// buffer (numpy targets); inputs without a faster way than `next_item`
    /// and `next` read nothing and say [`Run::Unsupported`].
    #[inline(always)]
    fn number_run(&mut self, _cursor: &mut Cursor, _f: impl FnMut(RunItem<'_>) -> bool) -> Result<Run, Fail> {
        Ok(Run::Unsupported)
    }
    /// Skips the next value whole (unknown fields), building nothing;
    /// `depth` containers are open around it (the nesting limit counts them).
    fn skip(&mut self, depth: usize) -> Result<(), Fail>;
    /// The next value as untyped decoding gives it (`Any`, and `dec_hook`'s input).
    fn any(&mut self, ctx: &mut Ctx) -> Result<Owned, Fail>;
    /// The map `next` just opened (`len` items), read as untyped decoding
    /// reads it if this input turns maps into numpy arrays (MessagePack
    /// with `OPT_MSGPACK_NUMPY`); None, with nothing read, otherwise.
    fn numpy_map(&mut self, _ctx: &mut Ctx, _len: Option<usize>, _at: usize) -> Result<Option<Owned>, Fail> {
        Ok(None)
    }
    /// The Python object `next` reads or last read (the Python input; NULL
    /// for streams).
    fn current(&self) -> *mut PyObject {
        core::ptr::null_mut()
    }
    /// Where the input is, to come back to with [`rewind`](Self::rewind)
    /// (stream inputs; 0 for Python objects).
    #[inline(always)]
    fn mark(&self) -> usize {
        0
    }
    /// Whether the caller may read on (keys read, values skipped) and then
    /// [`rewind`](Self::rewind): the stream inputs, while their
    /// [`LookAhead`] budget lasts; never Python objects.
    #[inline(always)]
    fn can_look_ahead(&self) -> bool {
        false
    }
    /// Goes back to `mark` (a [`mark`](Self::mark) taken inside the
    /// container being read), the bytes read since counted against the
    /// look-ahead budget.
    #[inline(always)]
    fn rewind(&mut self, mark: usize) {
        let _ = mark;
    }
}

/// [`Input::mark`], [`Input::can_look_ahead`] and [`Input::rewind`] for an
/// input over one of the core's pull readers (`self.pull`, whose `pos` and
/// `rewind` they are) with its budget in `self.ahead`.
macro_rules! pull_look_ahead {
    () => {
        #[inline(always)]
        fn mark(&self) -> usize {
            self.pull.pos()
        }

        #[inline(always)]
        fn can_look_ahead(&self) -> bool {
            self.ahead.lasts()
        }

        #[inline(always)]
        fn rewind(&mut self, mark: usize) {
            self.ahead.spend(self.pull.pos() - mark);
            self.pull.rewind(mark);
        }
    };
}
pub(crate) use pull_look_ahead;

/// How many bytes a stream input may read twice (looked ahead, then read
/// again after a rewind): a few times its length, so that looking ahead at
/// every level of a deep nest (each level going over what it holds) stays
/// linear in the input; past it callers take a path that reads once.
pub struct LookAhead {
    left: usize,
}

impl LookAhead {
    /// Times the input's length that may be read twice.
    const TIMES: usize = 8;

    pub fn new(input_len: usize) -> LookAhead {
        LookAhead { left: input_len.saturating_mul(Self::TIMES) }
    }

    #[inline(always)]
    pub fn lasts(&self) -> bool {
        self.left > 0
    }

    #[inline(always)]
    pub fn spend(&mut self, bytes: usize) {
        self.left = self.left.saturating_sub(bytes);
    }
}

/// How messages name the kind of a value (the `got` of "Expected `int`,
/// got `str`"), in msgspec's words for each format.
pub fn got_name<I: Input>(value: &Value) -> String {
    match value {
        Value::Null => if I::FORMAT == Format::Msgpack { "None" } else { "null" }.into(),
        Value::Bool(_) => "bool".into(),
        Value::I64(_) | Value::U64(_) | Value::BigInt(_) => "int".into(),
        Value::F64(_) => "float".into(),
        Value::Str(_) => "str".into(),
        Value::Bytes(_) => "bytes".into(),
        Value::Ext(..) => "ext".into(),
        Value::Array(_) => "array".into(),
        Value::Map(_) => "object".into(),
        // SAFETY: a live object the input holds.
        Value::Py(obj) => unsafe { py_type_name(*obj) },
    }
}

/// What messages call a Python object's type: msgspec's names for the
/// builtins, the class name otherwise.
pub unsafe fn py_type_name(obj: *mut PyObject) -> String {
    if obj == Py_None() {
        return "null".into();
    }
    if PyBool_Check(obj) != 0 {
        return "bool".into();
    }
    if PyLong_Check(obj) != 0 && PyLong_CheckExact(obj) != 0 {
        return "int".into();
    }
    if PyFloat_CheckExact(obj) != 0 {
        return "float".into();
    }
    if PyUnicode_CheckExact(obj) != 0 {
        return "str".into();
    }
    if PyBytes_CheckExact(obj) != 0 || PyByteArray_CheckExact(obj) != 0 || PyMemoryView_Check(obj) != 0 {
        return "bytes".into();
    }
    let name = core::ffi::CStr::from_ptr((*Py_TYPE(obj)).tp_name).to_string_lossy();
    name.rsplit('.').next().unwrap_or("object").to_owned()
}
