// --maxnreg bounds the vector registers of a lane on every chip: 8 makes
// the LDS transpose kernel (22-23 registers unbounded) spill to scratch;
// on CDNA the budget covers VGPRs and AGPRs together. The spill and scratch
// figures come from the code object's metadata.

// RUN: fly-opt %S/lds-transpose.mlir --pass-pipeline="builtin.module(gpu.module(convert-scf-to-cf,cse,convert-gpu-to-rocdl{chipset=gfx942 index-bitwidth=0 runtime=HIP use-bare-ptr-memref-call-conv=true}))" -o %t.gfx942.mlir
// RUN: fly-compile %t.gfx942.mlir --chip=gfx942 --from=binary_prep --print-resources | FileCheck %s --check-prefix=FREE64
// RUN: fly-compile %t.gfx942.mlir --chip=gfx942 --from=binary_prep --print-resources --maxnreg=8 | FileCheck %s --check-prefix=BOUND64
// RUN: fly-opt %S/lds-transpose.mlir --pass-pipeline="builtin.module(gpu.module(convert-scf-to-cf,cse,convert-gpu-to-rocdl{chipset=gfx1100 index-bitwidth=0 runtime=HIP use-bare-ptr-memref-call-conv=true}))" -o %t.gfx1100.mlir
// RUN: fly-compile %t.gfx1100.mlir --chip=gfx1100 --from=binary_prep --print-resources | FileCheck %s --check-prefix=FREE32
// RUN: fly-compile %t.gfx1100.mlir --chip=gfx1100 --from=binary_prep --print-resources --maxnreg=8 | FileCheck %s --check-prefix=BOUND32

// Columns: wave vgpr agpr sgpr vgpr-spill sgpr-spill lds scratch max-wg.
// FREE64:  transpose_tile 64 {{(1[6-9]|[2-9][0-9])}} 0 {{[0-9]+}} 0 0 4224 0 256
// BOUND64: transpose_tile 64 {{[1-8]}} 0 {{[0-9]+}} {{[1-9][0-9]*}} 0 4224 {{[1-9][0-9]*}} 256
// FREE32:  transpose_tile 32 {{(1[6-9]|[2-9][0-9])}} 0 {{[0-9]+}} 0 0 4224 0 256
// BOUND32: transpose_tile 32 {{[1-8]}} 0 {{[0-9]+}} {{[1-9][0-9]*}} 0 4224 {{[1-9][0-9]*}} 256
