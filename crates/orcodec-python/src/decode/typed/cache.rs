//! Compiled types, cached by type so that `loads(data, type=T)` compiles `T`
//! once. The cache is a dict keyed by the type itself (so `list[int]`
//! written anew at every call, an equal but new object each time, is found
//! too), holding each compiled type in a capsule. It is emptied when it
//! reaches `MAX_CACHED` types (types made in a loop cannot grow it without
//! bound). A type that cannot be hashed is compiled at every call.

use core::ffi::c_void;
use pyo3_ffi::*;
use std::rc::Rc;

use crate::decode::typed::compile::compile;
use crate::decode::typed::node::Compiled;
use crate::module::errors::Raised;
use crate::state::State;

const MAX_CACHED: Py_ssize_t = 1024;

const CAPSULE_NAME: &core::ffi::CStr = c"orcodec.compiled_type";

unsafe extern "C" fn drop_capsule(capsule: *mut PyObject) {
    let ptr = PyCapsule_GetPointer(capsule, CAPSULE_NAME.as_ptr()) as *const Compiled;
    if !ptr.is_null() {
        drop(Rc::from_raw(ptr));
    }
}

/// `tp` compiled afresh (no cache).
pub unsafe fn compile_uncached(st: &State, tp: *mut PyObject) -> Result<Rc<Compiled>, Raised> {
    // `orcodec._typed.compile_type` of this interpreter, imported on first use.
    let mut f = st.found.compile_type.found();
    if f.is_null() {
        let module = PyImport_ImportModule(c"orcodec._typed".as_ptr());
        if module.is_null() {
            return Err(Raised);
        }
        let found = PyObject_GetAttrString(module, c"compile_type".as_ptr());
        Py_DECREF(module);
        if found.is_null() {
            return Err(Raised);
        }
        // Another thread may have kept one meanwhile (the import ran Python code).
        f = st.found.compile_type.keep(found);
    }
    // Held across the call: the function is the state's, which lives on.
    let spec = PyObject_CallOneArg(f, tp);
    if spec.is_null() {
        return Err(Raised);
    }
    let compiled = compile(st, spec);
    Py_DECREF(spec);
    Ok(Rc::new(compiled?))
}

/// The compiled form of `tp`, from the cache or compiled and cached.
pub unsafe fn compiled(st: &State, tp: *mut PyObject) -> Result<Rc<Compiled>, Raised> {
    let mut cache = st.found.compiled_types.found();
    if cache.is_null() {
        let dict = PyDict_New();
        if dict.is_null() {
            return Err(Raised);
        }
        cache = st.found.compiled_types.keep(dict);
    }
    // Looking the type up can run Python code (its __hash__ and __eq__):
    // nothing above is held across it but the dict, which the state keeps.
    let found = PyDict_GetItemWithError(cache, tp);
    if !found.is_null() {
        let ptr = PyCapsule_GetPointer(found, CAPSULE_NAME.as_ptr()) as *const Compiled;
        if !ptr.is_null() {
            Rc::increment_strong_count(ptr);
            return Ok(Rc::from_raw(ptr));
        }
        return Err(Raised);
    }
    if !PyErr_Occurred().is_null() {
        if PyErr_ExceptionMatches(PyExc_TypeError) == 0 {
            return Err(Raised);
        }
        // Unhashable: compiled every time.
        PyErr_Clear();
        return compile_uncached(st, tp);
    }
    let compiled = compile_uncached(st, tp)?;
    let capsule =
        PyCapsule_New(Rc::into_raw(compiled.clone()) as *mut c_void, CAPSULE_NAME.as_ptr(), Some(drop_capsule));
    if capsule.is_null() {
        return Err(Raised);
    }
    if PyDict_Size(cache) >= MAX_CACHED {
        PyDict_Clear(cache);
    }
    let status = PyDict_SetItem(cache, tp, capsule);
    Py_DECREF(capsule);
    if status != 0 {
        return Err(Raised);
    }
    Ok(compiled)
}
