// The date-times kafka-consumer-groups.sh --reset-offsets --to-datetime accepts (Kafka's
// Utils.getDateTime, a strict SimpleDateFormat):
//   YYYY-MM-DDTHH:mm:SS.sss            UTC
//   YYYY-MM-DDTHH:mm:SS.sssZ           UTC
//   YYYY-MM-DDTHH:mm:SS.sss+HH         and -HH, +HHMM, +HH:MM: that offset from UTC
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace strata::tools {

// Milliseconds since the Unix epoch; nullopt for any other form or an impossible date
// or time (month 13, February 30, hour 24, ...).
std::optional<int64_t> parse_kafka_datetime(std::string_view text);

}  // namespace strata::tools
