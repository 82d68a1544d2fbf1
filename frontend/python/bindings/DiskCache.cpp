//===- DiskCache.cpp - flydsl._fly.DiskCache ------------------------------===//
//
// The disk cache of compiled artifacts (fly/Cache) for Python: Python
// supplies the key material as (field, value) pairs and the payload bytes;
// the cache adds the toolchain identity, checksums, writes atomically and
// locks across processes. A Python builder that raises stores nothing and
// its exception propagates.
//
// Also two parts of the key material the front end computes on every first
// call of a process, here because in Python they were most of a disk-cache
// hit: the identity of the package's sources (a walk of its directory)
// and the description of a function's compiled code.
//
//===----------------------------------------------------------------------===//

#include "fly/Cache/CacheKey.h"
#include "fly/Cache/DiskCache.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

/// A failed system call on `path` (errno set) as Python's OSError subclass
/// of that errno (FileNotFoundError, PermissionError, ...).
struct PathError {
  int error;
  std::string path;
};

/// Appends, for every file under directory `root` + `relative` whose name
/// ends with `suffix`, "<relative path>\0<size>\0<mtime ns>\0" to `out`:
/// each directory's entries by name (bytes), its files before its
/// subdirectories, which follow depth first; directories named
/// __pycache__ are skipped. Symbolic links are followed, as os.stat does.
void appendTree(const std::string &root, const std::string &relative,
                const std::string &suffix, std::string &out) {
  std::string path = root + relative;
  DIR *dir = opendir(path.c_str());
  if (!dir)
    throw PathError{errno, path};
  // (name, whether it may be a directory: the entry's type when the file
  // system gives it, so that only links and unknown types are stat'ed)
  std::vector<std::pair<std::string, bool>> names;
  while (true) {
    errno = 0; // readdir's end and its failure differ by errno only
    const dirent *entry = readdir(dir);
    if (!entry)
      break;
    std::string name = entry->d_name;
    if (name != "." && name != "..")
      names.emplace_back(std::move(name), entry->d_type == DT_DIR ||
                                              entry->d_type == DT_LNK ||
                                              entry->d_type == DT_UNKNOWN);
  }
  int readError = errno;
  int fd = dirfd(dir);
  if (readError) {
    closedir(dir);
    throw PathError{readError, path};
  }
  std::sort(names.begin(), names.end());
  std::vector<std::string> subdirectories;
  for (const auto &[name, maybeDirectory] : names) {
    struct stat status;
    bool isSource = name.size() >= suffix.size() &&
                    name.compare(name.size() - suffix.size(), suffix.size(),
                                 suffix) == 0;
    if (isSource) {
      if (fstatat(fd, name.c_str(), &status, 0) != 0) {
        int error = errno;
        closedir(dir);
        throw PathError{error, path + "/" + name};
      }
      out += relative;
      out += '/';
      out += name;
      out += '\0';
      out += std::to_string(static_cast<long long>(status.st_size));
      out += '\0';
      out += std::to_string(static_cast<long long>(status.st_mtim.tv_sec) *
                                1000000000LL +
                            status.st_mtim.tv_nsec);
      out += '\0';
    } else if (maybeDirectory && name != "__pycache__" &&
               fstatat(fd, name.c_str(), &status, 0) == 0 &&
               S_ISDIR(status.st_mode)) {
      subdirectories.push_back(name);
    }
  }
  closedir(dir);
  for (const std::string &name : subdirectories)
    appendTree(root, relative + "/" + name, suffix, out);
}

/// The digest of appendTree's listing of `directory`, or the failure.
struct TreeDigest {
  std::string digest;
  std::optional<PathError> failure;
};

TreeDigest treeDigest(const std::string &directory, const std::string &suffix) {
  std::string listing;
  try {
    appendTree(directory, "", suffix, listing);
  } catch (const PathError &err) {
    return {"", err};
  }
  return {fly::cache::digestOf(listing), std::nullopt};
}

std::string digestOrRaise(const TreeDigest &result) {
  if (result.failure) {
    errno = result.failure->error;
    PyErr_SetFromErrnoWithFilename(PyExc_OSError, result.failure->path.c_str());
    throw nb::python_error();
  }
  return result.digest;
}

/// A tree digest computed on a thread of its own, started by the
/// constructor: the walk is system calls, which overlap with whatever the
/// process does meanwhile. result() waits for it (without the GIL). A
/// process forked meanwhile has no such thread: there, and when no thread
/// could be started, result() walks the tree itself.
class TreeDigestTask {
public:
  TreeDigestTask(std::string directory, std::string suffix)
      : directory_(std::move(directory)), suffix_(std::move(suffix)),
        owner(getpid()), state(std::make_shared<State>()) {
    try {
      // The thread owns its copies: it may outlive this object.
      std::thread([state = state, directory = directory_, suffix = suffix_] {
        TreeDigest result;
        try {
          result = treeDigest(directory, suffix);
        } catch (const std::exception &) { // out of memory
          result.failure = PathError{ENOMEM, directory};
        }
        std::lock_guard<std::mutex> lock(state->mutex);
        state->result = std::move(result);
        state->ready.notify_all();
      }).detach();
      started = true;
    } catch (const std::system_error &) {
      started = false;
    }
  }

  const std::string &directory() const { return directory_; }

  std::string result() const {
    TreeDigest result;
    {
      nb::gil_scoped_release release;
      if (started && getpid() == owner) {
        std::unique_lock<std::mutex> lock(state->mutex);
        state->ready.wait(lock, [&] { return state->result.has_value(); });
        result = *state->result;
      } else {
        result = treeDigest(directory_, suffix_);
      }
    }
    return digestOrRaise(result);
  }

private:
  struct State {
    std::mutex mutex;
    std::condition_variable ready;
    std::optional<TreeDigest> result;
  };
  std::string directory_, suffix_;
  pid_t owner;
  std::shared_ptr<State> state;
  bool started = false;
};

/// `bytes` preceded by its length (8 bytes, little endian).
void appendSized(std::string &out, nb::handle bytes) {
  char *data;
  Py_ssize_t size;
  if (PyBytes_AsStringAndSize(bytes.ptr(), &data, &size) != 0)
    throw nb::python_error();
  uint64_t length = uint64_t(size);
  for (int i = 0; i < 8; ++i)
    out += char((length >> (8 * i)) & 0xff);
  out.append(data, size_t(size));
}

std::string utf8(nb::handle text) {
  Py_ssize_t size;
  const char *data = PyUnicode_AsUTF8AndSize(text.ptr(), &size);
  if (!data)
    throw nb::python_error();
  return std::string(data, size_t(size));
}

std::string codeDigest(nb::handle code, bool locations);

/// A constant of a code object as the same text in every process: nested
/// code by its digest, sets in sorted order (their iteration order
/// follows the hash seed), tuples element by element, anything else as
/// "<type name>:<repr>".
std::string describeConst(nb::handle value, bool locations) {
  PyObject *object = value.ptr();
  if (PyCode_Check(object))
    return "code:" + codeDigest(value, locations);
  if (PyAnySet_Check(object) || PyTuple_Check(object)) {
    std::vector<std::string> parts;
    for (nb::handle element : value)
      parts.push_back(describeConst(element, locations));
    bool isSet = PyAnySet_Check(object);
    if (isSet)
      std::sort(parts.begin(), parts.end());
    std::string out = isSet ? "frozenset(" : "tuple(";
    for (size_t i = 0; i < parts.size(); ++i)
      out += (i ? "," : "") + parts[i];
    return out + ")";
  }
  nb::handle type(reinterpret_cast<PyObject *>(Py_TYPE(object)));
  return utf8(nb::getattr(type, "__name__")) + ":" + utf8(nb::repr(value));
}

/// The digest of what a function's compiled code is (documented by
/// _describe_code in flydsl/compiler/cache_key.py).
std::string codeDigest(nb::handle code, bool locations) {
  std::string data;
  appendSized(data, nb::getattr(code, "co_code"));
  appendSized(data, nb::getattr(code, "co_exceptiontable", nb::bytes("")));
  if (locations)
    appendSized(data, nb::getattr(code, "co_linetable"));
  auto attr = [&](const char *name) { return nb::getattr(code, name); };
  nb::tuple header =
      locations
          ? nb::make_tuple(attr("co_name"), attr("co_argcount"),
                           attr("co_posonlyargcount"),
                           attr("co_kwonlyargcount"), attr("co_flags"),
                           attr("co_names"), attr("co_varnames"),
                           attr("co_freevars"), attr("co_cellvars"),
                           attr("co_filename"), attr("co_firstlineno"))
          : nb::make_tuple(attr("co_name"), attr("co_argcount"),
                           attr("co_posonlyargcount"),
                           attr("co_kwonlyargcount"), attr("co_flags"),
                           attr("co_names"), attr("co_varnames"),
                           attr("co_freevars"), attr("co_cellvars"));
  data += utf8(nb::repr(header));
  for (nb::handle constant : attr("co_consts")) {
    data += describeConst(constant, locations);
    data += '\0';
  }
  return fly::cache::digestOf(data);
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
  m.def(
      "tree_digest",
      [](const std::string &directory, const std::string &suffix) {
        TreeDigest result;
        {
          nb::gil_scoped_release release;
          result = treeDigest(directory, suffix);
        }
        return digestOrRaise(result);
      },
      "directory"_a, "suffix"_a,
      "The cache's hash of what identifies the files named *`suffix` under "
      "`directory`, as 64 hex digits: the digest of, per file, \"<path "
      "relative to directory, from '/'>\\0<bytes>\\0<st_mtime_ns>\\0\", each "
      "directory's entries by name, its files before its subdirectories "
      "(depth first), __pycache__ directories skipped, symbolic links "
      "followed; an OSError naming the path that could not be read");

  nb::class_<TreeDigestTask>(m, "TreeDigestTask",
                             "tree_digest(directory, suffix), computed on a "
                             "thread of its own from the moment it is made")
      .def(nb::init<std::string, std::string>(), "directory"_a, "suffix"_a)
      .def_prop_ro("directory", &TreeDigestTask::directory)
      .def("result", &TreeDigestTask::result,
           "tree_digest(directory, suffix), waiting for the thread (in a "
           "forked process, or without a thread, computed now)");

  m.def(
      "code_digest",
      [](nb::handle code, bool locations) {
        if (!PyCode_Check(code.ptr()))
          throw nb::type_error("code_digest(code): a code object");
        return codeDigest(code, locations);
      },
      "code"_a, "locations"_a,
      "The cache's hash of a code object: what it is, exactly and the same "
      "in every process (flydsl.compiler.cache_key._describe_code)");
  m.def("toolchain_identity", [] { return fly::cache::toolchainIdentity().str(); },
        "the identity of this build of the compiler and LLVM (part of every disk-cache key)");
}
