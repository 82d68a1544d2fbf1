//===- CodeObject.cpp - Kernel resources from the AMDGPU metadata note ---===//
//
// A code object carries its kernel descriptors' figures in an ELF note
// (owner "AMDGPU", type NT_AMDGPU_METADATA) whose payload is a MessagePack
// map; `amdhsa.kernels` is an array of one map per kernel. LLVM's ELF reader
// finds the note and its MessagePack reader decodes it.
//
//===----------------------------------------------------------------------===//

#include "fly/Target/CodeObject.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace fly::target;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {

Error codeObjectError(const llvm::Twine &message) {
  return llvm::createStringError("code object: " + message);
}

/// The 64-bit little-endian ELF of an AMDGPU code object.
Expected<const llvm::object::ELF64LEObjectFile &>
openCodeObject(const llvm::object::ObjectFile &file) {
  const auto *elf = llvm::dyn_cast<llvm::object::ELF64LEObjectFile>(&file);
  if (!elf || elf->getELFFile().getHeader().e_machine != llvm::ELF::EM_AMDGPU)
    return codeObjectError("not a 64-bit AMDGPU ELF file");
  return *elf;
}

Expected<std::unique_ptr<llvm::object::ObjectFile>>
parseObject(StringRef elf) {
  auto file = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(elf, "code object"));
  if (!file)
    return codeObjectError(llvm::toString(file.takeError()));
  return std::move(*file);
}

/// The MessagePack payload of the AMDGPU metadata note.
Expected<StringRef> findMetadataNote(const llvm::object::ELF64LEObjectFile &obj) {
  const auto &elf = obj.getELFFile();
  auto sections = elf.sections();
  if (!sections)
    return codeObjectError(llvm::toString(sections.takeError()));
  for (const auto &section : *sections) {
    if (section.sh_type != llvm::ELF::SHT_NOTE)
      continue;
    Error err = Error::success();
    for (const auto &note : elf.notes(section, err)) {
      if (note.getName() == "AMDGPU" &&
          note.getType() == llvm::ELF::NT_AMDGPU_METADATA)
        return note.getDescAsStringRef(section.sh_addralign);
    }
    if (err)
      return codeObjectError(llvm::toString(std::move(err)));
  }
  return codeObjectError("no AMDGPU metadata note");
}

/// Reads the integer `key` of a kernel's metadata map into `out`; an absent
/// key leaves `out` unchanged (`.agpr_count` exists only where AGPRs do).
template <typename T>
Error readInteger(llvm::msgpack::MapDocNode &kernel, StringRef key, T &out) {
  auto it = kernel.find(key);
  if (it == kernel.end())
    return Error::success();
  llvm::msgpack::DocNode &value = it->second;
  if (value.getKind() == llvm::msgpack::Type::UInt)
    out = static_cast<T>(value.getUInt());
  else if (value.getKind() == llvm::msgpack::Type::Int && value.getInt() >= 0)
    out = static_cast<T>(value.getInt());
  else
    return codeObjectError("kernel metadata field " + key +
                           " is not a non-negative integer");
  return Error::success();
}

Expected<KernelResources> readKernel(llvm::msgpack::DocNode &node) {
  if (!node.isMap())
    return codeObjectError("an amdhsa.kernels entry is not a map");
  llvm::msgpack::MapDocNode kernel = node.getMap();
  KernelResources k;
  auto name = kernel.find(".name");
  if (name == kernel.end() || !name->second.isString())
    return codeObjectError("a kernel has no .name");
  k.name = name->second.getString().str();
  for (auto [key, field] : {std::pair{".vgpr_count", &k.vgprs},
                            std::pair{".sgpr_count", &k.sgprs},
                            std::pair{".agpr_count", &k.agprs},
                            std::pair{".vgpr_spill_count", &k.vgprSpills},
                            std::pair{".sgpr_spill_count", &k.sgprSpills},
                            std::pair{".wavefront_size", &k.waveSize},
                            std::pair{".max_flat_workgroup_size",
                                      &k.maxFlatWorkgroupSize}})
    if (Error err = readInteger(kernel, key, *field))
      return std::move(err);
  if (Error err = readInteger(kernel, ".group_segment_fixed_size", k.ldsBytes))
    return std::move(err);
  if (Error err =
          readInteger(kernel, ".private_segment_fixed_size", k.scratchBytes))
    return std::move(err);
  return k;
}

} // namespace

Expected<std::vector<KernelResources>>
fly::target::readKernelResources(StringRef elf) {
  auto file = parseObject(elf);
  if (!file)
    return file.takeError();
  auto obj = openCodeObject(**file);
  if (!obj)
    return obj.takeError();
  auto blob = findMetadataNote(*obj);
  if (!blob)
    return blob.takeError();

  llvm::msgpack::Document doc;
  if (!doc.readFromBlob(*blob, /*Multi=*/false) || !doc.getRoot().isMap())
    return codeObjectError("the AMDGPU metadata is not a MessagePack map");
  llvm::msgpack::MapDocNode root = doc.getRoot().getMap();
  auto kernels = root.find("amdhsa.kernels");
  if (kernels == root.end() || !kernels->second.isArray())
    return codeObjectError("the AMDGPU metadata has no amdhsa.kernels array");

  std::vector<KernelResources> result;
  for (llvm::msgpack::DocNode &node : kernels->second.getArray()) {
    auto kernel = readKernel(node);
    if (!kernel)
      return kernel.takeError();
    result.push_back(std::move(*kernel));
  }
  // Each kernel's code bytes: the size of its function symbol.
  for (const llvm::object::ELFSymbolRef &symbol : obj->symbols()) {
    if (symbol.getELFType() != llvm::ELF::STT_FUNC)
      continue;
    Expected<StringRef> name = symbol.getName();
    if (!name)
      return codeObjectError(llvm::toString(name.takeError()));
    for (KernelResources &k : result)
      if (k.name == *name)
        k.codeBytes = symbol.getSize();
  }
  return result;
}

Expected<std::string> fly::target::readCodeObjectChip(StringRef elf) {
  auto file = parseObject(elf);
  if (!file)
    return file.takeError();
  auto obj = openCodeObject(**file);
  if (!obj)
    return obj.takeError();
  std::optional<StringRef> cpu = obj->tryGetCPUName();
  if (!cpu || cpu->empty())
    return codeObjectError("the ELF header names no known processor");
  return cpu->str();
}

void fly::target::printResourceTable(llvm::raw_ostream &os,
                                     llvm::ArrayRef<KernelResources> kernels) {
  size_t nameWidth = 6;
  for (const KernelResources &k : kernels)
    nameWidth = std::max(nameWidth, k.name.size());
  os << llvm::left_justify("kernel", nameWidth)
     << "  wave  vgpr  agpr  sgpr  vgpr-spill  sgpr-spill       lds  "
        "scratch  max-wg\n";
  for (const KernelResources &k : kernels)
    os << llvm::left_justify(k.name, nameWidth) << llvm::format("  %4u", k.waveSize)
       << llvm::format("  %4u  %4u  %4u", k.vgprs, k.agprs, k.sgprs)
       << llvm::format("  %10u  %10u", k.vgprSpills, k.sgprSpills)
       << llvm::format("  %8llu  %7llu", (unsigned long long)k.ldsBytes,
                       (unsigned long long)k.scratchBytes)
       << llvm::format("  %6u\n", k.maxFlatWorkgroupSize);
}
