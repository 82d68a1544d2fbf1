"""Atoms, tiled atoms and the copy/gemm algorithms of the traced code.

Atom objects are static (their type is the whole value); tiled copies and
tiled MMAs are sliced per thread (`get_slice(tid)`) into views whose
`partition_*` emit the Fly partition ops. `copy` and `gemm` emit
`fly.copy` / `fly.gemm`, which the compiler expands into atom calls.
"""

from __future__ import annotations

from ..compiler.errors import TraceError
from ..compiler.ir import parse_type, user_location
from ..compiler.trace import builder
from . import numeric as nm
from .algebra import Atom, Layout, Tensor, emit, lift, wrap


# -- target-neutral operations (SPEC §4) ---------------------------------------

class CopyOp:
    """A copy operation type: `UniversalCopy(bits)`, `UniversalAtomic(op, T)`."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


def UniversalCopy(bits: int) -> CopyOp:
    if bits not in (8, 16, 32, 64, 128):
        raise TraceError(f"UniversalCopy moves 8, 16, 32, 64 or 128 bits, not {bits}",
                         *user_location()[:2])
    return CopyOp(f"!fly.universal_copy<{bits}>")


def UniversalCopy8b(): return UniversalCopy(8)
def UniversalCopy16b(): return UniversalCopy(16)
def UniversalCopy32b(): return UniversalCopy(32)
def UniversalCopy64b(): return UniversalCopy(64)
def UniversalCopy128b(): return UniversalCopy(128)


def UniversalAtomic(op: str, dtype) -> CopyOp:
    return CopyOp(f"!fly.universal_atomic<{op}, {dtype.mlir_type}>")


class MmaOp:
    def __init__(self, text: str):
        self.text = text


def UniversalFMA(d, a=None, b=None, c=None) -> MmaOp:
    """d = a * b + c by one thread; one type for all four, or four types."""
    if a is None:
        return MmaOp(f"!fly.universal_fma<{d.mlir_type}>")
    return MmaOp(f"!fly.universal_fma<{d.mlir_type}, {a.mlir_type}, {b.mlir_type}, {c.mlir_type}>")


def _static(type_text: str) -> Atom:
    (v,) = builder().op("fly.static", [], [parse_type(type_text)])
    return wrap(v)


def make_copy_atom(op: CopyOp, dtype) -> "CopyAtom":
    bits = nm.numeric_class(dtype.mlir_type).bits if hasattr(dtype, "mlir_type") else int(dtype)
    return CopyAtom(_static(f"!fly.copy_atom<{op.text}, {bits}>").ir)


def make_mma_atom(op: MmaOp) -> "MmaAtom":
    return MmaAtom(_static(f"!fly.mma_atom<{op.text}>").ir)


class CopyAtom(Atom):
    pass


class MmaAtom(Atom):
    pass


# -- tiled copies -----------------------------------------------------------------

class TiledCopy(Atom):
    def get_slice(self, thr_idx) -> "ThrCopy":
        return ThrCopy(self, thr_idx)

    def retile(self, tensor: Tensor) -> Tensor:
        return emit("fly.tiled_copy.retile", self, tensor)


class ThrCopy:
    """One thread's view of a tiled copy."""

    def __init__(self, tiled: TiledCopy, thr_idx):
        self.tiled = tiled
        self.thr_idx = nm.convert(thr_idx, nm.Int32) if isinstance(thr_idx, nm.Numeric) else lift(thr_idx)

    def partition_S(self, tensor: Tensor) -> Tensor:
        return emit("fly.tiled_copy.partition_src", self.tiled, tensor, self.thr_idx)

    def partition_D(self, tensor: Tensor) -> Tensor:
        return emit("fly.tiled_copy.partition_dst", self.tiled, tensor, self.thr_idx)

    def retile(self, tensor: Tensor) -> Tensor:
        return self.tiled.retile(tensor)


def make_layout_tv(thr: Layout, val: Layout):
    """(tile, thread-value layout) of make_layout_tv(thr, val)."""
    return emit("fly.make_layout_tv", thr, val)


def make_tiled_copy(atom: CopyAtom, layout_tv: Layout, tile) -> TiledCopy:
    from .algebra import tile as make_tile
    t = emit("fly.make_tiled_copy", atom, layout_tv, make_tile(tile) if isinstance(tile, (tuple, list)) else tile)
    return TiledCopy(t.ir)


def make_tiled_copy_tv(atom: CopyAtom, thr: Layout, val: Layout) -> TiledCopy:
    tile, layout_tv = make_layout_tv(thr, val)
    return make_tiled_copy(atom, layout_tv, tile)


def _tiled_copy_for(atom, mma, operand):
    t = emit("fly.make_tiled_copy_for", atom, mma, attrs=f'operand = "{operand}"')
    return TiledCopy(t.ir)


def make_tiled_copy_A(atom, mma): return _tiled_copy_for(atom, mma, "A")
def make_tiled_copy_B(atom, mma): return _tiled_copy_for(atom, mma, "B")
def make_tiled_copy_C(atom, mma): return _tiled_copy_for(atom, mma, "C")


# -- tiled MMAs -------------------------------------------------------------------

class TiledMma(Atom):
    def get_slice(self, thr_idx) -> "ThrMma":
        return ThrMma(self, thr_idx)

    thr_slice = get_slice

    def set(self, field: str, value) -> "TiledMma":
        """The tiled MMA with a run-time field of its atom set
        (atom.set_value), e.g. `set("accumulate", k > 0)`."""
        v = nm.convert(value, nm.Boolean)
        (r,) = builder().op("fly.atom.set_value", [self.ir, v.ir], [self.ir.type],
                            f'field = "{field}"')
        return TiledMma(r)


class ThrMma:
    def __init__(self, tiled: TiledMma, thr_idx):
        self.tiled = tiled
        self.thr_idx = nm.convert(thr_idx, nm.Int32) if isinstance(thr_idx, nm.Numeric) else lift(thr_idx)

    def _partition(self, tensor, operand):
        return emit("fly.tiled_mma.partition", self.tiled, tensor, self.thr_idx,
                    attrs=f'operand = "{operand}"')

    def partition_A(self, t): return self._partition(t, "A")
    def partition_B(self, t): return self._partition(t, "B")
    def partition_C(self, t): return self._partition(t, "C")

    def _fragment(self, t, operand):
        return emit("fly.mma.make_fragment", self.tiled, t, attrs=f'operand = "{operand}"')

    def make_fragment_A(self, t): return self._fragment(t, "A")
    def make_fragment_B(self, t): return self._fragment(t, "B")
    def make_fragment_C(self, t): return self._fragment(t, "C")


def make_tiled_mma(atom: MmaAtom, atom_layout: Layout, permutation=None) -> TiledMma:
    from .algebra import tile as make_tile
    operands = [atom, atom_layout]
    if permutation is not None:
        operands.append(make_tile(permutation))
    t = emit("fly.make_tiled_mma", *operands)
    return TiledMma(t.ir)


# -- algorithms -------------------------------------------------------------------

def copy(atom, src: Tensor, dst: Tensor, pred: Tensor | None = None) -> None:
    """CuTe's copy / copy_if: `pred` holds one flag per slice of src's rest
    modes."""
    operands = [atom.ir, src.ir, dst.ir] + ([pred.ir] if pred is not None else [])
    builder().op("fly.copy", operands)


def gemm(atom, d: Tensor, a: Tensor, b: Tensor, c: Tensor) -> None:
    builder().op("fly.gemm", [atom.ir, d.ir, a.ir, b.ir, c.ir])


def _register_classes():
    from . import algebra
    algebra._CLASSES.update({"copy_atom": CopyAtom, "mma_atom": MmaAtom,
                             "tiled_copy": TiledCopy, "tiled_mma": TiledMma})


_register_classes()
