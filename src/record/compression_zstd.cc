// zstd through libzstd. Reading streams, so frames without a content size (what Java's
// ZstdOutputStream writes) read like any other; concatenated and skippable frames are
// read as one stream. A content size in a frame is never used to allocate.
#include <zstd.h>

#include <memory>

#include "record/compression_internal.h"

namespace strata::record::detail {
namespace {

// Largest window a frame may ask the decoder to keep (2^27 = 128 MiB): zstd's own default
// (ZSTD_WINDOWLOG_LIMIT_DEFAULT), also zstd-jni's, so whatever a Java client can read we
// can. This bounds libzstd's internal memory; the output bound is the sink's.
constexpr int kZstdWindowLogMax = 27;

struct DctxFree {
  void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};

}  // namespace

Status compress_zstd(Bytes in, std::vector<uint8_t>& out, int level) {
  const size_t start = out.size();
  const size_t bound = ZSTD_compressBound(in.size());
  out.resize(start + bound);
  const size_t n = ZSTD_compress(out.data() + start, bound, in.data(), in.size(),
                                 level < 0 ? ZSTD_CLEVEL_DEFAULT : level);
  if (ZSTD_isError(n)) return fail(RecordErrc::kCompressFailed);
  out.resize(start + n);
  return {};
}

Status decompress_zstd(Bytes in, BoundedSink& sink) {
  // One decompression context per thread, reset for every batch: creating one per batch
  // was 10% of a zstd cleaning's CPU (docs/performance.md, "Compaction"). A frame with a
  // large window (up to 2^27) grows the context's buffers; libzstd frees buffers that
  // stay oversized across many later calls, so such memory is held only for a while.
  thread_local const std::unique_ptr<ZSTD_DCtx, DctxFree> cached(ZSTD_createDCtx());
  ZSTD_DCtx* dctx = cached.get();
  if (dctx == nullptr) return fail(RecordErrc::kDecompressFailed);
  if (ZSTD_isError(ZSTD_DCtx_reset(dctx, ZSTD_reset_session_and_parameters)) ||
      ZSTD_isError(ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax, kZstdWindowLogMax))) {
    return fail(RecordErrc::kDecompressFailed);
  }
  ZSTD_inBuffer src{in.data(), in.size(), 0};
  // Each pass consumes input or produces output (else it fails), so the loop is bounded
  // by in.size() + the limit.
  for (;;) {
    const MutableBytes w = sink.window();
    ZSTD_outBuffer dst{w.data(), w.size(), 0};
    const size_t src_pos_before = src.pos;
    const size_t hint = ZSTD_decompressStream(dctx, &dst, &src);
    if (ZSTD_isError(hint)) return fail(RecordErrc::kDecompressFailed);
    sink.commit(dst.pos);
    if (sink.over_limit()) return fail(RecordErrc::kDecompressTooLarge);
    const bool input_done = src.pos == src.size;
    if (hint == 0 && input_done) return {};  // a frame ended, fully flushed, with the input
    // Input used up with output room to spare, mid-frame: truncated.
    if (input_done && dst.pos < dst.size) return fail(RecordErrc::kDecompressFailed);
    if (src.pos == src_pos_before && dst.pos == 0) return fail(RecordErrc::kDecompressFailed);
  }
}

}  // namespace strata::record::detail
