// RUN: fly-opt %s -split-input-file -verify-diagnostics

// Tensor views and the algebra on tensors: located errors.

func.func @view_basis_strides(%p: !fly.ptr<f32, global>) {
  %l = fly.static : !fly.layout<(4,8):(1E0,1E1)>
  // expected-error @+1 {{a memref's layout maps to element offsets, but stride (1E0,1E1) has a scaled basis element}}
  %0 = fly.make_view(%p, %l) : (!fly.ptr<f32, global>, !fly.layout<(4,8):(1E0,1E1)>)
  return
}

// -----

func.func @view_coord_composed() {
  %z = fly.static : !fly.int_tuple<0>
  %l = fly.static : !fly.composed_layout<S<3,4,3> o 0 o 8:1>
  // expected-error @+1 {{'fly.make_view' op does not accept operands (int_tuple, composed_layout)}}
  %0 = fly.make_view(%z, %l) : (!fly.int_tuple<0>, !fly.composed_layout<S<3,4,3> o 0 o 8:1>)
  return
}

// -----

func.func @view_result_type(%p: !fly.ptr<f32, global, align<16>>) {
  %l = fly.static : !fly.layout<8:1>
  // expected-error @+2 {{'fly.make_view' op inferred type(s) '!fly.memref<f32, global, 8:1, align<16>>' are incompatible with return type(s) of operation '!fly.memref<f32, global, 8:1>'}}
  // expected-error @+1 {{'fly.make_view' op failed to infer returned types}}
  %0 = fly.make_view(%p, %l) : (!fly.ptr<f32, global, align<16>>, !fly.layout<8:1>) -> !fly.memref<f32, global, 8:1>
  return
}

// -----

func.func @get_iter_of_layout() {
  %l = fly.static : !fly.layout<8:1>
  // expected-error @+1 {{'fly.get_iter' op does not accept operands (layout)}}
  %0 = fly.get_iter(%l) : (!fly.layout<8:1>)
  return
}

// -----

// The written alignment of a slice is checked like any inferred type.
func.func @slice_alignment(%m: !fly.memref<f32, global, (4,8):(8,1), align<16>>) {
  %c = fly.static : !fly.int_tuple<(*,1)>
  // expected-error @+2 {{'fly.slice' op inferred type(s) '!fly.memref<f32, global, 4:8>' are incompatible with return type(s) of operation '!fly.memref<f32, global, 4:8, align<16>>'}}
  // expected-error @+1 {{'fly.slice' op failed to infer returned types}}
  %0 = fly.slice(%m, %c) : (!fly.memref<f32, global, (4,8):(8,1), align<16>>, !fly.int_tuple<(*,1)>) -> !fly.memref<f32, global, 4:8, align<16>>
  return
}

// -----

func.func @slice_rank(%m: !fly.memref<f32, global, (4,8):(8,1)>) {
  %c = fly.static : !fly.int_tuple<(*,1,2)>
  // expected-error @+1 {{'fly.slice' op coordinate (*,1,2) is not compatible with shape (4,8)}}
  %0 = fly.slice(%m, %c) : (!fly.memref<f32, global, (4,8):(8,1)>, !fly.int_tuple<(*,1,2)>)
  return
}

// -----

// A counting layout of integer strides gives integers, which do not add to a
// tuple base.
func.func @slice_coord_mismatch(%c: !fly.coord_tensor<(0,0), (4,8):(1,4)>) {
  %crd = fly.static : !fly.int_tuple<(1,*)>
  // expected-error @+1 {{'fly.slice' op cannot add 1 to the coordinate (0,0)}}
  %0 = fly.slice(%c, %crd) : (!fly.coord_tensor<(0,0), (4,8):(1,4)>, !fly.int_tuple<(1,*)>)
  return
}

// -----

// The divides are defined on layouts, not on composed layouts.
func.func @divide_composed(%s: !fly.memref<f16, shared, S<3,4,3> o 0 o (8,64):(64,1)>) {
  %t = fly.static : !fly.tile<[2|4]>
  // expected-error @+1 {{'fly.logical_divide' op does not accept operands (composed_layout, tile)}}
  %0 = fly.logical_divide(%s, %t) : (!fly.memref<f16, shared, S<3,4,3> o 0 o (8,64):(64,1)>, !fly.tile<[2|4]>)
  return
}

// -----

func.func @get_composed(%s: !fly.memref<f16, shared, S<3,4,3> o 0 o (8,64):(64,1)>) {
  // expected-error @+1 {{'fly.get' op does not accept operands (composed_layout)}}
  %0 = fly.get(%s) {mode = array<i64: 0>} : (!fly.memref<f16, shared, S<3,4,3> o 0 o (8,64):(64,1)>)
  return
}

// -----

// Products do not take tensors.
func.func @product_of_tensor(%m: !fly.memref<f32, global, 8:1>) {
  %l = fly.static : !fly.layout<2:1>
  // expected-error @+1 {{'fly.logical_product' op does not accept operands (memref, layout)}}
  %0 = fly.logical_product(%m, %l) : (!fly.memref<f32, global, 8:1>, !fly.layout<2:1>)
  return
}

// -----

func.func @fragment_dynamic(%m: !fly.memref<f32, global, (4,?):(1,4)>) {
  // expected-error @+1 {{'fly.make_fragment_like' op a register fragment needs a static layout, got (4,?):(1,4)}}
  %0 = fly.make_fragment_like(%m) : (!fly.memref<f32, global, (4,?):(1,4)>)
  return
}

// -----

func.func @fragment_coord(%c: !fly.coord_tensor<(0,0), (4,8):(1E0,1E1)>) {
  // expected-error @+1 {{'fly.make_fragment_like' op a fragment like a coord_tensor needs an 'element_type'}}
  %0 = fly.make_fragment_like(%c) : (!fly.coord_tensor<(0,0), (4,8):(1E0,1E1)>)
  return
}

// -----

func.func @fragment_type_attr(%m: !fly.memref<f32, global, 8:1>) {
  // expected-error @+1 {{'fly.make_fragment_like' op expects a type attribute 'element_type'}}
  %0 = fly.make_fragment_like(%m) {element_type = 3 : i32} : (!fly.memref<f32, global, 8:1>)
  return
}

// -----

func.func @fragment_element(%m: !fly.memref<f32, global, 8:1>) {
  // expected-error @+1 {{element type 'index' is not an integer or float type}}
  %0 = fly.make_fragment_like(%m) {element_type = index} : (!fly.memref<f32, global, 8:1>)
  return
}

// -----

func.func @leaves_of_pointer(%p: !fly.ptr<f32, global>) {
  // expected-error @+1 {{'fly.get_leaves' op does not accept operands (ptr)}}
  %0 = fly.get_leaves(%p) : (!fly.ptr<f32, global>)
  return
}
