// An encoded response: bytes built in memory plus "splices", byte ranges of files
// (segment data for Fetch) that go onto the wire at given points without passing
// through this buffer. The network layer sends bytes with write and splices with
// sendfile (or pread + write), in order.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace strata::protocol {

struct FileSlice {
  std::shared_ptr<const void> owner;  // keeps the file descriptor open until sent
  int fd = -1;
  uint64_t position = 0;
  uint64_t size = 0;
};

struct Splice {
  size_t at = 0;  // offset in `bytes` where the slice is inserted
  FileSlice slice;
};

struct Output {
  std::vector<uint8_t> bytes;
  std::vector<Splice> splices;  // in increasing `at` order
  // Sent even with no bytes (the answer to a raw SASL token is a bare size prefix,
  // possibly 0); otherwise an empty Output means "no response" (acks=0).
  bool always_send = false;
  // The connection closes once this response is sent (a failed authentication).
  bool close_after = false;

  uint64_t total_size() const {
    uint64_t n = bytes.size();
    for (const Splice& s : splices) n += s.slice.size;
    return n;
  }
};

}  // namespace strata::protocol
