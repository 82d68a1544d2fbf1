//===- DiskCache.h - The content-addressed disk cache ----------*- C++ -*-===//
//
// Compiled artifacts on disk, addressed by a CacheKey plus the toolchain
// identity (SPEC §6). The cache never returns what it did not write for the
// same key and toolchain: a corrupt, truncated or foreign entry is deleted
// and reported as a miss. Concurrent processes may share a directory.
//
// Layout, under the cache directory:
//   <dd>/<digest>.flyc          an entry; <digest> is the 64-hex-digit
//                               CacheKey digest of the toolchain identity
//                               and the key's digest, <dd> its first two
//                               digits
//   <dd>/<digest>.flyc.tmp-*    an entry being written (renamed when done)
//   <dd>/<digest>.lock          exists while a process builds the entry
//
// Entry format, integers little-endian:
//   8 bytes   magic "FLYCACHE"
//   4 bytes   format version (2)
//   4 bytes   T, the length of the toolchain identity
//   T bytes   the toolchain identity (toolchainIdentity())
//   64 bytes  <digest>, the entry's own name
//   8 bytes   N, the payload size
//   32 bytes  the BLAKE3 hash of the payload (256 bits)
//   N bytes   the payload
// An entry is valid only if every field matches and the file ends exactly
// after the payload.
//
// Writes are atomic: a uniquely named temp file in the entry's directory,
// renamed over the final name once complete, so a reader sees a whole
// entry or none. A crash mid-write leaves at worst a stray temp file, never
// a partial entry; files are not fsync'ed, because an entry torn by a power
// loss fails its checksum and is rebuilt.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_CACHE_DISKCACHE_H
#define FLY_CACHE_DISKCACHE_H

#include "fly/Cache/CacheKey.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace fly::cache {

/// Where the cache lives and whether it is used, from SPEC §11's variables.
struct CacheOptions {
  bool enabled = true;
  /// The cache directory; empty when the cache is disabled.
  std::string directory;

  /// FLYDSL_RUNTIME_ENABLE_CACHE: 1/true/yes/on or 0/false/no/off (any
  /// case), default on. FLYDSL_RUNTIME_CACHE_DIR: default ~/.flydsl/cache.
  /// An empty variable counts as unset. A malformed value is an error
  /// naming the variable.
  static llvm::Expected<CacheOptions> fromEnvironment();
};

/// One stored entry, as `DiskCache::entries` finds it.
struct CacheEntry {
  std::string digest; // the name of the entry (64 hex digits)
  std::string path;
  uint64_t size = 0;
  /// Last modification, seconds since the epoch.
  int64_t modified = 0;
};

class DiskCache {
public:
  /// The cache in `directory`, created if missing. `toolchain` is part of
  /// every entry's address and header; tests pass another one to play a
  /// different compiler.
  static llvm::Expected<DiskCache>
  open(llvm::StringRef directory,
       llvm::StringRef toolchain = toolchainIdentity());

  llvm::StringRef directory() const { return dir; }

  /// The file that holds the entry of `key` (whether or not it exists).
  std::string entryPath(const CacheKey &key) const;

  /// The payload stored for `key`, or nullopt when there is none. An
  /// invalid entry is deleted and is a miss. Errors are I/O failures other
  /// than a missing entry.
  llvm::Expected<std::optional<std::string>> lookup(const CacheKey &key) const;

  /// Stores `payload` for `key`, replacing any entry atomically. On failure
  /// nothing is left behind.
  llvm::Error store(const CacheKey &key, llvm::StringRef payload) const;

  /// The payload of `key`; on a miss, builds it once across processes:
  /// the builder runs under an exclusive lock on the entry's lock file, and
  /// processes that wait for the lock then find the entry. A failed build
  /// stores nothing and returns the builder's error. The lock is an
  /// advisory file lock (llvm::sys::fs::lockFile), released by the kernel if
  /// its holder dies, so a crash never blocks the others; a holder that
  /// hangs makes them wait. Threads of one process are serialized per entry
  /// as well.
  llvm::Expected<std::string>
  getOrCreate(const CacheKey &key,
              llvm::function_ref<llvm::Expected<std::string>()> build) const;

  /// Every complete entry of the directory (of any toolchain), by digest;
  /// a file being written (its temporary) or a lock file is none.
  llvm::Expected<std::vector<CacheEntry>> entries() const;

  /// Deletes the entry named `digest`; false when there was none. An entry
  /// being written is not touched: its temporary replaces the file
  /// atomically after.
  llvm::Expected<bool> remove(llvm::StringRef digest) const;

private:
  DiskCache(std::string dir, std::string toolchain)
      : dir(std::move(dir)), toolchain(std::move(toolchain)) {}

  /// The digest that names the entry of `key`.
  std::string entryDigest(const CacheKey &key) const;
  /// <dir>/<dd>/<digest> without an extension.
  std::string entryStem(llvm::StringRef digest) const;
  llvm::Expected<std::optional<std::string>>
  lookupEntry(llvm::StringRef digest) const;
  llvm::Error storeEntry(llvm::StringRef digest, llvm::StringRef payload) const;

  std::string dir;
  std::string toolchain;
};

} // namespace fly::cache

#endif // FLY_CACHE_DISKCACHE_H
