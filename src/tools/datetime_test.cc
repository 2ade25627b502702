// --to-datetime parsing: the forms Kafka's Utils.getDateTime accepts, and the ones a
// strict SimpleDateFormat refuses.
#include "tools/datetime.h"

#include <gtest/gtest.h>

namespace strata::tools {
namespace {

TEST(KafkaDatetime, UtcWithoutZone) {
  EXPECT_EQ(parse_kafka_datetime("1970-01-01T00:00:00.000"), 0);
  EXPECT_EQ(parse_kafka_datetime("2020-11-10T16:51:38.198"), 1605027098198);
  EXPECT_EQ(parse_kafka_datetime("2020-11-10T16:51:38.198Z"), 1605027098198);
}

TEST(KafkaDatetime, Zones) {
  // 16:51:38.198+08:00 is 08:51:38.198 UTC.
  const int64_t utc = 1605027098198 - 8 * 3600 * 1000;
  EXPECT_EQ(parse_kafka_datetime("2020-11-10T16:51:38.198+0800"), utc);
  EXPECT_EQ(parse_kafka_datetime("2020-11-10T16:51:38.198+08"), utc);
  EXPECT_EQ(parse_kafka_datetime("2020-11-10T16:51:38.198+08:00"), utc);
  EXPECT_EQ(parse_kafka_datetime("2020-11-10T16:51:38.198-01:30"), 1605027098198 + 5400000);
}

TEST(KafkaDatetime, LeapDayAndBeforeEpoch) {
  EXPECT_EQ(parse_kafka_datetime("2024-02-29T00:00:00.000"), 1709164800000);
  EXPECT_EQ(parse_kafka_datetime("1969-12-31T23:59:59.999"), -1);
}

TEST(KafkaDatetime, RejectsOtherForms) {
  for (const char* bad :
       {"", "2020-11-10", "2020-11-10T16:51:38", "2020-11-10T16:51:38.19",
        "2020-11-10 16:51:38.198", "2020-13-10T16:51:38.198", "2023-02-29T00:00:00.000",
        "2020-11-10T24:00:00.000", "2020-11-10T16:60:38.198", "2020-11-10T16:51:38.198+8",
        "2020-11-10T16:51:38.198X", "2020-11-10T16:51:38.198+08:0"}) {
    EXPECT_FALSE(parse_kafka_datetime(bad)) << bad;
  }
}

}  // namespace
}  // namespace strata::tools
