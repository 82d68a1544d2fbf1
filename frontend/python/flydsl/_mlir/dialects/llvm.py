"""The llvm dialect: the generated builders of its ops (`llvm.load`,
`llvm.store`, `llvm.inline_asm`, `llvm.call_intrinsic`, ...) and of its
intrinsics (`llvm.intr_fabs`, `llvm.intr_expect`, ...), its enums
(`AtomicOrdering`, `AtomicBinOp`, ...), and the type classes of its types
(`PointerType`, `StructType`, `ArrayType`)."""

from ._llvm_ops_gen import *  # noqa: F401,F403
from ._llvm_ops_gen import _Dialect  # noqa: F401
from ._llvm_intr_ops_gen import *  # noqa: F401,F403
from ._llvm_enum_gen import *  # noqa: F401,F403
from ._ods_common import get_op_result_or_op_results
from .. import ir
from .._operations import located_builder


def _types_text(types) -> str:
    return ", ".join(str(t) for t in types)


class PointerType(ir.Type):
    """!llvm.ptr (opaque pointers) of an address space."""

    static_typeid = ir.TypeID("llvm.ptr")

    @staticmethod
    def get(address_space=None, context=None):
        space = f"<{int(address_space)}>" if address_space else ""
        return ir.Type.parse(f"!llvm.ptr{space}")


class StructType(ir.Type):
    """!llvm.struct<(...)>: literal (`get_literal`) or named (`get_identified`,
    `new_identified`)."""

    static_typeid = ir.TypeID("llvm.struct")

    @staticmethod
    def get_literal(elements, *, packed: bool = False, loc=None, context=None):
        packed_text = "packed " if packed else ""
        return ir.Type.parse(f"!llvm.struct<{packed_text}({_types_text(elements)})>")

    @staticmethod
    def get_identified(name: str, *, context=None):
        return ir.Type.parse(f'!llvm.struct<"{name}", opaque>')

    @staticmethod
    def new_identified(name: str, elements, *, packed: bool = False, context=None):
        packed_text = "packed " if packed else ""
        return ir.Type.parse(f'!llvm.struct<"{name}", {packed_text}({_types_text(elements)})>')


class ArrayType(ir.Type):
    """!llvm.array<N x T>."""

    static_typeid = ir.TypeID("llvm.array")

    @staticmethod
    def get(element_type, num_elements: int, context=None):
        return ir.Type.parse(f"!llvm.array<{int(num_elements)} x {element_type}>")


@located_builder("llvm.mlir.constant")
def mlir_constant(value, *, loc=None, ip=None):
    """llvm.mlir.constant of a typed attribute (`ir.IntegerAttr.get(...)`)."""
    return get_op_result_or_op_results(ConstantOp(res=value.type, value=value, loc=loc, ip=ip))  # noqa: F405
