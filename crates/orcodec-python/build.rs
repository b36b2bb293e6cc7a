// Emits `Py_3_X` cfgs for the Python being built against, so code can follow
// CPython's struct layouts and API changes across versions.
fn main() {
    pyo3_build_config::use_pyo3_cfgs();
}
