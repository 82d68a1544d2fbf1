// Errors of fly-compile are diagnostics with a location (or, for the
// command line, "fly-compile: error:"), a non-zero exit and no output file.

// RUN: not fly-compile %s --chip=gfx999 --from=binary_prep 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: fly-compile: error: pipeline stage binary_prep: unknown chip 'gfx999'; supported chips: gfx942, gfx950, gfx1100, gfx1101, gfx1102, gfx1200, gfx1201, gfx1250

// RUN: not fly-compile %s --from=binary_prep 2>&1 | FileCheck %s --check-prefix=NOCHIP
// NOCHIP: fly-compile: error: --chip is required; supported chips: gfx942, gfx950, gfx1100, gfx1101, gfx1102, gfx1200, gfx1201, gfx1250

// A call to a function that is declared but defined nowhere: the in-process
// link (--no-undefined) rejects it, at the gpu.module, and nothing is
// written.
// RUN: rm -f %t.hsaco
// RUN: not fly-compile %s --chip=gfx942 --from=binary_prep -o %t.hsaco 2>&1 | FileCheck %s --check-prefix=LINK
// RUN: not cat %t.hsaco
// LINK: errors.mlir:[[@LINE+4]]:3: error: linking the code object: ld.lld: error: undefined symbol: helper_not_defined
// LINK: errors.mlir:[[@LINE+3]]:3: error: An error happened while serializing the module.
// LINK-NOT: error:
module attributes {gpu.container_module} {
  gpu.module @calls_missing {
    llvm.func @helper_not_defined(f32) -> f32
    llvm.func @k(%p: !llvm.ptr<1>) attributes {rocdl.kernel} {
      %v = llvm.load %p : !llvm.ptr<1> -> f32
      %r = llvm.call @helper_not_defined(%v) : (f32) -> f32
      llvm.store %r, %p : f32, !llvm.ptr<1>
      llvm.return
    }
  }
}
