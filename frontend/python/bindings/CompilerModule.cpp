//===- CompilerModule.cpp - flydsl._fly_compiler, the compiler ------------===//
//
// The narrow, stateless surface between the Python tracer and the C++
// compiler (ARCHITECTURE.md, "Boundaries"): type handles (uniqued
// mlir::Types of the one long-lived context of fly::Compiler), the result
// types an op infers for operand types, and `compile` of a whole module's
// text. Python never computes a layout; it asks here. flydsl._mlir, the
// Python builders that write MLIR text, reads types and attributes through
// the handles' properties and describe_attribute, and has operations and
// modules verified, printed and run through pass pipelines here.
//
// The one extension that links MLIR. The package loads it on first use
// (flydsl/_fly.py): a process that only runs artifacts from the disk cache
// never does. Everything a call needs is flydsl._fly_runtime's
// (RuntimeModule.cpp), whose Error this module raises too.
//
//===----------------------------------------------------------------------===//

#include "HostFunctionDict.h"

#include "fly/Compiler.h"
#include "fly/Algebra/TiledCopy.h"
#include "fly/Algebra/TiledMma.h"
#include "fly/Dialect/Fly/IR/FlyAtoms.h"
#include "fly/Dialect/Fly/IR/FlyOps.h"
#include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.h"
#include "fly/Arch/Chip.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;
using namespace nb::literals;

namespace {

/// The one compiler of the process, made on first use.
fly::Compiler &compiler() {
  static fly::Compiler *instance = new fly::Compiler();
  return *instance;
}

/// An mlir::Type as Python sees it: hashable, comparable, printable.
struct TypeHandle {
  mlir::Type type;
  bool operator==(const TypeHandle &o) const { return type == o.type; }
};

/// Errors of the compiler (bad types, rejected operands, failed compiles)
/// reach Python as flydsl._fly_runtime.Error with the diagnostics' text.
nb::object errorType;

[[noreturn]] void raise(llvm::Error err) {
  std::string message = llvm::toString(std::move(err));
  PyErr_SetString(errorType.ptr(), message.c_str());
  throw nb::python_error();
}

template <typename T> T unwrap(llvm::Expected<T> value) {
  if (!value)
    raise(value.takeError());
  return std::move(*value);
}

std::string printType(mlir::Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

std::string printAttribute(mlir::Attribute attr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

nb::list handles(mlir::TypeRange types) {
  nb::list out;
  for (mlir::Type t : types)
    out.append(nb::cast(TypeHandle{t}));
  return out;
}

TypeHandle parseTypeCached(const std::string &text) {
  static llvm::StringMap<mlir::Type> cache;
  auto found = cache.find(text);
  if (found != cache.end())
    return {found->second};
  mlir::Type type = unwrap(compiler().parseType(text));
  cache[text] = type;
  return {type};
}

mlir::Attribute parseAttrsCached(const std::string &text) {
  if (text.empty())
    return mlir::Attribute();
  static llvm::StringMap<mlir::Attribute> cache;
  auto found = cache.find(text);
  if (found != cache.end())
    return found->second;
  mlir::Attribute attr = unwrap(compiler().parseAttribute(text));
  cache[text] = attr;
  return attr;
}

/// An int tuple as Python values: ints for static leaves, None for dynamic
/// ones, tuples for tuples; `*` is the string "*", a basis leaf "E..." its
/// text.
nb::object intTupleValue(const fly::algebra::IntTuple &t) {
  if (t.isTuple()) {
    nb::list items;
    for (unsigned i = 0; i < t.rank(); ++i)
      items.append(intTupleValue(t[i]));
    return nb::tuple(items);
  }
  const fly::algebra::Int &leaf = t.leaf();
  if (leaf.isNone())
    return nb::str("*");
  if (leaf.isBasis())
    return nb::str(fly::algebra::toString(t).c_str());
  if (leaf.isStatic())
    return nb::int_(leaf.value());
  return nb::none();
}

/// The algebra value of an int_tuple or layout type as Python values:
/// an int tuple, or (shape, stride) of a layout; None for other types.
nb::object staticValue(const TypeHandle &h) {
  using namespace mlir::fly;
  if (auto t = getAlgebraValueAs<fly::algebra::IntTuple>(h.type))
    return intTupleValue(*t);
  if (auto l = getAlgebraValueAs<fly::algebra::Layout>(h.type))
    return nb::make_tuple(intTupleValue(l->shape), intTupleValue(l->stride));
  return nb::none();
}

nb::dict resourcesDict(const fly::target::KernelResources &r) {
  nb::dict d;
  d["vgprs"] = r.vgprs;
  d["sgprs"] = r.sgprs;
  d["agprs"] = r.agprs;
  d["vgpr_spills"] = r.vgprSpills;
  d["sgpr_spills"] = r.sgprSpills;
  d["lds_bytes"] = r.ldsBytes;
  d["scratch_bytes"] = r.scratchBytes;
  d["wave_size"] = r.waveSize;
  d["max_workgroup_size"] = r.maxFlatWorkgroupSize;
  d["code_bytes"] = r.codeBytes;
  return d;
}


/// The parts of a static fly type the front end's value classes expose
/// (FlyDSL's type members): name -> type handle or int. Layouts of atoms
/// are the algebra's (FlyAtoms.h), not recomputed in Python.
nb::dict typeMembers(const TypeHandle &h) {
  using namespace mlir::fly;
  namespace alg = ::fly::algebra;
  mlir::MLIRContext *ctx = h.type.getContext();
  nb::dict d;
  auto layout = [&](const alg::Layout &l) {
    return nb::cast(TypeHandle{LayoutType::get(ctx, l)});
  };
  auto tuple = [&](const alg::IntTuple &t) {
    return nb::cast(TypeHandle{IntTupleType::get(ctx, t)});
  };
  alg::Arith ar;
  if (auto s = getAlgebraValueAs<alg::Swizzle>(h.type)) {
    d["mask"] = s->bits;
    d["base"] = s->base;
    d["shift"] = s->shift;
  } else if (auto s = getAlgebraValueAs<alg::CoordSwizzle>(h.type)) {
    d["mask"] = s->bits;
    d["base_row"] = s->baseRow;
    d["mode_row"] = nb::cast(s->rowMode);
    d["base_col"] = s->baseCol;
    d["mode_col"] = nb::cast(s->colMode);
  } else if (auto c = getAlgebraValueAs<alg::ComposedLayout>(h.type)) {
    // A chain read as (inner o offset o outer) with the outer layout last:
    // the inner part is the chain without it, a composed layout when the
    // function before it is a layout (absent otherwise).
    if (c->chain.empty()) {
      d["inner"] = std::visit(
          [&](const auto &f) {
            using T = typename TypeFor<std::decay_t<decltype(f)>>::type;
            return nb::cast(TypeHandle{T::get(ctx, f)});
          },
          c->inner);
    } else if (const auto *last =
                   std::get_if<alg::Layout>(&c->chain.back().function)) {
      alg::ComposedLayout prefix = *c;
      prefix.chain.pop_back();
      prefix.outer = *last;
      d["inner"] = nb::cast(TypeHandle{ComposedLayoutType::get(ctx, prefix)});
    }
    d["offset"] = tuple(c->domainOffset());
    d["outer"] = layout(c->outer);
  } else if (auto p = mlir::dyn_cast<PointerType>(h.type)) {
    d["alignment"] = p.getAlignment();
  } else if (auto m = mlir::dyn_cast<MemTensorType>(h.type)) {
    d["alignment"] = m.getAlignment();
    d["pointer"] = nb::cast(TypeHandle{m.getPointer()});
  } else if (auto c = mlir::dyn_cast<CoordTensorType>(h.type)) {
    d["base"] = nb::cast(TypeHandle{c.getBase()});
  } else if (auto a = mlir::dyn_cast<CopyAtomType>(h.type)) {
    alg::CopyAtom atom = getCopyAtom(ar, a);
    if (!ar.failed()) {
      d["val_bits"] = atom.valueBits;
      d["thr_layout"] = layout(atom.traits.thrID);
      d["layout_src_tv"] = layout(atom.valSrc);
      d["layout_dst_tv"] = layout(atom.valDst);
      d["layout_ref_tv"] = layout(atom.valRef);
    }
  } else if (auto a = mlir::dyn_cast<MmaAtomType>(h.type)) {
    alg::MmaAtom atom = getMmaAtom(ar, a);
    if (!ar.failed()) {
      d["shape_mnk"] = tuple(atom.shapeMNK);
      d["thr_layout"] = layout(atom.thrID);
      d["layout_A_tv"] = layout(atom.layoutA);
      d["layout_B_tv"] = layout(atom.layoutB);
      d["layout_C_tv"] = layout(atom.layoutC);
    }
  } else if (auto t = mlir::dyn_cast<TiledCopyType>(h.type)) {
    d["atom"] = nb::cast(TypeHandle{t.getAtom()});
    d["layout_tv"] = nb::cast(TypeHandle{t.getLayoutTV()});
    d["tile"] = nb::cast(TypeHandle{t.getTile()});
    alg::TiledCopy copy = getTiledCopy(ar, t);
    if (!ar.failed()) {
      d["layout_src_tv_tiled"] =
          layout(alg::tiledLayoutTV(ar, copy, alg::CopySide::Src));
      d["layout_dst_tv_tiled"] =
          layout(alg::tiledLayoutTV(ar, copy, alg::CopySide::Dst));
    }
  } else if (auto t = mlir::dyn_cast<TiledMmaType>(h.type)) {
    alg::TiledMma mma = getTiledMma(ar, t);
    d["atom"] = nb::cast(TypeHandle{t.getAtom()});
    d["atom_layout"] = nb::cast(TypeHandle{t.getAtomLayout()});
    if (!ar.failed()) {
      d["permutation"] = nb::cast(TypeHandle{TileType::get(ctx, mma.permutationMNK)});
      std::vector<alg::IntTuple> mnk;
      for (int i = 0; i < 3; ++i)
        mnk.push_back(alg::IntTuple(alg::tileSizeMNK(ar, mma, i)));
      d["tile_size_mnk"] = tuple(alg::IntTuple::tuple(std::move(mnk)));
      d["thr_layout_vmnk"] = layout(mma.thrLayoutVMNK);
      d["tv_layout_A_tiled"] = layout(alg::tiledLayoutTV(ar, mma, alg::MmaOperand::A));
      d["tv_layout_B_tiled"] = layout(alg::tiledLayoutTV(ar, mma, alg::MmaOperand::B));
      d["tv_layout_C_tiled"] = layout(alg::tiledLayoutTV(ar, mma, alg::MmaOperand::C));
    }
  }
  if (ar.failed())
    raise(llvm::createStringError(llvm::inconvertibleErrorCode(), ar.error()));
  return d;
}

/// The integer of an IntegerAttr as a Python int: unsigned types zero-
/// extend, others (signless, signed) sign-extend; i1 is a bool.
nb::object integerValue(mlir::IntegerAttr attr) {
  llvm::APInt value = attr.getValue();
  auto type = mlir::dyn_cast<mlir::IntegerType>(attr.getType());
  if (type && type.getWidth() == 1)
    return nb::bool_(!value.isZero());
  bool isUnsigned = type && type.isUnsigned();
  llvm::SmallString<32> digits;
  value.toString(digits, 10, /*Signed=*/!isUnsigned);
  return nb::module_::import_("builtins").attr("int")(nb::str(digits.c_str()));
}

/// What flydsl._mlir's attribute classes read of an attribute written
/// `text`: its canonical text, its class ('builtin.integer', ...), its type
/// (typed attributes), its value where it has a Python one (int, float,
/// bool, str, Type, list of numbers), the texts of an array's elements and
/// the (name, text) entries of a dictionary.
nb::dict describeAttribute(const std::string &text) {
  mlir::Attribute attr = parseAttrsCached(text);
  if (!attr)
    raise(llvm::createStringError(llvm::inconvertibleErrorCode(),
                                  "an empty attribute"));
  nb::dict d;
  d["text"] = printAttribute(attr);
  d["typeid"] = attr.getAbstractAttribute().getName().str();
  d["type"] = nb::none();
  if (auto typed = mlir::dyn_cast<mlir::TypedAttr>(attr))
    d["type"] = nb::cast(TypeHandle{typed.getType()});
  nb::object value = nb::none();
  if (auto i = mlir::dyn_cast<mlir::IntegerAttr>(attr)) {
    value = integerValue(i);
  } else if (auto f = mlir::dyn_cast<mlir::FloatAttr>(attr)) {
    value = nb::float_(f.getValueAsDouble());
  } else if (auto b = mlir::dyn_cast<mlir::BoolAttr>(attr)) {
    value = nb::bool_(b.getValue());
  } else if (auto str = mlir::dyn_cast<mlir::StringAttr>(attr)) {
    value = nb::str(str.getValue().data(), str.getValue().size());
  } else if (auto t = mlir::dyn_cast<mlir::TypeAttr>(attr)) {
    value = nb::cast(TypeHandle{t.getValue()});
  } else if (auto ref = mlir::dyn_cast<mlir::SymbolRefAttr>(attr)) {
    value = nb::str(ref.getLeafReference().getValue().str().c_str());
  } else if (auto dense = mlir::dyn_cast<mlir::DenseArrayAttr>(attr)) {
    nb::list items;
    auto each = [&](auto array) {
      for (auto x : array.asArrayRef())
        items.append(x);
    };
    if (auto a = mlir::dyn_cast<mlir::DenseBoolArrayAttr>(dense))
      each(a);
    else if (auto a = mlir::dyn_cast<mlir::DenseI8ArrayAttr>(dense))
      each(a);
    else if (auto a = mlir::dyn_cast<mlir::DenseI16ArrayAttr>(dense))
      each(a);
    else if (auto a = mlir::dyn_cast<mlir::DenseI32ArrayAttr>(dense))
      each(a);
    else if (auto a = mlir::dyn_cast<mlir::DenseI64ArrayAttr>(dense))
      each(a);
    else if (auto a = mlir::dyn_cast<mlir::DenseF32ArrayAttr>(dense))
      each(a);
    else if (auto a = mlir::dyn_cast<mlir::DenseF64ArrayAttr>(dense))
      each(a);
    value = items;
  }
  d["value"] = value;
  nb::list elements;
  if (auto array = mlir::dyn_cast<mlir::ArrayAttr>(attr))
    for (mlir::Attribute e : array)
      elements.append(printAttribute(e));
  if (auto dict = mlir::dyn_cast<mlir::DictionaryAttr>(attr))
    for (mlir::NamedAttribute e : dict)
      elements.append(nb::make_tuple(e.getName().str(), printAttribute(e.getValue())));
  d["elements"] = elements;
  return d;
}

/// A parsed module as the Python data describe_module returns (see
/// there): what flydsl._mlir rebuilds its ops from after Module.parse or a
/// pass pipeline.
class ModuleDescription {
public:
  nb::tuple describe(mlir::ModuleOp module) {
    // Ids first: an operand may name a value of a block printed later.
    module.getBody()->walk([&](mlir::Block *block) { number(block); });
    number(module.getBody());
    nb::list ops;
    for (mlir::Operation &op : module.getBody()->getOperations())
      ops.append(operation(op));
    return nb::make_tuple(attributes(module), ops);
  }

private:
  void number(mlir::Block *block) {
    blockIds.try_emplace(block, blockIds.size());
    for (mlir::Value arg : block->getArguments())
      valueIds.try_emplace(arg, valueIds.size());
    for (mlir::Operation &op : *block)
      for (mlir::Value result : op.getResults())
        valueIds.try_emplace(result, valueIds.size());
  }

  static nb::list attributes(mlir::Operation *op) {
    nb::list out;
    for (mlir::NamedAttribute attr : op->getAttrs())
      out.append(nb::make_tuple(attr.getName().str(), printAttribute(attr.getValue())));
    return out;
  }

  nb::tuple operation(mlir::Operation &op) {
    nb::list operands, results, regions, successors;
    for (mlir::Value operand : op.getOperands())
      operands.append(valueIds.lookup(operand));
    for (mlir::Value result : op.getResults())
      results.append(nb::make_tuple(valueIds.lookup(result),
                                    TypeHandle{result.getType()}));
    for (mlir::Region &region : op.getRegions()) {
      nb::list blocks;
      for (mlir::Block &block : region) {
        nb::list args, ops;
        for (mlir::BlockArgument arg : block.getArguments())
          args.append(nb::make_tuple(valueIds.lookup(arg), TypeHandle{arg.getType()}));
        for (mlir::Operation &nested : block)
          ops.append(operation(nested));
        blocks.append(nb::make_tuple(blockIds.lookup(&block), args, ops));
      }
      regions.append(blocks);
    }
    for (mlir::Block *successor : op.getSuccessors())
      successors.append(blockIds.lookup(successor));
    std::string loc;
    llvm::raw_string_ostream os(loc);
    op.getLoc().print(os);
    return nb::make_tuple(op.getName().getStringRef().str(), operands, results,
                          attributes(&op), regions, loc, successors);
  }

  llvm::DenseMap<mlir::Value, int> valueIds;
  llvm::DenseMap<mlir::Block *, int> blockIds;
};

} // namespace

NB_MODULE(_fly_compiler, m) {
  m.doc() = "FlyDSL's compiler: type handles, type inference, compile";
  errorType = nb::module_::import_("flydsl._fly_runtime").attr("Error");
  m.attr("Error") = errorType;

  nb::class_<TypeHandle>(m, "Type")
      .def("__str__", [](const TypeHandle &h) { return printType(h.type); })
      .def("__repr__",
           [](const TypeHandle &h) { return "Type(" + printType(h.type) + ")"; })
      .def("__eq__", [](const TypeHandle &a, const TypeHandle &b) { return a == b; })
      // Any other object (`t == int`, `t == None`): not equal, no TypeError.
      .def("__eq__", [](const TypeHandle &, nb::handle) { return false; })
      .def("__hash__",
           [](const TypeHandle &h) {
             return (size_t)h.type.getAsOpaquePointer();
           })
      .def_prop_ro("is_fly",
                   [](const TypeHandle &h) {
                     // The fly dialect's, or fly_rocdl's (its atom operations).
                     return mlir::isa<mlir::fly::FlyDialect,
                                      mlir::fly_rocdl::FlyROCDLDialect>(
                         h.type.getDialect());
                   })
      .def_prop_ro("is_static",
                   [](const TypeHandle &h) { return mlir::fly::isStatic(h.type); })
      .def_prop_ro("kind",
                   [](const TypeHandle &h) -> std::string {
                     // "memref", "layout", ... for fly types; the printed
                     // type's head for others ("i32", "vector", "f16").
                     std::string text = printType(h.type);
                     llvm::StringRef s(text);
                     s.consume_front("!fly.") || s.consume_front("!fly_rocdl.");
                     return s.take_until([](char c) { return c == '<'; }).str();
                   })
      .def_prop_ro("value", &staticValue,
                   "int tuple (ints, None for dynamic leaves) or layout "
                   "(shape, stride); None for other types")
      .def_prop_ro("element_type",
                   [](const TypeHandle &h) -> nb::object {
                     using namespace mlir::fly;
                     if (auto m = mlir::dyn_cast<MemTensorType>(h.type))
                       return nb::cast(TypeHandle{m.getElementType()});
                     if (auto p = mlir::dyn_cast<PointerType>(h.type))
                       return nb::cast(TypeHandle{p.getElementType()});
                     if (auto s = mlir::dyn_cast<mlir::ShapedType>(h.type))
                       return nb::cast(TypeHandle{s.getElementType()});
                     if (auto c = mlir::dyn_cast<mlir::ComplexType>(h.type))
                       return nb::cast(TypeHandle{c.getElementType()});
                     // Missing, as MLIR's Python types have it (only shaped
                     // and complex types have one): FlyDSL's kernels tell a
                     // vector from a scalar by hasattr(t, "element_type").
                     throw nb::attribute_error(
                         ("the type " + printType(h.type) +
                          " has no element type")
                             .c_str());
                   })
      .def_prop_ro("layout",
                   [](const TypeHandle &h) -> nb::object {
                     using namespace mlir::fly;
                     if (auto m = mlir::dyn_cast<MemTensorType>(h.type))
                       return nb::cast(TypeHandle{m.getLayout()});
                     if (auto c = mlir::dyn_cast<CoordTensorType>(h.type))
                       return nb::cast(TypeHandle{c.getLayout()});
                     return nb::none();
                   })
      .def_prop_ro("address_space",
                   [](const TypeHandle &h) -> nb::object {
                     using namespace mlir::fly;
                     PointerType p;
                     if (auto m = mlir::dyn_cast<MemTensorType>(h.type))
                       p = m.getPointer();
                     else
                       p = mlir::dyn_cast<PointerType>(h.type);
                     if (!p)
                       return nb::none();
                     std::string text;
                     llvm::raw_string_ostream os(text);
                     p.getAddressSpace().print(os);
                     llvm::StringRef s(text);
                     s.consume_front("#fly<");
                     return nb::str(s.rtrim('>').str().c_str());
                   })
      .def_prop_ro("members", &typeMembers,
                   "the parts FlyDSL's type classes expose: a swizzle's "
                   "mask/base/shift, a composed layout's inner/offset/outer, "
                   "alignments, an atom's value layouts, a tiled atom's "
                   "layouts and tiles (name -> Type or int)")
      .def_prop_ro("bit_width", [](const TypeHandle &h) -> nb::object {
        if (h.type.isIntOrFloat())
          return nb::int_(h.type.getIntOrFloatBitWidth());
        return nb::none();
      })
      // What flydsl._mlir's type classes (IntegerType, VectorType, ...)
      // read: they check a handle's class by `typeid`, and their members
      // are these properties (None where a type has no such member).
      .def_prop_ro("typeid",
                   [](const TypeHandle &h) {
                     return h.type.getAbstractType().getName().str();
                   },
                   "the name of the type's class: 'builtin.integer', "
                   "'builtin.vector', 'llvm.ptr', 'fly.layout', ...")
      .def_prop_ro("width", [](const TypeHandle &h) -> nb::object {
        if (h.type.isIntOrFloat())
          return nb::int_(h.type.getIntOrFloatBitWidth());
        return nb::none();
      })
      .def_prop_ro("is_float",
                   [](const TypeHandle &h) { return mlir::isa<mlir::FloatType>(h.type); })
      .def_prop_ro("is_signless",
                   [](const TypeHandle &h) {
                     auto i = mlir::dyn_cast<mlir::IntegerType>(h.type);
                     return i && i.isSignless();
                   })
      .def_prop_ro("is_signed",
                   [](const TypeHandle &h) {
                     auto i = mlir::dyn_cast<mlir::IntegerType>(h.type);
                     return i && i.isSigned();
                   })
      .def_prop_ro("is_unsigned",
                   [](const TypeHandle &h) {
                     auto i = mlir::dyn_cast<mlir::IntegerType>(h.type);
                     return i && i.isUnsigned();
                   })
      .def_prop_ro("rank", [](const TypeHandle &h) -> nb::object {
        auto s = mlir::dyn_cast<mlir::ShapedType>(h.type);
        if (!s || !s.hasRank())
          return nb::none();
        return nb::int_(s.getRank());
      })
      .def_prop_ro("shape", [](const TypeHandle &h) -> nb::object {
        auto s = mlir::dyn_cast<mlir::ShapedType>(h.type);
        if (!s || !s.hasRank())
          return nb::none();
        nb::list dims; // dynamic sizes are ShapedType::kDynamic
        for (int64_t d : s.getShape())
          dims.append(d);
        return dims;
      })
      .def_prop_ro("scalable_dims", [](const TypeHandle &h) -> nb::object {
        auto v = mlir::dyn_cast<mlir::VectorType>(h.type);
        if (!v)
          return nb::none();
        nb::list dims;
        for (bool d : v.getScalableDims())
          dims.append(d);
        return dims;
      })
      .def_prop_ro("memory_space", [](const TypeHandle &h) -> nb::object {
        // The attribute's text; None for the default space and non-memrefs.
        auto m = mlir::dyn_cast<mlir::BaseMemRefType>(h.type);
        if (!m || !m.getMemorySpace())
          return nb::none();
        return nb::str(printAttribute(m.getMemorySpace()).c_str());
      })
      .def_prop_ro("inputs", [](const TypeHandle &h) -> nb::object {
        auto f = mlir::dyn_cast<mlir::FunctionType>(h.type);
        return f ? nb::object(handles(f.getInputs())) : nb::none();
      })
      .def_prop_ro("results", [](const TypeHandle &h) -> nb::object {
        auto f = mlir::dyn_cast<mlir::FunctionType>(h.type);
        return f ? nb::object(handles(f.getResults())) : nb::none();
      });

  m.def("parse_type", &parseTypeCached, "text"_a,
        "The type written `text` (uniqued: equal texts give equal handles)");

  m.def(
      "infer",
      [](const std::string &op, const std::vector<TypeHandle> &operands,
         const std::string &attrs) {
        std::vector<mlir::Type> types;
        types.reserve(operands.size());
        for (const TypeHandle &h : operands)
          types.push_back(h.type);
        std::vector<mlir::Type> results = unwrap(
            compiler().inferResultTypes(op, types, parseAttrsCached(attrs)));
        std::vector<TypeHandle> handles;
        for (mlir::Type t : results)
          handles.push_back({t});
        return handles;
      },
      "op"_a, "operands"_a, "attrs"_a = "",
      "The result types `op` infers for operands of these types and the "
      "attribute dictionary `attrs` (MLIR text), as its verifier does");

  // -- MLIR text services of flydsl._mlir (fly::Compiler's) --------------
  m.def("describe_attribute", &describeAttribute, "text"_a,
        "The attribute written `text`: a dict of its canonical 'text', "
        "'typeid', 'type', 'value' and 'elements'");

  m.def(
      "op_info",
      [](const std::string &name) {
        fly::Compiler::OperationInfo info = compiler().getOperationInfo(name);
        nb::dict d;
        d["registered"] = info.registered;
        d["terminator"] = info.isTerminator;
        d["infers"] = info.infersResultTypes;
        return d;
      },
      "name"_a,
      "What the builders need of an operation name: a dict of 'registered', "
      "'terminator' and 'infers' (InferTypeOpInterface)");

  m.def(
      "verify_op",
      [](const std::string &text,
         const std::vector<std::tuple<std::string, TypeHandle>> &operands) {
        std::vector<std::pair<std::string, mlir::Type>> values;
        for (const auto &[name, type] : operands)
          values.emplace_back(name, type.type);
        if (llvm::Error err = compiler().verifyOperation(text, values))
          raise(std::move(err));
      },
      "text"_a, "operands"_a,
      "Verifies one operation in generic form whose operands are the named "
      "values [(name, type)]; raises Error with the verifier's diagnostics");

  m.def(
      "print_ir",
      [](const std::string &text, bool verify, bool generic, bool debugInfo) {
        fly::Compiler::PrintOptions options;
        options.verify = verify;
        options.generic = generic;
        options.debugInfo = debugInfo;
        return unwrap(compiler().printOperations(text, options));
      },
      "text"_a, "verify"_a = false, "generic"_a = false, "debug_info"_a = false,
      "The top-level operations of `text` parsed (and verified) and printed "
      "again");

  m.def(
      "describe_module",
      [](const std::string &text, bool verify) {
        nb::object out;
        if (llvm::Error err = compiler().readModule(
                text, verify, [&](mlir::ModuleOp module) {
                  out = ModuleDescription().describe(module);
                }))
          raise(std::move(err));
        return out;
      },
      "text"_a, "verify"_a = true,
      "The module written `text` as Python data: (its attributes, its body "
      "ops), an op (name, operand ids, [(result id, Type)], attributes, "
      "regions, location, successor block ids), a region a list of blocks, "
      "a block (id, [(argument id, Type)], ops); attributes are "
      "[(name, text)], ids number the values and blocks");

  m.def(
      "run_pipeline",
      [](const std::string &text, const std::string &pipeline) {
        return unwrap(compiler().runPassPipeline(text, pipeline));
      },
      "text"_a, "pipeline"_a,
      "The module after the textual pass pipeline (generic form, located)");

  m.def(
      "compile",
      [](const std::string &text, const std::string &chip, unsigned optLevel,
         const std::string &dumpDir, bool verifyEachPass, bool debugInfo,
         bool printAfterAll, bool emulator, unsigned wavesPerEU,
         unsigned maxNumVGPRs, bool fastMath, bool unsafeMath,
         const std::string &emuCheck) {
        fly::CompileOptions options;
        options.emulator = emulator;
        options.pipeline.chip = chip;
        options.pipeline.optLevel = optLevel;
        options.pipeline.debugInfo = debugInfo;
        options.pipeline.wavesPerEU = wavesPerEU;
        options.pipeline.maxNumVGPRs = maxNumVGPRs;
        options.pipeline.fastMath.fast = fastMath;
        options.pipeline.fastMath.unsafeMath = unsafeMath;
        options.pipeline.emuCheck = emuCheck;
        options.dumpDir = dumpDir;
        options.verifyEachPass = verifyEachPass;
        options.printAfterAll = printAfterAll;
        llvm::Expected<fly::Artifact> artifact = [&] {
          nb::gil_scoped_release release;
          return compiler().compile(text, options);
        }();
        fly::Artifact a = unwrap(std::move(artifact));
        nb::list objects;
        for (const fly::CodeObjectBlob &o : a.codeObjects)
          objects.append(nb::make_tuple(o.module, o.chip,
                                        nb::bytes(o.elf.data(), o.elf.size())));
        nb::list kernels;
        for (const fly::KernelInfo &k : a.kernels) {
          nb::dict d;
          d["module"] = k.module;
          d["name"] = k.name;
          d["abi"] = k.abi;
          d["original_type"] = k.originalType;
          d["resources"] = resourcesDict(k.resources);
          kernels.append(d);
        }
        nb::list hostFunctions;
        for (const fly::HostFunctionInfo &f : a.hostFunctions)
          hostFunctions.append(hostFunctionDict(f));
        return nb::make_tuple(
            objects, kernels,
            nb::bytes(a.hostModule.data(), a.hostModule.size()), hostFunctions);
      },
      "text"_a, "chip"_a, "opt_level"_a = 2, "dump_dir"_a = "",
      "verify_each_pass"_a = false, "debug_info"_a = false,
      "print_after_all"_a = false, "emulator"_a = false,
      "waves_per_eu"_a = 0u, "maxnreg"_a = 0u, "fast_math"_a = false,
      "unsafe_math"_a = false, "emu_check"_a = "",
      "Compiles a module (MLIR text) through stages A, B and C (the hints: "
      "0 / false for none): returns "
      "([(module, chip, code object bytes)], [kernel dicts], host module "
      "bitcode, [host function dicts])");

  m.def(
      "disassemble",
      [](nb::bytes elf) {
        return unwrap(fly::target::disassembleCodeObject(
            llvm::StringRef(elf.c_str(), elf.size())));
      },
      "elf"_a, "The ISA of a code object");

  // Whether a chip has the operation of an atom-like type (an operation,
  // atom or tiled atom): "" or the error naming it, the chip and the chips
  // that have it (convert-fly-to-rocdl's check, made at trace time too).
  m.def("atom_unavailable", [](const TypeHandle &h, const std::string &name) {
    const fly::arch::ChipInfo *chip = fly::arch::lookupChip(name);
    if (!chip)
      throw nb::value_error(("unknown chip " + name).c_str());
    return mlir::fly::checkAvailable(h.type, *chip);
  });
}
