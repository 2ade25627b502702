#include "tools/dump_txn_index.h"

#include <fmt/format.h>

#include <cstring>
#include <ostream>

namespace strata::tools {

std::string aborted_txn_line(const storage::AbortedTxn& txn) {
  return fmt::format(
      "version: {} producerId: {} firstOffset: {} lastOffset: {} lastStableOffset: {}", txn.version,
      txn.producer_id.value(), txn.first_offset.value(), txn.last_offset.value(),
      txn.last_stable_offset.value());
}

int dump_txn_index(const std::string& path, std::ostream& out, std::ostream& err) {
  auto entries = storage::read_txn_index_file(path);
  if (!entries) {
    const storage::StorageError& e = entries.error();
    if (e.code == storage::StorageErrc::kCorruptIndex) {
      err << "Error: corrupt transaction index " << e.message() << "\n";
    } else {
      // e.message() repeats the path ("open <path>: ..."): the errno text says enough.
      err << "Error: cannot read " << path << ": "
          << (e.sys_errno != 0 ? std::strerror(e.sys_errno) : e.message()) << "\n";
    }
    return 1;
  }
  for (const storage::AbortedTxn& txn : *entries) out << aborted_txn_line(txn) << "\n";
  return 0;
}

}  // namespace strata::tools
