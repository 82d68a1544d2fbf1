//===- CacheOptions.cpp - The cache's environment variables ---------------===//

#include "fly/Cache/DiskCache.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

using namespace llvm;

namespace fly::cache {

static constexpr const char *kEnableVar = "FLYDSL_RUNTIME_ENABLE_CACHE";
static constexpr const char *kDirVar = "FLYDSL_RUNTIME_CACHE_DIR";

/// The value of `name`, or nullopt when it is unset or empty.
static std::optional<std::string> getNonEmptyEnv(const char *name) {
  std::optional<std::string> value = sys::Process::GetEnv(name);
  if (value && value->empty())
    return std::nullopt;
  return value;
}

Expected<CacheOptions> CacheOptions::fromEnvironment() {
  CacheOptions options;
  if (std::optional<std::string> value = getNonEmptyEnv(kEnableVar)) {
    std::string lower = StringRef(*value).lower();
    std::optional<bool> enabled = StringSwitch<std::optional<bool>>(lower)
                                      .Cases({"1", "true", "yes", "on"}, true)
                                      .Cases({"0", "false", "no", "off"}, false)
                                      .Default(std::nullopt);
    if (!enabled)
      return createStringError("%s: '%s' is not a boolean (use 1/true/yes/on "
                               "or 0/false/no/off)",
                               kEnableVar, value->c_str());
    options.enabled = *enabled;
  }
  if (!options.enabled)
    return options;

  if (std::optional<std::string> dir = getNonEmptyEnv(kDirVar)) {
    options.directory = *dir;
    return options;
  }
  SmallString<256> home;
  if (!sys::path::home_directory(home))
    return createStringError("%s is not set and the home directory is "
                             "unknown: set %s",
                             kDirVar, kDirVar);
  sys::path::append(home, ".flydsl", "cache");
  options.directory = std::string(home);
  return options;
}

} // namespace fly::cache
