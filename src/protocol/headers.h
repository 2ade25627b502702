// Request and response headers (docs/formats/wire-protocol.md).
//   request  v0: apiKey int16 | apiVersion int16 | correlationId int32
//            v1: + clientId nullable STRING (int16 length even in flexible versions)
//            v2: + tagged fields
//   response v0: correlationId int32
//            v1: + tagged fields
// An API's flexible versions use request header v2 and response header v1, except
// ApiVersions, whose response header is always v0 (a client that does not know the
// broker's versions yet must be able to parse it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/bytes.h"
#include "common/result.h"
#include "protocol/output.h"

namespace strata::protocol {

inline constexpr int16_t kApiVersionsKey = 18;

struct RequestHeader {
  int16_t api_key = 0;
  int16_t api_version = 0;
  int32_t correlation_id = 0;
  std::optional<std::string> client_id;
  size_t size = 0;  // bytes the header took in the frame
};

enum class HeaderError : uint8_t { kTruncated, kBadClientId, kBadTaggedFields };

// Reads the fixed part (key, version, correlation id), enough to answer even an
// unknown API or version with the right correlation id.
Result<RequestHeader, HeaderError> parse_request_header_prefix(Bytes frame);
// Reads the rest for a header version (1 or 2; 0 has nothing more).
Result<RequestHeader, HeaderError> parse_request_header(Bytes frame, int header_version);

// Writes a response header of `header_version` (0 or 1) into `out`.
void write_response_header(Output& out, int32_t correlation_id, int header_version);

}  // namespace strata::protocol
