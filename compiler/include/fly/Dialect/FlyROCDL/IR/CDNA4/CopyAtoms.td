//===- CDNA4/CopyAtoms.td - gfx950 LDS loads and transpose reads ---*- tablegen -*-===//
//
// The copy operations CDNA4 (gfx950) brought: the asynchronous loads to LDS
// (from a buffer or a global pointer, 32, 96 or 128 bits per lane) and the
// LDS reads that transpose across the 16 lanes of a row (ds_read_b64_tr_b*,
// ds_read_b96_tr_b6). Implemented in lib/Dialect/FlyROCDL/IR/CDNA4/.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLYROCDL_IR_CDNA4_COPYATOMS_TD
#define FLY_DIALECT_FLYROCDL_IR_CDNA4_COPYATOMS_TD

include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.td"

def FlyROCDL_BufferLoadAsyncLDSCDNA4
    : FlyROCDL_CopyOp<"BufferLoadAsyncLDSCDNA4", "cdna4.buffer_load_async_lds",
                      ["getFields", "checkSource", "checkDestination",
                       "emitCopy", "isUntyped"]> {
  let summary = "an asynchronous buffer load of 32, 96 or 128 bits per lane "
                "into LDS";
  let description = [{
    `!fly_rocdl.cdna4.buffer_load_async_lds<128>`: the LDS DMA of
    cdna3.buffer_copy_lds (same addressing: LDS at M0 + imm_offset +
    lane * width, M0 from the wave's first active lane; same fields
    `soffset` and `imm_offset`), in the widths gfx950 has, for kernels
    that track completion with fx.rocdl.asyncmark / wait_asyncmark. LLVM 22
    has no separate asynchronous intrinsic: it lowers to
    rocdl.raw.ptr.buffer.load.lds, whose completion the backend waits for
    before LDS is read, which satisfies every such wait.
  }];
  let parameters = (ins "int32_t":$bits);
  let assemblyFormat = "`<` $bits `>`";
}

def FlyROCDL_GlobalLoadAsyncLDSCDNA4
    : FlyROCDL_CopyOp<"GlobalLoadAsyncLDSCDNA4", "cdna4.global_load_async_lds",
                      ["checkSource", "checkDestination", "emitCopy",
                       "isUntyped"]> {
  let summary = "an asynchronous global load of 32, 96 or 128 bits per lane "
                "into LDS";
  let description = [{
    `!fly_rocdl.cdna4.global_load_async_lds<128>`: `global_load_lds_dword*`
    (rocdl.global.load.lds) from a global pointer, the source's, to LDS at
    M0 + lane * width, M0 the destination pointer of the wave's first active
    lane. No range check (global memory) and no run-time fields.
  }];
  let parameters = (ins "int32_t":$bits);
  let assemblyFormat = "`<` $bits `>`";
}

def FlyROCDL_LdsReadTransCDNA4
    : FlyROCDL_CopyOp<"LdsReadTransCDNA4", "cdna4.lds_read_trans",
                      ["checkSource", "checkDestination"]> {
  let summary = "an LDS read transposing elements across 16 lanes";
  let description = [{
    `!fly_rocdl.cdna4.lds_read_trans<16, 64>` (element bits, bits per lane:
    16/64, 8/64, 4/64 or 6/96): rocdl.ds.read.tr16.b64 (tr8.b64, tr4.b64,
    tr6.b96). Each lane of a row of 16 reads its `bits` contiguous bits of
    LDS; lane t receives element t + 16 j (j = 0 .. bits / width - 1) of
    the row's elements taken lane after lane (lane 0's first). The source
    is LDS, the destination registers.
  }];
  let parameters = (ins "int32_t":$granularity, "int32_t":$bits);
  let assemblyFormat = "`<` $granularity `,` $bits `>`";
}

#endif // FLY_DIALECT_FLYROCDL_IR_CDNA4_COPYATOMS_TD
