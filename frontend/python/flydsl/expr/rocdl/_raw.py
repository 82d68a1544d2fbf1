"""fx.rocdl's raw instructions, as FlyDSL's fx.rocdl has them: the ROCDL
dialect's generated builders (flydsl._mlir.dialects.rocdl: `exp2`, `rcp`,
`readlane`, `ballot`, `ds_bpermute`, `raw_ptr_buffer_load`, the MFMA and
WMMA intrinsics, ...; operands may be fx values, results are raw values),
reached through fx.rocdl's module __getattr__ for every name fx.rocdl does
not define itself, and the few conveniences FlyDSL's kernels call next to
them: the scheduling-class masks, `perm_b32`, `buffer_load_to_lds`, the
gfx9 conversions FlyDSL writes as inline assembly (`cvt_off_f32_i4`,
`cvt_pk_bf16_f32`), gfx1250's wave and cluster-position ids (`wave_id`,
`cluster_workgroup_id_x/y/z`), and FlyDSL's form of the MFMA intrinsics (a result
type and one operand list with Python ints for the modifiers: `mfma_builder`)."""

from __future__ import annotations

from ..._mlir import ir
from ..._mlir.dialects import llvm as _llvm
from ..._mlir.dialects import rocdl as _rocdl

__all__ = ["mask_mfma", "mask_vmem_rd", "mask_dsrd", "mask_dswr", "perm_b32", "readlane",
           "raw_ptr_buffer_load_lds", "buffer_load_to_lds", "cvt_off_f32_i4", "cvt_pk_bf16_f32",
           "wave_id", "cluster_workgroup_id_x", "cluster_workgroup_id_y", "cluster_workgroup_id_z"]

# The instruction classes of sched_barrier / sched_group_barrier masks.
mask_mfma = 0x008
mask_vmem_rd = 0x020
mask_dsrd = 0x100
mask_dswr = 0x200


def _i32(value):
    """A Python int as an i32 constant; a value as it is."""
    if isinstance(value, int) and not isinstance(value, bool):
        from ..._mlir.dialects import arith

        return arith.constant(ir.IntegerType.get_signless(32), value)
    return value


def mfma_builder(op_class):
    """FlyDSL's calling convention for an MFMA intrinsic of the dialect
    (`mfma_f32_16x16x32_fp8_fp8(T.f32x4, [a, b, acc, cbsz, abid, blgp])`):
    the result type and one list of operands, the modifiers as Python ints
    (i32 constants, as LLVM 22's ROCDL takes them); the result value."""

    def build(res, operands, **kw):
        if not isinstance(operands, (list, tuple)):
            raise TypeError(f"{op_class.OPERATION_NAME}: the operands are one list "
                            f"[a, b, c, modifiers...], not {type(operands).__name__}")
        return op_class(res, [_i32(x) for x in operands], **kw).result

    build.__name__ = build.__qualname__ = op_class.__name__
    build.__doc__ = f"`{op_class.OPERATION_NAME}`: (result type, [a, b, c, ints...])."
    return build


def perm_b32(src_hi, src_lo, sel, **kw):
    """v_perm_b32: bytes of `src_hi:src_lo` picked by the selector `sel`
    (llvm.amdgcn.perm), one i32."""
    return _llvm.call_intrinsic(ir.IntegerType.get_signless(32), "llvm.amdgcn.perm",
                                [src_hi, src_lo, _i32(sel)], [], [], **kw)


def readlane(res, src0, src1, **kw):
    """The value of `src0` in lane `src1` (an i32 value or a Python int)."""
    return _rocdl.readlane(res, src0, _i32(src1), **kw)


def raw_ptr_buffer_load_lds(rsrc, lds_ptr, size, voffset, soffset, offset, aux=None, **kw):
    """The dialect's builder, with Python ints for the i32 operands and `aux`."""
    if aux is None or isinstance(aux, int):
        aux = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), aux or 0)
    return _rocdl.raw_ptr_buffer_load_lds(rsrc, lds_ptr, _i32(size), _i32(voffset),
                                          _i32(soffset), _i32(offset), aux, **kw)


def buffer_load_to_lds(rsrc, lds_ptr, voffset, size_bytes=4, soffset=0, offset=0, **kw):
    """`size_bytes` from a buffer resource into LDS (the LDS DMA)."""
    return raw_ptr_buffer_load_lds(rsrc, lds_ptr, size_bytes, voffset, soffset, offset, 0, **kw)


def _i32_intrinsic(name: str):
    return _llvm.call_intrinsic(ir.IntegerType.get_signless(32), name, [], [], [])


def wave_id():
    """The wave's index in its workgroup, an i32 (wave-uniform; gfx1250's
    llvm.amdgcn.wave.id: LLVM 22's ROCDL has no op for it)."""
    return _i32_intrinsic("llvm.amdgcn.wave.id")


def cluster_workgroup_id_x():
    """The workgroup's x position in its cluster (gfx1250), an i32."""
    return _i32_intrinsic("llvm.amdgcn.cluster.workgroup.id.x")


def cluster_workgroup_id_y():
    """The workgroup's y position in its cluster (gfx1250), an i32."""
    return _i32_intrinsic("llvm.amdgcn.cluster.workgroup.id.y")


def cluster_workgroup_id_z():
    """The workgroup's z position in its cluster (gfx1250), an i32."""
    return _i32_intrinsic("llvm.amdgcn.cluster.workgroup.id.z")


def cvt_off_f32_i4(src_i32, byte_sel=None):
    """v_cvt_off_f32_i4 (gfx9): the low nibble of `src_i32` (or of its byte
    `byte_sel`, 0-3, through SDWA) as an offset f32, (n - 8) / 16."""
    if byte_sel is None:
        text = "v_cvt_off_f32_i4 $0, $1"
    else:
        text = ("v_cvt_off_f32_i4_sdwa $0, $1 dst_sel:DWORD dst_unused:UNUSED_PAD "
                f"src0_sel:BYTE_{int(byte_sel)}")
    return _llvm.inline_asm(ir.F32Type.get(), [src_i32], text, "=v,v", has_side_effects=False)


def cvt_pk_bf16_f32(src_a_f32, src_b_f32):
    """v_cvt_pk_bf16_f32 (gfx950): two f32 rounded to bf16 and packed in an
    i32, `src_a` in the low half."""
    return _llvm.inline_asm(ir.IntegerType.get_signless(32), [src_a_f32, src_b_f32],
                            "v_cvt_pk_bf16_f32 $0, $1, $2", "=v,v,v", has_side_effects=False)
