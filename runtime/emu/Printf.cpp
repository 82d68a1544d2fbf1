//===- Printf.cpp - The device printf of kernels on the emulator ----------===//
//
// gpu.printf becomes, through convert-gpu-to-rocdl (runtime=HIP), calls of
// the ROCm device library's printf ABI:
//   desc = __ockl_printf_begin(0)
//   desc = __ockl_printf_append_string_n(desc, format, length, is_last)
//   desc = __ockl_printf_append_args(desc, n, a0, ..., a6, is_last)  (7 at a time)
// where each argument is 64 bits: integers zero- or sign-extended, floats
// as the bits of a double. On the emulator these are host functions (the
// launch table defines them by these names): a work-item's calls run
// without a switch in between, so the record being built is the calling
// OS thread's; on the last part the format is rendered as the HIP host
// does (a conversion without `l`/`ll` reads the low 32 bits of an integer
// argument) and written to stdout as one line under a lock.
//
//===----------------------------------------------------------------------===//

#include "Printf.h"

#include <cctype>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct Record {
  std::string format;
  std::vector<uint64_t> args;
  std::vector<std::string> strings; // strings after the format (%s)
  bool haveFormat = false;
};

thread_local Record record;
std::mutex outputMutex;

/// One conversion of `spec` (a printf specification without the '%') with
/// the next argument, appended to `out`.
void convert(std::string &out, const std::string &spec, char conversion,
             const std::string &length, const Record &r, size_t &arg,
             size_t &string) {
  char piece[512];
  std::string format = "%" + spec;
  auto next = [&]() -> uint64_t {
    return arg < r.args.size() ? r.args[arg++] : 0;
  };
  switch (conversion) {
  case 'd':
  case 'i': {
    uint64_t bits = next();
    long long value = length == "l" || length == "ll" || length == "j" ||
                              length == "z" || length == "t"
                          ? (long long)bits
                          : length == "h"    ? (long long)(int16_t)bits
                          : length == "hh"   ? (long long)(int8_t)bits
                                             : (long long)(int32_t)bits;
    std::snprintf(piece, sizeof piece,
                  (format.substr(0, format.size() - 1 - length.size()) + "ll" +
                   conversion)
                      .c_str(),
                  value);
    break;
  }
  case 'u':
  case 'x':
  case 'X':
  case 'o':
  case 'c': {
    uint64_t bits = next();
    unsigned long long value =
        length == "l" || length == "ll" || length == "j" || length == "z" ||
                length == "t"
            ? bits
        : length == "h"  ? (unsigned long long)(uint16_t)bits
        : length == "hh" ? (unsigned long long)(uint8_t)bits
                         : (unsigned long long)(uint32_t)bits;
    if (conversion == 'c') {
      std::snprintf(piece, sizeof piece, format.c_str(), int(value));
    } else {
      std::snprintf(piece, sizeof piece,
                    (format.substr(0, format.size() - 1 - length.size()) +
                     "ll" + conversion)
                        .c_str(),
                    value);
    }
    break;
  }
  case 'f':
  case 'F':
  case 'e':
  case 'E':
  case 'g':
  case 'G':
  case 'a':
  case 'A': {
    uint64_t bits = next();
    double value;
    std::memcpy(&value, &bits, sizeof value);
    std::string plain = format;
    if (!length.empty()) // %lf, %Lf: the double it is
      plain = format.substr(0, format.size() - 1 - length.size()) + conversion;
    std::snprintf(piece, sizeof piece, plain.c_str(), value);
    break;
  }
  case 's': {
    const std::string &text =
        string < r.strings.size() ? r.strings[string++] : std::string("(null)");
    std::snprintf(piece, sizeof piece, format.c_str(), text.c_str());
    break;
  }
  case 'p': {
    std::snprintf(piece, sizeof piece, format.c_str(),
                  reinterpret_cast<void *>(uintptr_t(next())));
    break;
  }
  default: // not a conversion: printed as written
    std::snprintf(piece, sizeof piece, "%s", format.c_str());
    break;
  }
  out += piece;
}

std::string render(const Record &r) {
  std::string out;
  size_t arg = 0, string = 0;
  const std::string &f = r.format;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') {
      out += f[i];
      continue;
    }
    if (i + 1 < f.size() && f[i + 1] == '%') {
      out += '%';
      ++i;
      continue;
    }
    // %[flags][width][.precision][length]conversion
    size_t j = i + 1;
    while (j < f.size() && std::strchr("-+ #0", f[j]))
      ++j;
    while (j < f.size() && (std::isdigit((unsigned char)f[j]) || f[j] == '.'))
      ++j;
    size_t lengthStart = j;
    while (j < f.size() && std::strchr("hljztL", f[j]))
      ++j;
    if (j >= f.size()) {
      out += f.substr(i);
      break;
    }
    std::string length = f.substr(lengthStart, j - lengthStart);
    convert(out, f.substr(i + 1, j - i), f[j], length, r, arg, string);
    i = j;
  }
  return out;
}

void finish() {
  std::string text = render(record);
  {
    std::lock_guard<std::mutex> lock(outputMutex);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  }
  record = Record();
}

} // namespace

extern "C" {

uint64_t fly_emu_printf_begin(uint64_t) {
  record = Record();
  return 1;
}

uint64_t fly_emu_printf_append_string_n(uint64_t desc, const char *text,
                                        uint64_t length, int32_t isLast) {
  // The length counts the terminating NUL of the format.
  std::string piece(text ? text : "", text ? length : 0);
  while (!piece.empty() && piece.back() == '\0')
    piece.pop_back();
  if (!record.haveFormat) {
    record.format = std::move(piece);
    record.haveFormat = true;
  } else {
    record.strings.push_back(std::move(piece));
  }
  if (isLast)
    finish();
  return desc;
}

uint64_t fly_emu_printf_append_args(uint64_t desc, uint32_t count, uint64_t a0,
                                    uint64_t a1, uint64_t a2, uint64_t a3,
                                    uint64_t a4, uint64_t a5, uint64_t a6,
                                    int32_t isLast) {
  const uint64_t values[7] = {a0, a1, a2, a3, a4, a5, a6};
  for (uint32_t i = 0; i < count && i < 7; ++i)
    record.args.push_back(values[i]);
  if (isLast)
    finish();
  return desc;
}

} // extern "C"
