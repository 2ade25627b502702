// `strata txn` tables: kafka-transactions.sh's columns and ToolsUtils.prettyPrintTable's
// layout (each cell padded to its column's widest cell, then a tab, the last included),
// byte for byte.
#include "tools/txn_format.h"

#include <gtest/gtest.h>

#include <sstream>

namespace strata::tools {
namespace {

TEST(TxnTable, PadsEachColumnToItsWidestCellAndEndsEveryCellWithATab) {
  std::ostringstream out;
  print_txn_table({"A", "Long"}, {{"wide-cell", "x"}, {"y", "12345"}}, out);
  EXPECT_EQ(out.str(),
            "A        \tLong \t\n"
            "wide-cell\tx    \t\n"
            "y        \t12345\t\n");
}

TEST(TxnTable, NoRowsIsTheHeaderAlone) {
  std::ostringstream out;
  print_producers({}, out);
  EXPECT_EQ(out.str(),
            "ProducerId\tProducerEpoch\tLatestCoordinatorEpoch\tLastSequence\tLastTimestamp\t"
            "CurrentTransactionStartOffset\t\n");
}

TEST(TxnList, OneRowPerTransaction) {
  std::ostringstream out;
  print_txn_listings({{"payments", 1, 1000, "Ongoing"}, {"t", 1, 1001, "CompleteCommit"}}, out);
  EXPECT_EQ(out.str(),
            "TransactionalId\tCoordinator\tProducerId\tTransactionState\t\n"
            "payments       \t1          \t1000      \tOngoing         \t\n"
            "t              \t1          \t1001      \tCompleteCommit  \t\n");
}

TEST(TxnDescribe, DurationIsNowMinusStartAndPartitionsAreSorted) {
  TxnDescriptionRow d;
  d.coordinator_id = 1;
  d.transactional_id = "payments";
  d.producer_id = 1000;
  d.producer_epoch = 3;
  d.state = "Ongoing";
  d.timeout_ms = 60000;
  d.start_ms = 1700000000000;
  d.partitions = {{"orders", 2}, {"audit", 0}, {"orders", 10}};
  std::ostringstream out;
  print_txn_description(d, 1700000001234, out);
  EXPECT_EQ(out.str(),
            "CoordinatorId\tTransactionalId\tProducerId\tProducerEpoch\tTransactionState\t"
            "TransactionTimeoutMs\tCurrentTransactionStartTimeMs\tTransactionDurationMs\t"
            "TopicPartitions           \t\n"
            "1            \tpayments       \t1000      \t3            \tOngoing         \t"
            "60000               \t1700000000000                \t1234                 \t"
            "audit-0,orders-2,orders-10\t\n");
}

TEST(TxnDescribe, NoTransactionStartedPrintsNone) {
  TxnDescriptionRow d;
  d.coordinator_id = 0;
  d.transactional_id = "idle";
  d.producer_id = 7;
  d.producer_epoch = 0;
  d.state = "Empty";
  d.timeout_ms = 900000;
  d.start_ms = -1;
  std::ostringstream out;
  print_txn_description(d, 1700000000000, out);
  const std::string text = out.str();
  const std::string row = text.substr(text.find('\n') + 1);
  EXPECT_EQ(row,
            "0            \tidle           \t7         \t0            \tEmpty           \t"
            "900000              \tNone                         \tNone                 \t"
            "               \t\n");
}

TEST(TxnProducers, OpenTransactionStartOffsetOrNone) {
  std::ostringstream out;
  print_producers({{1000, 2, 4, 1700000000000, 0, 17}, {1001, 0, 9, 1700000000500, -1, -1}}, out);
  EXPECT_EQ(out.str(),
            "ProducerId\tProducerEpoch\tLatestCoordinatorEpoch\tLastSequence\tLastTimestamp\t"
            "CurrentTransactionStartOffset\t\n"
            "1000      \t2            \t0                     \t4           \t1700000000000\t"
            "17                           \t\n"
            "1001      \t0            \t-1                    \t9           \t1700000000500\t"
            "None                         \t\n");
}

TEST(TxnHanging, DurationIsWholeMinutesSinceTheLastTimestamp) {
  const int64_t now = 1700000000000;
  std::ostringstream out;
  print_hanging({{"orders", 3, {1000, 2, 4, now - 20 * 60000 - 59999, -1, 42}}}, now, out);
  EXPECT_EQ(out.str(),
            "Topic \tPartition\tProducerId\tProducerEpoch\tCoordinatorEpoch\tStartOffset\t"
            "LastTimestamp\tDuration(min)\t\n"
            "orders\t3        \t1000      \t2            \t-1              \t42         \t"
            "1699998740001\t20           \t\n");
}

TEST(TxnAbort, SpecNamedAsKafkaNamesIt) {
  EXPECT_EQ(abort_spec_text("orders", 0, 1000, 2, 0),
            "AbortTransactionSpec(topicPartition=orders-0, producerId=1000, producerEpoch=2, "
            "coordinatorEpoch=0)");
}

}  // namespace
}  // namespace strata::tools
