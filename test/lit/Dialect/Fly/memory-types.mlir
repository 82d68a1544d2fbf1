// RUN: fly-opt %s | FileCheck %s
// RUN: fly-opt %s | fly-opt | FileCheck %s

// Pointers, memrefs and coordinate tensors (SPEC §2.2): the printed text is
// the canonical one and parses back to the same type.

// The alignment is printed only when it differs from the element's natural
// one: the largest power of two dividing its byte size.
// CHECK-LABEL: func.func private @pointers
// CHECK-SAME:    !fly.ptr<f32, global>
// CHECK-SAME:    !fly.ptr<f32, global>
// CHECK-SAME:    !fly.ptr<f16, shared, align<16>>
// CHECK-SAME:    !fly.ptr<bf16, generic, align<1>>
// CHECK-SAME:    !fly.ptr<i8, register>
// CHECK-SAME:    !fly.ptr<i1, global>
// CHECK-SAME:    !fly.ptr<f8E4M3FN, global, align<4>>
// CHECK-SAME:    !fly.ptr<vector<4xf32>, global>
// CHECK-SAME:    !fly.ptr<vector<4xf32>, global, align<4>>
// CHECK-SAME:    !fly.ptr<vector<3xf32>, shared>
// CHECK-SAME:    !fly.ptr<vector<2xf4E2M1FN>, global>
// CHECK-SAME:    !fly.ptr<i64, global, align<32>>
func.func private @pointers(
  !fly.ptr<f32, global>,
  !fly.ptr<f32, global, align<4>>,
  !fly.ptr<f16, shared, align<16>>,
  !fly.ptr<bf16, generic, align<1>>,
  !fly.ptr<i8, register>,
  !fly.ptr<i1, global>,
  !fly.ptr<f8E4M3FN, global, align<4>>,
  !fly.ptr<vector<4xf32>, global>,
  !fly.ptr<vector<4xf32>, global, align<4>>,
  !fly.ptr<vector<3xf32>, shared, align<4>>,
  !fly.ptr<vector<2xf4E2M1FN>, global>,
  !fly.ptr<i64, global, align<32>>)

// The keyword address spaces are the attribute #fly.address_space<...>;
// any other dialect's attribute is kept as written.
// CHECK-LABEL: func.func private @address_spaces
// CHECK-SAME:    !fly.ptr<f32, shared>
// CHECK-SAME:    !fly.ptr<f32, #gpu.address_space<workgroup>>
// CHECK-SAME:    !fly.ptr<f32, #gpu.address_space<global>, align<16>>
func.func private @address_spaces(
  !fly.ptr<f32, #fly.address_space<shared>>,
  !fly.ptr<f32, #gpu.address_space<workgroup>>,
  !fly.ptr<f32, #gpu.address_space<global>, align<16>>)

// CHECK-LABEL: func.func private @address_space_attr
// CHECK-SAME:    attributes {space = #fly.address_space<register>}
func.func private @address_space_attr() attributes {space = #fly.address_space<register>}

// A memref is a pointer plus a layout or a composed layout.
// CHECK-LABEL: func.func private @memrefs
// CHECK-SAME:    !fly.memref<f32, global, (?,?):(?{div=4},1), align<16>>
// CHECK-SAME:    !fly.memref<f32, register, (4,(2,2)):(1,(4,8))>
// CHECK-SAME:    !fly.memref<f16, shared, S<3,4,3> o 0 o (8,64):(64,1), align<16>>
// CHECK-SAME:    !fly.memref<f16, shared, (8,64):(64,1) o ? o (8,8):(1,8)>
// CHECK-SAME:    !fly.memref<i8, generic, ?{i64}:?{i64}>
// CHECK-SAME:    !fly.memref<vector<2xf16>, global, 16:1, align<16>>
// CHECK-SAME:    !fly.memref<f32, #gpu.address_space<workgroup>, 8:1>
func.func private @memrefs(
  !fly.memref<f32, global, (?,?):(?{div=4},1), align<16>>,
  !fly.memref<f32, register, (4,(2,2)):(1,(4,8)), align<4>>,
  !fly.memref<f16, shared, S<3,4,3> o 0 o (8,64):(64,1), align<16>>,
  !fly.memref<f16, shared, (8,64):(64,1) o ? o (8,8):(1,8)>,
  !fly.memref<i8, generic, ?{i64}:?{i64}>,
  !fly.memref<vector<2xf16>, global, 16:1, align<16>>,
  !fly.memref<f32, #gpu.address_space<workgroup>, 8:1>)

// A coordinate tensor's value at c is BASE + LAYOUT(c).
// CHECK-LABEL: func.func private @coord_tensors
// CHECK-SAME:    !fly.coord_tensor<(0,0), (16,64):(1E0,1E1)>
// CHECK-SAME:    !fly.coord_tensor<(?,?{div=16}), (16,64):(1E0,1E1)>
// CHECK-SAME:    !fly.coord_tensor<0, 16:1>
// CHECK-SAME:    !fly.coord_tensor<(0,(0,0)), (2,(3,4)):(1E0,(1E1E0,1E1E1))>
func.func private @coord_tensors(
  !fly.coord_tensor<(0,0), (16,64):(1E0,1E1)>,
  !fly.coord_tensor<(?,?{div=16}), (16,64):(1E0,1E1)>,
  !fly.coord_tensor<0, 16:1>,
  !fly.coord_tensor<(0,(0,0)), (2,(3,4)):(1E0,(1E1E0,1E1E1))>)

// A static coordinate tensor is a value of the algebra: fly.static makes it.
// CHECK-LABEL: func.func @static_coord_tensor
// CHECK:         fly.static : !fly.coord_tensor<(0,0), (4,8):(1E0,1E1)>
func.func @static_coord_tensor() {
  %0 = fly.static : !fly.coord_tensor<(0,0), (4,8):(1E0,1E1)>
  return
}
