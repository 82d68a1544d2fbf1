"""Where MLIR's Python bindings keep their native modules
(`_mlir_libs._mlirDialectsLLVM`, ...). This product has none: MLIR is the
C++ compiler's, reached through flydsl._mlir's text builders. A name looked
up here is an ImportError that says where its equivalent is."""

_ALTERNATIVES = {
    "_mlirDialectsFly": "flydsl._mlir.dialects.fly (its ops, enums and type classes)",
    "_mlirDialectsFlyROCDL": "flydsl._mlir.dialects.fly_rocdl",
    "_mlirDialectsLLVM": "flydsl._mlir.dialects.llvm; LLVM IR of a compiled kernel comes "
                         "from flyc.compile(...) with FLYDSL_DUMP_IR=1",
    "_mlirDialectsGPU": "flydsl._mlir.dialects.gpu",
}


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    where = _ALTERNATIVES.get(name, "flydsl._mlir.ir and flydsl._mlir.dialects")
    raise ImportError(f"flydsl._mlir._mlir_libs.{name}: FlyDSL has no native MLIR Python "
                      f"bindings (MLIR lives in its C++ compiler); use {where}")
