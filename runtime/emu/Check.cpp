//===- Check.cpp - Checked emulation: bounds reports and tensor extents ---===//
//
// The runtime side of the emulator's checks (Emu.h, "Checked emulation"):
// the extents of a launch's tensors, the bounds check generated code calls
// before each global or LDS access (and for a private access or register
// fragment index the generated code found out of range), the init check's
// calls (the shadow of the workgroup's LDS is Workgroup.cpp's), and the
// reports a checked launch collects and returns as its error. The barrier
// check is Workgroup.cpp's.
//
//===----------------------------------------------------------------------===//

#include "Workgroup.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace fly::emu {

static_assert(offsetof(FlyEmuSite, kernel) == 0 &&
                  offsetof(FlyEmuSite, location) == 8 &&
                  offsetof(FlyEmuSite, kind) == 16 &&
                  offsetof(FlyEmuSite, space) == 20 &&
                  offsetof(FlyEmuSite, argument) == 24 &&
                  offsetof(FlyEmuSite, allocation) == 32 &&
                  offsetof(FlyEmuSite, allocation_offset) == 40 &&
                  offsetof(FlyEmuSite, allocation_bytes) == 44 &&
                  sizeof(FlyEmuSite) == 48,
              "ABI");

namespace {

// What fly_emu_set_tensor_extents gave this thread.
struct PendingTensors {
  std::vector<FlyEmuTensorExtent> tensors;
  std::vector<std::string> names;
};
thread_local PendingTensors pending;

// Where an out-of-bounds access goes instead (a thread's, never shared).
constexpr size_t kScratchBytes = 4096;
alignas(64) thread_local unsigned char scratch[kScratchBytes];

const char *kindName(uint32_t kind) {
  switch (kind) {
  case FLY_EMU_ACCESS_LOAD:
    return "load";
  case FLY_EMU_ACCESS_STORE:
    return "store";
  case FLY_EMU_ACCESS_ATOMIC:
    return "atomic";
  default:
    return "access";
  }
}

bool inside(uintptr_t a, uint64_t bytes, const FlyEmuTensorExtent &e) {
  uintptr_t base = reinterpret_cast<uintptr_t>(e.base);
  return a >= base && a - base <= e.bytes && bytes <= e.bytes - (a - base);
}

// The tensor a kernel argument's pointer `p` points into: the one whose
// extent holds it (half-open: a view that ends where the next begins is
// not the next one's), or one that starts at it.
const FlyEmuTensorExtent *owner(const LaunchState &l, uintptr_t p) {
  const FlyEmuTensorExtent *found = nullptr;
  for (const FlyEmuTensorExtent &e : l.tensors) {
    uintptr_t base = reinterpret_cast<uintptr_t>(e.base);
    if (p >= base && p - base < e.bytes)
      return &e;
    if (p == base && !found)
      found = &e;
  }
  return found;
}

// The tensor nearest to `a`, for an access that is in none.
const FlyEmuTensorExtent *nearest(const LaunchState &l, uintptr_t a) {
  const FlyEmuTensorExtent *best = nullptr;
  uint64_t bestDistance = UINT64_MAX;
  for (const FlyEmuTensorExtent &e : l.tensors) {
    uintptr_t base = reinterpret_cast<uintptr_t>(e.base);
    uint64_t distance = a < base ? base - a : a - base < e.bytes ? 0 : a - base - e.bytes;
    if (distance < bestDistance) {
      bestDistance = distance;
      best = &e;
    }
  }
  return best;
}

std::string workItemText(const FlyEmuContext &c) {
  char text[96];
  std::snprintf(text, sizeof text, "workgroup (%u,%u,%u), work-item (%u,%u,%u)",
                c.workgroup_id[0], c.workgroup_id[1], c.workgroup_id[2],
                c.work_item_id[0], c.work_item_id[1], c.work_item_id[2]);
  return text;
}

// fly_emu_check_access of a work-item's own memory (FLY_EMU_SPACE_PRIVATE),
// which the generated code calls only for an access it found out of range:
// a register vector's index (`address` the index, `bytes` the length), or
// an alloca's byte offset (`address` the offset, `bytes` the access's).
void *checkPrivate(Fiber &f, LaunchState &l, FlyEmuContext &ctx,
                   void *address, uint64_t bytes, const FlyEmuSite &site) {
  const int64_t at = int64_t(reinterpret_cast<intptr_t>(address));
  char detail[320];
  if (site.kind == FLY_EMU_ACCESS_FRAGMENT_READ ||
      site.kind == FLY_EMU_ACCESS_FRAGMENT_WRITE) {
    std::snprintf(detail, sizeof detail,
                  "index %" PRId64 ", the fragment has %" PRIu64 " element%s",
                  at, bytes, bytes == 1 ? "" : "s");
    l.report(site, ctx,
             std::string("out-of-bounds register fragment ") +
                 (site.kind == FLY_EMU_ACCESS_FRAGMENT_READ ? "read" : "write"),
             detail);
    return address;
  }
  std::snprintf(detail, sizeof detail,
                "private allocation '%s' byte offset %" PRId64
                ", its extent is %" PRIu32 " bytes",
                site.allocation ? site.allocation : "", at,
                site.allocation_bytes);
  l.report(site, ctx,
           std::string("out-of-bounds private ") + kindName(site.kind) +
               " of " + std::to_string(bytes) + " bytes",
           detail);
  if (bytes > kScratchBytes)
    f.runner->trap(f, "an out-of-bounds access wider than the emulator's "
                      "scratch buffer");
  if (site.kind != FLY_EMU_ACCESS_STORE)
    std::memset(scratch, 0, bytes);
  return scratch;
}

} // namespace

void LaunchState::report(const FlyEmuSite &site, const FlyEmuContext &ctx,
                         const std::string &kind, const std::string &detail) {
  std::lock_guard<std::mutex> lock(reportMutex);
  if (reportCount++ == 0 && site.kernel)
    reportKernel = site.kernel;
  if (reports.size() >= FLY_EMU_CHECK_MAX_SHOWN)
    return;
  std::string where =
      site.location && *site.location ? site.location : "an unknown line";
  reports.push_back(kind + " at " + where + " in " + workItemText(ctx) + ": " +
                    detail);
}

bool LaunchState::countWarning(const FlyEmuSite &site, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(reportMutex);
  for (Warning &w : warnings)
    if (w.site == &site && w.bytes == bytes) {
      ++w.count;
      return true;
    }
  return false;
}

void LaunchState::warn(const FlyEmuSite &site, uint64_t bytes,
                       const FlyEmuContext &ctx, const std::string &kind,
                       const std::string &detail) {
  std::lock_guard<std::mutex> lock(reportMutex);
  for (Warning &w : warnings)
    if (w.site == &site && w.bytes == bytes) { // another thread's, meanwhile
      ++w.count;
      return;
    }
  std::string where =
      site.location && *site.location ? site.location : "an unknown line";
  warnings.push_back({&site, bytes,
                      std::string("kernel ") + (site.kernel ? site.kernel : "") +
                          ": " + kind + " at " + where + " in " +
                          workItemText(ctx) + ": " + detail,
                      1});
}

std::string LaunchState::reportText() {
  std::lock_guard<std::mutex> lock(reportMutex);
  if (reportCount == 0)
    return {};
  std::string text = "check: " + std::to_string(reportCount) +
                     (reportCount == 1 ? " report" : " reports") +
                     " in kernel " + reportKernel + " (the first " +
                     std::to_string(reports.size()) + " shown)";
  for (const std::string &r : reports)
    text += "\n" + r;
  if (reportCount > reports.size())
    text += "\n... and " + std::to_string(reportCount - reports.size()) +
            " more";
  return text;
}

namespace {
thread_local std::string pendingWarnings, takenWarnings;
} // namespace

void keepWarnings(LaunchState &launch) {
  std::lock_guard<std::mutex> lock(launch.reportMutex);
  for (const LaunchState::Warning &w : launch.warnings) {
    pendingWarnings += w.text;
    if (w.count > 1)
      pendingWarnings += " (x" + std::to_string(w.count) + ")";
    pendingWarnings += "\n";
  }
}

uint32_t checkBuffer(FlyEmuContext &ctx, const FlyEmuBufferResource &rsrc,
                     uint64_t offset, uint32_t bytes, const BufferPart *parts,
                     unsigned count, const FlyEmuSite &site) {
  Fiber &f = *static_cast<Fiber *>(ctx.runtime);
  LaunchState &l = *f.runner->launchState();
  uint32_t make = 0;
  bool outOfRange = false;
  int outside = -1; // the first part in range but outside the tensor
  const uintptr_t base = reinterpret_cast<uintptr_t>(rsrc.base);
  const bool bounds = l.checks & FLY_EMU_CHECK_BOUNDS;
  const FlyEmuTensorExtent *tensor =
      !bounds || l.tensors.empty() ? nullptr : owner(l, base);
  for (unsigned i = 0; i < count; ++i) {
    if (!parts[i].inRange) {
      outOfRange = true;
      continue;
    }
    if (tensor && !inside(base + offset + parts[i].at, parts[i].size, *tensor)) {
      if (outside < 0)
        outside = int(i);
      continue;
    }
    make |= 1u << i;
  }
  const bool warn = outOfRange && (l.checks & FLY_EMU_CHECK_BOUNDS_STRICT) &&
                    !l.countWarning(site, bytes);
  if (!bounds || (outside < 0 && !warn))
    return make;
  // The V# as a report names it: the tensor its base points into, else
  // its base address.
  char resource[192];
  if (tensor)
    std::snprintf(resource, sizeof resource,
                  "the buffer resource of tensor '%s' (its base at the "
                  "tensor's byte offset %" PRId64 ")",
                  tensor->name,
                  int64_t(base - reinterpret_cast<uintptr_t>(tensor->base)));
  else
    std::snprintf(resource, sizeof resource,
                  "the buffer resource with base 0x%" PRIxPTR, base);
  char detail[448];
  if (outside >= 0) {
    const uintptr_t a = base + offset;
    std::snprintf(detail, sizeof detail,
                  "tensor '%s' byte offset %" PRId64 ", its extent is %" PRIu64
                  " bytes; inside the range of %s: buffer byte offset %" PRIu64
                  ", num_records %" PRIu64,
                  tensor->name,
                  int64_t(a - reinterpret_cast<uintptr_t>(tensor->base)),
                  tensor->bytes, resource, offset, rsrc.num_records);
    l.report(site, ctx,
             std::string("out-of-bounds buffer ") + kindName(site.kind) +
                 " of " + std::to_string(bytes) + " bytes",
             detail);
  }
  if (warn) {
    std::snprintf(detail, sizeof detail,
                  "%s, byte offset %" PRIu64 ", num_records %" PRIu64
                  " (the out-of-range part %s)",
                  resource, offset, rsrc.num_records,
                  site.kind == FLY_EMU_ACCESS_LOAD ? "reads 0"
                                                   : "is not written");
    l.warn(site, bytes, ctx,
           std::string("out-of-range buffer ") + kindName(site.kind) + " of " +
               std::to_string(bytes) + " bytes",
           detail);
  }
  return make;
}

int checkTensorElement(FlyEmuContext &ctx, const FlyEmuSite &site, bool store,
                       uintptr_t base, const void *global, uint64_t ldsOffset,
                       uint64_t bytes, unsigned &reported) {
  Fiber &f = *static_cast<Fiber *>(ctx.runtime);
  LaunchState &l = *f.runner->launchState();
  const uint64_t size = l.config.lds_bytes;
  const char *what = store ? "store" : "load";
  char detail[320];
  if (ldsOffset > size || bytes > size - ldsOffset) {
    // (Reported without the bounds check too: unchecked, it traps.)
    if (!(reported & 1u)) {
      reported |= 1u;
      std::snprintf(detail, sizeof detail,
                    "LDS offset %" PRIu64 ", the workgroup's LDS is %" PRIu64
                    " bytes",
                    ldsOffset, size);
      l.report(site, ctx,
               std::string("out-of-bounds tensor data mover LDS ") +
                   (store ? "load" : "store") + " of " +
                   std::to_string(bytes) + " bytes",
               detail);
    }
    return 0;
  }
  int verdict = global ? 2 : 1;
  if (global && (l.checks & FLY_EMU_CHECK_BOUNDS) && !l.tensors.empty()) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(global);
    if (const FlyEmuTensorExtent *t = owner(l, base);
        t && !inside(a, bytes, *t)) {
      verdict = 1;
      if (!(reported & 2u)) {
        reported |= 2u;
        std::snprintf(detail, sizeof detail,
                      "tensor '%s' byte offset %" PRId64
                      ", its extent is %" PRIu64
                      " bytes (inside the descriptor's tensor extents)",
                      t->name,
                      int64_t(a - reinterpret_cast<uintptr_t>(t->base)),
                      t->bytes);
        l.report(site, ctx,
                 std::string("out-of-bounds tensor data mover ") + what +
                     " of " + std::to_string(bytes) + " bytes",
                 detail);
      }
    }
  }
  if (l.checks & FLY_EMU_CHECK_RACE)
    f.runner->checkRace(f, static_cast<char *>(ctx.lds) + ldsOffset, bytes,
                        &site);
  return verdict;
}

// Moves this thread's pending tensors into a launch that checks bounds.
void takeTensorExtents(LaunchState &launch) {
  launch.tensors = pending.tensors;
  launch.tensorNames = pending.names;
  for (size_t i = 0; i < launch.tensors.size(); ++i)
    launch.tensors[i].name = launch.tensorNames[i].c_str();
}

} // namespace fly::emu

using namespace fly::emu;

extern "C" {

void fly_emu_set_tensor_extents(const FlyEmuTensorExtent *tensors,
                                uint32_t count) {
  pending.tensors.assign(tensors, tensors + count);
  pending.names.clear();
  for (uint32_t i = 0; i < count; ++i)
    pending.names.emplace_back(tensors[i].name ? tensors[i].name : "");
}

const char *fly_emu_take_warnings(void) {
  takenWarnings = std::move(pendingWarnings);
  pendingWarnings.clear();
  return takenWarnings.c_str();
}

void fly_emu_check_extent(FlyEmuContext *ctx, int32_t argument,
                          uint64_t *out) {
  Fiber &f = *static_cast<Fiber *>(ctx->runtime);
  const LaunchState &l = *f.runner->launchState();
  if (argument < 0) {
    out[0] = reinterpret_cast<uintptr_t>(ctx->lds);
    out[1] = out[0] + l.config.lds_bytes;
    return;
  }
  out[0] = 0;
  out[1] = UINT64_MAX;
  if (l.tensors.empty())
    return;
  void *const *slot = static_cast<void *const *>(
      static_cast<void *const *>(l.args)[argument]);
  if (const FlyEmuTensorExtent *t = owner(l, reinterpret_cast<uintptr_t>(*slot))) {
    out[0] = reinterpret_cast<uintptr_t>(t->base);
    out[1] = out[0] + t->bytes;
  }
}

void fly_emu_check_race(FlyEmuContext *ctx, const void *address,
                        uint64_t bytes, const FlyEmuSite *site) {
  Fiber &f = *static_cast<Fiber *>(ctx->runtime);
  f.runner->checkRace(f, address, bytes, site);
}

void *fly_emu_check_shadow(FlyEmuContext *ctx) {
  return static_cast<Fiber *>(ctx->runtime)->runner->ldsShadow();
}

void fly_emu_check_lds_written(FlyEmuContext *ctx, const void *address,
                               uint64_t bytes) {
  static_cast<Fiber *>(ctx->runtime)->runner->markLdsWritten(address, bytes);
}

void fly_emu_check_uninit(FlyEmuContext *ctx, const void *address,
                          uint64_t bytes, const FlyEmuSite *site) {
  Fiber &f = *static_cast<Fiber *>(ctx->runtime);
  LaunchState &l = *f.runner->launchState();
  const unsigned char *shadow = f.runner->ldsShadow();
  const uintptr_t base = reinterpret_cast<uintptr_t>(ctx->lds);
  const uintptr_t a = reinterpret_cast<uintptr_t>(address);
  const uint64_t size = l.config.lds_bytes;
  if (!shadow || a < base || a - base > size || bytes > size - (a - base))
    return; // not (all) in the LDS: the bounds check's to report
  const uint64_t offset = a - base;
  uint64_t unwritten = 0, first = bytes;
  for (uint64_t i = 0; i < bytes; ++i)
    if (shadow[offset + i] != 0xFF) {
      if (first == bytes)
        first = i;
      ++unwritten;
    }
  if (!unwritten)
    return;
  char detail[320];
  if (unwritten == bytes)
    std::snprintf(detail, sizeof detail,
                  "LDS offset %" PRIu64 ", the workgroup's LDS is %" PRIu64
                  " bytes; no work-item of the workgroup wrote %s",
                  offset, size, bytes == 1 ? "it" : "any of its bytes");
  else
    std::snprintf(detail, sizeof detail,
                  "LDS offset %" PRIu64 ", the workgroup's LDS is %" PRIu64
                  " bytes; %" PRIu64 " of its bytes (the first at LDS offset "
                  "%" PRIu64 ") written by no work-item of the workgroup",
                  offset, size, unwritten, offset + first);
  l.report(*site, *ctx,
           "uninitialised LDS read of " + std::to_string(bytes) + " bytes",
           detail);
}

void *fly_emu_check_access(FlyEmuContext *ctx, void *address, uint64_t bytes,
                           const FlyEmuSite *site) {
  Fiber &f = *static_cast<Fiber *>(ctx->runtime);
  LaunchState &l = *f.runner->launchState();
  if (site->space == FLY_EMU_SPACE_PRIVATE)
    return checkPrivate(f, l, *ctx, address, bytes, *site);
  const uintptr_t a = reinterpret_cast<uintptr_t>(address);
  char detail[320];
  if (site->space != FLY_EMU_SPACE_LDS &&
      (l.checks & (FLY_EMU_CHECK_INIT | FLY_EMU_CHECK_RACE))) {
    // An access the compiler could not place that lands in LDS (a flat
    // pointer it could not trace): the init check's, as an LDS access.
    const uintptr_t lds = reinterpret_cast<uintptr_t>(ctx->lds);
    const uint64_t size = l.config.lds_bytes;
    if (a >= lds && a - lds <= size && bytes <= size - (a - lds)) {
      f.runner->checkRace(f, address, bytes, site);
      if (site->kind == FLY_EMU_ACCESS_LOAD)
        fly_emu_check_uninit(ctx, address, bytes, site);
      else
        f.runner->markLdsWritten(address, bytes);
      return address;
    }
  }
  if (!(l.checks & FLY_EMU_CHECK_BOUNDS))
    return address;
  if (site->space == FLY_EMU_SPACE_LDS) {
    const uintptr_t base = reinterpret_cast<uintptr_t>(ctx->lds);
    const uint64_t size = l.config.lds_bytes;
    if (site->allocation) {
      // The access's own LDS allocation (a static global, or the dynamic
      // LDS after the static ones).
      const uint64_t first = site->allocation_offset;
      const uint64_t end = site->allocation_bytes == UINT32_MAX
                               ? size
                               : first + site->allocation_bytes;
      const uint64_t extent = end > first ? end - first : 0;
      if (a >= base + first && a - (base + first) <= extent &&
          bytes <= extent - (a - (base + first)))
        return address;
      std::snprintf(detail, sizeof detail,
                    "LDS offset %" PRId64 ", the workgroup's LDS is %" PRIu64
                    " bytes; %s '%s' byte offset %" PRId64
                    ", its extent is %" PRIu64 " bytes",
                    int64_t(a - base), size,
                    site->allocation_bytes == UINT32_MAX
                        ? "the dynamic LDS, allocation"
                        : "LDS allocation",
                    site->allocation, int64_t(a - (base + first)), extent);
    } else {
      if (a >= base && a - base <= size && bytes <= size - (a - base))
        return address;
      std::snprintf(detail, sizeof detail,
                    "LDS offset %" PRId64 ", the workgroup's LDS is %" PRIu64
                    " bytes",
                    int64_t(a - base), size);
    }
  } else {
    if (l.tensors.empty())
      return address; // the launch described no memory: nothing to check
    const FlyEmuTensorExtent *tensor = nullptr;
    if (site->argument >= 0) {
      void *const *slot = static_cast<void *const *>(
          static_cast<void *const *>(l.args)[site->argument]);
      tensor = owner(l, reinterpret_cast<uintptr_t>(*slot));
      if (!tensor || inside(a, bytes, *tensor))
        return address; // memory the launch did not describe, or in bounds
    } else {
      for (const FlyEmuTensorExtent &e : l.tensors)
        if (inside(a, bytes, e))
          return address;
      const uintptr_t lds = reinterpret_cast<uintptr_t>(ctx->lds);
      if ((a >= lds && a - lds < l.config.lds_bytes) || f.runner->onStack(f, address))
        return address;
      tensor = nearest(l, a);
    }
    std::snprintf(detail, sizeof detail,
                  "tensor '%s' byte offset %" PRId64 ", its extent is %" PRIu64
                  " bytes%s",
                  tensor->name, int64_t(a - reinterpret_cast<uintptr_t>(tensor->base)),
                  tensor->bytes,
                  site->argument >= 0 ? "" : " (the nearest tensor: the address "
                                             "is in no tensor of the launch)");
  }
  std::string kind = std::string("out-of-bounds ") +
                     (site->space == FLY_EMU_SPACE_LDS ? "LDS " : "") +
                     kindName(site->kind) + " of " + std::to_string(bytes) +
                     " bytes";
  l.report(*site, *ctx, kind, detail);
  if (bytes > kScratchBytes)
    f.runner->trap(f, "an out-of-bounds access wider than the emulator's "
                      "scratch buffer");
  if (site->kind != FLY_EMU_ACCESS_STORE)
    std::memset(scratch, 0, bytes);
  return scratch;
}

} // extern "C"
