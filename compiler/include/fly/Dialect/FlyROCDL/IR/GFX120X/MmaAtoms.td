//===- GFX120X/MmaAtoms.td - RDNA4 WMMA --------------------*- tablegen -*-===//
//
// Types of FlyROCDLDialect.td's FlyROCDL_CopyOp / FlyROCDL_MmaOp classes;
// implemented in lib/Dialect/FlyROCDL/IR/GFX120X/.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLYROCDL_IR_GFX120X_MMAATOMS_TD
#define FLY_DIALECT_FLYROCDL_IR_GFX120X_MMAATOMS_TD

include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.td"

#endif // FLY_DIALECT_FLYROCDL_IR_GFX120X_MMAATOMS_TD
