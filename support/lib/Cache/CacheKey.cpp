//===- CacheKey.cpp - Key material of the disk cache ----------------------===//

#include "fly/Cache/CacheKey.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"

using namespace llvm;

namespace fly::cache {

void CacheKey::addSized(StringRef bytes) {
  uint8_t size[8];
  support::endian::write64le(size, bytes.size());
  hasher.update(ArrayRef<uint8_t>(size));
  hasher.update(bytes);
}

CacheKey &CacheKey::add(StringRef field, StringRef value) {
  addSized(field);
  addSized(value);
  return *this;
}

std::string CacheKey::digest() const {
  // final() is not const: finish a copy.
  BLAKE3 copy = hasher;
  return toHex(copy.final(), /*LowerCase=*/true);
}

std::string digestOf(StringRef bytes) {
  return toHex(BLAKE3::hash(arrayRefFromStringRef(bytes)), /*LowerCase=*/true);
}

} // namespace fly::cache
