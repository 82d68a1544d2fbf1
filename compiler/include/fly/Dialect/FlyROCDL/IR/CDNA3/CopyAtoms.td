//===- CDNA3/CopyAtoms.td - buffer copies, atomics, LDS loads ---*- tablegen -*-===//
//
// Types of FlyROCDLDialect.td's FlyROCDL_CopyOp / FlyROCDL_MmaOp classes;
// implemented in lib/Dialect/FlyROCDL/IR/CDNA3/.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLYROCDL_IR_CDNA3_COPYATOMS_TD
#define FLY_DIALECT_FLYROCDL_IR_CDNA3_COPYATOMS_TD

include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.td"

#endif // FLY_DIALECT_FLYROCDL_IR_CDNA3_COPYATOMS_TD
