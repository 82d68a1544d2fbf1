//===- IntTuple.cpp - Integer tuples of the Fly layout algebra ------------===//

#include "fly/Algebra/IntTuple.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace fly::algebra {

//===----------------------------------------------------------------------===//
// BasisPath, Int, IntTuple
//===----------------------------------------------------------------------===//

BasisPath::BasisPath(llvm::ArrayRef<int> modes) {
  for (int m : modes)
    if (size_ < kMaxDepth)
      modes_[size_++] = int8_t(m);
}

BasisPath BasisPath::appended(int mode) const {
  BasisPath p = *this;
  if (p.size_ < kMaxDepth)
    p.modes_[p.size_++] = int8_t(mode);
  return p;
}

BasisPath BasisPath::prepended(int mode) const {
  BasisPath p;
  p.modes_[0] = int8_t(mode);
  p.size_ = 1;
  for (unsigned i = 0; i < size_ && p.size_ < kMaxDepth; ++i)
    p.modes_[p.size_++] = modes_[i];
  return p;
}

bool BasisPath::operator<(const BasisPath &o) const {
  return std::lexicographical_compare(modes().begin(), modes().end(),
                                      o.modes().begin(), o.modes().end());
}

Int Int::dynamic(int64_t divisibility, bool wide, uint32_t handle) {
  Int i;
  i.kind_ = Kind::Dynamic;
  i.div_ = divisibility > 0 ? divisibility : 1;
  i.wide_ = wide;
  i.handle_ = handle;
  return i;
}

Int Int::none() {
  Int i;
  i.kind_ = Kind::None;
  return i;
}

int64_t Int::divisibility() const {
  switch (kind_) {
  case Kind::Static:
    return value_ < 0 ? -value_ : value_;
  case Kind::Dynamic:
    return div_;
  case Kind::None:
    return 1;
  }
  return 1;
}

Int Int::withHandle(uint32_t h) const {
  Int i = *this;
  i.handle_ = h;
  return i;
}

Int Int::withBasis(BasisPath p) const {
  Int i = *this;
  i.basis_ = p;
  return i;
}

bool Int::sameType(const Int &o) const {
  if (kind_ != o.kind_ || basis_ != o.basis_)
    return false;
  switch (kind_) {
  case Kind::Static:
    return value_ == o.value_;
  case Kind::Dynamic:
    return div_ == o.div_ && wide_ == o.wide_;
  case Kind::None:
    return true;
  }
  return false;
}

IntTuple IntTuple::tuple(std::vector<IntTuple> elems) {
  IntTuple t;
  t.isTuple_ = true;
  t.elems_ = std::move(elems);
  return t;
}

const IntTuple &IntTuple::operator[](unsigned i) const {
  if (!isTuple_)
    return *this;
  return elems_[i];
}

bool IntTuple::sameType(const IntTuple &o) const {
  if (isTuple_ != o.isTuple_)
    return false;
  if (!isTuple_)
    return leaf_.sameType(o.leaf_);
  if (elems_.size() != o.elems_.size())
    return false;
  for (size_t i = 0; i < elems_.size(); ++i)
    if (!elems_[i].sameType(o.elems_[i]))
      return false;
  return true;
}

bool IntTuple::operator==(const IntTuple &o) const {
  if (isTuple_ != o.isTuple_)
    return false;
  if (!isTuple_)
    return leaf_ == o.leaf_;
  return elems_ == o.elems_;
}

llvm::hash_code hash_value(const BasisPath &p) {
  return llvm::hash_combine_range(p.modes().begin(), p.modes().end());
}

llvm::hash_code hash_value(const Int &i) {
  int64_t payload = i.isStatic() ? i.value()
                    : i.isDynamic() ? (i.divisibility() << 1) | i.isWide()
                                    : 0;
  return llvm::hash_combine(uint8_t(i.kind()), payload, i.handle(),
                            hash_value(i.basis()));
}

llvm::hash_code hash_value(const IntTuple &t) {
  if (t.isLeaf())
    return hash_value(t.leaf());
  llvm::hash_code h = llvm::hash_value(t.rank());
  for (const IntTuple &e : t.elems())
    h = llvm::hash_combine(h, hash_value(e));
  return h;
}

std::string toString(const Int &i) {
  std::string s;
  switch (i.kind()) {
  case Int::Kind::Static:
    s = std::to_string(i.value());
    break;
  case Int::Kind::None:
    return "*";
  case Int::Kind::Dynamic: {
    s = "?";
    bool hasDiv = i.divisibility() > 1;
    if (i.isWide() || hasDiv) {
      s += "{";
      if (i.isWide())
        s += "i64";
      if (hasDiv)
        s += std::string(i.isWide() ? " " : "") + "div=" +
             std::to_string(i.divisibility());
      s += "}";
    }
    break;
  }
  }
  for (int8_t m : i.basis().modes())
    s += "E" + std::to_string(int(m));
  return s;
}

std::string toString(const IntTuple &t) {
  if (t.isLeaf())
    return toString(t.leaf());
  std::string s = "(";
  for (unsigned i = 0; i < t.rank(); ++i) {
    if (i)
      s += ",";
    s += toString(t[i]);
  }
  return s + ")";
}

//===----------------------------------------------------------------------===//
// Arith
//===----------------------------------------------------------------------===//

DynamicEmitter::~DynamicEmitter() = default;

namespace {
unsigned trailingZeros(int64_t d) {
  if (d == 0)
    return 63;
  unsigned n = 0;
  while (!(d & 1) && n < 62) {
    d >>= 1;
    ++n;
  }
  return n;
}
int64_t gcd(int64_t a, int64_t b) { return std::gcd(a, b); }
bool anyWide(llvm::ArrayRef<Int> xs) {
  for (const Int &x : xs)
    if (x.isDynamic() && x.isWide())
      return true;
  return false;
}
} // namespace

bool Arith::fail(const std::string &message) {
  if (error_.empty())
    error_ = message;
  return false;
}

Int Arith::dynamicResult(DynOp op, llvm::ArrayRef<Int> operands, int64_t div,
                         bool wide) {
  Int r = Int::dynamic(div, wide);
  if (emitter_ && !failed())
    r = r.withHandle(emitter_->emit(op, operands, r));
  return r;
}

std::optional<bool> Arith::knownEqual(const Int &a, const Int &b) {
  // Only static knowledge: lowering (with handles) must fold exactly what
  // type inference (without handles) folds, so both agree on result types.
  if (a.isStatic() && b.isStatic())
    return a.value() == b.value() && a.basis() == b.basis();
  return std::nullopt;
}

// The basis direction of a sum or difference: a plain zero adds to anything.
static bool combineBasis(Arith &ar, const Int &a, const Int &b,
                         BasisPath &out) {
  if (a.basis() == b.basis()) {
    out = a.basis();
    return true;
  }
  return ar.fail("cannot add " + toString(a) + " and " + toString(b) +
                 ": they lie along different basis modes");
}

Int Arith::add(const Int &a, const Int &b) {
  if (a.isNone() || b.isNone())
    return fail("'*' is not a number"), Int(0);
  if (a.isStaticValue(0))
    return b;
  if (b.isStaticValue(0))
    return a;
  BasisPath p;
  if (!combineBasis(*this, a, b, p))
    return Int(0);
  if (a.isStatic() && b.isStatic()) {
    int64_t r;
    if (__builtin_add_overflow(a.value(), b.value(), &r))
      return fail("integer overflow in " + toString(a) + " + " + toString(b)),
             Int(0);
    return Int(r).withBasis(p);
  }
  return dynamicResult(DynOp::Add, {a.withBasis({}), b.withBasis({})},
                       gcd(a.divisibility(), b.divisibility()),
                       anyWide({a, b}))
      .withBasis(p);
}

Int Arith::sub(const Int &a, const Int &b) {
  if (a.isNone() || b.isNone())
    return fail("'*' is not a number"), Int(0);
  if (b.isStaticValue(0))
    return a;
  if (auto eq = knownEqual(a, b); eq && *eq)
    return Int(0);
  BasisPath p;
  if (a.isStaticValue(0))
    p = b.basis();
  else if (!combineBasis(*this, a, b, p))
    return Int(0);
  if (a.isStatic() && b.isStatic()) {
    int64_t r;
    if (__builtin_sub_overflow(a.value(), b.value(), &r))
      return fail("integer overflow in " + toString(a) + " - " + toString(b)),
             Int(0);
    return Int(r).withBasis(p);
  }
  return dynamicResult(DynOp::Sub, {a.withBasis({}), b.withBasis({})},
                       gcd(a.divisibility(), b.divisibility()),
                       anyWide({a, b}))
      .withBasis(p);
}

Int Arith::mul(const Int &a, const Int &b) {
  if (a.isNone() || b.isNone())
    return fail("'*' is not a number"), Int(0);
  if (a.isBasis() && b.isBasis())
    return fail("cannot multiply two scaled basis elements " + toString(a) +
                " and " + toString(b)),
           Int(0);
  BasisPath p = a.isBasis() ? a.basis() : b.basis();
  if (a.isStaticValue(0) || b.isStaticValue(0) ||
      (a.isStatic() && a.value() == 0) || (b.isStatic() && b.value() == 0))
    return Int(0);
  if (a.isStaticValue(1))
    return b;
  if (b.isStaticValue(1))
    return a;
  if (a.isStatic() && b.isStatic()) {
    int64_t r;
    if (__builtin_mul_overflow(a.value(), b.value(), &r))
      return fail("integer overflow in " + toString(a) + " * " + toString(b)),
             Int(0);
    return Int(r).withBasis(p);
  }
  int64_t div;
  if (__builtin_mul_overflow(a.divisibility(), b.divisibility(), &div))
    div = 1;
  return dynamicResult(DynOp::Mul, {a.withBasis({}), b.withBasis({})}, div,
                       anyWide({a, b}))
      .withBasis(p);
}

Int Arith::div(const Int &a, const Int &b) {
  if (a.isNone() || b.isNone())
    return fail("'*' is not a number"), Int(0);
  if (b.isBasis())
    return fail("cannot divide by a scaled basis element " + toString(b)),
           Int(0);
  if (b.isStatic() && b.value() == 0)
    return fail("division by zero"), Int(0);
  if (b.isStaticValue(1) || (a.isStatic() && a.value() == 0))
    return a;
  if (a.isStatic() && b.isStatic()) {
    if (a.value() == INT64_MIN && b.value() == -1)
      return fail("integer overflow in " + toString(a) + " / -1"), Int(0);
    return Int(a.value() / b.value()).withBasis(a.basis());
  }
  if (auto eq = knownEqual(a, b); eq && *eq)
    return Int(1);
  int64_t div = 1;
  if (b.isStatic() && a.divisibility() % b.value() == 0)
    div = std::abs(a.divisibility() / b.value());
  return dynamicResult(DynOp::Div, {a.withBasis({}), b}, div, anyWide({a, b}))
      .withBasis(a.basis());
}

Int Arith::mod(const Int &a, const Int &b) {
  if (a.isNone() || b.isNone())
    return fail("'*' is not a number"), Int(0);
  if (a.isBasis() || b.isBasis())
    return fail("modulo of a scaled basis element"), Int(0);
  if (b.isStatic() && b.value() == 0)
    return fail("modulo by zero"), Int(0);
  if (b.isStaticValue(1) || (a.isStatic() && a.value() == 0))
    return Int(0);
  if (a.isStatic() && b.isStatic())
    return Int(b.value() == -1 ? 0 : a.value() % b.value());
  if (b.isStatic() && a.divisibility() % b.value() == 0)
    return Int(0);
  return dynamicResult(DynOp::Mod, {a, b},
                       gcd(a.divisibility(), b.divisibility()),
                       anyWide({a, b}));
}

Int Arith::ceilDiv(const Int &a, const Int &b) {
  if (a.isNone() || b.isNone())
    return fail("'*' is not a number"), Int(0);
  if (a.isBasis() || b.isBasis())
    return fail("ceil_div of a scaled basis element"), Int(0);
  if (b.isStatic() && b.value() == 0)
    return fail("division by zero"), Int(0);
  if (b.isStaticValue(1) || (a.isStatic() && a.value() == 0))
    return a;
  if (a.isStatic() && b.isStatic()) {
    if (a.value() == INT64_MIN && b.value() == -1)
      return fail("integer overflow in ceil_div(" + toString(a) + ", -1)"),
             Int(0);
    int64_t q = a.value() / b.value();
    if (a.value() % b.value() != 0 && ((a.value() > 0) == (b.value() > 0)))
      ++q;
    return Int(q);
  }
  if (b.isStatic() && a.divisibility() % b.value() == 0)
    return div(a, b);
  if (auto eq = knownEqual(a, b); eq && *eq)
    return Int(1);
  return dynamicResult(DynOp::CeilDiv, {a, b}, 1, anyWide({a, b}));
}

Int Arith::min(const Int &a, const Int &b) {
  if (a.isBasis() || b.isBasis())
    return fail("min of a scaled basis element"), Int(0);
  if (a.isStatic() && b.isStatic())
    return Int(std::min(a.value(), b.value()));
  if (auto eq = knownEqual(a, b); eq && *eq)
    return a;
  return dynamicResult(DynOp::Min, {a, b},
                       gcd(a.divisibility(), b.divisibility()),
                       anyWide({a, b}));
}

Int Arith::max(const Int &a, const Int &b) {
  if (a.isBasis() || b.isBasis())
    return fail("max of a scaled basis element"), Int(0);
  if (a.isStatic() && b.isStatic())
    return Int(std::max(a.value(), b.value()));
  if (auto eq = knownEqual(a, b); eq && *eq)
    return a;
  return dynamicResult(DynOp::Max, {a, b},
                       gcd(a.divisibility(), b.divisibility()),
                       anyWide({a, b}));
}

Int Arith::eq(const Int &a, const Int &b) {
  if (auto k = knownEqual(a, b))
    return Int(*k ? 1 : 0);
  if (a.basis() != b.basis())
    return Int(0);
  return dynamicResult(DynOp::Eq, {a.withBasis({}), b.withBasis({})}, 1,
                       false);
}

Int Arith::lt(const Int &a, const Int &b) {
  if (a.basis() != b.basis())
    return fail("cannot compare " + toString(a) + " with " + toString(b)),
           Int(0);
  if (a.isStatic() && b.isStatic())
    return Int(a.value() < b.value() ? 1 : 0);
  if (auto eq = knownEqual(a, b); eq && *eq)
    return Int(0);
  return dynamicResult(DynOp::Lt, {a.withBasis({}), b.withBasis({})}, 1,
                       false);
}

Int Arith::select(const Int &cond, const Int &a, const Int &b) {
  if (cond.isStatic())
    return cond.value() != 0 ? a : b;
  if (auto eq = knownEqual(a, b); eq && *eq)
    return a;
  if (a.basis() != b.basis())
    return fail("select between different basis modes"), Int(0);
  return dynamicResult(DynOp::Select,
                       {cond, a.withBasis({}), b.withBasis({})},
                       gcd(a.divisibility(), b.divisibility()),
                       anyWide({a, b}))
      .withBasis(a.basis());
}

Int Arith::bitAnd(const Int &a, const Int &b) {
  if (a.isStatic() && b.isStatic())
    return Int(a.value() & b.value());
  if (a.isStaticValue(0) || b.isStaticValue(0))
    return Int(0);
  unsigned tz = std::max(trailingZeros(a.divisibility()),
                         trailingZeros(b.divisibility()));
  return dynamicResult(DynOp::And, {a, b}, int64_t(1) << std::min(tz, 30u),
                       anyWide({a, b}));
}

Int Arith::bitXor(const Int &a, const Int &b) {
  if (a.isStatic() && b.isStatic())
    return Int(a.value() ^ b.value());
  if (a.isStaticValue(0))
    return b;
  if (b.isStaticValue(0))
    return a;
  unsigned tz = std::min(trailingZeros(a.divisibility()),
                         trailingZeros(b.divisibility()));
  return dynamicResult(DynOp::Xor, {a, b}, int64_t(1) << std::min(tz, 30u),
                       anyWide({a, b}));
}

Int Arith::shiftRight(const Int &a, int s) {
  if (s == 0)
    return a;
  if (a.isStatic())
    return Int(s > 0 ? int64_t(uint64_t(a.value()) >> s)
                     : int64_t(uint64_t(a.value()) << -s));
  unsigned tz = trailingZeros(a.divisibility());
  tz = s > 0 ? (tz > unsigned(s) ? tz - s : 0) : tz + unsigned(-s);
  return dynamicResult(s > 0 ? DynOp::ShrU : DynOp::Shl,
                       {a, Int(int64_t(s > 0 ? s : -s))},
                       int64_t(1) << std::min(tz, 30u), anyWide({a}));
}

//===----------------------------------------------------------------------===//
// Tuple functions
//===----------------------------------------------------------------------===//

static void collectLeaves(const IntTuple &t, std::vector<Int> &out) {
  if (t.isLeaf()) {
    out.push_back(t.leaf());
    return;
  }
  for (const IntTuple &e : t.elems())
    collectLeaves(e, out);
}

std::vector<Int> leaves(const IntTuple &t) {
  std::vector<Int> out;
  collectLeaves(t, out);
  return out;
}

IntTuple flatten(const IntTuple &t) {
  if (t.isLeaf())
    return t;
  std::vector<IntTuple> out;
  for (const Int &l : leaves(t))
    out.emplace_back(l);
  return IntTuple::tuple(std::move(out));
}

unsigned depth(const IntTuple &t) {
  if (t.isLeaf())
    return 0;
  unsigned d = 0;
  for (const IntTuple &e : t.elems())
    d = std::max(d, depth(e));
  return d + 1;
}

bool hasNone(const IntTuple &t) {
  for (const Int &l : leaves(t))
    if (l.isNone())
      return true;
  return false;
}

bool isStatic(const IntTuple &t) {
  for (const Int &l : leaves(t))
    if (l.isDynamic())
      return false;
  return true;
}

bool congruent(const IntTuple &a, const IntTuple &b) {
  if (a.isLeaf() || b.isLeaf())
    return a.isLeaf() && b.isLeaf();
  if (a.rank() != b.rank())
    return false;
  for (unsigned i = 0; i < a.rank(); ++i)
    if (!congruent(a[i], b[i]))
      return false;
  return true;
}

bool weaklyCongruent(const IntTuple &a, const IntTuple &b) {
  if (a.isLeaf())
    return true;
  if (b.isLeaf() || a.rank() != b.rank())
    return false;
  for (unsigned i = 0; i < a.rank(); ++i)
    if (!weaklyCongruent(a[i], b[i]))
      return false;
  return true;
}

static bool checkModeIndex(Arith &ar, const IntTuple &t, int64_t i) {
  if (i < 0 || i >= int64_t(t.rank()))
    return ar.fail("mode index " + std::to_string(i) +
                   " is out of range for " + toString(t) + " of rank " +
                   std::to_string(t.rank()));
  return true;
}

IntTuple getMode(Arith &ar, const IntTuple &t, llvm::ArrayRef<int64_t> path) {
  const IntTuple *cur = &t;
  for (int64_t i : path) {
    if (!checkModeIndex(ar, *cur, i))
      return IntTuple(0);
    cur = &(*cur)[unsigned(i)];
  }
  return *cur;
}

static bool checkRange(Arith &ar, const IntTuple &t, int64_t begin,
                       int64_t end) {
  if (begin < 0 || end < begin || end > int64_t(t.rank()))
    return ar.fail("mode range [" + std::to_string(begin) + ", " +
                   std::to_string(end) + ") is invalid for " + toString(t) +
                   " of rank " + std::to_string(t.rank()));
  return true;
}

IntTuple take(Arith &ar, const IntTuple &t, int64_t begin, int64_t end) {
  if (!checkRange(ar, t, begin, end))
    return IntTuple(0);
  std::vector<IntTuple> out;
  for (int64_t i = begin; i < end; ++i)
    out.push_back(t[unsigned(i)]);
  return IntTuple::tuple(std::move(out));
}

IntTuple select(Arith &ar, const IntTuple &t, llvm::ArrayRef<int64_t> modes) {
  std::vector<IntTuple> out;
  for (int64_t i : modes) {
    if (!checkModeIndex(ar, t, i))
      return IntTuple(0);
    out.push_back(t[unsigned(i)]);
  }
  return IntTuple::tuple(std::move(out));
}

IntTuple group(Arith &ar, const IntTuple &t, int64_t begin, int64_t end) {
  if (!checkRange(ar, t, begin, end))
    return IntTuple(0);
  std::vector<IntTuple> out, grouped;
  for (int64_t i = 0; i < begin; ++i)
    out.push_back(t[unsigned(i)]);
  for (int64_t i = begin; i < end; ++i)
    grouped.push_back(t[unsigned(i)]);
  out.push_back(IntTuple::tuple(std::move(grouped)));
  for (int64_t i = end; i < int64_t(t.rank()); ++i)
    out.push_back(t[unsigned(i)]);
  return IntTuple::tuple(std::move(out));
}

IntTuple append(const IntTuple &t, const IntTuple &x) {
  std::vector<IntTuple> out;
  if (t.isTuple())
    out = t.elems();
  else
    out.push_back(t);
  out.push_back(x);
  return IntTuple::tuple(std::move(out));
}

IntTuple prepend(const IntTuple &t, const IntTuple &x) {
  std::vector<IntTuple> out{x};
  if (t.isTuple())
    out.insert(out.end(), t.elems().begin(), t.elems().end());
  else
    out.push_back(t);
  return IntTuple::tuple(std::move(out));
}

// Slice and dice share one walk: `keepNone` keeps the modes under `*`.
static bool sliceWalk(Arith &ar, const IntTuple &crd, const IntTuple &t,
                      bool keepNone, std::vector<IntTuple> &out) {
  if (crd.isTuple()) {
    if (t.isLeaf() || t.rank() != crd.rank())
      return ar.fail("coordinate " + toString(crd) +
                     " does not match the modes of " + toString(t));
    for (unsigned i = 0; i < crd.rank(); ++i)
      if (!sliceWalk(ar, crd[i], t[i], keepNone, out))
        return false;
    return true;
  }
  if (crd.leaf().isNone() == keepNone)
    out.push_back(t);
  return true;
}

static IntTuple sliceOrDice(Arith &ar, const IntTuple &crd, const IntTuple &t,
                            bool keepNone) {
  if (crd.isLeaf())
    return crd.leaf().isNone() == keepNone ? t : IntTuple::tuple({});
  std::vector<IntTuple> out;
  if (!sliceWalk(ar, crd, t, keepNone, out))
    return IntTuple(0);
  return IntTuple::tuple(std::move(out));
}

IntTuple slice(Arith &ar, const IntTuple &crd, const IntTuple &t) {
  return sliceOrDice(ar, crd, t, /*keepNone=*/true);
}

IntTuple dice(Arith &ar, const IntTuple &crd, const IntTuple &t) {
  return sliceOrDice(ar, crd, t, /*keepNone=*/false);
}

IntTuple unwrap(const IntTuple &t) {
  return t.isTuple() && t.rank() == 1 ? unwrap(t[0]) : t;
}

Int product(Arith &ar, const IntTuple &t) {
  if (t.isLeaf())
    return t.leaf();
  Int p(1);
  for (const IntTuple &e : t.elems())
    p = ar.mul(p, product(ar, e));
  return p;
}

IntTuple productEach(Arith &ar, const IntTuple &t) {
  if (t.isLeaf())
    return t;
  std::vector<IntTuple> out;
  for (const IntTuple &e : t.elems())
    out.emplace_back(product(ar, e));
  return IntTuple::tuple(std::move(out));
}

Int sum(Arith &ar, const IntTuple &t) {
  if (t.isLeaf())
    return t.leaf();
  Int s(0);
  for (const IntTuple &e : t.elems())
    s = ar.add(s, sum(ar, e));
  return s;
}

static Int applyElem(Arith &ar, ElemOp op, const Int &a, const Int &b) {
  switch (op) {
  case ElemOp::Add:
    return ar.add(a, b);
  case ElemOp::Sub:
    return ar.sub(a, b);
  case ElemOp::Mul:
    return ar.mul(a, b);
  case ElemOp::Div:
    return ar.div(a, b);
  case ElemOp::Mod:
    return ar.mod(a, b);
  case ElemOp::Min:
    return ar.min(a, b);
  case ElemOp::Max:
    return ar.max(a, b);
  }
  return Int(0);
}

IntTuple elementwise(Arith &ar, ElemOp op, const IntTuple &a,
                     const IntTuple &b) {
  if (a.isLeaf() && b.isLeaf())
    return applyElem(ar, op, a.leaf(), b.leaf());
  if (a.isTuple() && b.isTuple() && a.rank() != b.rank()) {
    ar.fail("tuples " + toString(a) + " and " + toString(b) +
            " have different ranks");
    return IntTuple(0);
  }
  unsigned r = a.isTuple() ? a.rank() : b.rank();
  std::vector<IntTuple> out;
  for (unsigned i = 0; i < r; ++i)
    out.push_back(elementwise(ar, op, a[i], b[i]));
  return IntTuple::tuple(std::move(out));
}

IntTuple ceilDiv(Arith &ar, const IntTuple &a, const IntTuple &b) {
  if (a.isTuple()) {
    std::vector<IntTuple> out;
    if (b.isTuple()) {
      if (a.rank() < b.rank()) {
        ar.fail("ceil_div: " + toString(a) + " has fewer modes than " +
                toString(b));
        return IntTuple(0);
      }
      for (unsigned i = 0; i < a.rank(); ++i)
        out.push_back(i < b.rank() ? ceilDiv(ar, a[i], b[i]) : a[i]);
      return IntTuple::tuple(std::move(out));
    }
    // Divide the modes in turn, carrying what is left of the divisor.
    IntTuple rest = b;
    for (const IntTuple &ai : a.elems()) {
      out.push_back(ceilDiv(ar, ai, rest));
      rest = ceilDiv(ar, rest, IntTuple(product(ar, ai)));
    }
    return IntTuple::tuple(std::move(out));
  }
  if (b.isTuple())
    return ceilDiv(ar, a, IntTuple(product(ar, b)));
  return ar.ceilDiv(a.leaf(), b.leaf());
}

IntTuple shapeDiv(Arith &ar, const IntTuple &a, const IntTuple &b) {
  if (a.isTuple()) {
    std::vector<IntTuple> out;
    if (b.isTuple()) {
      if (a.rank() != b.rank()) {
        ar.fail("shape_div: " + toString(a) + " and " + toString(b) +
                " have different ranks");
        return IntTuple(0);
      }
      for (unsigned i = 0; i < a.rank(); ++i)
        out.push_back(shapeDiv(ar, a[i], b[i]));
      return IntTuple::tuple(std::move(out));
    }
    IntTuple rest = b;
    for (const IntTuple &ai : a.elems()) {
      out.push_back(shapeDiv(ar, ai, rest));
      rest = shapeDiv(ar, rest, IntTuple(product(ar, ai)));
    }
    return IntTuple::tuple(std::move(out));
  }
  if (b.isTuple())
    return shapeDiv(ar, a, IntTuple(product(ar, b)));
  const Int &x = a.leaf(), &y = b.leaf();
  if (x.isStatic() && y.isStatic() && y.value() != 0 && x.value() != 0 &&
      x.value() % y.value() != 0 && y.value() % x.value() != 0) {
    ar.fail("shape_div: neither of " + toString(x) + " and " + toString(y) +
            " divides the other");
    return IntTuple(0);
  }
  return ar.ceilDiv(x, y);
}

IntTuple prefixProduct(Arith &ar, const IntTuple &a, const Int &init) {
  if (a.isLeaf())
    return init;
  std::vector<IntTuple> out;
  Int cur = init;
  for (unsigned i = 0; i < a.rank(); ++i) {
    out.push_back(prefixProduct(ar, a[i], cur));
    if (i + 1 < a.rank()) // the total is not part of the result
      cur = ar.mul(cur, product(ar, a[i]));
  }
  return IntTuple::tuple(std::move(out));
}

Int elemLess(Arith &ar, const IntTuple &a, const IntTuple &b) {
  if (a.isLeaf() && b.isLeaf())
    return ar.lt(a.leaf(), b.leaf());
  if (a.isLeaf() || b.isLeaf() || a.rank() > b.rank()) {
    ar.fail("elem_less: " + toString(a) + " is not comparable with " +
            toString(b));
    return Int(0);
  }
  Int all(1);
  for (unsigned i = 0; i < a.rank(); ++i)
    all = ar.mul(all, elemLess(ar, a[i], b[i]));
  return all;
}

Int equal(Arith &ar, const IntTuple &a, const IntTuple &b) {
  if (a.isLeaf() && b.isLeaf())
    return ar.eq(a.leaf(), b.leaf());
  if (!congruent(a, b))
    return Int(0);
  Int all(1);
  for (unsigned i = 0; i < a.rank(); ++i)
    all = ar.mul(all, equal(ar, a[i], b[i]));
  return all;
}

//===----------------------------------------------------------------------===//
// crd2idx / idx2crd
//===----------------------------------------------------------------------===//

namespace {
/// A sum of terms along basis directions (the empty path is the plain
/// integer part).
struct IndexSum {
  std::map<BasisPath, Int> terms;

  void add(Arith &ar, const Int &term) {
    // A zero along a basis direction still names a coordinate mode.
    if (term.isStatic() && term.value() == 0 && !term.isBasis())
      return;
    auto it = terms.find(term.basis());
    if (it == terms.end())
      terms.emplace(term.basis(), term);
    else
      it->second = ar.add(it->second, term);
  }

  // Place `v` at `path` inside a nested tuple, growing it with zeros.
  static void place(IntTuple &t, llvm::ArrayRef<int8_t> path, const Int &v) {
    if (path.empty()) {
      t = IntTuple(v);
      return;
    }
    if (t.isLeaf())
      t = IntTuple::tuple({});
    auto &elems = t.elems();
    while (elems.size() <= size_t(path[0]))
      elems.emplace_back(Int(0));
    place(elems[path[0]], path.drop_front(), v);
  }

  IntTuple result(Arith &ar) const {
    auto plain = terms.find(BasisPath());
    if (terms.size() <= 1 && (terms.empty() || plain != terms.end()))
      return IntTuple(terms.empty() ? Int(0) : plain->second);
    if (plain != terms.end()) {
      ar.fail("cannot add the integer " + toString(plain->second) +
              " to a coordinate of scaled basis elements");
      return IntTuple(0);
    }
    IntTuple t = IntTuple::tuple({});
    for (const auto &[path, v] : terms)
      place(t, path.modes(), v.withBasis({}));
    return t;
  }
};
} // namespace

static void crd2idxInto(Arith &ar, const IntTuple &crd, const IntTuple &shape,
                        const IntTuple &stride, IndexSum &acc) {
  if (crd.isTuple()) {
    if (shape.isLeaf() || crd.rank() != shape.rank()) {
      ar.fail("coordinate " + toString(crd) + " is not compatible with shape " +
              toString(shape));
      return;
    }
    for (unsigned i = 0; i < crd.rank(); ++i)
      crd2idxInto(ar, crd[i], shape[i], stride[i], acc);
    return;
  }
  Int c = crd.leaf().isNone() ? Int(0) : crd.leaf();
  if (shape.isTuple()) {
    // A 1-D index into a tuple shape: split it colexicographically.
    for (unsigned i = 0; i + 1 < shape.rank(); ++i) {
      Int si = product(ar, shape[i]);
      crd2idxInto(ar, IntTuple(ar.mod(c, si)), shape[i], stride[i], acc);
      c = ar.div(c, si);
    }
    if (shape.rank() > 0)
      crd2idxInto(ar, IntTuple(c), shape[shape.rank() - 1],
                  stride[shape.rank() - 1], acc);
    return;
  }
  const Int &d = stride.leaf();
  Int term = ar.mul(c, d);
  if (d.isBasis() && !term.isBasis()) // c is 0: keep the direction
    term = Int(0).withBasis(d.basis());
  acc.add(ar, term);
}

IntTuple crd2idx(Arith &ar, const IntTuple &crd, const IntTuple &shape,
                 const IntTuple &stride) {
  if (!congruent(shape, stride)) {
    ar.fail("shape " + toString(shape) + " and stride " + toString(stride) +
            " are not congruent");
    return IntTuple(0);
  }
  IndexSum acc;
  crd2idxInto(ar, crd, shape, stride, acc);
  return acc.result(ar);
}

IntTuple crd2idx(Arith &ar, const IntTuple &crd, const IntTuple &shape) {
  return crd2idx(ar, crd, shape, prefixProduct(ar, shape));
}

IntTuple idx2crd(Arith &ar, const IntTuple &idx, const IntTuple &shape,
                 const IntTuple &stride) {
  if (idx.isTuple()) {
    if (shape.isLeaf() || idx.rank() != shape.rank()) {
      ar.fail("index " + toString(idx) + " is not compatible with shape " +
              toString(shape));
      return IntTuple(0);
    }
    std::vector<IntTuple> out;
    for (unsigned i = 0; i < idx.rank(); ++i)
      out.push_back(idx2crd(ar, idx[i], shape[i], stride[i]));
    return IntTuple::tuple(std::move(out));
  }
  if (shape.isTuple()) {
    std::vector<IntTuple> out;
    for (unsigned i = 0; i < shape.rank(); ++i)
      out.push_back(idx2crd(ar, idx, shape[i], stride[i]));
    return IntTuple::tuple(std::move(out));
  }
  return ar.mod(ar.div(idx.leaf(), stride.leaf()), shape.leaf());
}

IntTuple idx2crd(Arith &ar, const IntTuple &idx, const IntTuple &shape) {
  return idx2crd(ar, idx, shape, prefixProduct(ar, shape));
}

static IntTuple basisLike(const IntTuple &shape, const BasisPath &path) {
  if (shape.isLeaf())
    return IntTuple(Int(1).withBasis(path));
  std::vector<IntTuple> out;
  for (unsigned i = 0; i < shape.rank(); ++i)
    out.push_back(basisLike(shape[i], path.appended(int(i))));
  return IntTuple::tuple(std::move(out));
}

IntTuple makeBasisLike(const IntTuple &shape) {
  if (shape.isLeaf())
    return IntTuple(Int(1).withBasis(BasisPath().appended(0)));
  return basisLike(shape, BasisPath());
}

} // namespace fly::algebra
