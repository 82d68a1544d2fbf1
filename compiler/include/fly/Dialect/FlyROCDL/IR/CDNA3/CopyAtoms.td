//===- CDNA3/CopyAtoms.td - buffer copies, atomics, LDS loads ---*- tablegen -*-===//
//
// Buffer memory and the copy operations on it. A pointer in buffer memory
// (`!fly.ptr<f32, #fly_rocdl.buffer_desc>`) is an AMD buffer resource (the
// 128-bit V#: base, stride, num_records, flags) and an element offset into
// it; convert-fly-to-rocdl lowers it to `!llvm.struct<(ptr<8>, i32)>`.
// Raw buffer instructions check each access against num_records: a load
// past it reads 0, a store past it is dropped. Every chip has them (CDNA3
// is where this dialect keeps them); implemented in
// lib/Dialect/FlyROCDL/IR/CDNA3/CopyAtoms.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLYROCDL_IR_CDNA3_COPYATOMS_TD
#define FLY_DIALECT_FLYROCDL_IR_CDNA3_COPYATOMS_TD

include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.td"
include "mlir/Dialect/LLVMIR/LLVMOpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Buffer memory
//===----------------------------------------------------------------------===//

def FlyROCDL_BufferDescAttr : AttrDef<FlyROCDL_Dialect, "BufferDesc"> {
  let mnemonic = "buffer_desc";
  let summary = "the address space of buffer-resource memory";
  let description = [{
    `!fly.ptr<f32, #fly_rocdl.buffer_desc>`: a pointer into the memory a
    buffer resource describes. It is not an LLVM pointer: it is the
    resource (`!llvm.ptr<8>`) and a 32-bit offset in elements, which
    `fly.add_offset` moves and a swizzle permutes (as a byte offset).
    Buffer copy atoms read and write through it.
  }];
}

def FlyROCDL_FlyPointer
    : Type<CPred<"::llvm::isa<::mlir::fly::PointerType>($_self)">, "fly ptr",
           "::mlir::fly::PointerType">;
def FlyROCDL_BufferPointer
    : Type<CPred<"::mlir::fly_rocdl::isBufferPointer($_self)">,
           "fly ptr in buffer memory", "::mlir::fly::PointerType">;

class FlyROCDL_Op<string mnemonic, list<Trait> traits = []>
    : Op<FlyROCDL_Dialect, mnemonic, traits>;

def FlyROCDL_MakeBufferPtrOp : FlyROCDL_Op<"make_buffer_ptr", [Pure]> {
  let summary = "a buffer pointer over global memory";
  let description = [{
    `%b = fly_rocdl.make_buffer_ptr %p, %num_records : !fly.ptr<f32, global>
    -> !fly.ptr<f32, #fly_rocdl.buffer_desc>`: a raw buffer resource with
    base `%p`, `num_records` bytes (i64; the hardware keeps 32 bits),
    stride 0 and the 4th word the chip's raw buffers take (the chip
    table's bufferResourceWord3, chosen by convert-fly-to-rocdl's chip=),
    at element offset 0. The element type and alignment stay those of
    `%p`.
  }];
  let arguments = (ins FlyROCDL_FlyPointer:$ptr, I64:$numRecords);
  let results = (outs FlyROCDL_BufferPointer:$result);
  let assemblyFormat = [{
    $ptr `,` $numRecords attr-dict `:` qualified(type($ptr)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def FlyROCDL_GetBufferRsrcOp : FlyROCDL_Op<"get_buffer_rsrc", [Pure]> {
  let summary = "the buffer resource of a buffer pointer";
  let description = [{
    `%r = fly_rocdl.get_buffer_rsrc %b : !fly.ptr<f32, #fly_rocdl.buffer_desc>
    -> !llvm.ptr<8>`:
    the `!llvm.ptr<8>` resource (without the pointer's offset), for ROCDL
    buffer intrinsics called directly.
  }];
  let arguments = (ins FlyROCDL_BufferPointer:$ptr);
  let results = (outs LLVM_AnyPointer:$result);
  let assemblyFormat = [{
    $ptr attr-dict `:` qualified(type($ptr)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Copy operations
//===----------------------------------------------------------------------===//

def FlyROCDL_BufferCopyCDNA3
    : FlyROCDL_CopyOp<"BufferCopyCDNA3", "cdna3.buffer_copy",
                      ["getFields", "checkSource", "checkDestination",
                       "emitCopy"]> {
  let summary = "a raw buffer load or store of 8 to 128 bits by one thread";
  let description = [{
    `!fly_rocdl.cdna3.buffer_copy<128>` (`, cache = 2` for a nontemporal
    access: the instruction's cache-policy bits): a buffer load when the
    source is in buffer memory, a buffer store when the destination is;
    the other side is in registers. Run-time fields: `soffset` (i32, elements,
    the instruction's scalar offset) and `imm_offset` (i32, bytes, added
    to the vector offset), both 0 by default.
  }];
  let parameters = (ins "int32_t":$bits,
                        DefaultValuedParameter<"int32_t", "0">:$cacheModifier);
  let assemblyFormat = "`<` $bits (`,` `cache` `=` $cacheModifier^)? `>`";
}

def FlyROCDL_BufferAtomicCDNA3
    : FlyROCDL_CopyOp<"BufferAtomicCDNA3", "cdna3.buffer_atomic",
                      ["getFields", "isAtomic", "checkSource",
                       "checkDestination"]> {
  let summary = "a raw buffer atomic of one element by one thread";
  let description = [{
    `!fly_rocdl.cdna3.buffer_atomic<add, f32>`: the destination (in buffer
    memory) combined with the source. `add` is a float add (f32, f64, or
    a packed `vector<2xf16>` / `vector<2xbf16>`), `max` a float max or a
    signed integer max, `min` an unsigned integer min: the buffer atomics
    the ROCDL dialect has. Out-of-range atomics are dropped. Run-time
    field: `soffset` (i32, elements).
  }];
  let parameters = (ins StringRefParameter<"the operation">:$op,
                        "::mlir::Type":$valueType);
  let hasCustomAssemblyFormat = 1;
}

def FlyROCDL_BufferCopyLDSCDNA3
    : FlyROCDL_CopyOp<"BufferCopyLDSCDNA3", "cdna3.buffer_copy_lds",
                      ["getFields", "checkSource", "checkDestination",
                       "emitCopy", "isUntyped"]> {
  let summary = "a buffer load of 32 or 128 bits per lane straight into LDS";
  let description = [{
    `!fly_rocdl.cdna3.buffer_copy_lds<32>`: `buffer_load_dword ... lds`
    (rocdl.raw.ptr.buffer.load.lds), 128 bits (`_dwordx4`) on the chips
    whose table has that width (gfx950). The source is in buffer memory
    (range-checked: a dword past num_records writes 0), the destination in
    LDS. The instruction writes LDS at M0 + imm_offset + lane * width,
    where M0 is the destination pointer of the wave's first active lane
    (LLVM reads it with readfirstlane): a wave's calls fill one contiguous
    run of LDS, lane by lane, whatever the other lanes' destinations.
    The operands are used for their addresses only, so their elements need
    not have the atom's value width. Run-time fields: `soffset` (i32,
    elements of the source) and `imm_offset` (i32, bytes, a constant: the
    instruction's offset field, added to both addresses), 0 by default.
  }];
  let parameters = (ins "int32_t":$bits);
  let assemblyFormat = "`<` $bits `>`";
}

#endif // FLY_DIALECT_FLYROCDL_IR_CDNA3_COPYATOMS_TD
