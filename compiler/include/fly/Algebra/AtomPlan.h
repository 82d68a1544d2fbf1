//===- AtomPlan.h - copy and gemm as lists of atom calls --------*- C++ -*-===//
//
// What CuTe's copy(atom, src, dst) and gemm(mma, D, A, B, C) do on
// partitioned layouts, as data: the atom calls in order, each with the
// value-mode slices it works on. The lowering turns each call into the
// atom's instruction; the loops over the rest modes are unrolled here, so
// the rest modes must have static sizes.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_ALGEBRA_ATOMPLAN_H
#define FLY_ALGEBRA_ATOMPLAN_H

#include "fly/Algebra/Atom.h"

#include <array>
#include <functional>
#include <vector>

namespace fly::algebra {

/// One call of a copy atom: the source and destination values it moves,
/// offsets relative to the origins of the tensors given to the plan.
struct CopyCall {
  OffsetLayout src, dst;
  /// The call's position among the copy's calls -- the repeats of a peeled
  /// value mode fastest, then the grouped rest modes (modes 1..R-1,
  /// column-major) -- which is the index of its flag in copy_if's
  /// predicate: one flag per atom call, as FlyDSL's copy takes them.
  int64_t index = 0;
};

/// CuTe's copy(atom, src, dst): rank-1 layouts are one call; otherwise loop
/// over the grouped modes 1..R-1 and call on mode 0, peeling nested value
/// modes ((A,B) is a loop over B of calls on A) until a slice holds the
/// atom's value count. `onCall` sees the calls in order; a failure (ranks,
/// dynamic sizes, value counts that never match) stops the walk.
void forEachCopyCall(Arith &ar, const CopyAtom &atom, const Layout &src,
                     const Layout &dst,
                     const std::function<void(const CopyCall &)> &onCall);
std::vector<CopyCall> copyPlan(Arith &ar, const CopyAtom &atom,
                               const Layout &src, const Layout &dst);

/// One call of an MMA atom on value-mode slices of D, A, B and C, with the
/// (m, n, k) coordinate of the call in the fragment's rest modes.
struct MmaCall {
  OffsetLayout d, a, b, c;
  int64_t m = 0, n = 0, k = 0;
  /// `c` is a slice of D, not of C (a tile's later calls in a traversal).
  bool cFromD = false;
};

/// CuTe's gemm(mma, D, A, B, C) dispatch on the ranks:
///   (V)     x (V)     => (V)       one call;
///   (M)     x (N)     => (M,N)     with a unit value mode prepended;
///   (V,M)   x (V,N)   => (V,M,N)   row-major serpentine over M and N;
///   (M,K)   x (N,K)   => (M,N)     with a unit value mode prepended;
///   (V,M,K) x (V,N,K) => (V,M,N)   K outermost.
/// Each call's value modes must hold the atom's value counts
/// (size<1> of its thread-value layouts).
///
/// With `order`, the (V,M)x(V,N)=>(V,M,N) and (V,M,K)x(V,N,K)=>(V,M,N)
/// forms make one call per (m, n, k) tile of `order` (FlyDSL's gemm
/// traversal orders and layouts; k is 0 without a K mode), in that order:
/// the first call on a tile of D reads C's tile, later ones D's. A tile
/// outside the (M, N, K) tiles fails the walk.
void forEachMmaCall(Arith &ar, const MmaAtom &atom, const Layout &d,
                    const Layout &a, const Layout &b, const Layout &c,
                    const std::function<void(const MmaCall &)> &onCall,
                    const std::vector<std::array<int64_t, 3>> &order = {});
std::vector<MmaCall> gemmPlan(Arith &ar, const MmaAtom &atom, const Layout &d,
                              const Layout &a, const Layout &b,
                              const Layout &c);

} // namespace fly::algebra

#endif // FLY_ALGEBRA_ATOMPLAN_H
