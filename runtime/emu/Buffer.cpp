//===- Buffer.cpp - Raw buffer accesses with range checking ---------------===//
//
// The semantics of Emu.h's "Buffer resources" section: raw (stride 0)
// buffer loads, stores and the address of buffer atomics, each access
// checked against the descriptor's num_records, dword by dword; and their
// checked forms, which also ask the bounds check (Check.cpp) which parts to
// make.
//
//===----------------------------------------------------------------------===//

#include "Workgroup.h"

#include <cstddef>
#include <cstring>

static_assert(offsetof(FlyEmuBufferResource, base) == 0, "ABI");
static_assert(offsetof(FlyEmuBufferResource, num_records) == 8, "ABI");
static_assert(offsetof(FlyEmuBufferResource, stride) == 16, "ABI");
static_assert(offsetof(FlyEmuBufferResource, flags) == 20, "ABI");
static_assert(sizeof(FlyEmuBufferResource) == 24, "ABI");

namespace {

constexpr uint32_t kMaxAccessBytes = 16;

/// Traps for what the emulator does not model; returns the byte offset of
/// the access otherwise (64-bit: voffset + soffset cannot wrap).
uint64_t checkedOffset(FlyEmuContext *ctx, const FlyEmuBufferResource *rsrc,
                       uint32_t voffset, uint32_t soffset, uint32_t bytes) {
  if (rsrc->stride != 0)
    fly_emu_trap(ctx, "a raw buffer access through a resource with a nonzero "
                      "stride (structured buffers are not emulated)");
  if (bytes == 0 || bytes > kMaxAccessBytes)
    fly_emu_trap(ctx, "a buffer access of an unsupported width");
  return uint64_t(voffset) + soffset;
}

/// Whether [offset, offset + bytes) lies below num_records.
bool inRange(const FlyEmuBufferResource *rsrc, uint64_t offset,
             uint64_t bytes) {
  return offset + bytes <= rsrc->num_records;
}

/// The access as the hardware checks it: dword components (or the whole
/// access when narrower than a dword), calling `part(begin, size, ok)`.
template <typename Part>
void forEachComponent(const FlyEmuBufferResource *rsrc, uint64_t offset,
                      uint32_t bytes, Part part) {
  if (bytes < 4) {
    part(0u, bytes, inRange(rsrc, offset, bytes));
    return;
  }
  for (uint32_t at = 0; at < bytes; at += 4) {
    uint32_t size = bytes - at < 4 ? bytes - at : 4;
    part(at, size, inRange(rsrc, offset + at, size));
  }
}

char *address(const FlyEmuBufferResource *rsrc, uint64_t offset) {
  return static_cast<char *>(rsrc->base) + offset;
}

/// Where an out-of-range atomic goes: per OS thread, so atomics of other
/// workgroups (other threads) never meet in it; zeroed for every use, so
/// the atomic's old value reads 0.
void *atomicSink() {
  alignas(16) static thread_local char sink[kMaxAccessBytes];
  std::memset(sink, 0, sizeof sink);
  return sink;
}

/// The parts of an access (forEachComponent's) with the bounds check's
/// verdict: a bit per part to make.
struct CheckedParts {
  fly::emu::BufferPart parts[kMaxAccessBytes / 4];
  unsigned count = 0;
  uint32_t make = 0;
};

CheckedParts checkParts(FlyEmuContext *ctx, const FlyEmuBufferResource *rsrc,
                        uint64_t offset, uint32_t bytes,
                        const FlyEmuSite *site) {
  CheckedParts c;
  forEachComponent(rsrc, offset, bytes,
                   [&](uint32_t at, uint32_t size, bool ok) {
                     c.parts[c.count++] = {at, size, ok};
                   });
  c.make = fly::emu::checkBuffer(*ctx, *rsrc, offset, bytes, c.parts, c.count,
                                 *site);
  return c;
}

} // namespace

extern "C" {

void fly_emu_buffer_load(FlyEmuContext *ctx, const FlyEmuBufferResource *rsrc,
                         uint32_t voffset, uint32_t soffset, uint32_t bytes,
                         void *dst) {
  uint64_t offset = checkedOffset(ctx, rsrc, voffset, soffset, bytes);
  char *out = static_cast<char *>(dst);
  forEachComponent(rsrc, offset, bytes, [&](uint32_t at, uint32_t size, bool ok) {
    if (ok)
      std::memcpy(out + at, address(rsrc, offset + at), size);
    else
      std::memset(out + at, 0, size);
  });
}

void fly_emu_buffer_store(FlyEmuContext *ctx, const FlyEmuBufferResource *rsrc,
                          uint32_t voffset, uint32_t soffset, uint32_t bytes,
                          const void *src) {
  uint64_t offset = checkedOffset(ctx, rsrc, voffset, soffset, bytes);
  const char *in = static_cast<const char *>(src);
  forEachComponent(rsrc, offset, bytes, [&](uint32_t at, uint32_t size, bool ok) {
    if (ok)
      std::memcpy(address(rsrc, offset + at), in + at, size);
  });
}

void *fly_emu_buffer_atomic_address(FlyEmuContext *ctx,
                                    const FlyEmuBufferResource *rsrc,
                                    uint32_t voffset, uint32_t soffset,
                                    uint32_t bytes) {
  uint64_t offset = checkedOffset(ctx, rsrc, voffset, soffset, bytes);
  if (inRange(rsrc, offset, bytes))
    return address(rsrc, offset);
  return atomicSink();
}

void fly_emu_buffer_load_checked(FlyEmuContext *ctx,
                                 const FlyEmuBufferResource *rsrc,
                                 uint32_t voffset, uint32_t soffset,
                                 uint32_t bytes, void *dst,
                                 const FlyEmuSite *site) {
  uint64_t offset = checkedOffset(ctx, rsrc, voffset, soffset, bytes);
  CheckedParts c = checkParts(ctx, rsrc, offset, bytes, site);
  char *out = static_cast<char *>(dst);
  for (unsigned i = 0; i < c.count; ++i) {
    const fly::emu::BufferPart &p = c.parts[i];
    if (c.make & (1u << i))
      std::memcpy(out + p.at, address(rsrc, offset + p.at), p.size);
    else
      std::memset(out + p.at, 0, p.size);
  }
}

void fly_emu_buffer_store_checked(FlyEmuContext *ctx,
                                  const FlyEmuBufferResource *rsrc,
                                  uint32_t voffset, uint32_t soffset,
                                  uint32_t bytes, const void *src,
                                  const FlyEmuSite *site) {
  uint64_t offset = checkedOffset(ctx, rsrc, voffset, soffset, bytes);
  CheckedParts c = checkParts(ctx, rsrc, offset, bytes, site);
  const char *in = static_cast<const char *>(src);
  for (unsigned i = 0; i < c.count; ++i) {
    const fly::emu::BufferPart &p = c.parts[i];
    if (c.make & (1u << i))
      std::memcpy(address(rsrc, offset + p.at), in + p.at, p.size);
  }
}

void *fly_emu_buffer_atomic_address_checked(FlyEmuContext *ctx,
                                            const FlyEmuBufferResource *rsrc,
                                            uint32_t voffset, uint32_t soffset,
                                            uint32_t bytes,
                                            const FlyEmuSite *site) {
  uint64_t offset = checkedOffset(ctx, rsrc, voffset, soffset, bytes);
  // An atomic is one part: all its bytes in range, or none made.
  fly::emu::BufferPart part = {0, bytes, inRange(rsrc, offset, bytes)};
  if (fly::emu::checkBuffer(*ctx, *rsrc, offset, bytes, &part, 1, *site) & 1u)
    return address(rsrc, offset);
  return atomicSink();
}

} // extern "C"
