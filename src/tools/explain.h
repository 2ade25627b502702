// `dump-log --explain`: an annotated byte map of a batch. Every header field and every
// record field gets a line with its position in the file (or, inside a compressed
// batch, in the decompressed records), its bytes in hex and its decoded value, so a
// user can read the bytes of any segment. Malformed fields are shown up to the first
// byte that cannot be read, with the reason.
#pragma once

#include <string>

#include "record/batch_view.h"
#include "record/legacy.h"

namespace strata::tools {

std::string explain_v2_batch(const record::BatchView& batch, size_t position);
std::string explain_legacy_entry(const record::LegacyMessage& message, size_t position);

}  // namespace strata::tools
