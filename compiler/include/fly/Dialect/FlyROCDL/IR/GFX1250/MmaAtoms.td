//===- GFX1250/MmaAtoms.td - gfx1250 WMMA and scaled WMMA ---*- tablegen -*-===//
//
// Types of FlyROCDLDialect.td's FlyROCDL_CopyOp / FlyROCDL_MmaOp classes;
// implemented in lib/Dialect/FlyROCDL/IR/GFX1250/.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLYROCDL_IR_GFX1250_MMAATOMS_TD
#define FLY_DIALECT_FLYROCDL_IR_GFX1250_MMAATOMS_TD

include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.td"

#endif // FLY_DIALECT_FLYROCDL_IR_GFX1250_MMAATOMS_TD
