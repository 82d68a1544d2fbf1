//===- fly-algebra-query.cpp - Query the partitioning algebra from tests --===//
//
// Test scaffolding: reads one query per line on stdin and prints one answer
// line per query on stdout, so pytest can compare the C++ algebra of atoms,
// tiled copies and tiled MMAs against a Python reference before bindings
// exist. A query is an op name and `key=value` words; values are written in
// the type syntax of SPEC §2 (`(4,8):(1,4)`, `[32|(4,2):(2,1)|*]`). An answer
// is `ok key=value ...` or `error: message`.
//
// Objects the ops use, built from keys of the same query:
//   copy atom   copy_bits=N (UniversalCopy<N>), or copy_thr= copy_src=
//               copy_dst= copy_ref= (bit layouts); value_bits=B
//   tiled copy  thr= val= | tv= tiler= | from=A|B|C (plus a tiled MMA)
//   MMA atom    mma=fma | mma_shape=(M,N,K) mma_thr= mma_a= mma_b= mma_c=
//   tiled MMA   atom_layout= [perm=]
//   thread      thr_idx=N | all | ?   (`?`: a dynamic index `t`; answers
//               carry the offset and the flat strides as Python
//               expressions of t and the s<k>)
// Ops: layout_tv, copy_info, tidfrg, copy_partition, retile, mma_info,
// mma_layout_tv, thrfrg, mma_partition, make_fragment, fragment_like,
// copy_plan, gemm_plan. `?` leaves in layouts are dynamic values named
// s1, s2, ... in expressions.
//
//===----------------------------------------------------------------------===//

#include "fly/Algebra/AtomPlan.h"
#include "fly/Algebra/TiledCopy.h"

#include <iostream>
#include <map>
#include <sstream>

using namespace fly::algebra;

namespace {

/// Records dynamic arithmetic as Python expressions, one per handle.
class ExprEmitter : public DynamicEmitter {
public:
  ExprEmitter() : exprs_{"<none>"} {}

  Int variable(const std::string &name, int64_t div = 1) {
    exprs_.push_back(name);
    return Int::dynamic(div, false, uint32_t(exprs_.size() - 1));
  }
  std::string expr(const Int &i) const {
    if (i.isStatic())
      return std::to_string(i.value());
    if (i.isDynamic() && i.handle() != 0 && i.handle() < exprs_.size())
      return exprs_[i.handle()];
    return "<unknown>";
  }

  uint32_t emit(DynOp op, llvm::ArrayRef<Int> xs, const Int &) override {
    auto e = [&](unsigned k) { return expr(xs[k]); };
    std::string s;
    switch (op) {
    case DynOp::Add: s = "(" + e(0) + "+" + e(1) + ")"; break;
    case DynOp::Sub: s = "(" + e(0) + "-" + e(1) + ")"; break;
    case DynOp::Mul: s = "(" + e(0) + "*" + e(1) + ")"; break;
    case DynOp::Div: s = "(" + e(0) + "//" + e(1) + ")"; break;
    case DynOp::Mod: s = "(" + e(0) + "%" + e(1) + ")"; break;
    case DynOp::CeilDiv: s = "(-((-" + e(0) + ")//" + e(1) + "))"; break;
    case DynOp::Min: s = "min(" + e(0) + "," + e(1) + ")"; break;
    case DynOp::Max: s = "max(" + e(0) + "," + e(1) + ")"; break;
    case DynOp::Eq: s = "int(" + e(0) + "==" + e(1) + ")"; break;
    case DynOp::Ne: s = "int(" + e(0) + "!=" + e(1) + ")"; break;
    case DynOp::Lt: s = "int(" + e(0) + "<" + e(1) + ")"; break;
    case DynOp::Le: s = "int(" + e(0) + "<=" + e(1) + ")"; break;
    case DynOp::Select:
      s = "(" + e(1) + "if(" + e(0) + ")else(" + e(2) + "))";
      break;
    case DynOp::And: s = "(" + e(0) + "&" + e(1) + ")"; break;
    case DynOp::Or: s = "(" + e(0) + "|" + e(1) + ")"; break;
    case DynOp::Xor: s = "(" + e(0) + "^" + e(1) + ")"; break;
    case DynOp::ShrU: s = "(" + e(0) + ">>" + e(1) + ")"; break;
    case DynOp::Shl: s = "(" + e(0) + "<<" + e(1) + ")"; break;
    }
    exprs_.push_back(s);
    return uint32_t(exprs_.size() - 1);
  }

private:
  std::vector<std::string> exprs_;
};

/// Recursive descent over the value texts; `?` leaves become variables.
class Parser {
public:
  Parser(const std::string &text, ExprEmitter &em, int &nextVar)
      : s_(text), em_(em), nextVar_(nextVar) {}

  bool atEnd() const { return pos_ == s_.size(); }
  bool ok() const { return error_.empty(); }
  const std::string &error() const { return error_; }

  IntTuple tuple() {
    if (accept('(')) {
      std::vector<IntTuple> elems;
      if (!accept(')')) {
        do
          elems.push_back(tuple());
        while (ok() && accept(','));
        expect(')');
      }
      return IntTuple::tuple(std::move(elems));
    }
    return leaf();
  }

  Layout layout() {
    IntTuple shape = tuple();
    expect(':');
    IntTuple stride = tuple();
    return Layout(shape, stride);
  }

  Tile tile() { return Tile{modes()}; }

private:
  std::vector<Tile::Mode> modes() {
    std::vector<Tile::Mode> out;
    expect('[');
    do {
      Tile::Mode m;
      if (peek('[')) {
        m.kind = Tile::Mode::Kind::Nested;
        m.nested = modes();
      } else if (accept('*')) {
        m.kind = Tile::Mode::Kind::Keep;
      } else {
        m.kind = Tile::Mode::Kind::Layout;
        IntTuple shape = tuple();
        m.layout = accept(':') ? Layout(shape, tuple()) : Layout(shape, 1);
      }
      out.push_back(std::move(m));
    } while (ok() && accept('|'));
    expect(']');
    return out;
  }

  Int leaf() {
    if (accept('*'))
      return Int::none();
    if (accept('?'))
      return em_.variable("s" + std::to_string(nextVar_++));
    size_t start = pos_;
    if (pos_ < s_.size() && s_[pos_] == '-')
      ++pos_;
    while (pos_ < s_.size() && isdigit((unsigned char)s_[pos_]))
      ++pos_;
    if (start == pos_ || (pos_ == start + 1 && s_[start] == '-')) {
      fail("expected an integer");
      return Int(0);
    }
    return Int(std::stoll(s_.substr(start, pos_ - start)));
  }

  bool peek(char c) const { return pos_ < s_.size() && s_[pos_] == c; }
  bool accept(char c) {
    if (!ok() || !peek(c))
      return false;
    ++pos_;
    return true;
  }
  void expect(char c) {
    if (!accept(c))
      fail(std::string("expected '") + c + "'");
  }
  void fail(const std::string &m) {
    if (error_.empty())
      error_ = m + " at column " + std::to_string(pos_ + 1) + " of '" + s_ +
               "'";
  }

  const std::string &s_;
  size_t pos_ = 0;
  ExprEmitter &em_;
  int &nextVar_;
  std::string error_;
};

class Query {
public:
  Query(const std::string &line) : ar_(&em_) {
    std::istringstream in(line);
    in >> op_;
    std::string word;
    while (in >> word) {
      size_t eq = word.find('=');
      if (eq == std::string::npos)
        bad("expected key=value, got '" + word + "'");
      else
        keys_[word.substr(0, eq)] = word.substr(eq + 1);
    }
  }

  std::string run();

private:
  /// A malformed query (not an algebra error, which the Arith records):
  /// the first one is reported.
  void bad(const std::string &message) {
    if (queryError_.empty())
      queryError_ = message;
  }
  bool has(const std::string &k) const { return keys_.count(k) != 0; }
  const std::string &get(const std::string &k) {
    static const std::string empty;
    auto it = keys_.find(k);
    if (it == keys_.end()) {
      bad("missing key '" + k + "'");
      return empty;
    }
    return it->second;
  }
  template <typename T, typename F> T parse(const std::string &k, F f) {
    const std::string &text = get(k);
    Parser p(text, em_, nextVar_);
    T v = (p.*f)();
    if (p.ok() && !p.atEnd())
      bad("trailing text in " + k + "=" + text);
    if (!p.ok())
      bad(p.error());
    return p.ok() ? v : T();
  }
  Layout layout(const std::string &k) { return parse<Layout>(k, &Parser::layout); }
  IntTuple tuple(const std::string &k) { return parse<IntTuple>(k, &Parser::tuple); }
  Tile tile(const std::string &k) { return parse<Tile>(k, &Parser::tile); }
  int64_t integer(const std::string &k) {
    IntTuple t = tuple(k);
    if (!t.isLeaf() || !t.leaf().isStatic()) {
      bad("key " + k + " must be an integer");
      return 0;
    }
    return t.leaf().value();
  }

  CopyAtom copyAtom();
  TiledCopy tiledCopy();
  MmaAtom mmaAtom();
  TiledMma tiledMma();
  MmaOperand operand(const std::string &k);
  CopySide side();
  std::string threads(const std::function<OffsetLayout(const Int &)> &part);
  std::string offsetLayout(const OffsetLayout &o) {
    return toString(o.layout) + "@" + toString(o.offset);
  }

  ExprEmitter em_;
  Arith ar_;
  int nextVar_ = 1;
  std::string op_;
  std::map<std::string, std::string> keys_;
  std::string queryError_;
};

CopyAtom Query::copyAtom() {
  CopyTraits traits;
  if (has("copy_src"))
    traits = {layout("copy_thr"), layout("copy_src"), layout("copy_dst"),
              layout("copy_ref")};
  else
    traits = universalCopyTraits(ar_, integer("copy_bits"));
  return makeCopyAtom(ar_, traits, integer("value_bits"));
}

TiledCopy Query::tiledCopy() {
  CopyAtom atom = copyAtom();
  if (has("from"))
    return makeTiledCopyFor(ar_, atom, tiledMma(), operand("from"));
  if (has("tv"))
    return makeTiledCopy(ar_, atom, layout("tv"), tile("tiler"));
  return makeTiledCopyTV(ar_, atom, layout("thr"), layout("val"));
}

MmaAtom Query::mmaAtom() {
  if (has("mma")) {
    if (get("mma") != "fma")
      bad("unknown mma atom '" + get("mma") + "'");
    return universalFMA(ar_);
  }
  return makeMmaAtom(ar_, tuple("mma_shape"), layout("mma_thr"),
                     layout("mma_a"), layout("mma_b"), layout("mma_c"));
}

TiledMma Query::tiledMma() {
  MmaAtom atom = mmaAtom();
  Layout atomLayout = has("atom_layout") ? layout("atom_layout") : Layout(1, 0);
  if (!has("perm"))
    return makeTiledMma(ar_, atom, atomLayout);
  Tile perm = tile("perm");
  return makeTiledMma(ar_, atom, atomLayout, &perm);
}

MmaOperand Query::operand(const std::string &k) {
  const std::string &v = get(k);
  if (v == "A")
    return MmaOperand::A;
  if (v == "B")
    return MmaOperand::B;
  if (v == "C")
    return MmaOperand::C;
  bad("operand must be A, B or C, not '" + v + "'");
  return MmaOperand::A;
}

CopySide Query::side() {
  const std::string &v = get("side");
  if (v == "S")
    return CopySide::Src;
  if (v == "D")
    return CopySide::Dst;
  bad("side must be S or D, not '" + v + "'");
  return CopySide::Src;
}

/// The partition of one thread (`layout= offset=`), of a dynamic thread
/// (`layout= offset=<type> expr=`), or of all (`layout= same= offsets=`).
std::string Query::threads(
    const std::function<OffsetLayout(const Int &)> &part) {
  const std::string &which = get("thr_idx");
  if (which == "?") {
    Int t = em_.variable("t");
    OffsetLayout o = part(t);
    if (ar_.failed() || !o.offset.isLeaf())
      return "";
    std::string strides;
    for (const Int &d : leaves(o.layout.stride))
      strides += (strides.empty() ? "" : ";") + em_.expr(d);
    return "layout=" + toString(o.layout) + " offset=" + toString(o.offset) +
           " expr=" + em_.expr(o.offset.leaf()) + " stride_exprs=" + strides;
  }
  if (which != "all") {
    OffsetLayout o = part(Int(integer("thr_idx")));
    return "layout=" + toString(o.layout) + " offset=" + toString(o.offset);
  }
  int64_t n = integer("num_threads");
  std::string offsets;
  OffsetLayout first;
  bool same = true;
  for (int64_t t = 0; t < n && !ar_.failed(); ++t) {
    OffsetLayout o = part(Int(t));
    if (t == 0)
      first = o;
    same = same && o.layout == first.layout;
    offsets += (t ? "," : "") + toString(o.offset);
  }
  return "layout=" + toString(first.layout) + " same=" + (same ? "1" : "0") +
         " offsets=" + offsets;
}

std::string Query::run() {
  std::string out;
  if (op_ == "layout_tv") {
    LayoutTV tv = makeLayoutTV(ar_, layout("thr"), layout("val"));
    out = "tiler=" + toString(tv.tiler) + " layout_tv=" + toString(tv.layoutTV);
  } else if (op_ == "copy_info") {
    TiledCopy c = tiledCopy();
    out = "size=" + toString(tiledCopySize(ar_, c)) + " tiler=" +
          toString(c.tiler) + " layout_tv=" + toString(c.layoutTV) +
          " atom_src=" + toString(c.atom.valSrc) + " atom_dst=" +
          toString(c.atom.valDst) + " atom_ref=" + toString(c.atom.valRef);
  } else if (op_ == "tidfrg") {
    out = "layout=" + toString(tidfrg(ar_, tiledCopy(), side(), layout("tensor")));
  } else if (op_ == "copy_partition") {
    TiledCopy c = tiledCopy();
    CopySide s = side();
    Layout tensor = layout("tensor");
    out = threads([&](const Int &t) { return partition(ar_, c, s, tensor, t); });
  } else if (op_ == "retile") {
    out = "layout=" + toString(retile(ar_, tiledCopy(), layout("fragment")));
  } else if (op_ == "mma_info") {
    TiledMma m = tiledMma();
    out = "size=" + toString(tiledMmaSize(ar_, m)) + " tile=(" +
          toString(tileSizeMNK(ar_, m, 0)) + "," +
          toString(tileSizeMNK(ar_, m, 1)) + "," +
          toString(tileSizeMNK(ar_, m, 2)) + ") vmnk=" +
          toString(m.thrLayoutVMNK);
  } else if (op_ == "mma_layout_tv") {
    out = "layout=" +
          toString(tiledLayoutTV(ar_, tiledMma(), operand("operand")));
  } else if (op_ == "thrfrg") {
    out = "layout=" + toString(thrfrg(ar_, tiledMma(), operand("operand"),
                                      layout("tensor")));
  } else if (op_ == "mma_partition") {
    TiledMma m = tiledMma();
    MmaOperand o = operand("operand");
    Layout tensor = layout("tensor");
    out = threads([&](const Int &t) { return partition(ar_, m, o, tensor, t); });
  } else if (op_ == "make_fragment") {
    std::optional<int64_t> stages;
    if (has("stages"))
      stages = integer("stages");
    out = "layout=" + toString(makeFragment(ar_, tiledMma(), operand("operand"),
                                            layout("tile"), stages));
  } else if (op_ == "fragment_like") {
    out = "layout=" + toString(makeFragmentLike(ar_, layout("layout")));
  } else if (op_ == "copy_plan") {
    CopyAtom atom = copyAtom();
    std::vector<CopyCall> calls =
        copyPlan(ar_, atom, layout("src"), layout("dst"));
    out = "calls=" + std::to_string(calls.size()) + " list=";
    for (size_t i = 0; i < calls.size(); ++i)
      out += (i ? ";" : "") + offsetLayout(calls[i].src) + ">" +
             offsetLayout(calls[i].dst);
  } else if (op_ == "gemm_plan") {
    MmaAtom atom = mmaAtom();
    Layout c = layout("c");
    std::vector<MmaCall> calls = gemmPlan(
        ar_, atom, has("d") ? layout("d") : c, layout("a"), layout("b"), c);
    out = "calls=" + std::to_string(calls.size()) + " list=";
    for (size_t i = 0; i < calls.size(); ++i) {
      const MmaCall &k = calls[i];
      out += (i ? ";" : "") + std::to_string(k.m) + "," +
             std::to_string(k.n) + "," + std::to_string(k.k) + ":" +
             offsetLayout(k.d) + "|" + offsetLayout(k.a) + "|" +
             offsetLayout(k.b) + "|" + offsetLayout(k.c);
    }
  } else {
    bad("unknown op '" + op_ + "'");
  }
  if (!queryError_.empty())
    return "error: query: " + queryError_;
  if (ar_.failed())
    return "error: " + ar_.error();
  return "ok " + out;
}

} // namespace

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty() || line[0] == '#')
      continue;
    std::cout << Query(line).run() << "\n";
    std::cout.flush();
  }
  return 0;
}
