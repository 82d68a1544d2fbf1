//===- AtomPlan.cpp - copy and gemm as lists of atom calls ----------------===//
//
// The recursion of CuTe's copy(Copy_Atom, src, dst) with Copy_Atom::call,
// and the rank dispatch of gemm(MMA_Atom, D, A, B, C) (CUTLASS
// documentation, "CuTe tensor algorithms").
//
//===----------------------------------------------------------------------===//

#include "fly/Algebra/AtomPlan.h"

#include <optional>

namespace fly::algebra {

namespace {
/// a + b for offsets that are integers or coordinates (basis strides give
/// coordinates; a shorter coordinate has zeros in its missing modes).
IntTuple addOffsets(Arith &ar, const IntTuple &a, const IntTuple &b) {
  if (a.isLeaf() && a.leaf().isStaticValue(0))
    return b;
  if (b.isLeaf() && b.leaf().isStaticValue(0))
    return a;
  if (a.isLeaf() && b.isLeaf())
    return ar.add(a.leaf(), b.leaf());
  if (a.isLeaf() || b.isLeaf()) {
    ar.fail("cannot add the offset " + toString(a) + " to " + toString(b));
    return IntTuple(0);
  }
  std::vector<IntTuple> out;
  for (unsigned i = 0; i < std::max(a.rank(), b.rank()); ++i)
    out.push_back(i >= a.rank()   ? b[i]
                  : i >= b.rank() ? a[i]
                                  : addOffsets(ar, a[i], b[i]));
  return IntTuple::tuple(std::move(out));
}

/// t(crd) for a coordinate with `*` modes: the kept modes, at the offset of
/// the fixed ones.
OffsetLayout sliceAt(Arith &ar, const OffsetLayout &t, const IntTuple &crd) {
  IntTuple off;
  Layout l = slice(ar, crd, t.layout, &off);
  return {l, addOffsets(ar, t.offset, off)};
}

/// A static size, or a diagnostic.
std::optional<int64_t> staticSize(Arith &ar, const Layout &l,
                                  const std::string &what) {
  Int n = size(ar, l);
  if (ar.failed())
    return std::nullopt;
  if (!n.isStatic()) {
    ar.fail(what + ": " + toString(l) + " has a dynamic size; the atom "
                   "calls are unrolled, so it must be static");
    return std::nullopt;
  }
  return n.value();
}

/// The sizes of a copy's two sides, each std::nullopt when dynamic; at
/// least one must be static, and it decides the number of atom calls (a
/// static register fragment into a dynamically shaped tensor, as FlyDSL
/// takes it). false, with a diagnostic, when both are dynamic.
bool copySizes(Arith &ar, const Layout &src, const Layout &dst,
               std::optional<int64_t> &ns, std::optional<int64_t> &nd) {
  Int s = size(ar, src), d = size(ar, dst);
  if (ar.failed())
    return false;
  if (!s.isStatic() && !d.isStatic())
    return ar.fail("copy: " + toString(src) + " and " + toString(dst) +
                   " both have dynamic sizes; the atom calls are unrolled, "
                   "so one of them must be static");
  ns = s.isStatic() ? std::optional<int64_t>(s.value()) : std::nullopt;
  nd = d.isStatic() ? std::optional<int64_t>(d.value()) : std::nullopt;
  return true;
}

bool checkOperands(Arith &ar, std::initializer_list<const Layout *> ls,
                   const char *what) {
  if (ar.failed())
    return false;
  for (const Layout *l : ls)
    if (!verifyLayout(ar, *l, std::string(what) + ":"))
      return false;
  return true;
}

IntTuple coordinate(std::initializer_list<IntTuple> modes) {
  return IntTuple::tuple(modes);
}

struct CopyWalk {
  Arith &ar;
  const CopyAtom &atom;
  const std::function<void(const CopyCall &)> &onCall;
  int64_t calls = 0; // the calls made so far (the next call's index)

  // copy(atom, src, dst): loop over all but the first mode.
  bool copy(const OffsetLayout &src, const OffsetLayout &dst) {
    unsigned r = src.layout.rank();
    if (r != dst.layout.rank())
      return ar.fail("copy: source " + toString(src.layout) + " and "
                     "destination " + toString(dst.layout) +
                     " have different ranks");
    if (r == 1)
      return call(src, dst);
    Layout srcGrouped = group(ar, src.layout, 1, r);
    Layout dstGrouped = group(ar, dst.layout, 1, r);
    std::optional<int64_t> ns, nd;
    if (!copySizes(ar, srcGrouped[1], dstGrouped[1], ns, nd))
      return false;
    if (ns && nd && *nd != *ns)
      return ar.fail("copy: source " + toString(src.layout) + " and "
                     "destination " + toString(dst.layout) + " have " +
                     std::to_string(*ns) + " and " + std::to_string(*nd) +
                     " slices");
    int64_t n = ns ? *ns : *nd;
    for (int64_t i = 0; i < n; ++i) {
      IntTuple crd = coordinate({Int::none(), Int(i)});
      if (!call(sliceAt(ar, {srcGrouped, src.offset}, crd),
                sliceAt(ar, {dstGrouped, dst.offset}, crd)))
        return false;
    }
    return true;
  }

  // Copy_Atom::call: one instruction when a side holds the atom's value
  // count, else peel the (nested) value mode.
  bool call(const OffsetLayout &src, const OffsetLayout &dst) {
    std::optional<int64_t> ns, nd;
    if (!copySizes(ar, src.layout, dst.layout, ns, nd))
      return false;
    if ((ns && *ns == atom.numValSrc().value()) ||
        (nd && *nd == atom.numValDst().value())) {
      // A dynamic side holds as many values as the static one: its first
      // n elements.
      if (!ns || !nd) {
        Layout first = makeLayout(ar, IntTuple(Int(ns ? *ns : *nd)));
        OffsetLayout s = ns ? src : OffsetLayout{composition(ar, src.layout, first), src.offset};
        OffsetLayout d = nd ? dst : OffsetLayout{composition(ar, dst.layout, first), dst.offset};
        onCall({s, d, calls++});
      } else {
        onCall({src, dst, calls++});
      }
      return !ar.failed();
    }
    if (src.layout.shape.isTuple() && dst.layout.shape.isTuple())
      return copy({src.layout[0], src.offset}, {dst.layout[0], dst.offset});
    return ar.fail("copy: the slices " + toString(src.layout) + " and " +
                   toString(dst.layout) + " do not split into the atom's " +
                   toString(atom.numValSrc()) + " source and " +
                   toString(atom.numValDst()) + " destination values");
  }
};

struct MmaWalk {
  Arith &ar;
  const MmaAtom &atom;
  const std::function<void(const MmaCall &)> &onCall;
  const std::vector<std::array<int64_t, 3>> &order;

  bool checkValues(const OffsetLayout &t, MmaOperand op, const char *name) {
    auto n = staticSize(ar, t.layout, "gemm");
    if (!n)
      return false;
    const Layout &tv = atomLayoutTV(atom, op);
    int64_t want = size(ar, tv[1]).value();
    if (*n != want)
      return ar.fail(std::string("gemm: the value mode ") + toString(t.layout) +
                     " of " + name + " has " + std::to_string(*n) +
                     " values, the atom takes " + std::to_string(want));
    return true;
  }

  bool checkSize(const Layout &l, int64_t want, const char *what) {
    auto n = staticSize(ar, l, "gemm");
    if (!n)
      return false;
    if (*n != want)
      return ar.fail(std::string("gemm: ") + what + " " + toString(l) +
                     " has " + std::to_string(*n) + " elements, expected " +
                     std::to_string(want));
    return true;
  }

  static OffsetLayout withUnitValue(const OffsetLayout &t) {
    return {prepend(t.layout, Layout(1, 0)), t.offset};
  }

  bool gemm(const OffsetLayout &d, const OffsetLayout &a,
            const OffsetLayout &b, const OffsetLayout &c, int64_t k) {
    unsigned rd = d.layout.rank(), ra = a.layout.rank(),
             rb = b.layout.rank(), rc = c.layout.rank();
    if (rd != rc)
      return ar.fail("gemm: D " + toString(d.layout) + " and C " +
                     toString(c.layout) + " have different ranks");
    if (rd == 1 && ra == 1 && rb == 1)
      return call(d, a, b, c, 0, 0, k);
    if ((rd == 2 && ra == 1 && rb == 1) || (rd == 2 && ra == 2 && rb == 2))
      // (M) x (N) => (M,N) and (M,K) x (N,K) => (M,N): a unit value mode.
      return gemm(withUnitValue(d), withUnitValue(a), withUnitValue(b),
                  withUnitValue(c), k);
    if (rd == 3 && ra == rb && (ra == 2 || ra == 3) && !order.empty())
      return ordered(d, a, b, c);
    if (rd == 3 && ra == 2 && rb == 2)
      return outer(d, a, b, c, k);
    if (rd == 3 && ra == 3 && rb == 3) {
      // (V,M,K) x (V,N,K) => (V,M,N): K outermost.
      auto kn = staticSize(ar, a.layout[2], "gemm");
      if (!kn || !checkSize(b.layout[2], *kn, "the K mode of B"))
        return false;
      for (int64_t kk = 0; kk < *kn; ++kk) {
        IntTuple crd = coordinate({Int::none(), Int::none(), Int(kk)});
        if (!gemm(d, sliceAt(ar, a, crd), sliceAt(ar, b, crd), c, kk))
          return false;
      }
      return true;
    }
    return ar.fail("gemm: no dispatch for D " + toString(d.layout) + ", A " +
                   toString(a.layout) + ", B " + toString(b.layout) +
                   " (ranks " + std::to_string(rd) + ", " +
                   std::to_string(ra) + ", " + std::to_string(rb) + ")");
  }

  // (V,M[,K]) x (V,N[,K]) => (V,M,N), one call per tile of `order`.
  bool ordered(const OffsetLayout &d, const OffsetLayout &a,
               const OffsetLayout &b, const OffsetLayout &c) {
    const bool hasK = a.layout.rank() == 3;
    auto m = staticSize(ar, a.layout[1], "gemm");
    auto n = staticSize(ar, b.layout[1], "gemm");
    std::optional<int64_t> kn = int64_t(1);
    if (hasK)
      kn = staticSize(ar, a.layout[2], "gemm");
    if (!m || !n || !kn ||
        (hasK && !checkSize(b.layout[2], *kn, "the K mode of B")) ||
        !checkSize(c.layout[1], *m, "the M mode of C") ||
        !checkSize(c.layout[2], *n, "the N mode of C") ||
        !checkSize(d.layout[1], *m, "the M mode of D") ||
        !checkSize(d.layout[2], *n, "the N mode of D"))
      return false;
    std::vector<bool> started(size_t(*m * *n), false);
    for (const auto &[mi, ni, ki] : order) {
      if (mi < 0 || mi >= *m || ni < 0 || ni >= *n || ki < 0 || ki >= *kn)
        return ar.fail("gemm: the traversal's tile (" + std::to_string(mi) +
                       ", " + std::to_string(ni) + ", " + std::to_string(ki) +
                       ") is outside the " + std::to_string(*m) + " x " +
                       std::to_string(*n) + " x " + std::to_string(*kn) +
                       " tiles (M, N, K)");
      IntTuple mn = coordinate({Int::none(), Int(mi), Int(ni)});
      IntTuple am = hasK ? coordinate({Int::none(), Int(mi), Int(ki)})
                         : coordinate({Int::none(), Int(mi)});
      IntTuple bn = hasK ? coordinate({Int::none(), Int(ni), Int(ki)})
                         : coordinate({Int::none(), Int(ni)});
      const bool seen = started[size_t(mi * *n + ni)];
      OffsetLayout dTile = sliceAt(ar, d, mn);
      if (!call(dTile, sliceAt(ar, a, am), sliceAt(ar, b, bn),
                seen ? dTile : sliceAt(ar, c, mn), mi, ni, ki, seen))
        return false;
      started[size_t(mi * *n + ni)] = true;
    }
    return true;
  }

  // (V,M) x (V,N) => (V,M,N), row-major serpentine over (M, N).
  bool outer(const OffsetLayout &d, const OffsetLayout &a,
             const OffsetLayout &b, const OffsetLayout &c, int64_t k) {
    auto m = staticSize(ar, a.layout[1], "gemm");
    auto n = staticSize(ar, b.layout[1], "gemm");
    if (!m || !n || !checkSize(c.layout[1], *m, "the M mode of C") ||
        !checkSize(c.layout[2], *n, "the N mode of C") ||
        !checkSize(d.layout[1], *m, "the M mode of D") ||
        !checkSize(d.layout[2], *n, "the N mode of D"))
      return false;
    for (int64_t mi = 0; mi < *m; ++mi)
      for (int64_t j = 0; j < *n; ++j) {
        int64_t ni = (mi & 1) ? *n - 1 - j : j;
        IntTuple mn = coordinate({Int::none(), Int(mi), Int(ni)});
        if (!call(sliceAt(ar, d, mn),
                  sliceAt(ar, a, coordinate({Int::none(), Int(mi)})),
                  sliceAt(ar, b, coordinate({Int::none(), Int(ni)})),
                  sliceAt(ar, c, mn), mi, ni, k))
          return false;
      }
    return true;
  }

  bool call(const OffsetLayout &d, const OffsetLayout &a,
            const OffsetLayout &b, const OffsetLayout &c, int64_t m,
            int64_t n, int64_t k, bool cFromD = false) {
    if (!checkValues(d, MmaOperand::C, "D") ||
        !checkValues(a, MmaOperand::A, "A") ||
        !checkValues(b, MmaOperand::B, "B") ||
        !checkValues(c, MmaOperand::C, "C"))
      return false;
    onCall({d, a, b, c, m, n, k, cFromD});
    return !ar.failed();
  }
};
} // namespace

void forEachCopyCall(Arith &ar, const CopyAtom &atom, const Layout &src,
                     const Layout &dst,
                     const std::function<void(const CopyCall &)> &onCall) {
  if (checkOperands(ar, {&src, &dst}, "copy"))
    CopyWalk{ar, atom, onCall}.copy({src, 0}, {dst, 0});
}

std::vector<CopyCall> copyPlan(Arith &ar, const CopyAtom &atom,
                               const Layout &src, const Layout &dst) {
  std::vector<CopyCall> calls;
  forEachCopyCall(ar, atom, src, dst,
                  [&](const CopyCall &c) { calls.push_back(c); });
  return calls;
}

void forEachMmaCall(Arith &ar, const MmaAtom &atom, const Layout &d,
                    const Layout &a, const Layout &b, const Layout &c,
                    const std::function<void(const MmaCall &)> &onCall,
                    const std::vector<std::array<int64_t, 3>> &order) {
  if (checkOperands(ar, {&d, &a, &b, &c}, "gemm"))
    MmaWalk{ar, atom, onCall, order}.gemm({d, 0}, {a, 0}, {b, 0}, {c, 0}, 0);
}

std::vector<MmaCall> gemmPlan(Arith &ar, const MmaAtom &atom, const Layout &d,
                              const Layout &a, const Layout &b,
                              const Layout &c) {
  std::vector<MmaCall> calls;
  forEachMmaCall(ar, atom, d, a, b, c,
                 [&](const MmaCall &call) { calls.push_back(call); });
  return calls;
}

} // namespace fly::algebra
