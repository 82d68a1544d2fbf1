"""MLIR's Python `ir` API on FlyDSL's tracer (see flydsl._mlir).

Types are the compiler's type handles, checked and made by the type classes
(`IntegerType.get_signless(32)`, `isinstance(t, VectorType)`, `Type.parse`);
attributes are canonical MLIR text the compiler has parsed (`IntegerAttr`,
`ArrayAttr`, ...); values are the tracing core's (`Value`, with `.type` and
`.owner`); ops (`Operation`, `OpView`, the generated classes of
`flydsl._mlir.dialects`) are written as MLIR text, into a traced kernel's
current block or into standalone modules under `with Context():`
(`Module.create()`, `InsertionPoint`, `Location`). The compiler parses,
verifies and prints; errors are MLIRErrors located at the user's line.

The fx layer registers its value classes with `register_value_caster`.
"""

from ._attributes import (AffineMapAttr, ArrayAttr, AttrBuilder, Attribute, BoolAttr,
                          DenseBoolArrayAttr, DenseElementsAttr, DenseF32ArrayAttr,
                          DenseF64ArrayAttr, DenseFPElementsAttr, DenseI8ArrayAttr,
                          DenseI16ArrayAttr, DenseI32ArrayAttr, DenseI64ArrayAttr,
                          DenseIntElementsAttr, DictAttr, FlatSymbolRefAttr, FloatAttr,
                          IntegerAttr, NamedAttribute, StridedLayoutAttr, StringAttr,
                          SymbolRefAttr, TypeAttr, UnitAttr, register_attribute_builder)
from ._context import Context, Diagnostic, Location, MLIRError
from ._operations import (Block, BlockList, Dialect, InsertionPoint, Module, OpAttributeMap,
                          Operation, OpResultList, OpView, Region, register_dialect,
                          register_operation)
from ._types import (BF16Type, ComplexType, F16Type, F32Type, F64Type, Float4E2M1FNType,
                     Float6E2M3FNType, Float6E3M2FNType, Float8E3M4Type,
                     Float8E4M3B11FNUZType, Float8E4M3FNType, Float8E4M3FNUZType,
                     Float8E4M3Type, Float8E5M2FNUZType, Float8E5M2Type, Float8E8M0FNUType,
                     FloatTF32Type, FloatType, FunctionType, IndexType, IntegerType,
                     MemRefType, NoneType, OpaqueType, RankedTensorType, ShapedType,
                     TupleType, Type, TypeID, UnrankedMemRefType, UnrankedTensorType,
                     VectorType)
from ._values import BlockArgument, OpResult, Value, register_value_caster

# MLIR's other names for these.
DictionaryAttr = DictAttr
OpOperandList = OpResultList
BlockArgumentList = list
RegionSequence = list
OpOperand = Value

__all__ = [
    "AffineMapAttr", "ArrayAttr", "AttrBuilder", "Attribute", "BF16Type", "Block",
    "BlockArgument", "BlockArgumentList", "BlockList", "BoolAttr", "ComplexType", "Context",
    "DenseBoolArrayAttr", "DenseElementsAttr", "DenseF32ArrayAttr", "DenseF64ArrayAttr",
    "DenseFPElementsAttr", "DenseI8ArrayAttr", "DenseI16ArrayAttr", "DenseI32ArrayAttr",
    "DenseI64ArrayAttr", "DenseIntElementsAttr", "Diagnostic", "DictAttr", "DictionaryAttr",
    "Dialect", "F16Type", "F32Type", "F64Type", "FlatSymbolRefAttr", "Float4E2M1FNType",
    "Float6E2M3FNType", "Float6E3M2FNType", "Float8E3M4Type", "Float8E4M3B11FNUZType",
    "Float8E4M3FNType", "Float8E4M3FNUZType", "Float8E4M3Type", "Float8E5M2FNUZType",
    "Float8E5M2Type", "Float8E8M0FNUType", "FloatAttr", "FloatTF32Type", "FloatType",
    "FunctionType", "IndexType", "InsertionPoint", "IntegerAttr", "IntegerType", "Location",
    "MLIRError", "MemRefType", "Module", "NamedAttribute", "NoneType", "OpAttributeMap",
    "OpOperand", "OpOperandList", "OpResult", "OpResultList", "OpView", "OpaqueType",
    "Operation", "RankedTensorType", "Region", "RegionSequence", "ShapedType",
    "StridedLayoutAttr", "StringAttr", "SymbolRefAttr", "TupleType", "Type", "TypeAttr",
    "TypeID", "UnitAttr", "UnrankedMemRefType", "UnrankedTensorType", "Value", "VectorType",
    "register_attribute_builder", "register_dialect", "register_operation",
    "register_value_caster",
]
