// fly-opt --help lists every Fly pass and the pipeline, each with its
// one-line summary (SPEC §8).
// RUN: fly-opt --help | FileCheck %s

// CHECK-DAG: --convert-rocdl-to-emu {{.*}}- Rewrite the ROCDL kernels of a gpu.module into host code for the CPU emulator
// CHECK-DAG: --fly-check-launches {{.*}}- Check the static sizes of each gpu.launch_func against the chip and the kernel
// CHECK-DAG: --convert-fly-to-rocdl {{.*}}- Lower fly pointers, memory accesses and atom calls to the llvm dialect
// CHECK-DAG: --fly-convert-atom-call-to-ssa-form {{.*}}- Atom calls on register fragments become value-form calls
// CHECK-DAG: --fly-canonicalize {{.*}}- Fold every Fly op whose result is fully static to its normal form
// CHECK-DAG: --fly-int-swizzle-simplify {{.*}}- Pull period multiples out of swizzle xor chains
// CHECK-DAG: --fly-layout-lowering {{.*}}- Lower the layout algebra on dynamic leaves to arith
// CHECK-DAG: --fly-promote-regmem-to-vectorssa {{.*}}- Register fragments become vectors in SSA form
// CHECK-DAG: --fly-rewrite-func-signature {{.*}}- Fly values leave function signatures
// CHECK-DAG: --fly-rocdl-cluster-attr {{.*}}- Turn a kernel's workgroup-cluster shape into the ROCDL function attribute
// CHECK-DAG: --fly-rocdl-kernel-attrs {{.*}}- Give the ROCDL kernels of a gpu.module an occupancy target and a VGPR budget
// CHECK-DAG: --fly-pipeline {{.*}}- The FlyDSL pipeline (SPEC §3) or one of its stages for a chip
