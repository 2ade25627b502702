#include "protocol/headers.h"

namespace strata::protocol {

Result<RequestHeader, HeaderError> parse_request_header_prefix(Bytes frame) {
  ByteReader in(frame);
  RequestHeader h;
  h.api_key = in.i16();
  h.api_version = in.i16();
  h.correlation_id = in.i32();
  if (!in.ok()) return fail(HeaderError::kTruncated);
  h.size = in.position();
  return h;
}

Result<RequestHeader, HeaderError> parse_request_header(Bytes frame, int header_version) {
  auto prefix = parse_request_header_prefix(frame);
  if (!prefix || header_version == 0) return prefix;
  RequestHeader h = *prefix;
  ByteReader in(frame);
  in.skip(h.size);
  const int16_t n = in.i16();
  if (!in.ok()) return fail(HeaderError::kTruncated);
  if (n >= 0) {
    if (!in.fits(n)) return fail(HeaderError::kBadClientId);
    h.client_id = std::string(as_string_view(in.take(size_t(n))));
  } else if (n != -1) {
    return fail(HeaderError::kBadClientId);
  }
  if (header_version >= 2) {
    // Tagged fields: none are defined for the request header; skip them all.
    const uint32_t count = in.uvarint32();
    for (uint32_t i = 0; i < count && in.ok(); ++i) {
      (void)in.uvarint32();
      const uint32_t size = in.uvarint32();
      if (!in.fits(size)) return fail(HeaderError::kBadTaggedFields);
      in.skip(size);
    }
    if (!in.ok()) return fail(HeaderError::kBadTaggedFields);
  }
  h.size = in.position();
  return h;
}

void write_response_header(Output& out, int32_t correlation_id, int header_version) {
  ByteWriter w(out.bytes);
  w.i32(correlation_id);
  if (header_version >= 1) w.uvarint(0);  // no tagged fields
}

}  // namespace strata::protocol
