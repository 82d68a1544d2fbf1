//===- CDNA4/CopyAtoms.td - gfx950 LDS loads and transpose reads ---*- tablegen -*-===//
//
// Types of FlyROCDLDialect.td's FlyROCDL_CopyOp / FlyROCDL_MmaOp classes;
// implemented in lib/Dialect/FlyROCDL/IR/CDNA4/.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLYROCDL_IR_CDNA4_COPYATOMS_TD
#define FLY_DIALECT_FLYROCDL_IR_CDNA4_COPYATOMS_TD

include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.td"

#endif // FLY_DIALECT_FLYROCDL_IR_CDNA4_COPYATOMS_TD
