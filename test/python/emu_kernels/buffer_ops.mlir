// Raw buffer accesses at the ROCDL level, as stage A leaves them, for
// test_emu_wave_ops.py. Each work-item tid:
//   - loads 16 bytes of `in` at tid * 16 through a resource of %n_in bytes
//     and stores them to `out` at tid * 16 through one of %n_out bytes;
//   - loads the i16 at byte 2 * tid + 2 (soffset 2) of `in` through a
//     resource of %n_narrow bytes into narrow[tid] (plain store);
//   - loads an i32 at voffset 0xfffffffc, soffset 8 (past 4 GiB) into
//     far[tid];
//   - adds 1.0 to acc[tid % 8] through a resource of %n_acc bytes;
//   - smax(tid) into imax[tid % 4] through a resource of %n_acc bytes;
//   - compares-and-swaps cas[tid] (expect tid, new tid + 100) through a
//     resource of %n_cas bytes, storing the old value into old[tid].
module attributes {gpu.container_module} {
gpu.module @buffer_ops {
  llvm.func @buffer_ops(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>,
                        %narrow: !llvm.ptr<1>, %far: !llvm.ptr<1>,
                        %acc: !llvm.ptr<1>, %imax: !llvm.ptr<1>,
                        %cas: !llvm.ptr<1>, %old: !llvm.ptr<1>,
                        %n_in: i64, %n_out: i64, %n_narrow: i64,
                        %n_acc: i64, %n_cas: i64) attributes {rocdl.kernel} {
    %tid = rocdl.workitem.id.x : i32
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c2 = llvm.mlir.constant(2 : i32) : i32
    %c3 = llvm.mlir.constant(3 : i32) : i32
    %c4 = llvm.mlir.constant(4 : i32) : i32
    %c7 = llvm.mlir.constant(7 : i32) : i32
    %c8 = llvm.mlir.constant(8 : i32) : i32
    %c16 = llvm.mlir.constant(16 : i32) : i32
    %c100 = llvm.mlir.constant(100 : i32) : i32
    %stride = llvm.mlir.constant(0 : i16) : i16
    %flags = llvm.mlir.constant(159744 : i32) : i32

    %rin = rocdl.make.buffer.rsrc %in, %stride, %n_in, %flags : !llvm.ptr<1> to !llvm.ptr<8>
    %rout = rocdl.make.buffer.rsrc %out, %stride, %n_out, %flags : !llvm.ptr<1> to !llvm.ptr<8>
    %off16 = llvm.mul %tid, %c16 : i32
    %v4 = rocdl.raw.ptr.buffer.load %rin, %off16, %c0, %c0 : vector<4xi32>
    rocdl.raw.ptr.buffer.store %v4, %rout, %off16, %c0, %c0 : vector<4xi32>

    %rnarrow = rocdl.make.buffer.rsrc %in, %stride, %n_narrow, %flags : !llvm.ptr<1> to !llvm.ptr<8>
    %off2 = llvm.mul %tid, %c2 : i32
    %h = rocdl.raw.ptr.buffer.load %rnarrow, %off2, %c2, %c0 : i16
    %h32 = llvm.zext %h : i16 to i32
    %pn = llvm.getelementptr %narrow[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %h32, %pn : i32, !llvm.ptr<1>

    %huge = llvm.mlir.constant(4294967292 : i32) : i32
    %fv = rocdl.raw.ptr.buffer.load %rin, %huge, %c8, %c0 : i32
    %pf = llvm.getelementptr %far[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %fv, %pf : i32, !llvm.ptr<1>

    %racc = rocdl.make.buffer.rsrc %acc, %stride, %n_acc, %flags : !llvm.ptr<1> to !llvm.ptr<8>
    %slot = llvm.and %tid, %c7 : i32
    %offa = llvm.mul %slot, %c4 : i32
    %one = llvm.mlir.constant(1.0 : f32) : f32
    rocdl.raw.ptr.buffer.atomic.fadd %one, %racc, %offa, %c0, %c0 : f32

    %rmax = rocdl.make.buffer.rsrc %imax, %stride, %n_acc, %flags : !llvm.ptr<1> to !llvm.ptr<8>
    %mslot = llvm.and %tid, %c3 : i32
    %offm = llvm.mul %mslot, %c4 : i32
    rocdl.raw.ptr.buffer.atomic.smax %tid, %rmax, %offm, %c0, %c0 : i32

    %rcas = rocdl.make.buffer.rsrc %cas, %stride, %n_cas, %flags : !llvm.ptr<1> to !llvm.ptr<8>
    %offc = llvm.mul %tid, %c4 : i32
    %new = llvm.add %tid, %c100 : i32
    %prev = rocdl.raw.ptr.buffer.atomic.cmpswap %new, %tid, %rcas, %offc, %c0, %c0 : i32
    %po = llvm.getelementptr %old[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %prev, %po : i32, !llvm.ptr<1>
    llvm.return
  }

  // A resource with a nonzero stride (a structured buffer): not emulated.
  llvm.func @strided(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) attributes {rocdl.kernel} {
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %stride = llvm.mlir.constant(16 : i16) : i16
    %n = llvm.mlir.constant(64 : i64) : i64
    %flags = llvm.mlir.constant(0 : i32) : i32
    %r = rocdl.make.buffer.rsrc %in, %stride, %n, %flags : !llvm.ptr<1> to !llvm.ptr<8>
    %v = rocdl.raw.ptr.buffer.load %r, %c0, %c0, %c0 : i32
    llvm.store %v, %out : i32, !llvm.ptr<1>
    llvm.return
  }
}
}
