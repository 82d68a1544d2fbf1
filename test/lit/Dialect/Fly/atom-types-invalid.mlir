// RUN: fly-opt %s -split-input-file -verify-diagnostics

// Malformed atom texts and ill-formed atoms are located errors.

// expected-error @+1 {{universal_copy moves 8, 16, 32, 64 or 128 bits, got 24}}
func.func private @f(!fly.universal_copy<24>)

// -----

// expected-error @+1 {{expected integer value}}
func.func private @f(!fly.universal_copy<f32>)

// -----

// expected-error @+1 {{universal_fma: the element type of a must be an integer or float type of 8 to 128 bits, got 'vector<4xf16>'}}
func.func private @f(!fly.universal_fma<f32, vector<4xf16>, f16, f32>)

// -----

// Either one element type or four.
// expected-error @+1 {{expected ','}}
func.func private @f(!fly.universal_fma<f32, f16>)

// -----

// expected-error @+1 {{universal_atomic: the operation must be add, max or min, got 'mul'}}
func.func private @f(!fly.universal_atomic<mul, f32>)

// -----

// expected-error @+1 {{universal_atomic: unknown sync scope "device"}}
func.func private @f(!fly.universal_atomic<add, f32, "device">)

// -----

// expected-error @+1 {{universal_atomic: the element type must be an integer or float type of 8 to 128 bits, got 'i1'}}
func.func private @f(!fly.universal_atomic<add, i1>)

// -----

// expected-error @+1 {{copy_atom: expected a copy operation type, got '!fly.universal_fma<f32>'}}
func.func private @f(!fly.copy_atom<!fly.universal_fma<f32>, 32>)

// -----

// 16 bits do not hold a whole number of 32-bit values.
// expected-error @+1 {{copy_atom: copy atom source layout (1,16):(0,1) does not hold whole 32-bit values}}
func.func private @f(!fly.copy_atom<!fly.universal_copy<16>, 32>)

// -----

// expected-error @+1 {{copy_atom: the value width must be positive, got 0}}
func.func private @f(!fly.copy_atom<!fly.universal_copy<16>, 0>)

// -----

// expected-error @+1 {{mma_atom: expected an mma operation type, got '!fly.universal_copy<32>'}}
func.func private @f(!fly.mma_atom<!fly.universal_copy<32>>)

// -----

// expected-error @+1 {{tiled_copy: expected a copy_atom type, got '!fly.universal_copy<128>'}}
func.func private @f(!fly.tiled_copy<!fly.universal_copy<128>, (16,4):(4,1), [64]>)

// -----

// The thread-value layout indexes 16x64 elements; the tile holds 16x32.
// expected-error @+1 {{the thread-value layout ((16,16),4):((64,1),16) (cosize 1024) does not fit the tile [16|32] (size 512)}}
func.func private @f(!fly.tiled_copy<!fly.copy_atom<!fly.universal_copy<128>, 32>, ((16,16),4):((64,1),16), [16|32]>)

// -----

// Three values per thread are no multiple of the atom's four.
// expected-error @+1 {{make_tiled_copy: values of (16,3):(3,1) for the atom's values: 3 is not a multiple of 4}}
func.func private @f(!fly.tiled_copy<!fly.copy_atom<!fly.universal_copy<128>, 32>, (16,3):(3,1), [48]>)

// -----

// expected-error @+1 {{make_tiled_copy: the tiler [16|*] must give a layout for every mode}}
func.func private @f(!fly.tiled_copy<!fly.copy_atom<!fly.universal_copy<32>, 32>, (16,1):(1,0), [16|*]>)

// -----

// expected-error @+1 {{expected a layout 'shape:stride', not a composed layout}}
func.func private @f(!fly.tiled_copy<!fly.copy_atom<!fly.universal_copy<32>, 32>, S<1,2,3> o 0 o 16:1, [16]>)

// -----

// expected-error @+1 {{expected ','}}
func.func private @f(!fly.tiled_copy<!fly.copy_atom<!fly.universal_copy<32>, 32>, 16:1>)

// -----

// expected-error @+1 {{tiled_mma: expected an mma_atom type, got '!fly.universal_fma<f32>'}}
func.func private @f(!fly.tiled_mma<!fly.universal_fma<f32>, (16,16):(1,16)>)

// -----

// expected-error @+1 {{make_tiled_mma}}
func.func private @f(!fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32>>, (2,2,2,2):(1,2,4,8)>)

// -----

// expected-error @+1 {{expected '>'}}
func.func private @f(!fly.mma_atom<!fly.universal_fma<f32>, 4>)
