// Stages B (binary_prep) and C (binary) on a module that is already in
// ROCDL form, as stage A leaves it: llvm.func kernels in a gpu.module.

// B alone, with every option: the target attribute carries the chip, the O
// level and the math flags (no_wave64 on wave32 chips); kernels without
// their own values get the occupancy target and the VGPR budget, halved on
// CDNA where LLVM counts VGPRs and AGPRs together; other functions nothing.
// RUN: fly-compile %s --chip=gfx942 --stage=binary_prep -O3 --fast --daz --waves-per-eu=2 --maxnreg=64 | FileCheck %s --check-prefixes=PREP,PREP942
// RUN: fly-compile %s --chip=gfx1201 --stage=binary_prep --finite-only --unsafe-math --waves-per-eu=2 --maxnreg=64 | FileCheck %s --check-prefixes=PREP,PREP1201
// PREP942:  gpu.module @kernels [#rocdl.target<O = 3, chip = "gfx942", flags = {daz, fast}>]
// PREP1201: gpu.module @kernels [#rocdl.target<chip = "gfx1201", flags = {finite_only, no_wave64, unsafe_math}>]
// PREP942:  llvm.func @scale({{.*}}passthrough = {{\[\["amdgpu-num-vgpr", "32"\]\]}}{{.*}}rocdl.waves_per_eu = 2 : i32
// PREP1201: llvm.func @scale({{.*}}passthrough = {{\[\["amdgpu-num-vgpr", "64"\]\]}}{{.*}}rocdl.waves_per_eu = 2 : i32
// PREP:     llvm.func @tuned({{.*}}passthrough = {{\[\["amdgpu-num-vgpr", "24"\]\]}}{{.*}}rocdl.waves_per_eu = 4 : i32
// PREP:     llvm.func @helper()
// PREP-NOT: amdgpu-num-vgpr
// PREP-NOT: waves_per_eu

// Without the options nothing is added.
// RUN: fly-compile %s --chip=gfx942 --stage=binary_prep | FileCheck %s --check-prefix=PLAIN
// PLAIN: gpu.module @kernels [#rocdl.target<chip = "gfx942">]
// PLAIN: llvm.func @scale(
// PLAIN-NOT: amdgpu-num-vgpr
// PLAIN-SAME: rocdl.kernel

// B then C as separate runs, and both at once, give the same kernels.
// RUN: fly-compile %s --chip=gfx942 --stage=binary_prep -o %t.prep.mlir
// RUN: fly-compile %t.prep.mlir --chip=gfx942 --stage=binary --print-resources | FileCheck %s --check-prefix=RES
// RUN: fly-compile %s --chip=gfx942 --from=binary_prep --print-resources | FileCheck %s --check-prefix=RES
// RES:      // gpu.module @kernels: gfx942
// RES-NEXT: kernel
// RES-NEXT: scale 64
// RES-NEXT: tuned 64
// RES-NOT:  helper

module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.func @scale(%p: !llvm.ptr<1>, %s: f32)
        attributes {rocdl.kernel, rocdl.flat_work_group_size = "64,64"} {
      %tid = rocdl.workitem.id.x : i32
      %q = llvm.getelementptr inbounds %p[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      %v = llvm.load %q : !llvm.ptr<1> -> f32
      %r = llvm.fmul %v, %s : f32
      llvm.store %r, %q : f32, !llvm.ptr<1>
      llvm.call @helper() : () -> ()
      llvm.return
    }
    llvm.func @tuned(%p: !llvm.ptr<1>)
        attributes {rocdl.kernel, rocdl.waves_per_eu = 4 : i32,
                    passthrough = [["amdgpu-num-vgpr", "24"]]} {
      llvm.return
    }
    llvm.func @helper() {
      llvm.return
    }
  }
}
