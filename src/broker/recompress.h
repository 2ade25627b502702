// compression.type other than "producer": the one case where the broker re-encodes a
// producer's batch, rebuilding it with the topic's codec (records, timestamps, offset
// deltas, headers and producer fields kept).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/bytes.h"
#include "record/batch_view.h"

namespace strata::broker {

// The codec a topic's compression.type asks for; nullopt for "producer".
std::optional<record::Codec> target_codec(const std::string& compression_type);

// The batch rebuilt with `codec`, or nullopt when it already uses it. Requires a batch
// that passed producer validation.
Result<std::optional<std::vector<uint8_t>>, record::RecordErrc> recompress(
    const record::BatchView& batch, record::Codec codec);

}  // namespace strata::broker
