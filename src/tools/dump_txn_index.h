// `strata dump-log` for transaction indexes, `<offset>.txnindex`, as Kafka's
// DumpLogSegments.dumpTxnIndex prints them (docs/formats/dump-log-output.md section 3.3;
// the file format is src/storage/txn_index.h).
#pragma once

#include <iosfwd>
#include <string>

#include "storage/txn_index.h"

namespace strata::tools {

// Kafka's line for one aborted transaction, without its newline: "version: 0
// producerId: 1000 firstOffset: 5 lastOffset: 9 lastStableOffset: 10".
std::string aborted_txn_line(const storage::AbortedTxn& txn);

// Dumps `path` after its "Dumping" line: one line per entry on `out`, in file order. A
// file that cannot be read, or that holds an entry of an unknown version or a partial
// entry at its end, prints one error line on `err` and no entries. Returns 0, or 1 on
// such an error.
int dump_txn_index(const std::string& path, std::ostream& out, std::ostream& err);

}  // namespace strata::tools
