//! numpy arrays and scalars back from MessagePack: the numpy extension
//! values (`OPT_NUMPY_EXT`, layout in `orcodec_core::msgpack::numpy`) and
//! msgpack-numpy's maps (`OPT_MSGPACK_NUMPY`).
//!
//! Every payload is checked in full (dtype string against a closed list,
//! lengths, dimensions, size) before numpy is asked for anything. numpy is
//! imported the first time such a value is met, and the arrays are made
//! through its C API (`_ARRAY_API`): one allocation and one copy, or with
//! `OPT_NUMPY_ZERO_COPY` a read-only array over the input's own memory that
//! holds the input (a bytes object directly, anything else through a
//! memoryview whose buffer export keeps it from being resized or released).
//!
//! Entries of numpy's C API used, by index in `_ARRAY_API` (the same in
//! numpy 1.x and 2.x): 0 `PyArray_GetNDArrayCVersion`, 2 `PyArray_Type`,
//! 60 `PyArray_Scalar`, 94 `PyArray_NewFromDescr`, 282
//! `PyArray_SetBaseObject`; and of its structs only the array object's data
//! pointer, the field right after the object header in both.

use core::ffi::{c_int, c_void};
use core::ptr::null_mut;
use orcodec_core::msgpack::numpy::{self as ext, parse_dtype, DType};
use pyo3_ffi::*;

use crate::cpython::object::Owned;
use crate::module::errors::{raise, raise_from_current};
use crate::state::scratch::{slot, Slot};
use crate::state::State;

type Version = unsafe extern "C" fn() -> u32;
type NewFromDescr = unsafe extern "C" fn(
    *mut PyTypeObject,
    *mut PyObject,
    c_int,
    *const Py_ssize_t,
    *const Py_ssize_t,
    *mut c_void,
    c_int,
    *mut PyObject,
) -> *mut PyObject;
type SetBaseObject = unsafe extern "C" fn(*mut PyObject, *mut PyObject) -> c_int;
type Scalar = unsafe extern "C" fn(*mut c_void, *mut PyObject, *mut PyObject) -> *mut PyObject;

/// numpy 1.x's C ABI version and numpy 2.x's: the entries used here are
/// the same in both.
const ABI_VERSIONS: core::ops::RangeInclusive<u32> = 0x0100_0009..=0x0200_0000;
/// `NPY_ARRAY_C_CONTIGUOUS`: the flags of an array over memory it does not
/// own, without `NPY_ARRAY_WRITEABLE`, so it is read-only.
const READ_ONLY_C_ARRAY: c_int = 0x0001;
/// Descriptors kept, by dtype string (a document uses a few; a hostile one
/// with many datetime units must not grow the cache).
const MAX_CACHED_DESCRS: usize = 64;

/// The part of numpy's C API used here.
#[derive(Clone, Copy)]
struct Api {
    ndarray: *mut PyTypeObject,
    new_from_descr: NewFromDescr,
    set_base_object: SetBaseObject,
    scalar: Scalar,
    /// `numpy.dtype`, which makes a descriptor from a dtype string.
    dtype: *mut PyObject,
}

struct Numpy {
    api: Api,
    /// Descriptors made so far: dtype string and a reference kept for the
    /// life of the process.
    descrs: Vec<(Vec<u8>, *mut PyObject)>,
}

impl Drop for Numpy {
    fn drop(&mut self) {
        // SAFETY: the state owns one reference to `dtype` and to each descriptor.
        unsafe {
            Py_DECREF(self.api.dtype);
            self.descrs.iter().for_each(|&(_, d)| Py_DECREF(d));
        }
    }
}

/// numpy's C API and the descriptors made, once numpy is loaded in the
/// interpreter. No reference into the slot is held while Python code runs
/// (importing numpy, making a descriptor).
const NUMPY: Slot<Option<Numpy>> = Slot::at(slot::NUMPY_API);

/// `exc`, with the current exception as its cause.
unsafe fn fail_from_current_as<T>(exc: *mut PyObject, message: &str) -> Result<T, ()> {
    if PyErr_ExceptionMatches(PyExc_MemoryError) == 0 {
        raise_from_current(exc, message);
    }
    Err(())
}

/// The decode error, with the current exception as its cause.
unsafe fn fail_from_current<T>(st: &State, message: &str) -> Result<T, ()> {
    fail_from_current_as(st.msgpack_decode_error, message)
}

unsafe fn fail_as<T>(exc: *mut PyObject, message: &str) -> Result<T, ()> {
    raise(exc, message);
    Err(())
}

unsafe fn fail<T>(st: &State, message: &str) -> Result<T, ()> {
    fail_as(st.msgpack_decode_error, message)
}

/// numpy's C API, importing numpy the first time.
unsafe fn api(st: &State) -> Result<Api, ()> {
    api_as(st, st.msgpack_decode_error)
}

/// numpy's C API; `exc` is what failing to load it raises.
unsafe fn api_as(st: &State, exc: *mut PyObject) -> Result<Api, ()> {
    if let Some(numpy) = st.scratch.get(NUMPY).as_ref() {
        return Ok(numpy.api);
    }
    let api = load(exc)?;
    // Importing ran Python code, which may have decoded an array itself.
    match st.scratch.get(NUMPY).as_ref() {
        Some(numpy) => {
            Py_DECREF(api.dtype);
            Ok(numpy.api)
        }
        None => {
            *st.scratch.get(NUMPY) = Some(Numpy { api, descrs: Vec::new() });
            Ok(api)
        }
    }
}

#[cold]
unsafe fn load(exc: *mut PyObject) -> Result<Api, ()> {
    let numpy = PyImport_ImportModule(c"numpy".as_ptr());
    if numpy.is_null() {
        return fail_from_current_as(exc, "the input holds numpy arrays, but numpy could not be imported");
    }
    let dtype = PyObject_GetAttrString(numpy, c"dtype".as_ptr());
    Py_DECREF(numpy);
    if dtype.is_null() {
        return fail_from_current_as(exc, "numpy has no dtype");
    }
    let table = array_api_table(exc);
    let Ok(table) = table else {
        Py_DECREF(dtype);
        return Err(());
    };
    // SAFETY (of the transmutes): each entry is the function of that index
    // in numpy's API table, of the signature declared for it, in every
    // numpy whose ABI version is in `ABI_VERSIONS` (checked first).
    let version: Version = core::mem::transmute(*table);
    let found = version();
    if !ABI_VERSIONS.contains(&found) {
        Py_DECREF(dtype);
        return fail_as(exc, &format!("numpy's C ABI version 0x{found:08x} is not one orcodec knows"));
    }
    Ok(Api {
        ndarray: *table.add(2) as *mut PyTypeObject,
        scalar: core::mem::transmute::<*const c_void, Scalar>(*table.add(60)),
        new_from_descr: core::mem::transmute::<*const c_void, NewFromDescr>(*table.add(94)),
        set_base_object: core::mem::transmute::<*const c_void, SetBaseObject>(*table.add(282)),
        dtype,
    })
}

/// numpy's `_ARRAY_API` table (numpy 2 keeps it in `numpy._core`, numpy 1
/// in `numpy.core`). The capsule is never released: the table lives as
/// long as numpy, which is never unloaded.
unsafe fn array_api_table(exc: *mut PyObject) -> Result<*const *const c_void, ()> {
    let mut module = PyImport_ImportModule(c"numpy._core._multiarray_umath".as_ptr());
    if module.is_null() && PyErr_ExceptionMatches(PyExc_ModuleNotFoundError) != 0 {
        PyErr_Clear();
        module = PyImport_ImportModule(c"numpy.core._multiarray_umath".as_ptr());
    }
    if module.is_null() {
        return fail_from_current_as(exc, "numpy's C API could not be imported");
    }
    let capsule = PyObject_GetAttrString(module, c"_ARRAY_API".as_ptr());
    Py_DECREF(module);
    if capsule.is_null() {
        return fail_from_current_as(exc, "numpy's C API could not be imported");
    }
    if PyCapsule_CheckExact(capsule) == 0 {
        Py_DECREF(capsule);
        return fail_as(exc, "numpy's _ARRAY_API is not a capsule");
    }
    let table = PyCapsule_GetPointer(capsule, null_mut()) as *const *const c_void;
    if table.is_null() {
        Py_DECREF(capsule);
        return fail_from_current_as(exc, "numpy's _ARRAY_API is empty");
    }
    Ok(table)
}

/// A descriptor for `dtype` (a new reference): from the cache, or made by
/// `numpy.dtype(text)` (the text passed the closed list, so numpy parses
/// only what it is known to accept) and checked to have the item size the
/// payload was measured with.
unsafe fn descr(st: &State, api: &Api, dtype: &DType<'_>) -> Result<*mut PyObject, ()> {
    if let Some(numpy) = st.scratch.get(NUMPY).as_ref() {
        if let Some(&(_, d)) = numpy.descrs.iter().find(|(text, _)| text[..] == *dtype.text.as_bytes()) {
            Py_INCREF(d);
            return Ok(d);
        }
    }
    let text =
        Owned::new(PyUnicode_FromStringAndSize(dtype.text.as_ptr() as *const _, dtype.text.len() as Py_ssize_t))?;
    let made = Owned::new(PyObject_CallOneArg(api.dtype, text.as_ptr()))
        .or_else(|()| fail_from_current(st, &format!("numpy refused dtype {:?}", dtype.text)))?;
    let size = PyObject_GetAttrString(made.as_ptr(), c"itemsize".as_ptr());
    let itemsize = if size.is_null() { -1 } else { PyLong_AsSsize_t(size) };
    Py_XDECREF(size);
    PyErr_Clear();
    if itemsize != dtype.itemsize as Py_ssize_t {
        return fail(st, &format!("numpy's dtype {:?} is not {} bytes wide", dtype.text, dtype.itemsize));
    }
    // No Python code runs from here on.
    if let Some(numpy) = st.scratch.get(NUMPY).as_mut() {
        let known = numpy.descrs.iter().any(|(text, _)| text[..] == *dtype.text.as_bytes());
        if !known && numpy.descrs.len() < MAX_CACHED_DESCRS {
            Py_INCREF(made.as_ptr());
            #[expect(clippy::disallowed_methods, reason = "at most MAX_CACHED_DESCRS short dtype strings")]
            numpy.descrs.push((dtype.text.as_bytes().to_vec(), made.as_ptr()));
        }
    }
    Ok(made.into_raw())
}

/// numpy's array object up to its data pointer (`PyArrayObject_fields`,
/// the same in numpy 1.x and 2.x).
#[repr(C)]
struct ArrayHead {
    ob_base: PyObject,
    data: *mut u8,
}

/// The dimensions as numpy takes them; each fits (checked by the parser).
fn dims_of(dims: impl ExactSizeIterator<Item = u64>) -> ([Py_ssize_t; ext::MAX_NDIM], usize) {
    let mut out = [0 as Py_ssize_t; ext::MAX_NDIM];
    let ndim = dims.len();
    for (slot, dim) in out.iter_mut().zip(dims) {
        *slot = dim as Py_ssize_t;
    }
    (out, ndim)
}

/// The checked description of one array or scalar, and its elements.
struct Value<'a> {
    dtype: DType<'a>,
    scalar: bool,
    dims: [Py_ssize_t; ext::MAX_NDIM],
    ndim: usize,
    data: &'a [u8],
}

/// Makes the array or scalar `value`; with `base`, a read-only array over
/// `value.data` (which `base` holds alive) instead of a copy.
unsafe fn build(st: &State, value: &Value<'_>, base: Option<&Owned>) -> Result<Owned, ()> {
    let api = api(st)?;
    let descr = descr(st, &api, &value.dtype)?;
    if value.scalar {
        // A scalar is a value: numpy copies (and byte-swaps) it. The
        // descriptor is borrowed.
        let scalar = (api.scalar)(value.data.as_ptr() as *mut c_void, descr, null_mut());
        Py_DECREF(descr);
        return Owned::new(scalar).or_else(|()| fail_from_current(st, "numpy could not make the scalar"));
    }
    let (dims, ndim) = (value.dims.as_ptr(), value.ndim as c_int);
    let Some(base) = base else {
        // The descriptor reference is stolen, even on failure.
        let array = (api.new_from_descr)(api.ndarray, descr, ndim, dims, null_mut(), null_mut(), 0, null_mut());
        let array = Owned::new(array).or_else(|()| fail_from_current(st, "numpy could not make the array"))?;
        let data = (*(array.as_ptr() as *const ArrayHead)).data;
        core::ptr::copy_nonoverlapping(value.data.as_ptr(), data, value.data.len());
        return Ok(array);
    };
    let data = value.data.as_ptr() as *mut c_void;
    let array = (api.new_from_descr)(api.ndarray, descr, ndim, dims, null_mut(), data, READ_ONLY_C_ARRAY, null_mut());
    let array = Owned::new(array).or_else(|()| fail_from_current(st, "numpy could not make the array"))?;
    // Steals the reference to the base, even on failure.
    Py_INCREF(base.as_ptr());
    if (api.set_base_object)(array.as_ptr(), base.as_ptr()) != 0 {
        return fail_from_current(st, "numpy could not make the array");
    }
    Ok(array)
}

/// What a decode reads numpy values with, and the input it reads.
pub struct NumpyRead {
    st: &'static State,
    /// The extension type of numpy values (`OPT_NUMPY_EXT`), or None.
    ext_code: Option<i8>,
    /// msgpack-numpy's maps (`OPT_MSGPACK_NUMPY`).
    pub maps: bool,
    zero_copy: bool,
    input: *mut PyObject,
    input_start: *const u8,
    /// What zero-copy arrays hold, made for the first one: the input if it
    /// is bytes (immutable), else a memoryview of it, whose buffer export
    /// stops a bytearray from being resized and keeps a memoryview's
    /// exporter from letting go of its memory while any array lives.
    base: Option<Owned>,
}

impl NumpyRead {
    /// `input` is the object `unpackb` reads, whose bytes start at `input_start`.
    pub fn new(
        st: &'static State,
        ext_code: Option<i8>,
        maps: bool,
        zero_copy: bool,
        input: *mut PyObject,
        input_start: *const u8,
    ) -> NumpyRead {
        NumpyRead { st, ext_code, maps, zero_copy, input, input_start, base: None }
    }

    /// Whether extension type `tag` is numpy's.
    #[inline(always)]
    pub fn is_numpy_ext(&self, tag: i8) -> bool {
        self.ext_code == Some(tag)
    }

    unsafe fn base(&mut self) -> Result<&Owned, ()> {
        if self.base.is_none() {
            let base = if PyBytes_Check(self.input) != 0 {
                Py_INCREF(self.input);
                self.input
            } else {
                PyMemoryView_FromObject(self.input)
            };
            self.base = Some(Owned::new(base)?);
        }
        // Set just above.
        self.base.as_ref().ok_or(())
    }

    /// The numpy extension value whose payload is `data`, borrowed from the input.
    pub unsafe fn ext_value(&mut self, data: &[u8]) -> Result<Owned, ()> {
        let st = self.st;
        let header = match ext::parse(data) {
            Ok(header) => header,
            Err(e) => {
                let offset = data.as_ptr() as usize - self.input_start as usize;
                let code = self.ext_code.unwrap_or(ext::DEFAULT_CODE);
                return fail(
                    st,
                    &format!("invalid numpy extension value (type {code}, payload at byte {offset}): {e}"),
                );
            }
        };
        let (dims, ndim) = dims_of(header.dims());
        let value = Value { dtype: header.dtype, scalar: header.scalar, dims, ndim, data: header.data };
        if self.zero_copy && !header.scalar {
            let base = self.base()?;
            build(st, &value, Some(base))
        } else {
            build(st, &value, None)
        }
    }

    /// A msgpack-numpy map, given as its alternating keys and values: the
    /// array, scalar or complex number it stands for, or Ok(None) if it is
    /// not one. A map with a bytes key `b"nd"` whose value is a bool is one,
    /// and must then be valid; so is a map of exactly `b"complex": True` and
    /// `b"data"`.
    pub unsafe fn map_value(&mut self, items: &[Owned]) -> Result<Option<Owned>, ()> {
        let st = self.st;
        let pairs = items.len() / 2;
        let mut fields: [*mut PyObject; FIELDS.len()] = [null_mut(); FIELDS.len()];
        let mut unknown = None;
        for pair in items.chunks_exact(2) {
            let (key, value) = (pair[0].as_ptr(), pair[1].as_ptr());
            let field = if PyBytes_CheckExact(key) != 0 {
                let name = crate::cpython::bytes::bytes_data(key);
                FIELDS.iter().position(|&field| field == name)
            } else {
                None
            };
            match field {
                Some(i) => fields[i] = value,
                None => {
                    unknown.get_or_insert(key);
                }
            }
        }
        let [nd, dtype, kind, shape, data, complex] = fields;
        if !nd.is_null() && (nd == Py_True() || nd == Py_False()) {
            if let Some(key) = unknown {
                let shown = crate::module::errors::repr(key);
                return fail(st, &format!("msgpack-numpy array with an unexpected key {shown}"));
            }
            return self.msgpack_numpy_array(nd == Py_False(), dtype, kind, shape, data).map(Some);
        }
        if complex == Py_True() && !data.is_null() && pairs == 2 {
            return complex_from(st, data).map(Some);
        }
        Ok(None)
    }

    unsafe fn msgpack_numpy_array(
        &mut self,
        scalar: bool,
        dtype: *mut PyObject,
        kind: *mut PyObject,
        shape: *mut PyObject,
        data: *mut PyObject,
    ) -> Result<Owned, ()> {
        let st = self.st;
        if !kind.is_null() {
            let kind_bytes =
                if PyBytes_CheckExact(kind) != 0 { Some(crate::cpython::bytes::bytes_data(kind)) } else { None };
            match kind_bytes {
                Some(b"") => {}
                Some(b"O") => {
                    return fail(
                        st,
                        "msgpack-numpy object array refused: its data is a pickle, which could run any code",
                    )
                }
                Some(b"V") => return fail(st, "msgpack-numpy structured array refused: only plain dtypes are read"),
                _ => return fail(st, "msgpack-numpy array with an unknown b'kind'"),
            }
        }
        let text = text_bytes(dtype).ok_or(()).or_else(|()| fail(st, "msgpack-numpy array without a dtype string"))?;
        let Some(dtype) = parse_dtype(text) else {
            // The text is input: quoted only in part if it is long.
            let shown = crate::module::errors::shown(text);
            return fail(st, &format!("msgpack-numpy array of unsupported dtype {shown:?}"));
        };
        if data.is_null() || PyBytes_CheckExact(data) == 0 {
            return fail(st, "msgpack-numpy array without bytes b'data'");
        }
        let bytes = crate::cpython::bytes::bytes_data(data);
        let mut dims = [0 as Py_ssize_t; ext::MAX_NDIM];
        let ndim = if scalar {
            if !shape.is_null() {
                return fail(st, "msgpack-numpy scalar with a b'shape'");
            }
            0
        } else {
            read_shape(st, shape, &mut dims)?
        };
        let expected = ext::checked_size(dims[..ndim].iter().map(|&d| d as u64), dtype.itemsize)
            .or_else(|e| fail(st, &format!("msgpack-numpy array: {e}")))?;
        if expected != bytes.len() as u64 {
            return fail(
                st,
                &format!(
                    "msgpack-numpy array: the shape and dtype need {expected} bytes of data, b'data' has {}",
                    bytes.len()
                ),
            );
        }
        let value = Value { dtype, scalar, dims, ndim, data: bytes };
        if self.zero_copy && !scalar {
            // The bin value is already its own bytes object: the array holds it.
            let base = Owned::new({
                Py_INCREF(data);
                data
            })?;
            build(st, &value, Some(&base))
        } else {
            build(st, &value, None)
        }
    }
}

/// msgpack-numpy's keys, in the order of `map_value`'s fields.
const FIELDS: [&[u8]; 6] = [b"nd", b"type", b"kind", b"shape", b"data", b"complex"];

/// The bytes of a str (msgpack-numpy writes the dtype as str) or bytes (as
/// older writers did); None for anything else.
unsafe fn text_bytes<'a>(obj: *mut PyObject) -> Option<&'a [u8]> {
    if obj.is_null() {
        return None;
    }
    if PyBytes_CheckExact(obj) != 0 {
        return Some(crate::cpython::bytes::bytes_data(obj));
    }
    if PyUnicode_CheckExact(obj) != 0 {
        let mut len: Py_ssize_t = 0;
        let data = PyUnicode_AsUTF8AndSize(obj, &mut len);
        if data.is_null() {
            PyErr_Clear();
            return None;
        }
        return Some(core::slice::from_raw_parts(data as *const u8, len as usize));
    }
    None
}

/// A msgpack-numpy `b"shape"`: a list of non-negative ints, at most 64.
unsafe fn read_shape(st: &State, shape: *mut PyObject, dims: &mut [Py_ssize_t; ext::MAX_NDIM]) -> Result<usize, ()> {
    if shape.is_null() || PyList_CheckExact(shape) == 0 {
        return fail(st, "msgpack-numpy array without a list b'shape'");
    }
    let ndim = PyList_GET_SIZE(shape) as usize;
    if ndim > ext::MAX_NDIM {
        return fail(st, &format!("msgpack-numpy array of {ndim} dimensions (at most {})", ext::MAX_NDIM));
    }
    for (i, slot) in dims.iter_mut().enumerate().take(ndim) {
        let item = PyList_GET_ITEM(shape, i as Py_ssize_t);
        let value = if PyLong_CheckExact(item) != 0 { PyLong_AsSsize_t(item) } else { -1 };
        if value < 0 {
            PyErr_Clear();
            return fail(st, "msgpack-numpy array with a b'shape' that is not made of non-negative ints");
        }
        *slot = value;
    }
    Ok(ndim)
}

/// msgpack-numpy's complex number: `complex(data)`, its repr read back.
unsafe fn complex_from(st: &State, data: *mut PyObject) -> Result<Owned, ()> {
    let text = if PyBytes_CheckExact(data) != 0 {
        let bytes = crate::cpython::bytes::bytes_data(data);
        Owned::new(PyUnicode_DecodeASCII(bytes.as_ptr() as *const _, bytes.len() as Py_ssize_t, c"strict".as_ptr()))
            .or_else(|()| fail_from_current(st, "msgpack-numpy complex number that is not text"))?
    } else if PyUnicode_CheckExact(data) != 0 {
        Py_INCREF(data);
        Owned::new(data)?
    } else {
        return fail(st, "msgpack-numpy complex number that is not text");
    };
    let complex_type = core::ptr::addr_of_mut!(PyComplex_Type) as *mut PyObject;
    Owned::new(PyObject_CallOneArg(complex_type, text.as_ptr()))
        .or_else(|()| fail_from_current(st, "msgpack-numpy complex number that complex() does not read"))
}

/// The error `unpackb` raises for `OPT_NUMPY_ZERO_COPY` alone.
pub const ZERO_COPY_NEEDS: &str = "OPT_NUMPY_ZERO_COPY needs OPT_NUMPY_EXT or OPT_MSGPACK_NUMPY";

/// A new C-order array of `dtype` (numpy's spelling of a dtype on the
/// closed list, e.g. `<f8`) and shape `dims`, its elements copied from
/// `data`, which holds exactly as many bytes as the shape and dtype need
/// (typed decoding). Failures leave numpy's exception set (a ValueError for
/// more dimensions than the installed numpy allows, a MemoryError).
pub unsafe fn new_array(st: &State, dtype: &str, dims: &[Py_ssize_t], data: &[u8]) -> Result<Owned, ()> {
    let api = api_as(st, PyExc_ImportError)?;
    let Some(dtype) = parse_dtype(dtype.as_bytes()) else {
        return fail_as(PyExc_SystemError, &format!("orcodec: no such dtype {dtype:?}"));
    };
    let descr = descr(st, &api, &dtype)?;
    // The descriptor reference is stolen, even on failure.
    let array = (api.new_from_descr)(
        api.ndarray,
        descr,
        dims.len() as c_int,
        dims.as_ptr(),
        null_mut(),
        null_mut(),
        0,
        null_mut(),
    );
    let array = Owned::new(array)?;
    let head = (*(array.as_ptr() as *const ArrayHead)).data;
    core::ptr::copy_nonoverlapping(data.as_ptr(), head, data.len());
    Ok(array)
}

/// `numpy.ndarray` (numpy imported the first time).
pub unsafe fn ndarray_type(st: &State) -> Result<*mut PyTypeObject, ()> {
    Ok(api_as(st, PyExc_ImportError)?.ndarray)
}
