"""fx.rocdl: the ROCm atoms and instructions, in FlyDSL's layout (SPEC §4,
§7). Copy operations (buffer copies and atomics through buffer resources,
buffer loads to LDS, gfx1250's tensor data mover), matrix operations (MFMA
on CDNA, WMMA on RDNA and gfx1250), buffer tensors and pointers, and the
scheduling and waiting instructions; the per-family namespaces (`cdna3`,
`cdna4`, `rdna3`, `rdna4`, `cdna5` for gfx1250), `tdm_ops` and `cluster`
(gfx1250's workgroup clusters) hold what only that family has. Each operation is a type of the compiler's fly_rocdl
dialect: fx.make_copy_atom / fx.make_mma_atom take it like the universal
ones, and an operation the target chip lacks is a located error naming the
chips that have it.

The ROCDL dialect's generated builders (`fx.rocdl.exp2`, `readlane`,
`ballot`, the MFMA intrinsics, ...) are fx.rocdl's too, for every name it
does not define (flydsl._mlir.dialects.rocdl; see _raw.py); the MFMA
intrinsics in FlyDSL's form: `mfma_f32_16x16x32_fp8_fp8(T.f32x4,
[a, b, acc, 0, 0, 0])`, a result type and one operand list.

Each name is imported from its module when first used, so that a kernel
pays only for the families it uses (a trace reaches fx.rocdl on first use
too): this table says which module holds which name, and each private
module's `__all__` is its part of it."""

# The names of fx.rocdl and the modules that define them.
_EXPORTS = {
    "_enum": ("SyncScope",),
    "_buffer": (
        "BufferCopy", "BufferCopy8b", "BufferCopy16b", "BufferCopy32b", "BufferCopy64b",
        "BufferCopy128b", "BufferCopyLDS", "BufferCopyLDS32b", "BufferCopyLDS128b",
        "BufferAtomic", "BufferAtomicAdd", "BufferAtomicMax", "BufferAtomicMin",
        "BufferAtomicPkAdd", "make_buffer_ptr", "make_buffer_tensor", "get_buffer_rsrc"),
    "_mfma": ("MFMA",),
    "_wmma": ("WMMA",),
    "_sched": (
        "s_waitcnt", "asyncmark", "wait_asyncmark", "sched_mfma", "sched_vmem", "sched_dsrd",
        "sched_dswr", "sched_barrier", "sched_group_barrier", "s_setprio", "s_barrier",
        "readfirstlane", "update_dpp", "permlanex16", "permlane16_swap", "permlane32_swap"),
    # gfx1250 (FlyDSL's `cdna5`, outside fx.rocdl's __all__ there too): its
    # names are also fx.rocdl's, as FlyDSL star-imports them.
    "cdna5": ("WMMAScale", "TDM", "make_tdm_atom"),
    # The packed fp8 / fp4 conversions: fx.rocdl names outside its __all__.
    "_cvt": (
        "cvt_pk_fp8_f32", "cvt_pk_bf8_f32", "cvt_pk_f32_fp8", "cvt_pk_f32_bf8", "cvt_f32_fp8",
        "cvt_f32_bf8", "cvt_scalef32_pk_f32_fp4", "cvt_scalef32_pk_bf16_fp4",
        "cvt_scalef32_pk_fp4_f32"),
    # The raw ROCDL conveniences next to the dialect's builders (below).
    "_raw": (
        "mask_mfma", "mask_vmem_rd", "mask_dsrd", "mask_dswr", "perm_b32", "readlane",
        "raw_ptr_buffer_load_lds", "buffer_load_to_lds", "cvt_off_f32_i4", "cvt_pk_bf16_f32",
        "wave_id", "cluster_workgroup_id_x", "cluster_workgroup_id_y", "cluster_workgroup_id_z"),
}
_NAMESPACES = ("cdna3", "cdna4", "rdna3", "rdna4", "cdna5", "tdm_ops", "cluster")
_LAZY = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = ["cdna3", "cdna4", "rdna3", "rdna4"] + [
    name for module in ("_enum", "_buffer", "_mfma", "_wmma", "_sched")
    for name in _EXPORTS[module]]


def __getattr__(name: str):
    """A name of fx.rocdl (or one of its namespaces), imported on first use;
    else the ROCDL dialect's own builder or op class of that name (FlyDSL's
    fx.rocdl star-imports them)."""
    import importlib

    module = _LAZY.get(name)
    if module is None and name not in _NAMESPACES:
        raw = importlib.import_module("flydsl._mlir.dialects.rocdl")
        value = getattr(raw, name, None) if not name.startswith("_") else None
        if value is None or not getattr(value, "__module__", "").startswith(
                "flydsl._mlir.dialects"):
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        if name.startswith("mfma_") and isinstance(value, type):  # FlyDSL's operand list
            value = importlib.import_module(f"{__name__}._raw").mfma_builder(value)
        globals()[name] = value
        return value

    value = importlib.import_module(f"{__name__}.{module or name}")
    if module is not None:
        value = getattr(value, name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | set(_NAMESPACES))
