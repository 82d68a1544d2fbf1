"""The Fly dialect's enums and type classes as FlyDSL's `fx.primitive`
names them (AddressSpace, IntTupleType, LayoutType, CopyAtomType, ...).

A type class wraps a type handle of the C++ context (`flydsl._fly.Type`);
`X.get(...)` writes the type's text and has C++ parse and verify it, and
the members read what C++ says about the type (`Type.members`, the
inference of `fly.rank` / `fly.depth`). `isinstance(handle, LayoutType)`
holds for a raw handle of that kind too, so `isinstance(t.type,
CoordTensorType)` works on the values of traced code.
"""

from __future__ import annotations

import enum

from .. import _fly
from ..tracing.errors import TraceError
from ..tracing.ir import parse_type, user_location


def _fail(message: str):
    raise TraceError(message, *user_location()[:2])


# -- enums ----------------------------------------------------------------------

class _TextEnum(enum.IntEnum):
    """An enum whose str() is its spelling in the IR."""

    def __str__(self) -> str:
        return self._text()

    def _text(self) -> str:
        return self.name.lower()


class AddressSpace(_TextEnum):
    Generic = 0
    Global = 1
    Shared = 2
    Register = 3


class AtomicOp(_TextEnum):
    Add = 0
    Max = 1
    Min = 2
    And = 3
    Or = 4
    Inc = 5
    Dec = 6


class CachePolicy(_TextEnum):
    CacheGlobal = 0
    CacheAlways = 1


class GemmTraversalOrder(_TextEnum):
    """The loop order of `gemm` over the M, N and K rest modes (outermost
    first); `_Serpentine` reverses every other inner sweep."""

    KMN = 0
    KNM = 1
    MKN = 2
    MNK = 3
    NKM = 4
    NMK = 5
    KMN_Serpentine = 6
    KNM_Serpentine = 7
    MKN_Serpentine = 8
    MNK_Serpentine = 9
    NKM_Serpentine = 10
    NMK_Serpentine = 11


class MmaOperand(_TextEnum):
    A = 0
    B = 1
    C = 2
    D = 3

    def _text(self) -> str:
        return self.name


# -- type classes -----------------------------------------------------------------

def element_type_text(t) -> str:
    """The MLIR text of an element type: a numeric class (fx.Float32), a
    type class or handle."""
    for attr in ("mlir_type", "ir_type"):
        text = getattr(t, attr, None)
        if isinstance(text, str) and text:
            return text
        if isinstance(text, (_fly.Type, FlyType)):
            return str(text)
    if isinstance(t, (_fly.Type, FlyType)):
        return str(t)
    _fail(f"{t!r} is not an element type (a numeric type such as fx.Float32, or a type)")


def handle(t) -> "_fly.Type":
    """The C++ type handle of a type class instance or a handle."""
    return t.handle if isinstance(t, FlyType) else t


def _tuple_text(x) -> str:
    if isinstance(x, (tuple, list)):
        return "(" + ",".join(_tuple_text(e) for e in x) + ")"
    if x is None:
        return "*"
    if isinstance(x, bool) or not isinstance(x, int):
        if isinstance(x, (_fly.Type, FlyType)) and handle(x).kind == "int_tuple":
            return str(x)[len("!fly.int_tuple<"):-1]
        _fail(f"a static int tuple has ints and None, not {x!r}")
    return str(x)


def _inner_text(t, kind: str) -> str:
    """The parameter text of a fly type of this kind (`(4,8):(1,4)` of a
    layout)."""
    h = handle(t)
    if not isinstance(h, _fly.Type) or h.kind != kind:
        _fail(f"expected a {kind} type, got {t!r}")
    return str(h)[len(f"!fly.{kind}<"):-1]


class _KindMeta(type):
    """isinstance() of a raw handle holds when its kind is the class's."""

    def __instancecheck__(cls, obj):
        if type.__instancecheck__(cls, obj):
            return True
        return isinstance(obj, _fly.Type) and obj.kind in cls.kinds


class FlyType(metaclass=_KindMeta):
    """A fly type: the handle, and what FlyDSL's type classes say of it."""

    kinds: tuple = ()

    def __init__(self, t):
        self.handle = handle(t)
        if self.kinds and (not isinstance(self.handle, _fly.Type) or self.handle.kind not in self.kinds):
            _fail(f"{t!r} is not a {type(self).__name__}")

    @classmethod
    def parse(cls, text: str):
        return cls(parse_type(text))

    def __str__(self) -> str:
        return str(self.handle)

    def __repr__(self) -> str:
        return str(self.handle)

    def __eq__(self, o) -> bool:
        return self.handle == handle(o)

    def __hash__(self) -> int:
        return hash(self.handle)

    @property
    def is_static(self) -> bool:
        return self.handle.is_static

    def _member(self, name):
        members = self.handle.members
        if name not in members:
            _fail(f"{self} has no {name}")
        m = members[name]
        return wrap_type(m) if isinstance(m, _fly.Type) else m

    def _query(self, op: str) -> int:
        (r,) = _fly.infer(op, [self.handle], "")
        return r.value


def wrap_type(h: "_fly.Type"):
    """The type class instance of a handle (FlyType for other kinds)."""
    cls = _BY_KIND.get(h.kind, FlyType)
    return cls(h)


class _TupleLike(FlyType):
    @property
    def rank(self) -> int:
        return self._query("fly.rank")

    @property
    def depth(self) -> int:
        return self._query("fly.depth")

    @property
    def is_leaf(self) -> bool:
        return self.rank == 1 and self.depth == 0


class IntTupleType(_TupleLike):
    kinds = ("int_tuple",)

    @classmethod
    def get(cls, value):
        return cls.parse(f"!fly.int_tuple<{_tuple_text(value)}>")

    @property
    def value(self):
        return self.handle.value

    @property
    def get_static_leaf_int(self) -> int:
        v = self.handle.value
        if not isinstance(v, int):
            _fail(f"{self} is not a static integer leaf")
        return v

    def at(self, i: int) -> "IntTupleType":
        (r,) = _fly.infer("fly.get", [self.handle], f"{{mode = array<i64: {int(i)}>}}")
        return IntTupleType(r)


class BasisType(FlyType):
    """A scaled basis leaf (`1E0`): an int tuple whose leaf is a basis."""

    kinds = ("int_tuple",)

    @classmethod
    def get(cls, value, modes):
        modes = [modes] if isinstance(modes, int) else list(modes)
        return cls.parse(f"!fly.int_tuple<{value}" + "".join(f"E{m}" for m in modes) + ">")


class LayoutType(_TupleLike):
    kinds = ("layout",)

    @classmethod
    def get(cls, shape, stride):
        return cls.parse(f"!fly.layout<{_tuple_text(shape)}:{_tuple_text(stride)}>")

    @property
    def shape(self) -> IntTupleType:
        (r,) = _fly.infer("fly.get_shape", [self.handle], "")
        return IntTupleType(r)

    @property
    def stride(self) -> IntTupleType:
        (r,) = _fly.infer("fly.get_stride", [self.handle], "")
        return IntTupleType(r)

    @property
    def is_static_shape(self) -> bool:
        return self.shape.is_static

    @property
    def is_static_stride(self) -> bool:
        return self.stride.is_static


class SwizzleType(FlyType):
    kinds = ("swizzle",)

    @classmethod
    def get(cls, mask: int, base: int, shift: int):
        for name, v in (("mask", mask), ("base", base), ("shift", shift)):
            if not isinstance(v, int) or isinstance(v, bool):
                _fail(f"SwizzleType.get: '{name}' must be a Python int, not {v!r:.60}")
        return cls.parse(f"!fly.swizzle<S<{mask},{base},{shift}>>")

    mask = property(lambda self: self._member("mask"))
    base = property(lambda self: self._member("base"))
    shift = property(lambda self: self._member("shift"))


class CoordSwizzleType(FlyType):
    """A swizzle of coordinates: the coordinate leaf at mode path `mode_col`
    XORed with `mask` bits of the leaf at path `mode_row` (from bit
    `base_row`), placed at bit `base_col`."""

    kinds = ("coord_swizzle",)

    @classmethod
    def get(cls, mask: int, base_row: int, mode_row, base_col: int, mode_col, *, context=None):
        for name, v in (("mask", mask), ("base_row", base_row), ("base_col", base_col)):
            if not isinstance(v, int) or isinstance(v, bool):
                _fail(f"CoordSwizzleType.get: '{name}' must be a Python int, not {v!r:.60}")
        paths = []
        for name, v in (("mode_row", mode_row), ("mode_col", mode_col)):
            v = [v] if isinstance(v, int) and not isinstance(v, bool) else v
            if not isinstance(v, (list, tuple)) or not all(
                    isinstance(m, int) and not isinstance(m, bool) for m in v):
                _fail(f"CoordSwizzleType.get: '{name}' must be a list of mode indices, "
                      f"not {v!r:.60}")
            paths.append("[" + ",".join(str(m) for m in v) + "]")
        return cls.parse(f"!fly.coord_swizzle<CS<{mask},{base_row},{paths[0]},{base_col},"
                         f"{paths[1]}>>")

    mask = property(lambda self: self._member("mask"))
    base_row = property(lambda self: self._member("base_row"))
    mode_row = property(lambda self: list(self._member("mode_row")))
    base_col = property(lambda self: self._member("base_col"))
    mode_col = property(lambda self: list(self._member("mode_col")))


class ComposedLayoutType(_TupleLike):
    kinds = ("composed_layout",)

    @classmethod
    def get(cls, inner, offset, outer):
        inner_h = handle(inner)
        inner_text = _inner_text(inner_h, inner_h.kind if inner_h.kind in (
            "swizzle", "coord_swizzle") else "layout")
        return cls.parse(f"!fly.composed_layout<{inner_text} o {_tuple_text(offset)} o "
                         f"{_inner_text(outer, 'layout')}>")

    inner = property(lambda self: self._member("inner"))
    offset = property(lambda self: self._member("offset"))
    outer = property(lambda self: self._member("outer"))

    @property
    def is_static_inner(self) -> bool:
        return self.inner.is_static

    @property
    def is_static_offset(self) -> bool:
        return self.offset.is_static

    @property
    def is_static_outer(self) -> bool:
        return self.outer.is_static


class TileType(FlyType):
    kinds = ("tile",)

    @classmethod
    def get(cls, modes):
        def text(m):
            if m is None:
                return "*"
            if isinstance(m, bool):
                _fail(f"a tile mode is an int, None, a layout or a tuple of them, not {m!r}")
            if isinstance(m, int):
                return str(m)
            if isinstance(m, (tuple, list)):
                return "[" + "|".join(text(e) for e in m) + "]"
            h = handle(m.ir.type if hasattr(m, "ir") and not isinstance(m, type) else m)
            if isinstance(h, _fly.Type) and h.kind == "layout":
                return _inner_text(h, "layout")
            if isinstance(h, _fly.Type) and h.kind == "tile":
                return _inner_text(h, "tile")
            _fail(f"a tile mode is an int, None, a layout or a tuple of them, not {m!r}")
        modes = modes if isinstance(modes, (tuple, list)) else (modes,)
        return cls.parse("!fly.tile<[" + "|".join(text(m) for m in modes) + "]>")

    @property
    def rank(self) -> int:
        return len(_split_tile(str(self.handle)[len("!fly.tile<"):-1]))


def _split_tile(text: str) -> list[str]:
    """The top-level modes of a tile's text `[a|b|[c|d]]`."""
    assert text.startswith("[") and text.endswith("]")
    body, depth, parts, cur = text[1:-1], 0, [], ""
    for ch in body:
        if ch in "[(<":
            depth += 1
        elif ch in "])>":
            depth -= 1
        if ch == "|" and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return parts


class PointerType(FlyType):
    kinds = ("ptr",)

    @classmethod
    def get(cls, elem_ty, address_space=AddressSpace.Generic, alignment=None):
        if alignment is not None and (not isinstance(alignment, int) or isinstance(alignment, bool)):
            _fail(f"PointerType.get: 'alignment' must be a Python int, not {alignment!r:.60}")
        align = f", align<{alignment}>" if alignment else ""
        return cls.parse(f"!fly.ptr<{element_type_text(elem_ty)}, {_space_text(address_space)}{align}>")

    @property
    def element_type(self):
        return self.handle.element_type

    @property
    def address_space(self):
        return _space_value(self.handle.address_space)

    @property
    def alignment(self) -> int:
        return self._member("alignment")


def space_name(text) -> str:
    """`global` of an address space's text (`#fly.address_space<global>`)."""
    text = str(text)
    for prefix in ("#fly.address_space<", "#fly<address_space "):
        if text.startswith(prefix):
            text = text[len(prefix):].rstrip(">")
    return text


def _space_text(space) -> str:
    if isinstance(space, AddressSpace):
        return str(space)
    if isinstance(space, int) and not isinstance(space, bool):
        return str(AddressSpace(space))
    return str(space)


def _space_value(text):
    """AddressSpace for the generic spaces, the attribute text otherwise."""
    text = space_name(text)
    for s in AddressSpace:
        if text == str(s):
            return s
    return text


class MemRefType(_TupleLike):
    kinds = ("memref",)

    @classmethod
    def get(cls, elem_ty, layout, address_space=AddressSpace.Register, alignment=None):
        lh = handle(layout)
        layout_text = _inner_text(lh, lh.kind if isinstance(lh, _fly.Type) else "layout")
        if alignment is not None and (not isinstance(alignment, int) or isinstance(alignment, bool)):
            _fail(f"PointerType.get: 'alignment' must be a Python int, not {alignment!r:.60}")
        align = f", align<{alignment}>" if alignment else ""
        return cls.parse(f"!fly.memref<{element_type_text(elem_ty)}, {_space_text(address_space)}, "
                         f"{layout_text}{align}>")

    @property
    def element_type(self):
        return self.handle.element_type

    @property
    def layout(self):
        return wrap_type(self.handle.layout)

    @property
    def address_space(self):
        return _space_value(self.handle.address_space)

    @property
    def alignment(self) -> int:
        return self._member("alignment")

    @property
    def leading_dim(self):
        """The mode whose stride is static 1 (None when there is none)."""
        stride = self.handle.layout.value[1] if self.handle.layout.kind == "layout" else None
        if isinstance(stride, tuple):
            for i, s in enumerate(stride):
                if s == 1:
                    return i
            return None
        return 0 if stride == 1 else None


class CoordTensorType(_TupleLike):
    kinds = ("coord_tensor",)

    @classmethod
    def get(cls, base, layout):
        return cls.parse(f"!fly.coord_tensor<{_tuple_text(base)}, {_inner_text(layout, 'layout')}>")

    @property
    def layout(self):
        return wrap_type(self.handle.layout)

    @property
    def base(self):
        return self._member("base")


class CopyOpUniversalCopyType(FlyType):
    kinds = ("universal_copy",)

    @classmethod
    def get(cls, bit_size: int):
        if isinstance(bit_size, bool) or bit_size not in (8, 16, 32, 64, 128):
            _fail(f"UniversalCopy moves 8, 16, 32, 64 or 128 bits, not {bit_size!r}")
        return cls.parse(f"!fly.universal_copy<{bit_size}>")


class CopyOpUniversalAtomicType(FlyType):
    kinds = ("universal_atomic",)

    @classmethod
    def get(cls, atomic_op, val_type, syncscope=""):
        try:
            op = AtomicOp(int(atomic_op))
        except (TypeError, ValueError):
            _fail(f"UniversalAtomic: {atomic_op!r} is not an fx.AtomicOp")
        scope = "" if syncscope is None else getattr(syncscope, "value", syncscope)
        if not isinstance(scope, str) or not scope.replace("-", "").isalpha() and scope:
            _fail(f"UniversalAtomic: syncscope must be a sync scope string (fx.SyncScope or "
                  f"\"agent\", \"workgroup\", \"wavefront\"), not {syncscope!r}")
        suffix = f', "{scope}"' if scope else ""
        return cls.parse(f"!fly.universal_atomic<{op}, {element_type_text(val_type)}{suffix}>")



class MmaOpUniversalFMAType(FlyType):
    kinds = ("universal_fma",)

    @classmethod
    def get(cls, ty):
        return cls.parse(f"!fly.universal_fma<{element_type_text(ty)}>")


class CopyAtomType(FlyType):
    kinds = ("copy_atom",)

    @classmethod
    def get(cls, copy_op, val_bits: int):
        return cls.parse(f"!fly.copy_atom<{handle(copy_op)}, {int(val_bits)}>")

    val_bits = property(lambda self: self._member("val_bits"))
    thr_layout = property(lambda self: self._member("thr_layout"))
    tv_layout_src = property(lambda self: self._member("layout_src_tv"))
    tv_layout_dst = property(lambda self: self._member("layout_dst_tv"))
    tv_layout_ref = property(lambda self: self._member("layout_ref_tv"))


class MmaAtomType(FlyType):
    kinds = ("mma_atom",)

    @classmethod
    def get(cls, mma_op):
        return cls.parse(f"!fly.mma_atom<{handle(mma_op)}>")

    shape_mnk = property(lambda self: self._member("shape_mnk"))
    thr_layout = property(lambda self: self._member("thr_layout"))
    tv_layout_a = property(lambda self: self._member("layout_A_tv"))
    tv_layout_b = property(lambda self: self._member("layout_B_tv"))
    tv_layout_c = property(lambda self: self._member("layout_C_tv"))


class TiledCopyType(FlyType):
    kinds = ("tiled_copy",)

    @classmethod
    def get(cls, copy_atom, layout_thr_val, tile_mn):
        return cls.parse(f"!fly.tiled_copy<{handle(copy_atom)}, {_inner_text(layout_thr_val, 'layout')}, "
                         f"{_inner_text(tile_mn, 'tile')}>")

    copy_atom = property(lambda self: self._member("atom"))
    layout_thr_val = property(lambda self: self._member("layout_tv"))
    tile_mn = property(lambda self: self._member("tile"))


class TiledMmaType(FlyType):
    kinds = ("tiled_mma",)

    @classmethod
    def get(cls, mma_atom, atom_layout, permutation=None):
        perm = "" if permutation is None else ", " + _inner_text(permutation, "tile")
        return cls.parse(f"!fly.tiled_mma<{handle(mma_atom)}, {_inner_text(atom_layout, 'layout')}{perm}>")

    mma_atom = property(lambda self: self._member("atom"))
    atom_layout = property(lambda self: self._member("atom_layout"))
    permutation = property(lambda self: self._member("permutation"))
    tile_size_mnk = property(lambda self: self._member("tile_size_mnk"))
    thr_layout_vmnk = property(lambda self: self._member("thr_layout_vmnk"))
    tiled_tv_layout_a = property(lambda self: self._member("tv_layout_A_tiled"))
    tiled_tv_layout_b = property(lambda self: self._member("tv_layout_B_tiled"))
    tiled_tv_layout_c = property(lambda self: self._member("tv_layout_C_tiled"))


_BY_KIND = {k: c for c in (IntTupleType, LayoutType, SwizzleType, ComposedLayoutType, TileType,
                           PointerType, MemRefType, CoordTensorType, CopyOpUniversalCopyType,
                           CopyOpUniversalAtomicType, MmaOpUniversalFMAType, CopyAtomType,
                           MmaAtomType, TiledCopyType, TiledMmaType) for k in c.kinds}
