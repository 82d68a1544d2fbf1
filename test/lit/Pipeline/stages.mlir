// The pass lists of the stages (SPEC §3), as fly-compile --print-pipeline
// shows them, and the selection of stages on the command line.

// B and C with the default options: rocdl-attach-target with the chip's
// wave size (wave64 on CDNA, wave32 from gfx11 on), the conversions to the
// llvm dialect with bare pointers, then gpu-module-to-binary to code objects.
// RUN: fly-compile --chip=gfx942 --from=binary_prep --print-pipeline | FileCheck %s --check-prefixes=BC,BC942
// RUN: fly-compile --chip=gfx1100 --from=binary_prep --print-pipeline | FileCheck %s --check-prefixes=BC,BC1100
// BC:          builtin.module(
// BC942-NEXT:    rocdl-attach-target{O=2 {{.*}}chip=gfx942 {{.*}}daz=false fast=false features= finite-only=false {{.*}}unsafe-math=false wave64=true},
// BC1100-NEXT:   rocdl-attach-target{O=2 {{.*}}chip=gfx1100 {{.*}}daz=false fast=false features= finite-only=false {{.*}}unsafe-math=false wave64=false},
// BC-NEXT:       convert-scf-to-cf{{[{].*[}]}},
// BC-NEXT:       convert-cf-to-llvm{{[{].*[}]}},
// BC-NEXT:       gpu-to-llvm{{[{].*}}use-bare-pointers-for-host=true use-bare-pointers-for-kernels=true},
// BC-NEXT:       convert-vector-to-llvm{{[{].*[}]}},
// BC-NEXT:       convert-arith-to-llvm{{[{].*[}]}},
// BC-NEXT:       convert-func-to-llvm{{[{].*[}]}},
// BC-NEXT:       reconcile-unrealized-casts,
// BC-NEXT:       gpu-module-to-binary{format=fatbin {{.*}}}
// BC-NEXT:     )

// The options: the kernel attributes come first (only when asked for; the
// VGPR budget halved on CDNA), O level and math flags go to the target,
// debug info adds ensure-debug-info-scope-on-llvm-func at the end of B.
// RUN: fly-compile --chip=gfx950 --stage=binary_prep --print-pipeline -O3 --waves-per-eu=3 --maxnreg=40 --fast --daz --finite-only --unsafe-math --debug-info | FileCheck %s --check-prefix=OPTS950
// RUN: fly-compile --chip=gfx1250 --stage=binary_prep --print-pipeline -O0 --maxnreg=40 | FileCheck %s --check-prefix=OPTS1250
// OPTS950:      builtin.module(
// OPTS950-NEXT:   gpu.module(
// OPTS950-NEXT:     fly-rocdl-kernel-attrs{num-vgpr=20 waves-per-eu=3}
// OPTS950-NEXT:   ),
// OPTS950-NEXT:   rocdl-attach-target{O=3 {{.*}}chip=gfx950 {{.*}}daz=true fast=true features= finite-only=true {{.*}}unsafe-math=true wave64=true},
// OPTS950:        reconcile-unrealized-casts,
// OPTS950-NEXT:   ensure-debug-info-scope-on-llvm-func{{[{].*[}]}}
// OPTS950-NEXT: )
// OPTS1250:      fly-rocdl-kernel-attrs{num-vgpr=40 waves-per-eu=0}
// OPTS1250:      rocdl-attach-target{O=0 {{.*}}chip=gfx1250 {{.*}}wave64=false},
// OPTS1250-NOT:  ensure-debug-info-scope-on-llvm-func

// C alone.
// RUN: fly-compile --chip=gfx1201 --stage=binary --print-pipeline | FileCheck %s --check-prefix=C
// C:      builtin.module(
// C-NEXT:   gpu-module-to-binary{format=fatbin {{.*}}}
// C-NEXT: )

// Stage A, pass for pass as SPEC §3 names it, with the chip in
// convert-gpu-to-rocdl and fly-rocdl-cluster-attr, and fly-lower-math
// first in the gpu.modules (the math ops become LLVM intrinsics before
// convert-gpu-to-rocdl would make device-library calls of them).
// RUN: fly-compile --chip=gfx942 --stage=pre_binary --print-pipeline | FileCheck %s --check-prefix=A
// A:      builtin.module(
// A-NEXT:   fly-check-launches{chip=gfx942},
// A-NEXT:   fly-rewrite-func-signature,
// A-NEXT:   fly-canonicalize,
// A-NEXT:   fly-layout-lowering,
// A-NEXT:   fly-int-swizzle-simplify,
// A-NEXT:   canonicalize{{[{].*[}]}},
// A-NEXT:   fly-convert-atom-call-to-ssa-form,
// A-NEXT:   fly-promote-regmem-to-vectorssa,
// A-NEXT:   convert-fly-to-rocdl{chip=gfx942},
// A-NEXT:   canonicalize{{[{].*[}]}},
// A-NEXT:   gpu.module(
// A-NEXT:     fly-lower-math{chip=gfx942},
// A-NEXT:     convert-scf-to-cf{{[{].*[}]}},
// A-NEXT:     cse,
// A-NEXT:     convert-gpu-to-rocdl{ chipset=gfx942 index-bitwidth=0 runtime=HIP use-bare-ptr-memref-call-conv=true},
// A-NEXT:     fly-rocdl-cluster-attr{chip=gfx942}
// A-NEXT:   )
// A-NEXT: )
