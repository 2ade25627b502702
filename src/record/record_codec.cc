#include "record/record_codec.h"

namespace strata::record {
namespace {

RecordErrc fault_error(const ByteReader& in) {
  return in.fault() == ReadFault::kVarintOverflow ? RecordErrc::kVarintOverflow
                                                  : RecordErrc::kBadFieldLength;
}

// A nullable byte field: varint length (-1 = null) then the bytes, into `out`. False on
// a bad field, with the reason in in.fault() (fault_error). Writes straight into the
// caller's field: returning the optional by value cost a store-forwarding stall per
// field (perf annotate of decode_record).
bool read_nullable(ByteReader& in, std::optional<Bytes>& out) {
  const int32_t len = in.varint();
  if (!in.ok()) return false;
  if (len == -1) {
    out.reset();
    return true;
  }
  if (!in.fits(len)) {
    in.set_fault(ReadFault::kPastEnd);
    return false;
  }
  out = in.take(size_t(len));
  return true;
}

Result<void, RecordErrc> read_headers(ByteReader& in, RecordView& out) {
  out.header_count = in.varint();
  if (!in.ok()) return fail(fault_error(in));
  const size_t start = in.position();
  const Bytes rest = in.rest();
  // Each header takes at least two bytes, so a count above that is a lie.
  if (out.header_count < 0 || size_t(out.header_count) > in.remaining() / 2) {
    return fail(RecordErrc::kBadFieldLength);
  }
  for (int32_t i = 0; i < out.header_count; ++i) {
    const int32_t key_len = in.varint();
    if (!in.ok()) return fail(fault_error(in));
    if (!in.fits(key_len)) return fail(RecordErrc::kBadFieldLength);  // negative too
    in.skip(size_t(key_len));
    std::optional<Bytes> value;
    if (!read_nullable(in, value)) return fail(fault_error(in));
  }
  out.headers = rest.subspan(0, in.position() - start);
  return {};
}

}  // namespace

Result<void, RecordErrc> decode_record(ByteReader& in, RecordView& out) {
  out.position = in.position();
  const int32_t length = in.varint();
  if (!in.ok()) {
    return fail(in.fault() == ReadFault::kVarintOverflow ? RecordErrc::kVarintOverflow
                                                         : RecordErrc::kRecordLengthPastEnd);
  }
  if (length < 0 || !in.fits(length)) return fail(RecordErrc::kRecordLengthPastEnd);
  const size_t length_varint_size = in.position() - out.position;
  ByteReader body(in.take(size_t(length)));
  out.size = length_varint_size + size_t(length);

  out.attributes = body.i8();
  out.timestamp_delta = body.varlong();
  out.offset_delta = body.varint();
  if (!body.ok()) return fail(body.fault() == ReadFault::kVarintOverflow
                                  ? RecordErrc::kVarintOverflow
                                  : RecordErrc::kRecordLengthMismatch);
  if (!read_nullable(body, out.key)) return fail(fault_error(body));
  if (!read_nullable(body, out.value)) return fail(fault_error(body));
  if (auto h = read_headers(body, out); !h) return h;
  if (body.remaining() != 0) return fail(RecordErrc::kRecordLengthMismatch);
  return {};
}

bool HeaderCursor::next(Header& out) {
  if (left_ <= 0) return false;
  --left_;
  const int32_t key_len = in_.varint();
  out.key = as_string_view(in_.take(size_t(key_len)));
  const int32_t value_len = in_.varint();
  if (value_len < 0) {
    out.value.reset();
  } else {
    out.value = in_.take(size_t(value_len));
  }
  return in_.ok();
}

namespace {
size_t nullable_size(const std::optional<Bytes>& b) {
  return b ? varint_size(int32_t(b->size())) + b->size() : 1;
}
void write_nullable(ByteWriter& out, const std::optional<Bytes>& b) {
  if (!b) {
    out.varint(-1);
    return;
  }
  out.varint(int32_t(b->size()));
  out.bytes(*b);
}
}  // namespace

size_t encode_record(ByteWriter& out, int64_t timestamp_delta, int32_t offset_delta,
                     std::optional<Bytes> key, std::optional<Bytes> value,
                     std::span<const Header> headers) {
  size_t body = 1 + varlong_size(timestamp_delta) + varint_size(offset_delta) +
                nullable_size(key) + nullable_size(value) + varint_size(int32_t(headers.size()));
  for (const Header& h : headers) {
    body += varint_size(int32_t(h.key.size())) + h.key.size() + nullable_size(h.value);
  }
  const size_t start = out.size();
  out.varint(int32_t(body));
  out.i8(0);  // record attributes: unused by every Kafka version so far
  out.varlong(timestamp_delta);
  out.varint(offset_delta);
  write_nullable(out, key);
  write_nullable(out, value);
  out.varint(int32_t(headers.size()));
  for (const Header& h : headers) {
    out.varint(int32_t(h.key.size()));
    out.bytes(as_bytes(h.key));
    write_nullable(out, h.value);
  }
  return out.size() - start;
}

}  // namespace strata::record
