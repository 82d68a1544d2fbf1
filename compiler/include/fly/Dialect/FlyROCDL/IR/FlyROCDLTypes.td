//===- FlyROCDLTypes.td - The operations of every family --*- tablegen -*-===//
//
// One file per family and kind, so that each family's operations live
// together (and are implemented in lib/Dialect/FlyROCDL/IR/<family>/).
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLYROCDL_IR_FLYROCDLTYPES_TD
#define FLY_DIALECT_FLYROCDL_IR_FLYROCDLTYPES_TD

include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.td"

include "fly/Dialect/FlyROCDL/IR/CDNA3/CopyAtoms.td"
include "fly/Dialect/FlyROCDL/IR/CDNA3/MmaAtoms.td"
include "fly/Dialect/FlyROCDL/IR/CDNA4/CopyAtoms.td"
include "fly/Dialect/FlyROCDL/IR/CDNA4/MmaAtoms.td"
include "fly/Dialect/FlyROCDL/IR/GFX11/MmaAtoms.td"
include "fly/Dialect/FlyROCDL/IR/GFX120X/MmaAtoms.td"
include "fly/Dialect/FlyROCDL/IR/GFX1250/CopyAtoms.td"
include "fly/Dialect/FlyROCDL/IR/GFX1250/MmaAtoms.td"

#endif // FLY_DIALECT_FLYROCDL_IR_FLYROCDLTYPES_TD
