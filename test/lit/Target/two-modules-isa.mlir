// Two gpu.modules give two code objects: -o k.hsaco writes k.first.hsaco
// and k.second.hsaco; --print-resources and --isa print each one, the ISA
// disassembled from the code object (the same instructions llvm-objdump
// finds there).

// RUN: rm -f %t.first.hsaco %t.second.hsaco
// RUN: fly-compile %s --chip=gfx1100 --from=binary_prep -o %t.hsaco --print-resources --isa | FileCheck %s
// RUN: llvm-objdump -d %t.first.hsaco | FileCheck %s --check-prefix=OBJ1
// RUN: llvm-readelf --notes %t.second.hsaco | FileCheck %s --check-prefix=NOTE2

// CHECK:      // gpu.module @first: gfx1100, {{[0-9]+}} bytes
// CHECK-NEXT: kernel
// CHECK-NEXT: copy4 32 {{[0-9]+}} 0 {{[0-9]+}} 0 0 0 0 128
// CHECK-NEXT: // ISA of gpu.module @first (gfx1100)
// CHECK-NEXT: copy4:
// CHECK:        global_load_b128 v[{{[0-9]+}}:{{[0-9]+}}], v{{[0-9]+}}, s[{{[0-9]+}}:{{[0-9]+}}] // {{[0-9a-f]+}}
// CHECK:        global_store_b128
// CHECK:        s_endpgm
// CHECK:      // gpu.module @second: gfx1100, {{[0-9]+}} bytes
// CHECK-NEXT: kernel
// CHECK-NEXT: fill 32 {{[0-9]+}} 0 {{[0-9]+}} 0 0 0 0 256
// CHECK-NEXT: // ISA of gpu.module @second (gfx1100)
// CHECK-NEXT: fill:
// CHECK:        global_store_b32
// CHECK:        s_endpgm

// OBJ1:      <copy4>:
// OBJ1:      global_load_b128
// OBJ1:      global_store_b128
// OBJ1-NOT:  <fill>
// NOTE2:     .max_flat_workgroup_size: 256
// NOTE2:     .name: fill

module attributes {gpu.container_module} {
  gpu.module @first {
    llvm.func @copy4(%src: !llvm.ptr<1>, %dst: !llvm.ptr<1>)
        attributes {rocdl.kernel, rocdl.flat_work_group_size = "128,128"} {
      %tid = rocdl.workitem.id.x : i32
      %s = llvm.getelementptr inbounds %src[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<4xi32>
      %d = llvm.getelementptr inbounds %dst[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<4xi32>
      %v = llvm.load %s {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
      llvm.store %v, %d {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
      llvm.return
    }
  }
  gpu.module @second {
    llvm.func @fill(%dst: !llvm.ptr<1>, %x: f32)
        attributes {rocdl.kernel, rocdl.flat_work_group_size = "256,256"} {
      %tid = rocdl.workitem.id.x : i32
      %d = llvm.getelementptr inbounds %dst[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %x, %d : f32, !llvm.ptr<1>
      llvm.return
    }
  }
}
