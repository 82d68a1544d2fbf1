// RUN: fly-opt %s -split-input-file -verify-diagnostics

// Malformed pointer, memref and coord_tensor texts are located errors.

// expected-error @+1 {{expected ','}}
func.func private @f(!fly.ptr<f32>)

// -----

// expected-error @+1 {{expected an address space (generic, global, shared, register) or a dialect attribute, got 'local'}}
func.func private @f(!fly.ptr<f32, local>)

// -----

// expected-error @+1 {{address space must be generic, global, shared, register or a dialect attribute, got 3 : i64}}
func.func private @f(!fly.ptr<f32, 3>)

// -----

// expected-error @+1 {{address space must be generic, global, shared, register or a dialect attribute, got "global"}}
func.func private @f(!fly.ptr<f32, "global">)

// -----

// expected-error @+2 {{expected ::mlir::fly::AddressSpace to be one of: generic, global, shared, register}}
// expected-error @+1 {{failed to parse Fly_AddressSpaceAttr parameter 'value'}}
func.func private @f(!fly.ptr<f32, #fly.address_space<local>>)

// -----

// expected-error @+1 {{alignment 12 is not a positive power of two}}
func.func private @f(!fly.ptr<f32, global, align<12>>)

// -----

// expected-error @+1 {{alignment 0 is not a positive power of two}}
func.func private @f(!fly.ptr<f32, global, align<0>>)

// -----

// expected-error @+1 {{alignment -4 is not a positive power of two}}
func.func private @f(!fly.ptr<f32, global, align<-4>>)

// -----

// expected-error @+1 {{expected 'align'}}
func.func private @f(!fly.ptr<f32, global, algn<16>>)

// -----

// expected-error @+1 {{expected '>'}}
func.func private @f(!fly.ptr<f32, global, align<16>, 4>)

// -----

// expected-error @+1 {{element type 'index' is not an integer or float type, or a 1-D vector of them, of a whole number of bytes}}
func.func private @f(!fly.ptr<index, global>)

// -----

// Sub-byte elements are not addressable one by one.
// expected-error @+1 {{element type 'i4' is not an integer or float type}}
func.func private @f(!fly.ptr<i4, global>)

// -----

// expected-error @+1 {{element type 'vector<2x2xf32>' is not an integer or float type}}
func.func private @f(!fly.ptr<vector<2x2xf32>, global>)

// -----

// expected-error @+1 {{element type 'vector<[4]xf32>' is not an integer or float type}}
func.func private @f(!fly.ptr<vector<[4]xf32>, global>)

// -----

// expected-error @+1 {{expected ','}}
func.func private @f(!fly.memref<f32, global>)

// -----

// expected-error @+1 {{expected ',' or '>', got 'align'}}
func.func private @f(!fly.memref<f32, global, 4:1 align<16>>)

// -----

// expected-error @+1 {{layout shape (4,8) and stride (1,4,2) are not congruent}}
func.func private @f(!fly.memref<f32, global, (4,8):(1,4,2)>)

// -----

// expected-error @+1 {{a memref's layout maps to element offsets, but stride (1E0,1E1) has a scaled basis element}}
func.func private @f(!fly.memref<f32, global, (4,8):(1E0,1E1)>)

// -----

// expected-error @+1 {{expected 'o'}}
func.func private @f(!fly.memref<f32, global, 4:1 o 0>)

// -----

// expected-error @+1 {{invalid swizzle S<3,4,2>}}
func.func private @f(!fly.memref<f16, shared, S<3,4,2> o 0 o 8:1>)

// -----

// expected-error @+1 {{alignment 3 is not a positive power of two}}
func.func private @f(!fly.memref<f32, global, 8:1, align<3>>)

// -----

// expected-error @+1 {{expected ','}}
func.func private @f(!fly.coord_tensor<(0,0)>)

// -----

// expected-error @+1 {{a coord_tensor's layout must be a layout 'shape:stride', not a composed layout}}
func.func private @f(!fly.coord_tensor<(0,0), S<3,4,3> o 0 o 8:1>)

// -----

// expected-error @+1 {{the base (*,0) of a coord_tensor must have integer leaves}}
func.func private @f(!fly.coord_tensor<(*,0), (4,8):(1E0,1E1)>)

// -----

// expected-error @+1 {{the base 1E0 of a coord_tensor must have integer leaves}}
func.func private @f(!fly.coord_tensor<1E0, 8:1>)

// -----

// expected-error @+1 {{expected ',' or '>', got 'x'}}
func.func private @f(!fly.coord_tensor<0 x, 8:1>)

// -----

// fly.static needs a value without runtime data: a memref has a pointer.
// expected-error @+1 {{'fly.static' op result #0 must be fly algebra type}}
%0 = fly.static : !fly.memref<f32, register, 4:1>

// -----

// expected-error @+1 {{'fly.static' op result type '!fly.coord_tensor<(?,0), 8:1E0>' has dynamic leaves}}
%0 = fly.static : !fly.coord_tensor<(?,0), 8:1E0>
