// CRC-32C (Castagnoli), the checksum of v2 record batches. Hardware-accelerated
// through ISA-L; `crc32c_portable` is the bytewise reference used by tests and
// benchmarks. crc32c("123456789") == 0xE3069283.
#pragma once

#include <cstdint>

#include "common/bytes.h"

namespace strata::record {

uint32_t crc32c(Bytes data);
// Continues a CRC over more bytes: crc32c_extend(crc32c(a), b) == crc32c(a ++ b).
uint32_t crc32c_extend(uint32_t crc, Bytes data);
// Table-driven one-byte-at-a-time implementation (the "plain byte loop").
uint32_t crc32c_portable(Bytes data);

}  // namespace strata::record
