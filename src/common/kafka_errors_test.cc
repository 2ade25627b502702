#include "common/kafka_errors.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace strata {
namespace {

bool upper_snake(std::string_view s) {
  if (s.empty() || s.front() == '_' || s.back() == '_') return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '_' && s[i - 1] == '_') return false;
    if (!(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') && c != '_') return false;
  }
  return true;
}

TEST(KafkaErrors, CodesUniqueAndEveryOneFromMinusOneListed) {
  std::set<int16_t> codes;
  for (const KafkaErrorInfo& e : kKafkaErrors) EXPECT_TRUE(codes.insert(e.code).second) << e.code;
  ASSERT_FALSE(codes.empty());
  EXPECT_EQ(*codes.begin(), -1);
  // No gaps: Kafka never skips a number, so a gap means a row was lost.
  EXPECT_EQ(int(codes.size()), *codes.rbegin() + 2);
}

TEST(KafkaErrors, NamesUniqueAndUpperSnake) {
  std::set<std::string_view> names;
  for (const KafkaErrorInfo& e : kKafkaErrors) {
    EXPECT_TRUE(upper_snake(e.name)) << e.name;
    EXPECT_TRUE(names.insert(e.name).second) << e.name;
  }
}

TEST(KafkaErrors, MessagesPresentExceptForNone) {
  for (const KafkaErrorInfo& e : kKafkaErrors) {
    if (e.code == 0) {
      EXPECT_TRUE(e.message.empty());
    } else {
      EXPECT_FALSE(e.message.empty()) << e.name;
    }
  }
}

TEST(KafkaErrors, SpotValues) {
  struct Spot {
    int16_t code;
    std::string_view name;
    bool retriable;
  };
  const Spot spots[] = {
      {-1, "UNKNOWN_SERVER_ERROR", false},
      {0, "NONE", false},
      {1, "OFFSET_OUT_OF_RANGE", false},
      {2, "CORRUPT_MESSAGE", true},
      {3, "UNKNOWN_TOPIC_OR_PARTITION", true},
      {6, "NOT_LEADER_OR_FOLLOWER", true},
      {10, "MESSAGE_TOO_LARGE", false},
      {15, "COORDINATOR_NOT_AVAILABLE", true},
      {16, "NOT_COORDINATOR", true},
      {17, "INVALID_TOPIC_EXCEPTION", false},
      {27, "REBALANCE_IN_PROGRESS", false},
      {35, "UNSUPPORTED_VERSION", false},
      {36, "TOPIC_ALREADY_EXISTS", false},
      {45, "OUT_OF_ORDER_SEQUENCE_NUMBER", false},
      {47, "INVALID_PRODUCER_EPOCH", false},
      {51, "CONCURRENT_TRANSACTIONS", true},
      {56, "KAFKA_STORAGE_ERROR", true},
      {87, "INVALID_RECORD", false},
      {90, "PRODUCER_FENCED", false},
      {100, "UNKNOWN_TOPIC_ID", true},
      {105, "TRANSACTIONAL_ID_NOT_FOUND", false},
      {106, "FETCH_SESSION_TOPIC_ID_ERROR", true},
      {120, "TRANSACTION_ABORTABLE", false},
      {128, "INVALID_REGULAR_EXPRESSION", false},
  };
  for (const Spot& s : spots) {
    const KafkaErrorInfo* e = kafka_error_info(s.code);
    ASSERT_NE(e, nullptr) << s.code;
    EXPECT_EQ(e->code, s.code);
    EXPECT_EQ(e->name, s.name);
    EXPECT_EQ(e->retriable, s.retriable) << s.name;
    EXPECT_EQ(kafka_error_name(s.code), s.name);
  }
  EXPECT_EQ(kafka_error_info(3)->message, "This server does not host this topic-partition.");
}

TEST(KafkaErrors, EnumConstantsAndTableAgree) {
  static_assert(kafka_error::kUnknownTopicOrPartition == 3);
  static_assert(kafka_error::kOutOfOrderSequenceNumber == 45);
  static_assert(kafka_error::kUnknownTopicId == 100);
  static_assert(kafka_error::kInvalidTopic == 17);
  static_assert(code_of(KafkaError::kNotCoordinator) == kafka_error::kNotCoordinator);
  EXPECT_EQ(kafka_error_name(kafka_error::kProducerFenced), "PRODUCER_FENCED");  // not constexpr under UBSan
  for (const KafkaErrorInfo& e : kKafkaErrors) {
    EXPECT_EQ(kafka_error_info(e.code), &e);
    EXPECT_EQ(&kafka_error_info(KafkaError(e.code)), &e);
  }
}

TEST(KafkaErrors, UnknownCodes) {
  EXPECT_EQ(kafka_error_info(-2), nullptr);
  EXPECT_EQ(kafka_error_info(int16_t(kKafkaErrors[std::size(kKafkaErrors) - 1].code + 1)), nullptr);
  EXPECT_EQ(kafka_error_info(INT16_MAX), nullptr);
  EXPECT_EQ(kafka_error_info(INT16_MIN), nullptr);
  EXPECT_EQ(kafka_error_name(INT16_MAX), "");
  EXPECT_FALSE(kafka_error_retriable(INT16_MAX));
}

}  // namespace
}  // namespace strata
