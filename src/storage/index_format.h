// Constants of Kafka's segment files (docs/formats/segments.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/types.h"

namespace strata::storage {

// <20-digit zero-padded base offset><suffix>, e.g. 00000000000000000042.log
inline constexpr int kFileNameDigits = 20;
inline constexpr const char* kLogSuffix = ".log";
inline constexpr const char* kIndexSuffix = ".index";
inline constexpr const char* kTimeIndexSuffix = ".timeindex";
inline constexpr const char* kTxnIndexSuffix = ".txnindex";
inline constexpr const char* kSnapshotSuffix = ".snapshot";
inline constexpr const char* kDeletedSuffix = ".deleted";
inline constexpr const char* kCleanedSuffix = ".cleaned";
inline constexpr const char* kSwapSuffix = ".swap";

// .index entry: relativeOffset int32 (batch lastOffset - segment base), position int32.
inline constexpr size_t kOffsetIndexEntrySize = 8;
// .timeindex entry: timestamp int64, relativeOffset int32.
inline constexpr size_t kTimeIndexEntrySize = 12;

// "00000000000000000042" + suffix.
std::string segment_file_name(Offset base, const char* suffix);

}  // namespace strata::storage
