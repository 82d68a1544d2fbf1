//===- GFX1250/CopyAtoms.td - gfx1250 tensor data mover ----*- tablegen -*-===//
//
// Types of FlyROCDLDialect.td's FlyROCDL_CopyOp / FlyROCDL_MmaOp classes;
// implemented in lib/Dialect/FlyROCDL/IR/GFX1250/.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLYROCDL_IR_GFX1250_COPYATOMS_TD
#define FLY_DIALECT_FLYROCDL_IR_GFX1250_COPYATOMS_TD

include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.td"

def FlyROCDL_TensorDataMoverGFX1250
    : FlyROCDL_CopyOp<"TensorDataMoverGFX1250", "gfx1250.tdm",
                      ["getFields", "checkSource", "checkDestination",
                       "emitCopy", "isWholeTile", "checkTile"]> {
  let summary = "a whole-tile copy between global memory and LDS (TDM)";
  let description = [{
    `!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 0, 0, cache = 0,
    barrier = false, timeout = false>`: gfx1250's tensor data mover. One
    call copies a tile of `rank` (1 to 5) modes between global memory and
    LDS with `tensor_load_to_lds` (global source) or `tensor_store_from_lds`
    (global destination), from a descriptor (D#) the lowering builds: the
    tile's shape is the global operand's static shape, the global base its
    pointer (plus `imm_offset`), the tensor's strides those of its layout
    (or the `stride_i` fields), and the elements at or past `extent_i`
    (counted from the tile's origin) are out of range: a load writes zeros
    to LDS for them, a store skips them. In LDS the tile is packed,
    innermost mode first, with `pad` (interval, amount: elements) leaving
    `amount` elements free after every `interval` elements. `warps` waves
    share the tile, split by wave id along its outer modes; every wave
    that runs the call copies its part (with `warps = 1`, the whole tile).
    `cache` is the instruction's cache-policy bits, `barrier` and `timeout`
    its D# atomic-barrier and early-timeout bits. Run-time fields:
    `extent_i` (i32, default no limit), `stride_i` (i64 elements, modes
    0 .. rank-2; the innermost stride is 1), `imm_offset` (i64 bytes) and
    `workgroup_mask` (i32, the cluster multicast mask).
  }];
  let parameters = (ins "int32_t":$rank, "int32_t":$numWarps,
                        "int32_t":$padInterval, "int32_t":$padAmount,
                        "int32_t":$cacheModifier, "bool":$atomicBarrier,
                        "bool":$earlyTimeout);
  let assemblyFormat = [{
    `<` `rank` `=` $rank `,` `warps` `=` $numWarps `,` `pad` `=` $padInterval
    `,` $padAmount `,` `cache` `=` $cacheModifier `,` `barrier` `=`
    $atomicBarrier `,` `timeout` `=` $earlyTimeout `>`
  }];
}

#endif // FLY_DIALECT_FLYROCDL_IR_GFX1250_COPYATOMS_TD
