// Fuzzes the v0/v1 reader: the input is a sequence of legacy entries; every compressed
// wrapper's inner messages are read under a small decompression limit. Must never crash,
// and a parsed entry must re-encode to the same bytes (the reader and writer agree).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "record/legacy.h"

namespace {

using namespace strata;
using namespace strata::record;

constexpr size_t kEntriesMax = 4096;  // more than a 64 KiB input can hold (>= 26 bytes each)
const DecompressLimits kLimits{.max_output_bytes = 256u << 10};

volatile uint32_t g_sink;  // keeps touch()'s reads from being optimized away

// Reads every byte a message views, so the sanitizers see any view past its buffer.
void touch(const LegacyMessage& m) {
  uint32_t sum = 0;
  for (const auto& field : {m.key, m.value}) {
    if (!field) continue;
    for (uint8_t b : *field) sum += b;
  }
  for (uint8_t b : m.entry) sum += b;
  g_sink = sum;
}

// The writer reproduces what the reader accepted, CRC field aside unless it was valid.
void check_round_trip(const LegacyMessage& m) {
  std::vector<uint8_t> again;
  encode_legacy_entry({.offset = m.offset,
                       .magic = m.magic,
                       .attributes = m.attributes,
                       .timestamp = m.timestamp,
                       .key = m.key,
                       .value = m.value},
                      again);
  constexpr size_t kCrcAt = kLogOverhead + kLegacyCrcPos;
  if (again.size() != m.entry.size() || std::memcmp(again.data(), m.entry.data(), kCrcAt) != 0 ||
      std::memcmp(again.data() + kCrcAt + 4, m.entry.data() + kCrcAt + 4,
                  again.size() - kCrcAt - 4) != 0 ||
      (m.crc_valid && std::memcmp(again.data() + kCrcAt, m.entry.data() + kCrcAt, 4) != 0)) {
    __builtin_trap();
  }
}

void read_inner(const LegacyMessage& wrapper, std::vector<uint8_t>& scratch) {
  auto inner = read_wrapper_inner(wrapper, scratch, kLimits);
  if (!inner) return;
  if (scratch.size() > kLimits.max_output_bytes) __builtin_trap();
  for (size_t i = 0; i < inner->size(); ++i) {
    const LegacyMessage& m = (*inner)[i];
    if (m.compressed() || m.magic != wrapper.magic) __builtin_trap();
    // v1: absolute = base + stored relative, for one base (differences wrap, as uint64).
    const uint64_t base = uint64_t(m.offset.value()) - load_be64(m.entry.data());
    const LegacyMessage& first = inner->front();
    if (wrapper.magic == kMagicV1 &&
        base != uint64_t(first.offset.value()) - load_be64(first.entry.data())) {
      __builtin_trap();
    }
    if (wrapper.magic == kMagicV0 && base != 0) __builtin_trap();  // v0 offsets are absolute
    (void)validate_legacy_crc(m);
    touch(m);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes rest(data, size);
  std::vector<uint8_t> scratch;
  for (size_t i = 0; i < kEntriesMax && !rest.empty(); ++i) {
    auto m = parse_legacy_entry(rest);
    if (!m) break;
    if (m->entry.data() != rest.data() || m->entry.size() > rest.size()) __builtin_trap();
    touch(*m);
    check_round_trip(*m);
    if (m->compressed() && m->value) read_inner(*m, scratch);
    rest = rest.subspan(m->entry.size());
  }
  return 0;
}
