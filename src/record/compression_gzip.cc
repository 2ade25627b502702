// gzip through zlib: RFC 1952 members, written with a gzip header and read with zlib's
// header auto-detection (gzip or zlib). Concatenated members are read as one stream, as
// Java's GZIPInputStream does; bytes after the last member that are not one are an error.
#define ZLIB_CONST
#include <zlib.h>

#include <climits>

#include "record/compression_internal.h"

namespace strata::record::detail {
namespace {

constexpr int kGzipWindowBits = 15 + 16;        // 32 KiB window, gzip header
constexpr int kAutoDetectWindowBits = 15 + 32;  // 32 KiB window, gzip or zlib header
constexpr int kMemLevel = 8;                    // zlib's default
// zlib counts bytes in uInt; one batch is at most an int32 of bytes anyway.
constexpr size_t kZlibMaxInputBytes = INT32_MAX;
// Output windows stay well inside uInt.
constexpr size_t kZlibMaxWindowBytes = 1u << 30;

struct InflateEnd {
  z_stream* zs;
  ~InflateEnd() { inflateEnd(zs); }
};
struct DeflateEnd {
  z_stream* zs;
  ~DeflateEnd() { deflateEnd(zs); }
};

}  // namespace

Status compress_gzip(Bytes in, std::vector<uint8_t>& out, int level) {
  if (in.size() > kZlibMaxInputBytes) return fail(RecordErrc::kCompressFailed);
  z_stream zs{};
  const int zlevel = level < 0 ? Z_DEFAULT_COMPRESSION : level;
  if (deflateInit2(&zs, zlevel, Z_DEFLATED, kGzipWindowBits, kMemLevel, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    return fail(RecordErrc::kCompressFailed);
  }
  DeflateEnd end{&zs};
  // deflateBound covers the whole output, header included, so one Z_FINISH call suffices.
  const size_t start = out.size();
  const uLong bound = deflateBound(&zs, uLong(in.size()));
  out.resize(start + bound);
  zs.next_in = in.data();
  zs.avail_in = uInt(in.size());
  zs.next_out = out.data() + start;
  zs.avail_out = uInt(bound);
  if (deflate(&zs, Z_FINISH) != Z_STREAM_END) return fail(RecordErrc::kCompressFailed);
  out.resize(start + zs.total_out);
  return {};
}

Status decompress_gzip(Bytes in, BoundedSink& sink) {
  if (in.size() > kZlibMaxInputBytes) return fail(RecordErrc::kDecompressFailed);
  z_stream zs{};
  if (inflateInit2(&zs, kAutoDetectWindowBits) != Z_OK) return fail(RecordErrc::kDecompressFailed);
  InflateEnd end{&zs};
  zs.next_in = in.data();
  zs.avail_in = uInt(in.size());
  // Each pass consumes input or produces output (else it fails), so the loop is bounded
  // by in.size() + the limit.
  for (;;) {
    const MutableBytes w = sink.window(kZlibMaxWindowBytes);
    const uInt avail_in_before = zs.avail_in;
    zs.next_out = w.data();
    zs.avail_out = uInt(w.size());
    const int rc = inflate(&zs, Z_NO_FLUSH);
    const size_t written = w.size() - zs.avail_out;
    sink.commit(written);
    if (sink.over_limit()) return fail(RecordErrc::kDecompressTooLarge);
    if (rc == Z_STREAM_END) {
      if (zs.avail_in == 0) return {};
      if (inflateReset(&zs) != Z_OK) return fail(RecordErrc::kDecompressFailed);
      continue;  // the next member
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) return fail(RecordErrc::kDecompressFailed);
    // Input used up with output room to spare and no stream end: truncated.
    if (zs.avail_in == 0 && zs.avail_out != 0) return fail(RecordErrc::kDecompressFailed);
    if (written == 0 && zs.avail_in == avail_in_before) return fail(RecordErrc::kDecompressFailed);
  }
}

}  // namespace strata::record::detail
