//===- GFX11/MmaAtoms.td - RDNA3 WMMA ----------------------*- tablegen -*-===//
//
// Types of FlyROCDLDialect.td's FlyROCDL_CopyOp / FlyROCDL_MmaOp classes;
// implemented in lib/Dialect/FlyROCDL/IR/GFX11/.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLYROCDL_IR_GFX11_MMAATOMS_TD
#define FLY_DIALECT_FLYROCDL_IR_GFX11_MMAATOMS_TD

include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.td"

#endif // FLY_DIALECT_FLYROCDL_IR_GFX11_MMAATOMS_TD
