//===- DiskCache.cpp - flydsl._fly.DiskCache ------------------------------===//
//
// The disk cache of compiled artifacts (fly/Cache) for Python: Python
// supplies the key material as (field, value) pairs and the payload bytes;
// the cache adds the toolchain identity, checksums, writes atomically and
// locks across processes. A Python builder that raises stores nothing and
// its exception propagates.
//
//===----------------------------------------------------------------------===//

#include "fly/Cache/DiskCache.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;
using namespace nb::literals;
using fly::cache::CacheKey;
using fly::cache::DiskCache;

namespace {

using Fields = std::vector<std::pair<std::string, std::string>>;

CacheKey keyOf(const Fields &fields) {
  CacheKey key;
  for (const auto &[field, value] : fields)
    key.add(field, value);
  return key;
}

[[noreturn]] void raiseError(llvm::Error err) {
  std::string message = llvm::toString(std::move(err));
  throw nb::builtin_exception(nb::exception_type::runtime_error, message.c_str());
}

} // namespace

void registerDiskCache(nb::module_ &m) {
  nb::class_<DiskCache>(m, "DiskCache")
      .def_static(
          "open",
          [](const std::string &dir) {
            auto cache = DiskCache::open(dir);
            if (!cache)
              raiseError(cache.takeError());
            return std::move(*cache);
          },
          "directory"_a, "The cache in `directory`, created if missing")
      .def_prop_ro("directory",
                   [](const DiskCache &c) { return c.directory().str(); })
      .def(
          "entries",
          [](const DiskCache &c) {
            auto entries = c.entries();
            if (!entries)
              raiseError(entries.takeError());
            nb::list out;
            for (const fly::cache::CacheEntry &e : *entries)
              out.append(nb::make_tuple(e.digest, e.path, e.size, e.modified));
            return out;
          },
          "Every complete entry: [(digest, path, bytes, modified seconds)]")
      .def(
          "remove",
          [](const DiskCache &c, const std::string &digest) {
            auto removed = c.remove(digest);
            if (!removed)
              raiseError(removed.takeError());
            return *removed;
          },
          "digest"_a, "Deletes the entry named `digest`: False when there was none")
      .def("entry_path",
           [](const DiskCache &c, const Fields &fields) {
             return c.entryPath(keyOf(fields));
           })
      .def(
          "lookup",
          [](const DiskCache &c, const Fields &fields) -> nb::object {
            auto payload = c.lookup(keyOf(fields));
            if (!payload)
              raiseError(payload.takeError());
            if (!*payload)
              return nb::none();
            return nb::bytes((*payload)->data(), (*payload)->size());
          },
          "fields"_a, "The payload of the key made of `fields`, or None")
      .def(
          "store",
          [](const DiskCache &c, const Fields &fields, nb::bytes payload) {
            if (llvm::Error err = c.store(
                    keyOf(fields), llvm::StringRef(payload.c_str(), payload.size())))
              raiseError(std::move(err));
          },
          "fields"_a, "payload"_a)
      .def(
          "get_or_create",
          [](const DiskCache &c, const Fields &fields, nb::callable build) {
            // The lock may be held by another process for a while: wait
            // without the GIL; the builder runs with it.
            std::optional<nb::python_error> failure;
            llvm::Expected<std::string> payload = [&] {
              nb::gil_scoped_release release;
              return c.getOrCreate(
                  keyOf(fields), [&]() -> llvm::Expected<std::string> {
                    nb::gil_scoped_acquire acquire;
                    try {
                      nb::bytes made = nb::cast<nb::bytes>(build());
                      return std::string(made.c_str(), made.size());
                    } catch (nb::python_error &err) {
                      failure.emplace(std::move(err));
                      return llvm::createStringError(
                          llvm::inconvertibleErrorCode(), "the builder raised");
                    }
                  });
            }();
            if (failure) {
              llvm::consumeError(payload.takeError());
              failure->restore();
              throw nb::python_error();
            }
            if (!payload)
              raiseError(payload.takeError());
            return nb::bytes(payload->data(), payload->size());
          },
          "fields"_a, "build"_a,
          "The payload of the key; on a miss `build()` (bytes) runs once "
          "across processes and its result is stored");
  m.def(
      "digest",
      [](nb::bytes data) {
        return fly::cache::digestOf(llvm::StringRef(data.c_str(), data.size()));
      },
      "data"_a, "The cache's hash (BLAKE3) of `data`, as 64 hex digits");
  m.def("toolchain_identity", [] { return fly::cache::toolchainIdentity().str(); },
        "the identity of this build of the compiler and LLVM (part of every disk-cache key)");
}
