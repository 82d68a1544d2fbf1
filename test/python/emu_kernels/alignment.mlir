// Accesses whose code declares an alignment, for test_emu_alignment.py.
// In each kernel work-item tid accesses element tid of its array, except
// work-item 3, which is `shift` bytes off (0: every access is aligned).
// The accesses carry source locations, as a traced kernel's do.
//   - vector_global: loads <4 x f32> (align 16) at in + 16 tid, adds 1.0,
//     stores the sum (align 16) at the same place;
//   - lds_i64: stores the i64 tid + 100 (align 8) to LDS at 8 tid, then
//     loads it back into out[tid];
//   - atomic_add: atomically adds 1.0 (align 4) to acc[tid] (f32).
module attributes {gpu.container_module} {
gpu.module @alignment {
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i64>

  // The byte offset of work-item tid's element of `bytes` bytes.
  llvm.func @offset(%tid: i32, %bytes: i32, %shift: i32) -> i64 {
    %c3 = llvm.mlir.constant(3 : i32) : i32
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %is3 = llvm.icmp "eq" %tid, %c3 : i32
    %extra = llvm.select %is3, %shift, %c0 : i1, i32
    %base = llvm.mul %tid, %bytes : i32
    %off = llvm.add %base, %extra : i32
    %wide = llvm.zext %off : i32 to i64
    llvm.return %wide : i64
  }

  llvm.func @vector_global(%in: !llvm.ptr<1>, %shift: i32) attributes {rocdl.kernel} {
    %tid = rocdl.workitem.id.x : i32
    %c16 = llvm.mlir.constant(16 : i32) : i32
    %off = llvm.call @offset(%tid, %c16, %shift) : (i32, i32, i32) -> i64
    %p = llvm.getelementptr %in[%off] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
    %v = llvm.load %p {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32> loc("planted.py":11:7)
    %one = llvm.mlir.constant(dense<1.0> : vector<4xf32>) : vector<4xf32>
    %w = llvm.fadd %v, %one : vector<4xf32>
    llvm.store %w, %p {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1> loc("planted.py":12:7)
    llvm.return
  }

  llvm.func @lds_i64(%out: !llvm.ptr<1>, %shift: i32) attributes {rocdl.kernel} {
    %tid = rocdl.workitem.id.x : i32
    %c8 = llvm.mlir.constant(8 : i32) : i32
    %off = llvm.call @offset(%tid, %c8, %shift) : (i32, i32, i32) -> i64
    %tile = llvm.mlir.addressof @tile : !llvm.ptr<3>
    %p = llvm.getelementptr %tile[%off] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
    %c100 = llvm.mlir.constant(100 : i32) : i32
    %v32 = llvm.add %tid, %c100 : i32
    %v = llvm.zext %v32 : i32 to i64
    llvm.store %v, %p {alignment = 8 : i64} : i64, !llvm.ptr<3> loc("planted.py":21:5)
    %r = llvm.load %p {alignment = 8 : i64} : !llvm.ptr<3> -> i64 loc("planted.py":22:5)
    %tid64 = llvm.zext %tid : i32 to i64
    %q = llvm.getelementptr %out[%tid64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i64
    llvm.store %r, %q {alignment = 8 : i64} : i64, !llvm.ptr<1>
    llvm.return
  }

  llvm.func @atomic_add(%acc: !llvm.ptr<1>, %shift: i32) attributes {rocdl.kernel} {
    %tid = rocdl.workitem.id.x : i32
    %c4 = llvm.mlir.constant(4 : i32) : i32
    %off = llvm.call @offset(%tid, %c4, %shift) : (i32, i32, i32) -> i64
    %p = llvm.getelementptr %acc[%off] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
    %one = llvm.mlir.constant(1.0 : f32) : f32
    %old = llvm.atomicrmw fadd %p, %one monotonic {alignment = 4 : i64} : !llvm.ptr<1>, f32 loc("planted.py":31:9)
    llvm.return
  }
}
}
