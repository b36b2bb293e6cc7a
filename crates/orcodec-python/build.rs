// Emits `Py_3_X` cfgs for the Python being built against, so code can follow
// CPython's struct layouts and API changes across versions.
use pyo3_build_config::{BuildFlag, GilUsed, PythonAbiKind, PythonImplementation};

fn main() {
    pyo3_build_config::use_pyo3_cfgs();
    // `dict_table_layout`: CPython 3.11 to 3.13 (GIL builds, full API) share
    // the dict keys table layout that src/cpython/dict.rs reads and
    // src/cpython/dict_table.rs writes. Every other interpreter goes through
    // the dict C API.
    // `int_layout`: the same versions, whose int objects src/cpython/int.rs
    // reads (the 3.11 and the 3.12/3.13 forms, told apart by `Py_3_12`).
    println!("cargo::rustc-check-cfg=cfg(dict_table_layout)");
    println!("cargo::rustc-check-cfg=cfg(int_layout)");
    // `float_layout`: CPython 3.11 and 3.12 of those, without reference-count
    // debugging, whose `_Py_NewReference` only sets the count (so
    // src/cpython/float.rs writes floats itself).
    println!("cargo::rustc-check-cfg=cfg(float_layout)");
    let config = pyo3_build_config::get();
    let version = config.version();
    if config.implementation() == PythonImplementation::CPython
        && config.target_abi().kind() == PythonAbiKind::VersionSpecific(GilUsed::GilEnabled)
        && version.major == 3
        && (11..=13).contains(&version.minor)
    {
        println!("cargo:rustc-cfg=dict_table_layout");
        println!("cargo:rustc-cfg=int_layout");
        if version.minor <= 12 && !config.build_flags().0.contains(&BuildFlag::Py_REF_DEBUG) {
            println!("cargo:rustc-cfg=float_layout");
        }
    }
}
