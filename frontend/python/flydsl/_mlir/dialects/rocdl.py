"""The ROCDL dialect (generated builders: `rocdl.raw_ptr_buffer_load(...)`,
`rocdl.workitem_id_x(...)`, ...).

The buffer ops' `aux` (cache-policy bits): LLVM 22's ROCDL, which the
builders are generated from, takes it as an i32 operand; the newer MLIR
FlyDSL builds on made it an optional attribute, so FlyDSL's kernels write
`RawPtrBufferLoadOp(t, rsrc, offset, soffset, aux=attr_or_None)`. The
builders of these ops take both: `aux` may be an i32 SSA value (LLVM 22's
form), an IntegerAttr, a Python int or left out (0); the last three become
an i32 constant operand next to the op."""

import inspect as _inspect

from ._rocdl_ops_gen import *  # noqa: F401,F403
from ._rocdl_ops_gen import _Dialect  # noqa: F401
from . import _rocdl_ops_gen as _generated
from .arith import constant as _constant
from ._ods_common import _cext, get_op_result_or_op_results as _result_or_op
from .. import ir as _ir

# (op class, builder function) of the ops whose `aux` is an operand in LLVM 22.
_AUX_OPERAND_OPS = (
    ("RawBufferAtomicCmpSwap", "raw_buffer_atomic_cmpswap"),
    ("RawBufferAtomicFAddOp", "raw_buffer_atomic_fadd"),
    ("RawBufferAtomicFMaxOp", "raw_buffer_atomic_fmax"),
    ("RawBufferAtomicSMaxOp", "raw_buffer_atomic_smax"),
    ("RawBufferAtomicUMinOp", "raw_buffer_atomic_umin"),
    ("RawBufferLoadOp", "raw_buffer_load"),
    ("RawBufferStoreOp", "raw_buffer_store"),
    ("RawPtrBufferAtomicCmpSwap", "raw_ptr_buffer_atomic_cmpswap"),
    ("RawPtrBufferAtomicFaddOp", "raw_ptr_buffer_atomic_fadd"),
    ("RawPtrBufferAtomicFmaxOp", "raw_ptr_buffer_atomic_fmax"),
    ("RawPtrBufferAtomicSmaxOp", "raw_ptr_buffer_atomic_smax"),
    ("RawPtrBufferAtomicUminOp", "raw_ptr_buffer_atomic_umin"),
    ("RawPtrBufferLoadLdsOp", "raw_ptr_buffer_load_lds"),
    ("RawPtrBufferLoadOp", "raw_ptr_buffer_load"),
    ("RawPtrBufferStoreOp", "raw_ptr_buffer_store"),
)


def _aux_operand(aux, op_name, loc, ip):
    """`aux` as the i32 operand LLVM 22's op takes."""
    if isinstance(aux, _ir.IntegerAttr):
        aux = aux.value
    if aux is None or (isinstance(aux, int) and not isinstance(aux, bool)):
        return _constant(_ir.IntegerType.get_signless(32), aux or 0, loc=loc, ip=ip)
    if isinstance(aux, _ir.Attribute):
        raise TypeError(f"'{op_name}': aux must be an i32 value, an IntegerAttr or an int, "
                        f"not the attribute {aux}")
    return aux


def _with_optional_aux(class_name, function_name):
    generated = getattr(_generated, class_name)
    positional = [name for name, p in _inspect.signature(generated.__init__).parameters.items()
                  if p.kind is p.POSITIONAL_OR_KEYWORD][1:]
    aux_index = positional.index("aux")

    def __init__(self, *args, aux=None, loc=None, ip=None, **kwargs):
        if len(args) > aux_index:
            if len(args) > aux_index + 1 or aux is not None:
                raise TypeError(f"{class_name}() takes {aux_index + 1} positional arguments "
                                f"({', '.join(positional)}), got {len(args)} and aux={aux!r}")
            aux = args[aux_index]
            args = args[:aux_index]
        operand = _aux_operand(aux, generated.OPERATION_NAME, loc, ip)
        generated.__init__(self, *args, aux=operand, loc=loc, ip=ip, **kwargs)

    op_class = type(class_name, (generated,), {"__init__": __init__, "__module__": __name__,
                                               "__doc__": generated.__doc__})
    _cext.register_operation(_Dialect, replace=True)(op_class)

    def builder(*args, **kwargs):
        return _result_or_op(op_class(*args, **kwargs))

    builder.__name__ = builder.__qualname__ = function_name
    builder.__doc__ = (f"`{generated.OPERATION_NAME}`: ({', '.join(positional)}); aux an i32 "
                       "value, an IntegerAttr, an int or left out (0).")
    return op_class, builder


for _class_name, _function_name in _AUX_OPERAND_OPS:
    globals()[_class_name], globals()[_function_name] = _with_optional_aux(_class_name,
                                                                           _function_name)
del _class_name, _function_name
