//===- Tensor.cpp - gfx1250's tensor data mover, per the ISA --------------===//
//
// The semantics of Emu.h's "Tensor data mover" section: the descriptor
// (D#) of tensor_load_to_lds / tensor_store_from_lds decoded from its bit
// fields as the gfx1250 ISA defines them, and the tile copied element by
// element between global memory and the workgroup's LDS. Written from the
// ISA, not from the compiler's lowering (ARCHITECTURE.md).
//
//===----------------------------------------------------------------------===//

#include "Workgroup.h"

#include <cstring>

namespace {

constexpr unsigned kMaxDims = 5;

/// Bits [lo, lo + width) of the descriptor, dwords in order (width <= 32).
uint64_t bits(const uint32_t *d, unsigned lo, unsigned width) {
  uint64_t value = 0;
  for (unsigned i = 0; i < width; ++i) {
    unsigned bit = lo + i;
    value |= uint64_t((d[bit / 32] >> (bit % 32)) & 1u) << i;
  }
  return value;
}

/// A decoded descriptor. Dimension 0 is the contiguous one.
struct Descriptor {
  bool predicate;
  uint32_t ldsAddress;
  uint64_t globalAddress;
  uint32_t type;
  bool gather;
  uint32_t multicastMask;
  uint32_t elementBytes;
  bool atomicBarrier, iterate, padEnable;
  uint64_t padIntervalBytes, padAmountBytes;
  uint64_t tensorDim[kMaxDims];
  uint64_t tileDim[kMaxDims];
  uint64_t stride[kMaxDims]; // elements; stride[0] is 1
};

/// Decodes the 20 dwords (groups 0 to 3; 2 and 3 zero for the .d2 forms).
/// Bit offsets below are within the 640-bit concatenation: group 0 at 0,
/// group 1 at 128, group 2 at 384, group 3 at 512.
Descriptor decode(const uint32_t *d) {
  Descriptor t{};
  t.predicate = bits(d, 0, 2) != 0;
  t.gather = bits(d, 31, 1) != 0;
  t.ldsAddress = uint32_t(bits(d, 32, 32));
  t.globalAddress = bits(d, 64, 32) | (bits(d, 96, 25) << 32);
  t.type = uint32_t(bits(d, 126, 2));
  const unsigned g1 = 128, g2 = 384, g3 = 512;
  t.multicastMask = uint32_t(bits(d, g1 + 0, 16));
  t.elementBytes = 1u << bits(d, g1 + 16, 2);
  t.atomicBarrier = bits(d, g1 + 18, 1) != 0;
  t.iterate = bits(d, g1 + 19, 1) != 0;
  t.padEnable = bits(d, g1 + 20, 1) != 0;
  // The interval is 2^(field + 1) dwords, the amount field + 1 dwords.
  t.padIntervalBytes = (uint64_t(1) << (bits(d, g1 + 22, 3) + 1)) * 4;
  t.padAmountBytes = (bits(d, g1 + 25, 7) + 1) * 4;
  t.tensorDim[0] = bits(d, g1 + 48, 32);
  t.tensorDim[1] = bits(d, g1 + 80, 32);
  t.tileDim[0] = bits(d, g1 + 112, 16);
  t.tileDim[1] = bits(d, g1 + 128, 16);
  t.tileDim[2] = bits(d, g1 + 144, 16);
  t.stride[0] = 1;
  t.stride[1] = bits(d, g1 + 160, 32) | (bits(d, g1 + 192, 16) << 32);
  t.stride[2] = bits(d, g1 + 208, 32) | (bits(d, g1 + 240, 16) << 32);
  t.tensorDim[2] = bits(d, g2 + 0, 32);
  t.tensorDim[3] = bits(d, g2 + 32, 32);
  t.stride[3] = bits(d, g2 + 64, 32) | (bits(d, g2 + 96, 16) << 32);
  t.tileDim[3] = bits(d, g2 + 112, 16);
  t.stride[4] = bits(d, g3 + 0, 32) | (bits(d, g3 + 32, 16) << 32);
  t.tensorDim[4] = bits(d, g3 + 48, 32);
  t.tileDim[4] = bits(d, g3 + 80, 16);
  return t;
}

/// The launch's LDS bytes (group_segment_size of the dispatch packet).
uint32_t ldsBytes(const FlyEmuContext *ctx) {
  uint32_t bytes;
  std::memcpy(&bytes, static_cast<const char *>(ctx->dispatch_packet) + 28,
              sizeof bytes);
  return bytes;
}

/// The copy of one instruction, done by one lane for its wave.
/// `site`: the op's, with the checks (fly_emu_tensor_checked), else null.
void copyTile(FlyEmuContext *ctx, uint32_t flags, const uint32_t *groups,
              const FlyEmuSite *site) {
  Descriptor t = decode(groups);
  if (!t.predicate)
    return; // predicated off: the instruction does nothing
  if (t.type != 2)
    fly_emu_trap(ctx, "tensor data mover: a descriptor whose type field "
                      "(D# bits 127:126) is not 2 (not emulated)");
  if (t.gather)
    fly_emu_trap(ctx, "tensor data mover: gather/scatter mode is not emulated");
  if (t.iterate)
    fly_emu_trap(ctx, "tensor data mover: iterate mode is not emulated");
  if (t.atomicBarrier)
    fly_emu_trap(ctx, "tensor data mover: the atomic barrier is not emulated");
  if (t.multicastMask != 0)
    fly_emu_trap(ctx, "tensor data mover: cluster multicast (a nonzero "
                      "workgroup mask) is not emulated");
  // The dimensions in use: those with a nonzero tile_dim, from 0 up (the
  // .d2 forms have two at most).
  unsigned maxDims = (flags & FLY_EMU_TENSOR_D2) ? 2 : kMaxDims;
  unsigned dims = 0;
  while (dims < maxDims && t.tileDim[dims] != 0)
    ++dims;
  for (unsigned j = dims; j < maxDims; ++j)
    if (t.tileDim[j] != 0)
      fly_emu_trap(ctx, "tensor data mover: a zero tile dimension below a "
                        "nonzero one");
  if (dims == 0)
    return;
  const bool store = (flags & FLY_EMU_TENSOR_STORE) != 0;
  const uint64_t eb = t.elementBytes;
  const uint64_t ldsLimit = ldsBytes(ctx);
  char *lds = static_cast<char *>(ctx->lds);
  // The LDS address field holds the low 32 bits of the address; an
  // emulated LDS address is a host address, so the offset into the LDS is
  // the difference of the low 32 bits (on the GPU the LDS starts at 0).
  const uint64_t ldsStart =
      uint32_t(t.ldsAddress - uint32_t(reinterpret_cast<uintptr_t>(lds)));
  uint64_t count = 1;
  for (unsigned j = 0; j < dims; ++j)
    count *= t.tileDim[j];
  uint64_t coord[kMaxDims] = {};
  unsigned reported = 0;
  for (uint64_t k = 0; k < count; ++k) {
    // LDS: the tile packed in element order, `padAmount` bytes skipped
    // after every `padInterval` bytes written.
    uint64_t offset = k * eb;
    if (t.padEnable)
      offset += offset / t.padIntervalBytes * t.padAmountBytes;
    uint64_t at = ldsStart + offset;
    if (at + eb > ldsLimit && !site)
      fly_emu_trap(ctx, "tensor data mover: an LDS address past the "
                        "workgroup's LDS");
    bool inRange = true;
    uint64_t element = 0;
    for (unsigned j = 0; j < dims; ++j) {
      inRange = inRange && coord[j] < t.tensorDim[j];
      element += coord[j] * t.stride[j];
    }
    if (site) {
      int verdict = fly::emu::checkTensorElement(
          *ctx, *site, store, uintptr_t(t.globalAddress),
          inRange ? reinterpret_cast<const void *>(
                        uintptr_t(t.globalAddress + element * eb))
                  : nullptr,
          at, eb, reported);
      if (verdict == 0) {
        for (unsigned j = 0; j < dims && ++coord[j] == t.tileDim[j]; ++j)
          coord[j] = 0;
        continue;
      }
      inRange = inRange && verdict == 2;
    }
    // Out-of-range elements: a load writes 0, a store writes nothing.
    if (inRange) {
      char *global = reinterpret_cast<char *>(
          uintptr_t(t.globalAddress + element * eb));
      if (store)
        std::memcpy(global, lds + at, eb);
      else
        std::memcpy(lds + at, global, eb);
    } else if (!store) {
      std::memset(lds + at, 0, eb);
    }
    if (!store) // the init check: these LDS bytes are written
      fly_emu_check_lds_written(ctx, lds + at, eb);
    for (unsigned j = 0; j < dims && ++coord[j] == t.tileDim[j]; ++j)
      coord[j] = 0;
  }
}

} // namespace

extern "C" void fly_emu_tensor(FlyEmuContext *ctx, uint32_t flags,
                               const uint32_t *groups) {
  // The instruction runs once per wave, with the descriptor of the lowest
  // active lane (the hardware takes it from SGPRs, which the compiler fills
  // from that lane). The copy runs on that lane, as kernel code (so a
  // fault names it); the wave then meets again, so no lane goes on before
  // the tile is in place.
  uint32_t first = fly_emu_readfirstlane(ctx, ctx->lane_id);
  if (ctx->lane_id == first)
    copyTile(ctx, flags, groups, nullptr);
  (void)fly_emu_ballot(ctx, 0);
}

extern "C" void fly_emu_tensor_checked(FlyEmuContext *ctx, uint32_t flags,
                                       const uint32_t *groups,
                                       const FlyEmuSite *site) {
  uint32_t first = fly_emu_readfirstlane(ctx, ctx->lane_id);
  if (ctx->lane_id == first)
    copyTile(ctx, flags, groups, site);
  (void)fly_emu_ballot(ctx, 0);
}
