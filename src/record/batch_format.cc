#include "record/batch_format.h"

namespace strata::record {

const char* codec_name(Codec c) {
  switch (c) {
    case Codec::kNone: return "none";
    case Codec::kGzip: return "gzip";
    case Codec::kSnappy: return "snappy";
    case Codec::kLz4: return "lz4";
    case Codec::kZstd: return "zstd";
  }
  return "unknown";
}

}  // namespace strata::record
