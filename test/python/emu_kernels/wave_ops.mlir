// Wave collectives at the ROCDL level, as stage A leaves them, for
// test_emu_wave_ops.py. Work-items with flat id < %skip return at once, so
// they are inactive (EXEC bit 0) for the collectives of the others.
//
//   out[6 * tid + 0]  mbcnt.hi(mask_hi, mbcnt.lo(mask_lo, 0))
//   out[6 * tid + 1]  readlane(in[tid], sel)
//   out[6 * tid + 2]  readfirstlane(in[tid])
//   out[6 * tid + 3]  ballot(in[tid] is even), bits 0..31
//   out[6 * tid + 4]  ballot(in[tid] is even), bits 32..63
//   out[6 * tid + 5]  ds_bpermute(addr = in[tid] * 4 + 4, in[tid] * 10)
//   wide[2 * tid + 0, 1]  readlane of the i64 (in[tid] << 32 | in[tid] + 1), sel
//   half[tid]          readlane of (f16)in[tid] + 0.5, sel, as f32
module attributes {gpu.container_module} {
gpu.module @wave_ops {
  llvm.func @wave_ops(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>, %wide: !llvm.ptr<1>,
                      %half: !llvm.ptr<1>, %mask_lo: i32, %mask_hi: i32,
                      %sel: i32, %skip: i32) attributes {rocdl.kernel} {
    %tid = rocdl.workitem.id.x : i32
    %early = llvm.icmp "ult" %tid, %skip : i32
    llvm.cond_br %early, ^exit, ^body
  ^body:
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %c4 = llvm.mlir.constant(4 : i32) : i32
    %c6 = llvm.mlir.constant(6 : i32) : i32
    %c10 = llvm.mlir.constant(10 : i32) : i32
    %pin = llvm.getelementptr %in[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    %v = llvm.load %pin : !llvm.ptr<1> -> i32
    %base = llvm.mul %tid, %c6 : i32

    %lo = rocdl.mbcnt.lo %mask_lo, %c0 : (i32, i32) -> i32
    %count = rocdl.mbcnt.hi %mask_hi, %lo : (i32, i32) -> i32
    %p0 = llvm.getelementptr %out[%base] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %count, %p0 : i32, !llvm.ptr<1>

    %r = rocdl.readlane %v, %sel : (i32, i32) -> i32
    %p1 = llvm.getelementptr %p0[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
    llvm.store %r, %p1 : i32, !llvm.ptr<1>

    %f = rocdl.readfirstlane %v : i32
    %p2 = llvm.getelementptr %p0[2] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
    llvm.store %f, %p2 : i32, !llvm.ptr<1>

    %odd = llvm.and %v, %c1 : i32
    %even = llvm.icmp "eq" %odd, %c0 : i32
    %mask = rocdl.ballot %even : i64
    %mlo = llvm.trunc %mask : i64 to i32
    %c32 = llvm.mlir.constant(32 : i64) : i64
    %mshift = llvm.lshr %mask, %c32 : i64
    %mhi = llvm.trunc %mshift : i64 to i32
    %p3 = llvm.getelementptr %p0[3] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
    llvm.store %mlo, %p3 : i32, !llvm.ptr<1>
    %p4 = llvm.getelementptr %p0[4] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
    llvm.store %mhi, %p4 : i32, !llvm.ptr<1>

    %addr0 = llvm.mul %v, %c4 : i32
    %addr = llvm.add %addr0, %c4 : i32
    %data = llvm.mul %v, %c10 : i32
    %perm = rocdl.ds_bpermute %addr, %data : (i32, i32) -> i32
    %p5 = llvm.getelementptr %p0[5] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
    llvm.store %perm, %p5 : i32, !llvm.ptr<1>

    %v64 = llvm.zext %v : i32 to i64
    %hi64 = llvm.shl %v64, %c32 : i64
    %v1 = llvm.add %v, %c1 : i32
    %lo64 = llvm.zext %v1 : i32 to i64
    %w = llvm.or %hi64, %lo64 : i64
    %rw = rocdl.readlane %w, %sel : (i64, i32) -> i64
    %pw = llvm.getelementptr %wide[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i64
    llvm.store %rw, %pw : i64, !llvm.ptr<1>

    %vf = llvm.uitofp %v : i32 to f16
    %halfc = llvm.mlir.constant(0.5 : f16) : f16
    %vh = llvm.fadd %vf, %halfc : f16
    %rh = rocdl.readlane %vh, %sel : (f16, i32) -> f16
    %rf = llvm.fpext %rh : f16 to f32
    %ph = llvm.getelementptr %half[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %rf, %ph : f32, !llvm.ptr<1>
    llvm.br ^exit
  ^exit:
    llvm.return
  }
}
}
