"""Types by name, as MLIR's `extras.types`: `T.i32()`, `T.f16()`,
`T.index()`, `T.vector(4, element_type=T.f32())`, `T.memref(8,
element_type=T.f32(), memory_space=3)`, `T.function(inputs=[...],
results=[...])`. Each returns a type handle."""

from __future__ import annotations

from ..ir import (BF16Type, ComplexType, F16Type, F32Type, F64Type, Float4E2M1FNType,
                  Float6E2M3FNType, Float6E3M2FNType, Float8E4M3B11FNUZType, Float8E4M3FNType,
                  Float8E4M3FNUZType, Float8E4M3Type, Float8E5M2FNUZType, Float8E5M2Type,
                  Float8E8M0FNUType, FloatTF32Type, FunctionType, IndexType, IntegerType,
                  MemRefType, NoneType, OpaqueType, RankedTensorType, ShapedType, TupleType,
                  Type, UnrankedMemRefType, UnrankedTensorType, VectorType)


def index():
    return IndexType.get()


def i(width: int):
    return IntegerType.get_signless(width)


def si(width: int):
    return IntegerType.get_signed(width)


def ui(width: int):
    return IntegerType.get_unsigned(width)


def bool():  # noqa: A001 - MLIR's name
    return i(1)


def i8():
    return i(8)


def i16():
    return i(16)


def i32():
    return i(32)


def i64():
    return i(64)


def si8():
    return si(8)


def si16():
    return si(16)


def si32():
    return si(32)


def si64():
    return si(64)


def ui8():
    return ui(8)


def ui16():
    return ui(16)


def ui32():
    return ui(32)


def ui64():
    return ui(64)


def f16():
    return F16Type.get()


def f32():
    return F32Type.get()


def f64():
    return F64Type.get()


def bf16():
    return BF16Type.get()


def tf32():
    return FloatTF32Type.get()


def f8E4M3FN():  # noqa: N802 - MLIR's names
    return Float8E4M3FNType.get()


def f8E4M3FNUZ():  # noqa: N802
    return Float8E4M3FNUZType.get()


def f8E4M3():  # noqa: N802
    return Float8E4M3Type.get()


def f8E4M3B11FNUZ():  # noqa: N802
    return Float8E4M3B11FNUZType.get()


def f8E5M2():  # noqa: N802
    return Float8E5M2Type.get()


def f8E5M2FNUZ():  # noqa: N802
    return Float8E5M2FNUZType.get()


def f8E8M0FNU():  # noqa: N802
    return Float8E8M0FNUType.get()


def f6E2M3FN():  # noqa: N802
    return Float6E2M3FNType.get()


def f6E3M2FN():  # noqa: N802
    return Float6E3M2FNType.get()


def f4E2M1FN():  # noqa: N802
    return Float4E2M1FNType.get()


def none():
    return NoneType.get()


def complex(type_):  # noqa: A001 - MLIR's name
    return ComplexType.get(type_)


def opaque(dialect_namespace: str, type_data: str):
    return OpaqueType.get(dialect_namespace, type_data)


def _shape(shape) -> list:
    return [ShapedType.get_dynamic_size() if d is None or d == "?" else d for d in shape]


def vector(*shape, element_type: Type = None, scalable=None, scalable_dims=None):
    """vector<shape x element_type>."""
    if element_type is None:
        raise ValueError("T.vector needs element_type=")
    return VectorType.get(_shape(shape), element_type, scalable=scalable,
                          scalable_dims=scalable_dims)


def tensor(*shape, element_type: Type = None, encoding=None):
    """tensor<shape x element_type> (no shape: unranked)."""
    if element_type is None:
        raise ValueError("T.tensor needs element_type=")
    if not shape:
        return UnrankedTensorType.get(element_type)
    return RankedTensorType.get(_shape(shape), element_type, encoding)


def memref(*shape, element_type: Type = None, memory_space=None, layout=None):
    """memref<shape x element_type[, layout][, memory_space]> (no shape:
    unranked)."""
    if element_type is None:
        raise ValueError("T.memref needs element_type=")
    if not shape:
        return UnrankedMemRefType.get(element_type, memory_space)
    return MemRefType.get(_shape(shape), element_type, layout, memory_space)


def tuple(*elements):  # noqa: A001 - MLIR's name
    return TupleType.get_tuple(elements)


def function(*, inputs, results):
    return FunctionType.get(inputs, results)
