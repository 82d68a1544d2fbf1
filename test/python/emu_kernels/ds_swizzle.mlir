// ds_swizzle_b32 at the ROCDL level, for test_emu_wave_ops.py. Work-items
// with id < %skip return at once (inactive for the others' swizzles).
//
//   out[4 * tid + 0]  ds_swizzle(in[tid], 0x041F)  bit masks: and 31, xor 1
//   out[4 * tid + 1]  ds_swizzle(in[tid], 0x7C1F)  and 31, xor 31 (reverse 32)
//   out[4 * tid + 2]  ds_swizzle(in[tid], 0x00E0)  and 0, or 7 (lane 7 of 32)
//   out[4 * tid + 3]  ds_swizzle(in[tid], 0x801B)  quad permute (3, 2, 1, 0)
// @swizzle_rotate uses 0xC001, a rotate-mode encoding the emulator refuses.
module attributes {gpu.container_module} {
gpu.module @ds_swizzle {
  llvm.func @swizzle(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>, %skip: i32)
      attributes {rocdl.kernel} {
    %tid = rocdl.workitem.id.x : i32
    %early = llvm.icmp "ult" %tid, %skip : i32
    llvm.cond_br %early, ^exit, ^body
  ^body:
    %c4 = llvm.mlir.constant(4 : i32) : i32
    %pin = llvm.getelementptr %in[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    %v = llvm.load %pin : !llvm.ptr<1> -> i32
    %base = llvm.mul %tid, %c4 : i32
    %p0 = llvm.getelementptr %out[%base] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    %o0 = llvm.mlir.constant(1055 : i32) : i32
    %s0 = rocdl.ds_swizzle %v, %o0 : (i32, i32) -> i32
    llvm.store %s0, %p0 : i32, !llvm.ptr<1>
    %o1 = llvm.mlir.constant(31775 : i32) : i32
    %s1 = rocdl.ds_swizzle %v, %o1 : (i32, i32) -> i32
    %p1 = llvm.getelementptr %p0[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
    llvm.store %s1, %p1 : i32, !llvm.ptr<1>
    %o2 = llvm.mlir.constant(224 : i32) : i32
    %s2 = rocdl.ds_swizzle %v, %o2 : (i32, i32) -> i32
    %p2 = llvm.getelementptr %p0[2] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
    llvm.store %s2, %p2 : i32, !llvm.ptr<1>
    %o3 = llvm.mlir.constant(32795 : i32) : i32
    %s3 = rocdl.ds_swizzle %v, %o3 : (i32, i32) -> i32
    %p3 = llvm.getelementptr %p0[3] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
    llvm.store %s3, %p3 : i32, !llvm.ptr<1>
    llvm.br ^exit
  ^exit:
    llvm.return
  }

  llvm.func @swizzle_rotate(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>, %skip: i32)
      attributes {rocdl.kernel} {
    %tid = rocdl.workitem.id.x : i32
    %pin = llvm.getelementptr %in[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    %v = llvm.load %pin : !llvm.ptr<1> -> i32
    %o = llvm.mlir.constant(49153 : i32) : i32
    %s = rocdl.ds_swizzle %v, %o : (i32, i32) -> i32
    %p = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %s, %p : i32, !llvm.ptr<1>
    llvm.return
  }
}
}
