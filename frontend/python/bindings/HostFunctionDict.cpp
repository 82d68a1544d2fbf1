//===- HostFunctionDict.cpp - A host function's description in Python -----===//
//
// fly::HostFunctionInfo (fly/HostAbi.h) as the front end holds it: the dict
// the compiler extension's `compile` gives per host function, which the
// artifact keeps (as JSON, in the disk cache) and the runtime extension's
// ArgumentBlock and ArgumentPacker are built from. Both extensions compile
// this file.
//
//===----------------------------------------------------------------------===//

#include "HostFunctionDict.h"

#include <iterator>
#include <optional>

#include <nanobind/stl/string.h>

namespace nb = nanobind;

/// The names of fly::AbiParameter::Kind, in its order.
static const char *const kParameterKinds[] = {"tensor", "pointer", "scalar",
                                               "handle", "other"};

nb::dict hostFunctionDict(const fly::HostFunctionInfo &f) {
  nb::dict d;
  d["name"] = f.name;
  d["original_type"] = f.originalType;
  d["block_size"] = f.blockSize;
  nb::list arguments;
  for (const fly::HostArgument &arg : f.arguments) {
    nb::dict ad;
    ad["abi"] = arg.abi;
    ad["type"] = arg.type;
    ad["offset"] = arg.offset;
    ad["size"] = arg.size;
    arguments.append(ad);
  }
  d["arguments"] = arguments;
  nb::list parameters;
  for (const fly::AbiParameter &p : f.parameters) {
    nb::dict pd;
    pd["kind"] = kParameterKinds[size_t(p.kind)];
    pd["type"] = p.type;
    pd["element"] = p.element;
    pd["alignment"] = p.alignment;
    pd["rank"] = p.rank;
    nb::list leaves;
    for (const fly::AbiLeaf &l : p.leaves)
      leaves.append(nb::make_tuple(
          l.stride ? "stride" : "shape", l.dim,
          l.value ? nb::cast(*l.value) : nb::none(), l.divisibility, l.wide));
    pd["leaves"] = leaves;
    pd["scalar"] = fly::abiScalarName(p.scalar).str();
    parameters.append(pd);
  }
  d["parameters"] = parameters;
  nb::list slots;
  for (const fly::AbiSlot &slot : f.slots)
    slots.append(nb::make_tuple(slot.offset,
                                fly::abiScalarName(slot.type).str(),
                                slot.parameter, slot.leaf));
  d["slots"] = slots;
  return d;
}

fly::HostFunctionInfo hostFunctionOf(nb::handle object) {
  auto bad = [](const std::string &why) {
    throw nb::value_error(("ArgumentBlock: " + why).c_str());
  };
  if (!nb::isinstance<nb::dict>(object))
    bad("a host function dict, as the compile gives");
  nb::dict d = nb::borrow<nb::dict>(object);
  auto scalar = [&](nb::handle name) {
    std::optional<fly::AbiScalar> t = fly::parseAbiScalar(nb::cast<std::string>(name));
    if (!t)
      bad("unknown scalar type " + nb::cast<std::string>(name));
    return *t;
  };
  fly::HostFunctionInfo f;
  try {
    f.name = nb::cast<std::string>(d["name"]);
    f.blockSize = nb::cast<uint64_t>(d["block_size"]);
    for (nb::handle item : d["parameters"]) {
      nb::dict pd = nb::borrow<nb::dict>(item);
      fly::AbiParameter p;
      std::string kind = nb::cast<std::string>(pd["kind"]);
      size_t k = 0;
      while (k < std::size(kParameterKinds) && kind != kParameterKinds[k])
        ++k;
      if (k == std::size(kParameterKinds))
        bad("unknown parameter kind " + kind);
      p.kind = fly::AbiParameter::Kind(k);
      p.type = nb::cast<std::string>(pd["type"]);
      p.element = nb::cast<std::string>(pd["element"]);
      p.alignment = nb::cast<uint64_t>(pd["alignment"]);
      p.rank = nb::cast<unsigned>(pd["rank"]);
      for (nb::handle leaf : pd["leaves"]) {
        nb::sequence l = nb::borrow<nb::sequence>(leaf);
        fly::AbiLeaf out;
        out.stride = nb::cast<std::string>(l[0]) == "stride";
        out.dim = nb::cast<unsigned>(l[1]);
        if (!l[2].is_none())
          out.value = nb::cast<int64_t>(l[2]);
        out.divisibility = nb::cast<int64_t>(l[3]);
        out.wide = nb::cast<bool>(l[4]);
        p.leaves.push_back(out);
      }
      p.scalar = scalar(pd["scalar"]);
      f.parameters.push_back(std::move(p));
    }
    for (nb::handle item : d["slots"]) {
      nb::sequence s = nb::borrow<nb::sequence>(item);
      fly::AbiSlot slot;
      slot.offset = nb::cast<uint64_t>(s[0]);
      slot.type = scalar(s[1]);
      slot.parameter = nb::cast<unsigned>(s[2]);
      slot.leaf = nb::cast<int>(s[3]);
      f.slots.push_back(slot);
    }
  } catch (const nb::cast_error &) {
    bad("a malformed host function dict");
  } catch (const nb::python_error &) {
    bad("a host function dict without its parameters and slots");
  }
  for (const fly::AbiSlot &slot : f.slots) {
    if (slot.offset + fly::abiScalarBytes(slot.type) > f.blockSize ||
        slot.parameter >= f.parameters.size())
      bad("a slot outside the block or of no parameter");
    const fly::AbiParameter &p = f.parameters[slot.parameter];
    if (slot.leaf >= 0 &&
        (size_t(slot.leaf) >= p.leaves.size() || p.leaves[slot.leaf].value))
      bad("a slot of no dynamic leaf");
  }
  return f;
}
