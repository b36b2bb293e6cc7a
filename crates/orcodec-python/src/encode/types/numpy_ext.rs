//! numpy arrays and scalars in binary form, for MessagePack: with
//! `OPT_NUMPY_EXT` one extension value each (a header and the raw elements:
//! `orcodec_core::msgpack::numpy` has the layout), with `OPT_MSGPACK_NUMPY`
//! msgpack-numpy's map (`{b"nd": True, b"type": ..., b"kind": b"",
//! b"shape": [...], b"data": ...}`), byte for byte what
//! `msgpack.packb(obj, default=msgpack_numpy.encode)` writes, and Python
//! complex numbers as its `{b"complex": True, b"data": repr}`.
//!
//! Elements are copied as they are: an array that is not C-contiguous is
//! written in C order, a byte-swapped one keeps its byte order (its dtype
//! string says which). Only plain numeric dtypes have a binary form (bool,
//! int, uint, float16/32/64, complex64/128, datetime64, timedelta64): arrays
//! of objects, strings, void and structured records go to `default`, and
//! without one raise. Nothing is ever pickled.

use core::ffi::c_char;
use core::ptr::null_mut;
use orcodec_core::emit::Emitter;
use orcodec_core::msgpack::numpy::{self as ext, parse_dtype};
use pyo3_ffi::*;

use crate::encode::error::{EncodeError, NotSupported};
use crate::encode::types::numpy::{numpy_types, ArrayInterface, Kind, C_CONTIGUOUS, NOT_SWAPPED};
use crate::encode::walker::Walker;
use crate::module::options;
use crate::state::State;

type Result<T = ()> = core::result::Result<T, EncodeError>;

/// A dtype string (`<f8`), held inline.
#[derive(Clone, Copy)]
struct DTypeText {
    bytes: [u8; ext::MAX_DTYPE_LEN],
    len: usize,
    itemsize: usize,
}

impl DTypeText {
    /// `text` if it is a dtype the binary forms carry.
    fn new(text: &[u8]) -> Option<DTypeText> {
        let itemsize = parse_dtype(text)?.itemsize;
        let mut bytes = [0; ext::MAX_DTYPE_LEN];
        bytes[..text.len()].copy_from_slice(text);
        Some(DTypeText { bytes, len: text.len(), itemsize })
    }

    /// The dtype of `typekind` and `itemsize` (as the array interface gives
    /// them) in native byte order, or swapped; None for datetimes (whose
    /// string has a unit) and for what has no binary form.
    fn of(typekind: u8, itemsize: usize, swapped: bool) -> Option<DTypeText> {
        if !matches!(typekind, b'b' | b'i' | b'u' | b'f' | b'c') {
            return None;
        }
        let little = cfg!(target_endian = "little") != swapped;
        let order = if itemsize == 1 {
            b'|'
        } else if little {
            b'<'
        } else {
            b'>'
        };
        let size: &[u8] = match itemsize {
            1 => b"1",
            2 => b"2",
            4 => b"4",
            8 => b"8",
            16 => b"16",
            _ => return None,
        };
        let mut text = [0u8; 4];
        text[0] = order;
        text[1] = typekind;
        text[2..2 + size.len()].copy_from_slice(size);
        DTypeText::new(&text[..2 + size.len()])
    }

    fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    fn as_str(&self) -> &str {
        // SAFETY: checked by `parse_dtype`, which accepts ASCII only.
        unsafe { core::str::from_utf8_unchecked(self.as_bytes()) }
    }
}

/// The dtype string of a numpy scalar kind, native byte order.
fn scalar_dtype(kind: Kind) -> Option<DTypeText> {
    let (typekind, itemsize) = match kind {
        Kind::F64 => (b'f', 8),
        Kind::F32 => (b'f', 4),
        Kind::F16 => (b'f', 2),
        Kind::I64 => (b'i', 8),
        Kind::I32 => (b'i', 4),
        Kind::I16 => (b'i', 2),
        Kind::I8 => (b'i', 1),
        Kind::U64 => (b'u', 8),
        Kind::U32 => (b'u', 4),
        Kind::U16 => (b'u', 2),
        Kind::U8 => (b'u', 1),
        Kind::Bool => (b'b', 1),
        Kind::DateTime => return None,
    };
    DTypeText::of(typekind, itemsize, false)
}

/// `obj.dtype.str` as a dtype the binary forms carry: Ok(None) if it is not one.
unsafe fn dtype_str(st: &State, obj: *mut PyObject) -> Result<Option<DTypeText>> {
    let s = st;
    let dtype = PyObject_GetAttr(obj, s.str_dtype);
    if dtype.is_null() {
        return Err(EncodeError::Raised);
    }
    let text = PyObject_GetAttr(dtype, s.str_str);
    Py_DECREF(dtype);
    if text.is_null() {
        return Err(EncodeError::Raised);
    }
    let mut len: Py_ssize_t = 0;
    let data = if PyUnicode_Check(text) != 0 { PyUnicode_AsUTF8AndSize(text, &mut len) } else { null_mut() };
    let found = if data.is_null() {
        PyErr_Clear();
        None
    } else {
        DTypeText::new(core::slice::from_raw_parts(data as *const u8, len as usize))
    };
    Py_DECREF(text);
    Ok(found)
}

/// The elements to write: `shape` and, unless C-contiguous, `strides` (in
/// bytes, possibly negative), as numpy describes them.
struct Elements<'a> {
    dtype: DTypeText,
    scalar: bool,
    shape: &'a [Py_ssize_t],
    strides: Option<&'a [Py_ssize_t]>,
    data: *const u8,
}

impl Elements<'_> {
    fn data_len(&self) -> usize {
        self.shape.iter().map(|&d| d as usize).product::<usize>() * self.dtype.itemsize
    }

    /// Copies the elements, in C order, to `dst` (`data_len` bytes).
    unsafe fn copy_to(&self, dst: *mut u8) {
        match self.strides {
            Some(strides) if !self.shape.is_empty() => {
                copy_strided(dst, self.data, self.shape, strides, self.dtype.itemsize);
            }
            _ => core::ptr::copy_nonoverlapping(self.data, dst, self.data_len()),
        }
    }
}

/// Copies the sub-array at `src` of `shape` and `strides` to `dst` in C
/// order; returns the address after what it wrote.
unsafe fn copy_strided(
    mut dst: *mut u8,
    src: *const u8,
    shape: &[Py_ssize_t],
    strides: &[Py_ssize_t],
    itemsize: usize,
) -> *mut u8 {
    let (len, stride) = (shape[0] as usize, strides[0]);
    if shape.len() > 1 {
        for i in 0..len {
            dst = copy_strided(dst, src.offset(i as isize * stride), &shape[1..], &strides[1..], itemsize);
        }
        return dst;
    }
    if stride == itemsize as isize {
        core::ptr::copy_nonoverlapping(src, dst, len * itemsize);
        return dst.add(len * itemsize);
    }
    /// One element at a time, of a width known here.
    #[inline(always)]
    unsafe fn gather<T: Copy>(dst: *mut u8, src: *const u8, len: usize, stride: isize) {
        let dst = dst as *mut T;
        for i in 0..len {
            dst.add(i).write_unaligned((src.offset(i as isize * stride) as *const T).read_unaligned());
        }
    }
    match itemsize {
        1 => gather::<u8>(dst, src, len, stride),
        2 => gather::<u16>(dst, src, len, stride),
        4 => gather::<u32>(dst, src, len, stride),
        8 => gather::<u64>(dst, src, len, stride),
        _ => gather::<[u8; 16]>(dst, src, len, stride),
    }
    dst.add(len * itemsize)
}

impl<E: Emitter> Walker<E> {
    /// With `OPT_NUMPY_EXT` or `OPT_MSGPACK_NUMPY` (MessagePack only): a
    /// numpy array or scalar, or with the latter a complex number, in
    /// binary form. None when `obj` is none of these.
    #[cold]
    pub(crate) unsafe fn numpy_binary(&mut self, obj: *mut PyObject) -> Option<Result> {
        if let Some(types) = numpy_types(self.st) {
            let ty = Py_TYPE(obj);
            if ty == types.ndarray {
                return Some(self.ndarray_binary(obj));
            }
            // msgpack writes numpy.float64, a float subclass, as a float
            // before msgpack-numpy sees it: so does its form here (without
            // the flag a float subclass goes to default, as with the peers).
            if self.opts & options::NUMPY_EXT == 0 && PyFloat_Check(obj) != 0 {
                if !types.generic.is_null() && PyType_IsSubtype(ty, types.generic) == 0 {
                    return None;
                }
                self.emitter.f64(PyFloat_AS_DOUBLE(obj));
                return Some(Ok(()));
            }
            if let Some(&(_, kind)) = types.scalars.iter().find(|&&(t, _)| t == ty) {
                if let Some(dtype) = scalar_dtype(kind) {
                    return Some(self.numpy_scalar_binary(dtype, obj));
                }
            }
            if !types.generic.is_null() && PyType_IsSubtype(ty, types.generic) != 0 {
                // Scalars of other dtypes (numpy.str_, numpy.bytes_, ...)
                // go on to the walker's other rules.
                match dtype_str(self.st, obj) {
                    Ok(Some(dtype)) => return Some(self.numpy_scalar_binary(dtype, obj)),
                    Ok(None) => {}
                    Err(e) => return Some(Err(e)),
                }
            }
        }
        if self.opts & options::MSGPACK_NUMPY != 0 && PyComplex_Check(obj) != 0 {
            return Some(self.complex_map(obj));
        }
        None
    }

    unsafe fn ndarray_binary(&mut self, obj: *mut PyObject) -> Result {
        let capsule = PyObject_GetAttr(obj, self.st.str_array_struct);
        if capsule.is_null() {
            return Err(EncodeError::Raised);
        }
        // The capsule owns the interface (and holds the array): the shape,
        // strides and data stay valid until it is released.
        let result = self.ndarray_from_interface(obj, capsule);
        Py_DECREF(capsule);
        result
    }

    unsafe fn ndarray_from_interface(&mut self, obj: *mut PyObject, capsule: *mut PyObject) -> Result {
        let interface = PyCapsule_GetPointer(capsule, null_mut()) as *const ArrayInterface;
        if interface.is_null() || (*interface).two != 2 {
            PyErr_Clear();
            return self.numpy_binary_unsupported(obj);
        }
        let i = &*interface;
        let (typekind, itemsize) = (i.typekind as u8, i.itemsize as usize);
        let dtype = if matches!(typekind, b'M' | b'm') {
            dtype_str(self.st, obj)?
        } else {
            DTypeText::of(typekind, itemsize, i.flags & NOT_SWAPPED == 0)
        };
        let nd = i.nd as usize;
        let Some(dtype) = dtype.filter(|d| d.itemsize == itemsize && nd <= ext::MAX_NDIM) else {
            return self.numpy_binary_unsupported(obj);
        };
        let shape = if nd == 0 { &[][..] } else { core::slice::from_raw_parts(i.shape, nd) };
        let strides = if i.flags & C_CONTIGUOUS != 0 || nd == 0 {
            None
        } else {
            Some(core::slice::from_raw_parts(i.strides, nd))
        };
        self.write_binary(&Elements { dtype, scalar: false, shape, strides, data: i.data as *const u8 })
    }

    /// A numpy scalar of `dtype`: its value is stored right after the object
    /// header (`obval`), as in every numpy scalar of a fixed-size type
    /// (complex, timedelta64, datetime64, longlong, ... alike).
    unsafe fn numpy_scalar_binary(&mut self, dtype: DTypeText, obj: *mut PyObject) -> Result {
        let data = (obj as *const u8).add(core::mem::size_of::<PyObject>());
        self.write_binary(&Elements { dtype, scalar: true, shape: &[], strides: None, data })
    }

    unsafe fn numpy_binary_unsupported(&mut self, obj: *mut PyObject) -> Result {
        if !self.has_default() {
            return Err(EncodeError::Numpy(NotSupported::BinaryDataType));
        }
        self.call_default(obj)
    }

    unsafe fn write_binary(&mut self, elements: &Elements<'_>) -> Result {
        let data_len = elements.data_len();
        if self.opts & options::NUMPY_EXT != 0 {
            self.numpy_ext_value(elements, data_len)
        } else {
            self.msgpack_numpy_map(elements, data_len)
        }
    }

    /// The extension value: header, padding, elements.
    unsafe fn numpy_ext_value(&mut self, elements: &Elements<'_>, data_len: usize) -> Result {
        let (dtype, ndim) = (&elements.dtype, elements.shape.len());
        let header = ext::header_len(dtype.len, ndim, 0);
        let align = dtype.itemsize.min(8);
        let pad = ext::padding(self.emitter.position(), header, data_len, align);
        let payload = header + pad + data_len;
        if payload > orcodec_core::msgpack::writer::MAX_LEN {
            return Err(EncodeError::TooLong);
        }
        self.emitter.ext_header(self.numpy_code, payload);
        let dims = elements.shape.iter().map(|&d| d as u64);
        self.emitter.raw_in_place(header + pad, |at| {
            // SAFETY: the emitter hands over `header + pad` writable bytes.
            let out = unsafe { core::slice::from_raw_parts_mut(at, header + pad) };
            ext::write_header(out, elements.scalar, dtype.as_str(), dims, pad);
        });
        // SAFETY: `data_len` writable bytes, all written by the copy.
        self.emitter.raw_in_place(data_len, |at| unsafe { elements.copy_to(at) });
        Ok(())
    }

    /// msgpack-numpy's map: `{b"nd": True, b"type": str, b"kind": b"",
    /// b"shape": [...], b"data": bin}` for an array, `{b"nd": False,
    /// b"type": str, b"data": bin}` for a scalar.
    unsafe fn msgpack_numpy_map(&mut self, elements: &Elements<'_>, data_len: usize) -> Result {
        if data_len > orcodec_core::msgpack::writer::MAX_LEN {
            return Err(EncodeError::TooLong);
        }
        let e = &mut self.emitter;
        let entries = if elements.scalar { 3 } else { 5 };
        e.begin_map(entries);
        e.map_key(0);
        e.bin(b"nd");
        e.map_value();
        e.bool(!elements.scalar);
        e.map_key(1);
        e.bin(b"type");
        e.map_value();
        e.ascii(elements.dtype.as_bytes());
        if !elements.scalar {
            e.map_key(2);
            e.bin(b"kind");
            e.map_value();
            e.bin(b"");
            e.map_key(3);
            e.bin(b"shape");
            e.map_value();
            let ndim = elements.shape.len();
            e.begin_array(ndim);
            for (i, &dim) in elements.shape.iter().enumerate() {
                e.array_item(i);
                e.u64(dim as u64);
            }
            e.end_array(ndim);
        }
        e.map_key(entries - 1);
        e.bin(b"data");
        e.map_value();
        e.bin_header(data_len);
        // SAFETY: `data_len` writable bytes, all written by the copy.
        e.raw_in_place(data_len, |at| unsafe { elements.copy_to(at) });
        e.end_map(entries);
        Ok(())
    }

    /// A complex number as msgpack-numpy writes one: `{b"complex": True,
    /// b"data": repr(value)}` (the repr of the plain complex, for subclasses too).
    unsafe fn complex_map(&mut self, obj: *mut PyObject) -> Result {
        let value = PyComplex_AsCComplex(obj);
        if value.real == -1.0 && !PyErr_Occurred().is_null() {
            return Err(EncodeError::Raised);
        }
        let plain = PyComplex_FromDoubles(value.real, value.imag);
        if plain.is_null() {
            return Err(EncodeError::Raised);
        }
        let text = PyObject_Repr(plain);
        Py_DECREF(plain);
        if text.is_null() {
            return Err(EncodeError::Raised);
        }
        let mut len: Py_ssize_t = 0;
        let utf8 = PyUnicode_AsUTF8AndSize(text, &mut len) as *const c_char;
        let result = if utf8.is_null() {
            Err(EncodeError::Raised)
        } else {
            let e = &mut self.emitter;
            e.begin_map(2);
            e.map_key(0);
            e.bin(b"complex");
            e.map_value();
            e.bool(true);
            e.map_key(1);
            e.bin(b"data");
            e.map_value();
            // A complex's repr is ASCII: digits, signs, letters, parentheses.
            e.ascii(core::slice::from_raw_parts(utf8 as *const u8, len as usize));
            e.end_map(2);
            Ok(())
        };
        Py_DECREF(text);
        result
    }
}
