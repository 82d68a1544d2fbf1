//===- fly-cache-tool.cpp - Drive the disk cache from tests ---------------===//
//
// Test scaffolding: one cache operation per run, so that pytest can check
// the cache's files and run several processes against one directory.
//
//   fly-cache-tool digest FIELD=VALUE...         print the key's digest
//   fly-cache-tool path [OPTS] DIR FIELD=VALUE...  print the entry's file
//   fly-cache-tool put [OPTS] DIR FIELD=VALUE...   store stdin as the payload
//   fly-cache-tool get [OPTS] DIR FIELD=VALUE...   print the payload
//   fly-cache-tool build [OPTS] DIR FIELD=VALUE... getOrCreate; print it
//   fly-cache-tool env                            print CacheOptions
//
// A key is its FIELD=VALUE words in order, split at the first '='. Options:
//   --toolchain=T   open the cache as toolchain T instead of this build's
//   --payload=TEXT  what `build`'s builder returns
//   --sleep-ms=N    the builder sleeps N ms first
//   --log=FILE      the builder appends "built <pid>" to FILE
//   --fail          the builder fails instead
//   --threads=N     `build` runs getOrCreate on N threads at once and prints
//                   each thread's payload on a line of its own
// Exit status: 0 done (a hit for `get`), 1 a miss, 2 an error (on stderr).
//
//===----------------------------------------------------------------------===//

#include "fly/Cache/DiskCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <thread>
#include <vector>

using namespace fly::cache;
using namespace llvm;

namespace {

struct Invocation {
  StringRef command;
  std::optional<std::string> toolchain;
  std::string payload;
  unsigned sleepMs = 0;
  std::string log;
  bool fail = false;
  unsigned threads = 1;
  SmallVector<StringRef> positional;
};

Expected<Invocation> parse(int argc, char **argv) {
  if (argc < 2)
    return createStringError("usage: fly-cache-tool digest|path|put|get|"
                             "build|env [OPTIONS] [DIR] FIELD=VALUE...");
  Invocation inv;
  inv.command = argv[1];
  for (int i = 2; i < argc; ++i) {
    StringRef arg = argv[i];
    if (arg.consume_front("--toolchain="))
      inv.toolchain = arg.str();
    else if (arg.consume_front("--payload="))
      inv.payload = arg.str();
    else if (arg.consume_front("--sleep-ms=")) {
      if (arg.getAsInteger(10, inv.sleepMs))
        return createStringError("--sleep-ms: not a number: " + arg);
    } else if (arg.consume_front("--threads=")) {
      if (arg.getAsInteger(10, inv.threads) || inv.threads == 0)
        return createStringError("--threads: not a positive number: " + arg);
    } else if (arg.consume_front("--log="))
      inv.log = arg.str();
    else if (arg == "--fail")
      inv.fail = true;
    else if (arg.starts_with("--"))
      return createStringError("unknown option " + arg);
    else
      inv.positional.push_back(arg);
  }
  return inv;
}

Expected<CacheKey> parseKey(ArrayRef<StringRef> words) {
  CacheKey key;
  for (StringRef word : words) {
    auto [field, value] = word.split('=');
    if (field.size() == word.size())
      return createStringError("not FIELD=VALUE: " + word);
    key.add(field, value);
  }
  return key;
}

/// The builder of `build`: records that it ran, then returns the payload.
Expected<std::string> runBuilder(const Invocation &inv) {
  if (!inv.log.empty()) {
    std::error_code ec;
    raw_fd_ostream log(inv.log, ec, sys::fs::OF_Append);
    if (ec)
      return createFileError(inv.log, ec);
    log << "built " << sys::Process::getProcessId() << "\n";
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(inv.sleepMs));
  if (inv.fail)
    return createStringError("builder failed as asked");
  return inv.payload;
}

/// `build --threads=N`: N threads race for one entry. The builder's log
/// lines tell how many of them built it.
Expected<int> buildOnThreads(const DiskCache &cache, const CacheKey &key,
                             const Invocation &inv) {
  std::vector<std::optional<Expected<std::string>>> results(inv.threads);
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < inv.threads; ++i)
    threads.emplace_back([&, i] {
      results[i].emplace(
          cache.getOrCreate(key, [&] { return runBuilder(inv); }));
    });
  for (std::thread &thread : threads)
    thread.join();
  Error errors = Error::success();
  for (std::optional<Expected<std::string>> &result : results) {
    if (*result)
      outs() << **result << "\n";
    else
      errors = joinErrors(std::move(errors), result->takeError());
  }
  if (errors)
    return std::move(errors);
  return 0;
}

/// Runs `inv`; returns the exit status.
Expected<int> run(const Invocation &inv) {
  if (inv.command == "env") {
    Expected<CacheOptions> options = CacheOptions::fromEnvironment();
    if (!options)
      return options.takeError();
    outs() << "enabled=" << options->enabled << "\n"
           << "dir=" << options->directory << "\n";
    return 0;
  }
  ArrayRef<StringRef> args = inv.positional;
  if (inv.command == "digest") {
    Expected<CacheKey> key = parseKey(args);
    if (!key)
      return key.takeError();
    outs() << key->digest() << "\n";
    return 0;
  }
  if (args.empty())
    return createStringError("missing the cache directory");
  Expected<DiskCache> cache = DiskCache::open(
      args.front(), inv.toolchain.value_or(toolchainIdentity().str()));
  if (!cache)
    return cache.takeError();
  Expected<CacheKey> key = parseKey(args.drop_front());
  if (!key)
    return key.takeError();

  if (inv.command == "path") {
    outs() << cache->entryPath(*key) << "\n";
    return 0;
  }
  if (inv.command == "put") {
    ErrorOr<std::unique_ptr<MemoryBuffer>> input = MemoryBuffer::getSTDIN();
    if (!input)
      return errorCodeToError(input.getError());
    if (Error error = cache->store(*key, (*input)->getBuffer()))
      return std::move(error);
    return 0;
  }
  if (inv.command == "get") {
    Expected<std::optional<std::string>> payload = cache->lookup(*key);
    if (!payload)
      return payload.takeError();
    if (!*payload)
      return 1;
    outs() << **payload;
    return 0;
  }
  if (inv.command == "build" && inv.threads == 1) {
    Expected<std::string> payload =
        cache->getOrCreate(*key, [&] { return runBuilder(inv); });
    if (!payload)
      return payload.takeError();
    outs() << *payload;
    return 0;
  }
  if (inv.command == "build")
    return buildOnThreads(*cache, *key, inv);
  return createStringError("unknown command " + inv.command);
}

} // namespace

int main(int argc, char **argv) {
  Expected<Invocation> inv = parse(argc, argv);
  Expected<int> status = inv ? run(*inv) : inv.takeError();
  if (!status) {
    errs() << "fly-cache-tool: " << toString(status.takeError()) << "\n";
    return 2;
  }
  return *status;
}
