// `strata txn list` and `strata txn describe`: what the transaction coordinators know.
//   list: ListTransactions on every broker, one row per transactional id
//         (kafka-transactions.sh list), optionally filtered by state, producer id and
//         age (--duration-filter: running longer than MS).
//   describe: one transactional id's state, producer, timeout, start time and the
//         partitions of its current transaction.
#include <ostream>

#include "common/ascii.h"
#include "tools/txn_admin.h"

namespace strata::tools {

namespace {

// Kafka's TransactionState names other than "Unknown", in its order.
constexpr const char* kStates[] = {"Ongoing",          "PrepareAbort",   "PrepareCommit",
                                   "CompleteAbort",    "CompleteCommit", "Empty",
                                   "PrepareEpochFence"};

// "ongoing" -> "Ongoing": names match without regard to case.
Result<std::string, CommandError> state_name(const std::string& text) {
  for (const char* s : kStates) {
    if (ascii_lower(s) == ascii_lower(text)) return std::string(s);
  }
  std::string valid;
  for (const char* s : kStates) valid += (valid.empty() ? "" : ", ") + std::string(s);
  return fail(CommandError{"Invalid transaction state '" + text + "'. Valid states are: " + valid});
}

}  // namespace

Status list_txns(TxnAdmin& admin, std::ostream& out) {
  const TxnArgs& args = admin.args();
  TxnListFilter filter;
  for (const std::string& s : args.states) {
    auto name = state_name(s);
    if (!name) return fail(name.error());
    filter.states.push_back(*name);
  }
  filter.producer_ids = args.producer_ids;
  filter.duration_ms = args.duration_filter_ms.value_or(-1);
  auto rows = admin.list(filter);
  if (!rows) return fail(CommandError{"Failed to list transactions: " + rows.error().message});
  print_txn_listings(*rows, out);
  return {};
}

Status describe_txn(TxnAdmin& admin, std::ostream& out) {
  const std::string& id = admin.args().transactional_id;
  const std::string failed =
      "Failed to describe transaction state of transactional-id `" + id + "`: ";
  auto d = admin.describe(id);
  if (!d) return fail(CommandError{failed + d.error().message});
  if (!*d) {
    return fail(CommandError{failed + "TRANSACTIONAL_ID_NOT_FOUND: the coordinator does not know "
                                      "the transactional id"});
  }
  print_txn_description(**d, txn_now_ms(), out);
  return {};
}

}  // namespace strata::tools
