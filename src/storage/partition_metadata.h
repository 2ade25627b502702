// partition.metadata (docs/formats/partition-metadata.md): the topic id of a partition
// directory.
#pragma once

#include <optional>
#include <string>

#include "common/result.h"
#include "common/types.h"
#include "storage/errors.h"

namespace strata::storage {

inline constexpr const char* kPartitionMetadataFile = "partition.metadata";

// Kafka's Uuid.toString: base64 (URL-safe alphabet) without padding, 22 characters.
std::string uuid_to_base64(const Uuid& id);
std::optional<Uuid> uuid_from_base64(const std::string& text);

// The id in `dir`/partition.metadata; nullopt when the file is missing or malformed.
std::optional<Uuid> read_partition_metadata(const std::string& dir);
Result<void, StorageError> write_partition_metadata(const std::string& dir, const Uuid& id);

}  // namespace strata::storage
