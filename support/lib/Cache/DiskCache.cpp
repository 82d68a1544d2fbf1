//===- DiskCache.cpp - The content-addressed disk cache -------------------===//
//
// The entry format and the directory layout are documented in DiskCache.h.
//
//===----------------------------------------------------------------------===//

#include "fly/Cache/DiskCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/DataExtractor.h"
#include "llvm/Support/EndianStream.h"
#include "llvm/Support/Errc.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/raw_ostream.h"

#include <condition_variable>
#include <mutex>

using namespace llvm;
namespace fs = llvm::sys::fs;

namespace fly::cache {

namespace {

constexpr StringLiteral kMagic = "FLYCACHE";
constexpr uint32_t kFormatVersion = 2;
constexpr uint64_t kDigestSize = 64;   // hex digits of a CacheKey digest
constexpr uint64_t kChecksumSize = 32; // bytes of a BLAKE3 hash

std::array<uint8_t, kChecksumSize> checksum(StringRef payload) {
  return BLAKE3::hash(arrayRefFromStringRef(payload));
}

void writeEntry(raw_ostream &os, StringRef toolchain, StringRef digest,
                StringRef payload) {
  support::endian::Writer writer(os, endianness::little);
  os << kMagic;
  writer.write<uint32_t>(kFormatVersion);
  writer.write<uint32_t>(toolchain.size());
  os << toolchain << digest;
  writer.write<uint64_t>(payload.size());
  os << toStringRef(ArrayRef<uint8_t>(checksum(payload))) << payload;
}

/// The payload of `entry` if it is a whole entry named `digest` written by
/// `toolchain`; nullopt for anything else.
std::optional<StringRef> readEntry(StringRef entry, StringRef toolchain,
                                   StringRef digest) {
  DataExtractor data(entry, /*IsLittleEndian=*/true, /*AddressSize=*/8);
  DataExtractor::Cursor cursor(0);
  StringRef magic = data.getBytes(cursor, kMagic.size());
  uint32_t version = data.getU32(cursor);
  StringRef entryToolchain = data.getBytes(cursor, data.getU32(cursor));
  StringRef entryDigest = data.getBytes(cursor, kDigestSize);
  uint64_t payloadSize = data.getU64(cursor);
  StringRef entryChecksum = data.getBytes(cursor, kChecksumSize);
  StringRef payload = data.getBytes(cursor, payloadSize);
  // A read past the end (a truncated entry, or a size field claiming more
  // bytes than there are) puts the cursor in its error state.
  if (errorToBool(cursor.takeError()) || !data.eof(cursor))
    return std::nullopt;
  if (magic != kMagic || version != kFormatVersion ||
      entryToolchain != toolchain || entryDigest != digest ||
      arrayRefFromStringRef(entryChecksum) != ArrayRef(checksum(payload)))
    return std::nullopt;
  return payload;
}

/// The lock paths that threads of this process hold. sys::fs::lockFile
/// takes a POSIX record lock, which belongs to the whole process: it does
/// not exclude the process's other threads, and closing any descriptor of
/// the file drops it. A thread therefore claims the path here before it
/// opens the file, so only one thread per process ever touches it.
class ThreadClaims {
public:
  void claim(StringRef path) {
    std::unique_lock<std::mutex> lock(mutex);
    released.wait(lock, [&] { return !held.contains(path); });
    held.insert(path);
  }
  void release(StringRef path) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      held.erase(path);
    }
    released.notify_all();
  }

private:
  std::mutex mutex;
  std::condition_variable released;
  StringSet<> held;
};

ThreadClaims &threadClaims() {
  static ThreadClaims claims;
  return claims;
}

/// An exclusive lock on a lock file that exists only while it is held: the
/// holder removes the file before unlocking it, and a process that locked a
/// removed file tries again on the current one. No lock files pile up, and a
/// crashed holder leaves a file whose lock the kernel has already released.
class EntryLock {
public:
  static Expected<EntryLock> acquire(const std::string &path);

  EntryLock(EntryLock &&other)
      : path(std::move(other.path)), fd(std::exchange(other.fd, -1)) {}
  EntryLock(const EntryLock &) = delete;
  ~EntryLock();

private:
  EntryLock(std::string path, int fd) : path(std::move(path)), fd(fd) {}
  static Expected<EntryLock> lockFile(const std::string &path);

  std::string path;
  int fd;
};

Expected<EntryLock> EntryLock::acquire(const std::string &path) {
  threadClaims().claim(path);
  Expected<EntryLock> lock = lockFile(path);
  if (!lock)
    threadClaims().release(path);
  return lock;
}

Expected<EntryLock> EntryLock::lockFile(const std::string &path) {
  while (true) {
    int fd;
    if (std::error_code ec =
            fs::openFileForReadWrite(path, fd, fs::CD_OpenAlways, fs::OF_None))
      return createFileError(path, ec);
    // Closes fd on every way out; removes `path` only once it owns it.
    EntryLock candidate(/*path=*/"", fd);
    if (std::error_code ec = fs::lockFile(fd))
      return createFileError(path, ec);
    fs::file_status locked, current;
    if (std::error_code ec = fs::status(fd, locked))
      return createFileError(path, ec);
    std::error_code ec = fs::status(path, current);
    if (!ec && current.getUniqueID() == locked.getUniqueID()) {
      candidate.path = path;
      return std::move(candidate);
    }
    if (ec && ec != errc::no_such_file_or_directory)
      return createFileError(path, ec);
    // The previous holder removed the file this process locked: try again
    // on the file now at `path`.
  }
}

EntryLock::~EntryLock() {
  if (fd < 0)
    return;
  if (!path.empty())
    (void)fs::remove(path);
  (void)fs::unlockFile(fd);
  (void)sys::Process::SafelyCloseFileDescriptor(fd);
  if (!path.empty())
    threadClaims().release(path);
}

/// Creates the directory of the entry files at `stem`.
Error createParentDirectory(StringRef stem) {
  StringRef parent = sys::path::parent_path(stem);
  if (std::error_code ec = fs::create_directories(parent))
    return createFileError(parent, ec);
  return Error::success();
}

} // namespace

Expected<DiskCache> DiskCache::open(StringRef directory, StringRef toolchain) {
  SmallString<256> dir(directory);
  if (std::error_code ec = fs::make_absolute(dir))
    return createFileError(directory, ec);
  if (std::error_code ec = fs::create_directories(dir))
    return createFileError(dir, ec);
  if (!fs::is_directory(dir))
    return createFileError(dir, make_error_code(errc::not_a_directory));
  return DiskCache(std::string(dir), std::string(toolchain));
}

std::string DiskCache::entryDigest(const CacheKey &key) const {
  return CacheKey()
      .add("toolchain", toolchain)
      .add("key", key.digest())
      .digest();
}

std::string DiskCache::entryStem(StringRef digest) const {
  SmallString<256> stem(dir);
  sys::path::append(stem, digest.take_front(2), digest);
  return std::string(stem);
}

/// Whether `name` is a digest: 64 lowercase hex digits.
static bool isDigest(StringRef name) {
  return name.size() == 64 &&
         llvm::all_of(name, [](char c) { return isDigit(c) || (c >= 'a' && c <= 'f'); });
}

Expected<std::vector<CacheEntry>> DiskCache::entries() const {
  std::vector<CacheEntry> found;
  std::error_code ec;
  for (fs::directory_iterator sub(dir, ec), end; !ec && sub != end;
       sub.increment(ec)) {
    StringRef prefix = sys::path::filename(sub->path());
    if (prefix.size() != 2)
      continue;
    for (fs::directory_iterator file(sub->path(), ec); !ec && file != end;
         file.increment(ec)) {
      StringRef name = sys::path::filename(file->path());
      if (!name.consume_back(".flyc") || !isDigest(name) ||
          !name.starts_with(prefix))
        continue;
      fs::file_status status;
      if (fs::status(file->path(), status))
        continue; // removed meanwhile
      found.push_back({name.str(), file->path(), status.getSize(),
                       sys::toTimeT(status.getLastModificationTime())});
    }
    if (ec == errc::no_such_file_or_directory)
      ec.clear();
  }
  if (ec && ec != errc::no_such_file_or_directory)
    return createStringError(ec, "reading the cache directory " + dir + ": " +
                                     ec.message());
  llvm::sort(found, [](const CacheEntry &a, const CacheEntry &b) {
    return a.digest < b.digest;
  });
  return found;
}

Expected<bool> DiskCache::remove(StringRef digest) const {
  if (!isDigest(digest))
    return createStringError(inconvertibleErrorCode(),
                             "'" + digest + "' names no cache entry");
  std::error_code ec = fs::remove(entryStem(digest) + ".flyc",
                                  /*IgnoreNonExisting=*/false);
  if (ec == errc::no_such_file_or_directory)
    return false;
  if (ec)
    return createStringError(ec, "removing cache entry " + digest + ": " +
                                     ec.message());
  return true;
}

std::string DiskCache::entryPath(const CacheKey &key) const {
  return entryStem(entryDigest(key)) + ".flyc";
}

Expected<std::optional<std::string>>
DiskCache::lookupEntry(StringRef digest) const {
  std::string path = entryStem(digest) + ".flyc";
  Expected<fs::file_t> file = fs::openNativeFileForRead(path);
  if (!file) {
    std::error_code ec = errorToErrorCode(file.takeError());
    if (ec == errc::no_such_file_or_directory)
      return std::nullopt;
    return createFileError(path, ec);
  }
  fs::file_status status;
  std::error_code statusError = fs::status(*file, status);
  // Volatile: read, not mapped, so that nothing done to the file later can
  // fault this process.
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer = MemoryBuffer::getOpenFile(
      *file, path, /*FileSize=*/-1, /*RequiresNullTerminator=*/false,
      /*IsVolatile=*/true);
  fs::closeFile(*file);
  if (statusError)
    return createFileError(path, statusError);
  if (!buffer)
    return createFileError(path, buffer.getError());
  if (std::optional<StringRef> payload =
          readEntry((*buffer)->getBuffer(), toolchain, digest))
    return std::string(*payload);

  // Not an entry of ours: delete it, unless a writer has renamed a new one
  // over it meanwhile. A failed removal is harmless: the file is never
  // loaded, and the next store replaces it.
  fs::UniqueID current;
  if (!fs::getUniqueID(path, current) && current == status.getUniqueID())
    (void)fs::remove(path);
  return std::nullopt;
}

Error DiskCache::storeEntry(StringRef digest, StringRef payload) const {
  std::string stem = entryStem(digest);
  if (Error error = createParentDirectory(stem))
    return error;
  Expected<fs::TempFile> temp =
      fs::TempFile::create(stem + ".flyc.tmp-%%%%%%%%");
  if (!temp)
    return temp.takeError();
  {
    raw_fd_ostream os(temp->FD, /*shouldClose=*/false);
    writeEntry(os, toolchain, digest, payload);
    os.flush();
    if (std::error_code ec = os.error()) {
      os.clear_error();
      return joinErrors(createFileError(temp->TmpName, ec), temp->discard());
    }
  }
  // keep() closes the file; the rename publishes it whole. (keep(Name)
  // would fall back to a non-atomic copy when the rename fails.)
  std::string tempPath = temp->TmpName;
  if (Error error = temp->keep())
    return joinErrors(std::move(error), errorCodeToError(fs::remove(tempPath)));
  std::string path = stem + ".flyc";
  if (std::error_code ec = fs::rename(tempPath, path)) {
    (void)fs::remove(tempPath);
    return createFileError(path, ec);
  }
  return Error::success();
}

Expected<std::optional<std::string>>
DiskCache::lookup(const CacheKey &key) const {
  return lookupEntry(entryDigest(key));
}

Error DiskCache::store(const CacheKey &key, StringRef payload) const {
  return storeEntry(entryDigest(key), payload);
}

Expected<std::string>
DiskCache::getOrCreate(const CacheKey &key,
                       function_ref<Expected<std::string>()> build) const {
  std::string digest = entryDigest(key);
  Expected<std::optional<std::string>> cached = lookupEntry(digest);
  if (!cached)
    return cached.takeError();
  if (*cached)
    return std::move(**cached);

  std::string stem = entryStem(digest);
  if (Error error = createParentDirectory(stem))
    return std::move(error);
  Expected<EntryLock> lock = EntryLock::acquire(stem + ".lock");
  if (!lock)
    return lock.takeError();
  // Another process may have built the entry while this one waited.
  cached = lookupEntry(digest);
  if (!cached)
    return cached.takeError();
  if (*cached)
    return std::move(**cached);

  Expected<std::string> payload = build();
  if (!payload)
    return payload.takeError();
  if (Error error = storeEntry(digest, *payload))
    return std::move(error);
  return payload;
}

} // namespace fly::cache
