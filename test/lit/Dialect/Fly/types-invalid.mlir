// RUN: fly-opt %s -split-input-file -verify-diagnostics

// Every malformed type text is a located parse error.

// Leaves and tuples

// expected-error @+1 {{expected an integer, '?', '*' or '('}}
func.func private @f(!fly.int_tuple<>)

// -----

// expected-error @+1 {{expected ',' or ')', got 'o'}}
func.func private @f(!fly.int_tuple<(4 o 5)>)

// -----

// expected-error @+1 {{unbalanced '(' character in pretty dialect name}}
func.func private @f(!fly.int_tuple<(4,8>)

// -----

// expected-error @+1 {{expected an integer, '?', '*' or '('}}
func.func private @f(!fly.int_tuple<(4,)>)

// -----

// expected-error @+1 {{expected an integer, '?', '*' or '('}}
func.func private @f(!fly.int_tuple<4.0>)

// -----

// expected-error @+1 {{expected a decimal integer}}
func.func private @f(!fly.int_tuple<0x10>)

// -----

// expected-error @+1 {{integer value too large}}
func.func private @f(!fly.int_tuple<99999999999999999999>)

// -----

// expected-error @+1 {{divisor must be positive}}
func.func private @f(!fly.int_tuple<?{div=0}>)

// -----

// expected-error @+1 {{expected 'i64' as the width of a dynamic leaf}}
func.func private @f(!fly.int_tuple<?{i32}>)

// -----

// expected-error @+1 {{expected 'i64' or 'div'}}
func.func private @f(!fly.int_tuple<?{}>)

// -----

// expected-error @+1 {{invalid scaled basis suffix 'E'}}
func.func private @f(!fly.int_tuple<1E>)

// -----

// expected-error @+1 {{invalid scaled basis suffix 'Ex'}}
func.func private @f(!fly.int_tuple<1Ex>)

// -----

// expected-error @+1 {{scaled basis 'E0E1E2E3E4E5E6' deeper than 6}}
func.func private @f(!fly.int_tuple<1E0E1E2E3E4E5E6>)

// -----

// expected-error @+1 {{expected '>'}}
func.func private @f(!fly.int_tuple<*E0>)

// -----

// expected-error @+1 {{nesting deeper than 32}}
func.func private @f(!fly.int_tuple<((((((((((((((((((((((((((((((((((4))))))))))))))))))))))))))))))))))>)

// -----

// Layouts: shape and stride are congruent; shapes are positive integers

// expected-error @+1 {{layout shape (4,8) and stride (1) are not congruent}}
func.func private @f(!fly.layout<(4,8):(1)>)

// -----

// expected-error @+1 {{layout shape (4,(8,2)) and stride (1,(4,8,16)) are not congruent}}
func.func private @f(!fly.layout<(4,(8,2)):(1,(4,8,16))>)

// -----

// expected-error @+1 {{expected ':'}}
func.func private @f(!fly.layout<(4,8)>)

// -----

// expected-error @+1 {{expected '>'}}
func.func private @f(!fly.layout<(4,8):(1,4):(1,1)>)

// -----

// expected-error @+1 {{layout shape (0,8) has a leaf that is not a positive integer}}
func.func private @f(!fly.layout<(0,8):(1,4)>)

// -----

// expected-error @+1 {{layout shape (*,8) has a leaf that is not a positive integer}}
func.func private @f(!fly.layout<(*,8):(1,4)>)

// -----

// expected-error @+1 {{layout stride (1,*) has a '*' leaf}}
func.func private @f(!fly.layout<(4,8):(1,*)>)

// -----

// Swizzles and composed layouts

// expected-error @+1 {{invalid swizzle S<3,4,1>}}
func.func private @f(!fly.swizzle<S<3,4,1>>)

// -----

// expected-error @+1 {{expected ','}}
func.func private @f(!fly.swizzle<S<3,4>>)

// -----

// expected-error @+1 {{expected 'S'}}
func.func private @f(!fly.swizzle<X<3,4,3>>)

// -----

// expected-error @+1 {{expected 'o'}}
func.func private @f(!fly.composed_layout<S<3,4,3> o 0>)

// -----

// expected-error @+1 {{expected 'o'}}
func.func private @f(!fly.composed_layout<S<3,4,3> 0 o (8,64):(64,1)>)

// -----

// expected-error @+1 {{layout shape (4,8) and stride (1) are not congruent}}
func.func private @f(!fly.composed_layout<(4,8):(1) o 0 o 8:1>)

// -----

// Tiles

// expected-error @+1 {{expected an integer, '?', '*' or '('}}
func.func private @f(!fly.tile<[]>)

// -----

// expected-error @+1 {{expected an integer, '?', '*' or '('}}
func.func private @f(!fly.tile<[4||2]>)

// -----

// expected-error @+1 {{expected a positive integer, '*', '[' or a layout 'shape:stride' as a tile mode}}
func.func private @f(!fly.tile<[?]>)

// -----

// expected-error @+1 {{expected a positive integer, '*', '[' or a layout 'shape:stride' as a tile mode}}
func.func private @f(!fly.tile<[(2,2)]>)

// -----

// expected-error @+1 {{layout shape (2,2) and stride (1) are not congruent}}
func.func private @f(!fly.tile<[4|(2,2):(1)]>)

// -----

// expected-error @+1 {{unbalanced '[' character in pretty dialect name}}
func.func private @f(!fly.tile<[4|*>)
