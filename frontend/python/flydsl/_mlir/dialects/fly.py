"""The fly dialect: the generated builders of its ops (`fly.static(t)`,
`fly.make_layout(shape, stride)`, `fly.copy_atom_call_ssa(...)`, ...), its
enums (`AddressSpace`), and the type classes of its types (`IntTupleType`,
`LayoutType`, `PointerType`, ...): isinstance checks, casts and
`static_typeid` (value casters), `get` for the int tuple, layout and pointer
types."""

from ._fly_ops_gen import *  # noqa: F401,F403
from ._fly_ops_gen import _Dialect  # noqa: F401
from ._fly_ops_gen import copy_atom_call_ssa as _copy_atom_call_ssa
from ._fly_ops_gen import mma_atom_call_ssa as _mma_atom_call_ssa
from ._fly_enum_gen import *  # noqa: F401,F403
from .. import ir
from .._operations import located_builder


def _fly_type_class(name: str, mnemonic: str, doc: str):
    return type(ir.Type)(name, (ir.Type,), {
        "__doc__": doc, "__module__": __name__,
        "static_typeid": ir.TypeID(f"fly.{mnemonic}")})


def int_tuple_text(spec) -> str:
    """An int tuple written as the fly dialect does: ints are static leaves,
    None a dynamic i32 one, "*" none, tuples nest (`(4,(8,?))`); a string
    is taken as written."""
    if isinstance(spec, bool):
        raise TypeError(f"an int tuple leaf is an int, None or a tuple, not {spec!r}")
    if isinstance(spec, int):
        return str(spec)
    if spec is None:
        return "?"
    if isinstance(spec, str):
        return spec
    return "(" + ",".join(int_tuple_text(s) for s in spec) + ")"


class IntTupleType(ir.Type):
    """!fly.int_tuple<...>: `IntTupleType.get((4, (8, None)))`."""

    static_typeid = ir.TypeID("fly.int_tuple")

    @staticmethod
    def get(spec, context=None):
        return ir.Type.parse(f"!fly.int_tuple<{int_tuple_text(spec)}>")


class LayoutType(ir.Type):
    """!fly.layout<shape:stride>: `LayoutType.get((4, 8), (1, 4))`."""

    static_typeid = ir.TypeID("fly.layout")

    @staticmethod
    def get(shape, stride, context=None):
        return ir.Type.parse(f"!fly.layout<{int_tuple_text(shape)}:{int_tuple_text(stride)}>")


class PointerType(ir.Type):
    """!fly.ptr<T, AS[, align<N>]>: the address space an AddressSpace, its
    name ('global') or an attribute (a buffer descriptor)."""

    static_typeid = ir.TypeID("fly.ptr")

    @staticmethod
    def get(elem_ty, address_space=None, alignment=None, context=None):
        # An AddressSpace prints its keyword, an attribute its text.
        space = "generic" if address_space is None else str(address_space)
        align = f", align<{int(alignment)}>" if alignment is not None else ""
        return ir.Type.parse(f"!fly.ptr<{elem_ty}, {space}{align}>")


SwizzleType = _fly_type_class("SwizzleType", "swizzle", "!fly.swizzle<S<B,M,S>>")
CoordSwizzleType = _fly_type_class("CoordSwizzleType", "coord_swizzle", "!fly.coord_swizzle<...>")
ComposedLayoutType = _fly_type_class("ComposedLayoutType", "composed_layout",
                                     "!fly.composed_layout<inner o offset o outer>")
TileType = _fly_type_class("TileType", "tile", "!fly.tile<[...]>")
MemRefType = _fly_type_class("MemRefType", "memref", "!fly.memref<T, AS, LAYOUT>")
CoordTensorType = _fly_type_class("CoordTensorType", "coord_tensor", "!fly.coord_tensor<...>")
CopyAtomType = _fly_type_class("CopyAtomType", "copy_atom", "!fly.copy_atom<OP, BITS>")
MmaAtomType = _fly_type_class("MmaAtomType", "mma_atom", "!fly.mma_atom<OP>")
TiledCopyType = _fly_type_class("TiledCopyType", "tiled_copy", "!fly.tiled_copy<...>")
TiledMmaType = _fly_type_class("TiledMmaType", "tiled_mma", "!fly.tiled_mma<...>")
UniversalCopyType = _fly_type_class("UniversalCopyType", "universal_copy",
                                    "!fly.universal_copy<BITS>")
UniversalFmaType = _fly_type_class("UniversalFmaType", "universal_fma", "!fly.universal_fma<...>")
UniversalAtomicType = _fly_type_class("UniversalAtomicType", "universal_atomic",
                                      "!fly.universal_atomic<...>")


def _single(x, what: str):
    """FlyDSL writes one result type and one A / B operand as a list of one."""
    if isinstance(x, (list, tuple)):
        if len(x) != 1:
            raise TypeError(f"fly: {what} takes one value here, not {len(x)}")
        return x[0]
    return x


@located_builder("fly.copy_atom_call_ssa")
def copy_atom_call_ssa(result, atom, src, *, dst=None, loc=None, ip=None):
    """fly.copy_atom_call_ssa; `result` may be a list of the one result type."""
    return _copy_atom_call_ssa(_single(result, "the result type"), atom, src, dst=dst,
                               loc=loc, ip=ip)


@located_builder("fly.mma_atom_call_ssa")
def mma_atom_call_ssa(result, atom, a, b, c, *, loc=None, ip=None):
    """fly.mma_atom_call_ssa; `result`, `a` and `b` may be lists of one."""
    return _mma_atom_call_ssa(_single(result, "the result type"), atom, _single(a, "A"),
                              _single(b, "B"), c, loc=loc, ip=ip)
