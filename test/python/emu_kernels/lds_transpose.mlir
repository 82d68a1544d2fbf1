// gfx950's transposing LDS reads at the ROCDL level, for
// test_rocdl_lds_loads.py. Each work-item stores its three dwords
// in[3 * tid .. 3 * tid + 2] to LDS at byte 12 * tid; after a barrier, the
// work-items with id < %skip return (inactive for the others' reads) and
// each other one reads `bytes` (8, or 12 for tr6) at byte bytes * tid with
// the kernel's instruction, storing the result's dwords to out[3 * tid ..].
module attributes {gpu.container_module} {
gpu.module @lds_transpose {
  llvm.mlir.global internal @lds() {addr_space = 3 : i32} : !llvm.array<768 x i8>

  llvm.func @tr4(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>, %skip: i32)
      attributes {rocdl.kernel} {
    %tid = rocdl.workitem.id.x : i32
    %c3 = llvm.mlir.constant(3 : i32) : i32
    %cb = llvm.mlir.constant(8 : i32) : i32
    %lds = llvm.mlir.addressof @lds : !llvm.ptr<3>
    %i = llvm.mul %tid, %c3 : i32
    %pin = llvm.getelementptr %in[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    %v = llvm.load %pin {alignment = 4 : i64} : !llvm.ptr<1> -> vector<3xi32>
    %pst = llvm.getelementptr %lds[%i] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
    llvm.store %v, %pst {alignment = 4 : i64} : vector<3xi32>, !llvm.ptr<3>
    rocdl.barrier
    %early = llvm.icmp "ult" %tid, %skip : i32
    llvm.cond_br %early, ^exit, ^body
  ^body:
    %at = llvm.mul %tid, %cb : i32
    %pld = llvm.getelementptr %lds[%at] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %t = rocdl.ds.read.tr4.b64 %pld : !llvm.ptr<3> -> vector<2xi32>
    %w = llvm.bitcast %t : vector<2xi32> to vector<2xi32>
    %pout = llvm.getelementptr %out[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %w, %pout {alignment = 4 : i64} : vector<2xi32>, !llvm.ptr<1>
    llvm.br ^exit
  ^exit:
    llvm.return
  }

  llvm.func @tr8(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>, %skip: i32)
      attributes {rocdl.kernel} {
    %tid = rocdl.workitem.id.x : i32
    %c3 = llvm.mlir.constant(3 : i32) : i32
    %cb = llvm.mlir.constant(8 : i32) : i32
    %lds = llvm.mlir.addressof @lds : !llvm.ptr<3>
    %i = llvm.mul %tid, %c3 : i32
    %pin = llvm.getelementptr %in[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    %v = llvm.load %pin {alignment = 4 : i64} : !llvm.ptr<1> -> vector<3xi32>
    %pst = llvm.getelementptr %lds[%i] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
    llvm.store %v, %pst {alignment = 4 : i64} : vector<3xi32>, !llvm.ptr<3>
    rocdl.barrier
    %early = llvm.icmp "ult" %tid, %skip : i32
    llvm.cond_br %early, ^exit, ^body
  ^body:
    %at = llvm.mul %tid, %cb : i32
    %pld = llvm.getelementptr %lds[%at] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %t = rocdl.ds.read.tr8.b64 %pld : !llvm.ptr<3> -> vector<2xi32>
    %w = llvm.bitcast %t : vector<2xi32> to vector<2xi32>
    %pout = llvm.getelementptr %out[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %w, %pout {alignment = 4 : i64} : vector<2xi32>, !llvm.ptr<1>
    llvm.br ^exit
  ^exit:
    llvm.return
  }

  llvm.func @tr16(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>, %skip: i32)
      attributes {rocdl.kernel} {
    %tid = rocdl.workitem.id.x : i32
    %c3 = llvm.mlir.constant(3 : i32) : i32
    %cb = llvm.mlir.constant(8 : i32) : i32
    %lds = llvm.mlir.addressof @lds : !llvm.ptr<3>
    %i = llvm.mul %tid, %c3 : i32
    %pin = llvm.getelementptr %in[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    %v = llvm.load %pin {alignment = 4 : i64} : !llvm.ptr<1> -> vector<3xi32>
    %pst = llvm.getelementptr %lds[%i] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
    llvm.store %v, %pst {alignment = 4 : i64} : vector<3xi32>, !llvm.ptr<3>
    rocdl.barrier
    %early = llvm.icmp "ult" %tid, %skip : i32
    llvm.cond_br %early, ^exit, ^body
  ^body:
    %at = llvm.mul %tid, %cb : i32
    %pld = llvm.getelementptr %lds[%at] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %t = rocdl.ds.read.tr16.b64 %pld : !llvm.ptr<3> -> vector<4xi16>
    %w = llvm.bitcast %t : vector<4xi16> to vector<2xi32>
    %pout = llvm.getelementptr %out[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %w, %pout {alignment = 4 : i64} : vector<2xi32>, !llvm.ptr<1>
    llvm.br ^exit
  ^exit:
    llvm.return
  }

  llvm.func @tr6(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>, %skip: i32)
      attributes {rocdl.kernel} {
    %tid = rocdl.workitem.id.x : i32
    %c3 = llvm.mlir.constant(3 : i32) : i32
    %cb = llvm.mlir.constant(12 : i32) : i32
    %lds = llvm.mlir.addressof @lds : !llvm.ptr<3>
    %i = llvm.mul %tid, %c3 : i32
    %pin = llvm.getelementptr %in[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    %v = llvm.load %pin {alignment = 4 : i64} : !llvm.ptr<1> -> vector<3xi32>
    %pst = llvm.getelementptr %lds[%i] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
    llvm.store %v, %pst {alignment = 4 : i64} : vector<3xi32>, !llvm.ptr<3>
    rocdl.barrier
    %early = llvm.icmp "ult" %tid, %skip : i32
    llvm.cond_br %early, ^exit, ^body
  ^body:
    %at = llvm.mul %tid, %cb : i32
    %pld = llvm.getelementptr %lds[%at] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %t = rocdl.ds.read.tr6.b96 %pld : !llvm.ptr<3> -> vector<3xi32>
    %w = llvm.bitcast %t : vector<3xi32> to vector<3xi32>
    %pout = llvm.getelementptr %out[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %w, %pout {alignment = 4 : i64} : vector<3xi32>, !llvm.ptr<1>
    llvm.br ^exit
  ^exit:
    llvm.return
  }
}
}
