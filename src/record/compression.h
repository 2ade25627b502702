// Per-batch compression codecs: gzip (zlib), snappy (raw blocks, and the
// xerial-framed stream Java clients write), lz4 (frame format) and zstd.
//
// Contract: decompression never produces more than `limits.max_output_bytes`;
// input that would expand past it fails with kDecompressTooLarge before the
// excess is allocated (no decompression bombs). Functions are pure and
// thread-safe; output is appended to a caller-owned vector.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/bytes.h"
#include "common/result.h"
#include "record/batch_format.h"
#include "record/errors.h"

namespace strata::record {

struct DecompressLimits {
  // Largest decompressed size of one batch's records. Strata-specific: Kafka has
  // no such bound. Default 64 MiB (64 x Kafka's default message.max.bytes).
  size_t max_output_bytes = 64u << 20;
};

// Compresses `in` and appends to `out`. `level` < 0 means the codec's default.
// Snappy output is xerial-framed (what the Java client writes and every client reads).
Result<void, RecordErrc> compress(Codec codec, Bytes in, std::vector<uint8_t>& out,
                                  int level = -1);

// Decompresses `in` and appends to `out`. Snappy input may be raw or xerial-framed;
// lz4 input is the lz4 frame format.
Result<void, RecordErrc> decompress(Codec codec, Bytes in, std::vector<uint8_t>& out,
                                    const DecompressLimits& limits = {});

// Legacy magic-0 lz4 (KAFKA-3160): Kafka before 0.10 computed the frame header
// checksum over the magic number too. Reads both the broken and the correct form.
Result<void, RecordErrc> decompress_lz4_legacy_v0(Bytes in, std::vector<uint8_t>& out,
                                                  const DecompressLimits& limits = {});

}  // namespace strata::record
