// The emulator's stage of the pipeline (SPEC §9): in place of binary_prep
// and binary, each gpu.module after stage A becomes host code calling the
// emulator's runtime (convert-rocdl-to-emu), with the vector and arith ops
// converted to the llvm dialect in the gpu.module.

// Its pass list, nested in the gpu.modules, the chip given to the pass.
// RUN: fly-compile --chip=gfx950 --stage=emulator --print-pipeline | FileCheck %s --check-prefix=PIPE
// PIPE:      builtin.module(
// PIPE-NEXT:   gpu.module(
// PIPE-NEXT:     convert-rocdl-to-emu{check= check-alignment=true chip=gfx950},
// PIPE-NEXT:     convert-vector-to-llvm{{[{].*[}]}},
// PIPE-NEXT:     convert-arith-to-llvm{{[{].*[}]}},
// PIPE-NEXT:     reconcile-unrealized-casts
// PIPE-NEXT:   )
// PIPE-NEXT: )

// Stage A then the emulator's: the range pre_binary..emulator of fly-opt
// and of fly-compile, and the two stages run one after the other, give the
// same module (the source locations kept between the steps, as they name
// the accesses that the alignment checks report): vector_add's kernel as an
// emulator entry, no ROCDL left.
// RUN: fly-opt %S/../../../examples/vector_add.mlir --fly-pipeline="stage=pre_binary..emulator chip=gfx942" > %t.range.mlir
// RUN: fly-compile %S/../../../examples/vector_add.mlir --chip=gfx942 --to=emulator > %t.compile.mlir
// RUN: fly-opt %S/../../../examples/vector_add.mlir --fly-pipeline="stage=pre_binary chip=gfx942" \
// RUN:   --mlir-print-debuginfo -o %t.a.mlir
// RUN: fly-opt %t.a.mlir --fly-pipeline="stage=emulator chip=gfx942" > %t.steps.mlir
// RUN: diff %t.range.mlir %t.steps.mlir
// RUN: diff %t.range.mlir %t.compile.mlir
// RUN: FileCheck %s --input-file=%t.range.mlir --check-prefix=VADD --implicit-check-not=rocdl.
// VADD: gpu.module @vector_add_module attributes {fly.emu.static_lds_bytes = 0 : i32}
// VADD: llvm.func internal @vector_add_body(
// VADD: llvm.func @vector_add(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) attributes {{{.*}}fly.emu.kernel

// A small gpu.module as stage A leaves it, on gfx942: the thread id is a
// load at offset 0 of the context, the barrier and the two MFMAs calls into
// the runtime (FlyEmuMatrixOp 10 = v_mfma_f32_16x16x16_f16 and 25 =
// v_mfma_f32_16x16x32_fp8_fp8, controls 0: FNUZ fp8 on gfx942), and the
// arith and vector ops are llvm ops.
// RUN: fly-opt %s --fly-pipeline="stage=emulator chip=gfx942" \
// RUN:   | FileCheck %s --check-prefixes=EMU,EMU942 --implicit-check-not=rocdl. \
// RUN:     --implicit-check-not=arith. --implicit-check-not=vector.
// On gfx950 the fp8 MFMA's formats are OCP (control FLY_EMU_MATRIX_OCP_FP8,
// 0x100000 = 1048576); the f16 MFMA's control stays 0.
// RUN: fly-opt %s --fly-pipeline="stage=emulator chip=gfx950" \
// RUN:   | FileCheck %s --check-prefixes=EMU,EMU950 --implicit-check-not=rocdl. \
// RUN:     --implicit-check-not=arith. --implicit-check-not=vector.
// EMU-DAG:    llvm.func @fly_emu_matrix(!llvm.ptr, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr)
// EMU-DAG:    llvm.func @fly_emu_barrier(!llvm.ptr)
// EMU:        llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64)
// EMU-DAG:    %[[FP8:.*]] = llvm.mlir.constant(25 : i32) : i32
// EMU-DAG:    %[[F16:.*]] = llvm.mlir.constant(10 : i32) : i32
// EMU-DAG:    %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// EMU-DAG:    %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// EMU950-DAG: %[[OCP:.*]] = llvm.mlir.constant(1048576 : i32) : i32
// EMU:        %[[TID:.*]] = llvm.load %[[CTX]] {alignment = 4 : i64} : !llvm.ptr -> i32
// EMU-NEXT:   %[[I:.*]] = llvm.add %[[TID]], %[[ONE]] : i32
// EMU-NEXT:   llvm.call @fly_emu_barrier(%[[CTX]])
// EMU:        llvm.call @fly_emu_matrix(%[[CTX]], %[[F16]], %[[ZERO]],
// EMU942:     llvm.call @fly_emu_matrix(%[[CTX]], %[[FP8]], %[[ZERO]],
// EMU950:     llvm.call @fly_emu_matrix(%[[CTX]], %[[FP8]], %[[OCP]],
// EMU:        llvm.extractelement
// EMU:        llvm.getelementptr %{{.*}}[%[[I]]]
// EMU:        llvm.func @k(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) attributes {fly.emu.kernel, gpu.kernel}

// Stage ranges lie on one path: pre_binary, binary_prep, binary for a chip,
// pre_binary, emulator for the emulator. Mixing the two, a range backwards
// and an unknown name are errors of the pipeline parser.
// RUN: not fly-opt %s --fly-pipeline="stage=emulator..binary chip=gfx942" 2>&1 | FileCheck %s --check-prefix=MIX
// RUN: not fly-opt %s --fly-pipeline="stage=binary_prep..emulator chip=gfx942" 2>&1 | FileCheck %s --check-prefix=MIX-PREP
// RUN: not fly-compile %s --chip=gfx942 --from=emulator --to=binary_prep 2>&1 | FileCheck %s --check-prefix=MIX-TOOL
// RUN: not fly-compile %s --chip=gfx942 --from=binary_prep --to=emulator 2>&1 | FileCheck %s --check-prefix=MIX-TOOL2
// RUN: not fly-compile %s --chip=gfx942 --from=binary --to=binary_prep 2>&1 | FileCheck %s --check-prefix=BACK-TOOL
// MIX:      error: fly-pipeline: pipeline: stages emulator and binary do not run together: emulator takes the place of binary_prep and binary (a chip's stages are pre_binary, binary_prep, binary; the emulator's pre_binary, emulator)
// MIX-PREP: error: fly-pipeline: pipeline: stages binary_prep and emulator do not run together: emulator takes the place of binary_prep and binary (a chip's stages are pre_binary, binary_prep, binary; the emulator's pre_binary, emulator)
// MIX-TOOL: fly-compile: error: pipeline: stages emulator and binary_prep do not run together: emulator takes the place of binary_prep and binary (a chip's stages are pre_binary, binary_prep, binary; the emulator's pre_binary, emulator)
// MIX-TOOL2: fly-compile: error: pipeline: stages binary_prep and emulator do not run together
// BACK-TOOL: fly-compile: error: pipeline: stage binary comes after binary_prep
// RUN: not fly-opt %s --fly-pipeline="stage=emulator..pre_binary chip=gfx942" 2>&1 | FileCheck %s --check-prefix=BACK
// BACK: error: fly-pipeline: pipeline: stage emulator comes after pre_binary
// RUN: not fly-opt %s --fly-pipeline="stage=emulater chip=gfx942" 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: not fly-opt %s --fly-pipeline="stage=pre_binary.. chip=gfx942" 2>&1 | FileCheck %s --check-prefix=EMPTY
// NAME:  error: fly-pipeline: unknown stage 'emulater' in stage=emulater; stages: pre_binary, emulator, binary_prep, binary, a range first..last, or all
// EMPTY: error: fly-pipeline: unknown stage '' in stage=pre_binary..; stages: pre_binary, emulator, binary_prep, binary, a range first..last, or all

module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.func @k(%p: !llvm.ptr<1>, %q: i64) attributes {rocdl.kernel} {
      %tid = rocdl.workitem.id.x : i32
      %one = arith.constant 1 : i32
      %i = arith.addi %tid, %one : i32
      rocdl.s.barrier
      %a = llvm.mlir.constant(dense<1.0> : vector<4xf16>) : vector<4xf16>
      %c = llvm.mlir.constant(dense<0.0> : vector<4xf32>) : vector<4xf32>
      %z = llvm.mlir.constant(0 : i32) : i32
      %d = rocdl.mfma.f32.16x16x16f16 %a, %a, %c, %z, %z, %z : (vector<4xf16>, vector<4xf16>, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
      %g = rocdl.mfma.f32.16x16x32.fp8.fp8 %q, %q, %d, %z, %z, %z : (i64, i64, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
      %e = vector.extract %g[0] : f32 from vector<4xf32>
      %at = llvm.getelementptr %p[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %e, %at : f32, !llvm.ptr<1>
      llvm.return
    }
  }
}
