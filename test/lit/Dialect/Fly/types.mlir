// RUN: fly-opt %s | fly-opt | FileCheck %s

// The texts of SPEC §2.1-2.2 print back exactly as written; spellings with
// a default (div=1, a tile mode N:1) print in normal form.

// CHECK-LABEL: func.func @int_tuples
// CHECK-SAME:    !fly.int_tuple<8>
// CHECK-SAME:    !fly.int_tuple<-3>
// CHECK-SAME:    !fly.int_tuple<?>
// CHECK-SAME:    !fly.int_tuple<?{i64}>
// CHECK-SAME:    !fly.int_tuple<?{div=16}>
// CHECK-SAME:    !fly.int_tuple<?{i64 div=16}>
// CHECK-SAME:    !fly.int_tuple<*>
// CHECK-SAME:    !fly.int_tuple<1E0>
// CHECK-SAME:    !fly.int_tuple<?E1>
// CHECK-SAME:    !fly.int_tuple<2E1E0>
// CHECK-SAME:    !fly.int_tuple<?{div=4}E1>
// CHECK-SAME:    !fly.int_tuple<?{i64}E1E0>
// CHECK-SAME:    !fly.int_tuple<(4,(8,?{div=8}))>
// CHECK-SAME:    !fly.int_tuple<(*,3,(*,1))>
// CHECK-SAME:    !fly.int_tuple<(4)>
// CHECK-SAME:    !fly.int_tuple<()>
func.func @int_tuples(
    %a0: !fly.int_tuple<8>, %a1: !fly.int_tuple<-3>, %a2: !fly.int_tuple<?>,
    %a3: !fly.int_tuple<?{i64}>, %a4: !fly.int_tuple<?{div=16}>,
    %a5: !fly.int_tuple<?{i64 div=16}>, %a6: !fly.int_tuple<*>,
    %a7: !fly.int_tuple<1E0>, %a8: !fly.int_tuple<?E1>,
    %a9: !fly.int_tuple<2E1E0>, %a10: !fly.int_tuple<?{div=4}E1>,
    %a11: !fly.int_tuple<?{i64}E1E0>, %a12: !fly.int_tuple<(4,(8,?{div=8}))>,
    %a13: !fly.int_tuple<(*,3,(*,1))>, %a14: !fly.int_tuple<(4)>,
    %a15: !fly.int_tuple<()>) {
  return
}

// CHECK-LABEL: func.func @normal_forms
// CHECK-SAME:    !fly.int_tuple<(4,(8,?))>
// CHECK-SAME:    !fly.int_tuple<?>
// CHECK-SAME:    !fly.int_tuple<?{i64}>
// CHECK-SAME:    !fly.tile<[4|(2,2):(1,4)|?:1]>
func.func @normal_forms(%a0: !fly.int_tuple<( 4 , (8 ,?) )>,
                        %a1: !fly.int_tuple<?{div=1}>,
                        %a2: !fly.int_tuple<?{i64 div=1}>,
                        %a3: !fly.tile<[4:1|(2,2):(1,4)|?:1]>) {
  return
}

// CHECK-LABEL: func.func @layouts
// CHECK-SAME:    !fly.layout<(4,8):(1,4)>
// CHECK-SAME:    !fly.layout<8:1>
// CHECK-SAME:    !fly.layout<(4,8):(1E0,1E1)>
// CHECK-SAME:    !fly.layout<(128,64):(1,?)>
// CHECK-SAME:    !fly.layout<((32,4),(16,4)):((1,32),(?,?{div=16}))>
// CHECK-SAME:    !fly.layout<(?{i64},8):(8,-1)>
func.func @layouts(%a0: !fly.layout<(4,8):(1,4)>, %a1: !fly.layout<8:1>,
                   %a2: !fly.layout<(4,8):(1E0,1E1)>,
                   %a3: !fly.layout<(128,64):(1,?)>,
                   %a4: !fly.layout<((32,4),(16,4)):((1,32),(?,?{div=16}))>,
                   %a5: !fly.layout<(?{i64},8):(8,-1)>) {
  return
}

// CHECK-LABEL: func.func @swizzles_and_composed
// CHECK-SAME:    !fly.swizzle<S<3,4,3>>
// CHECK-SAME:    !fly.swizzle<S<0,0,0>>
// CHECK-SAME:    !fly.swizzle<S<2,3,-3>>
// CHECK-SAME:    !fly.composed_layout<S<3,4,3> o 0 o (8,64):(64,1)>
// CHECK-SAME:    !fly.composed_layout<(8,64):(64,1) o 4 o (8,8):(1,8)>
// CHECK-SAME:    !fly.composed_layout<S<2,4,3> o (0,?) o (8,?):(?,1)>
func.func @swizzles_and_composed(
    %a0: !fly.swizzle<S<3,4,3>>, %a1: !fly.swizzle<S<0,0,0>>,
    %a2: !fly.swizzle<S<2,3,-3>>,
    %a3: !fly.composed_layout<S<3,4,3> o 0 o (8,64):(64,1)>,
    %a4: !fly.composed_layout<(8,64):(64,1) o 4 o (8,8):(1,8)>,
    %a5: !fly.composed_layout<S<2,4,3> o (0,?) o (8,?):(?,1)>) {
  return
}

// CHECK-LABEL: func.func @tiles
// CHECK-SAME:    !fly.tile<[32|16]>
// CHECK-SAME:    !fly.tile<[*]>
// CHECK-SAME:    !fly.tile<[4|*|(2,2):(1,4)|[2|*]]>
// CHECK-SAME:    !fly.tile<{{\[\[\[}}8]]|?{div=4}:1]>
func.func @tiles(%a0: !fly.tile<[32|16]>, %a1: !fly.tile<[*]>,
                 %a2: !fly.tile<[4|*|(2,2):(1,4)|[2|*]]>,
                 %a3: !fly.tile<[[[8]]|?{div=4}:1]>) {
  return
}

// Static values of every kind materialise with fly.static.
// CHECK-LABEL: func.func @statics
// CHECK:         fly.static : !fly.int_tuple<(4,(*,2E1))>
// CHECK:         fly.static : !fly.layout<(4,8):(1,4)>
// CHECK:         fly.static : !fly.swizzle<S<3,4,3>>
// CHECK:         fly.static : !fly.composed_layout<S<3,4,3> o 0 o (8,64):(64,1)>
// CHECK:         fly.static : !fly.tile<[4|*]>
func.func @statics() {
  %0 = fly.static : !fly.int_tuple<(4,(*,2E1))>
  %1 = fly.static : !fly.layout<(4,8):(1,4)>
  %2 = fly.static : !fly.swizzle<S<3,4,3>>
  %3 = fly.static : !fly.composed_layout<S<3,4,3> o 0 o (8,64):(64,1)>
  %4 = fly.static : !fly.tile<[4|*]>
  return
}
