"""FlyDSL's raw MLIR builders: MLIR's Python API (`ir`, `passmanager`,
`extras.types`, `dialects.*`) on the tracing core instead of MLIR's Python
bindings.

There is one MLIR context in the process, the C++ compiler's. Python builds
MLIR text through the tracer's Builder: inside a traced kernel ops go into
the kernel's current block; under `with ir.Context():` they go into modules
of their own (`ir.Module.create()`). Types are the compiler's type handles
(`flydsl._fly.Type`); parsing, verifying, printing and running passes are
the compiler's. The dialect modules (`dialects/_*_gen.py`) are generated at
build time by mlir-tblgen from the dialects' .td files
(frontend/python/bindings/CMakeLists.txt); `ir` is the runtime they stand
on.

This package imports only the tracing core and the native extension, and
loads the compiler extension on the first use of a type or attribute, not on
import.
"""
