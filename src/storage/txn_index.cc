#include "storage/txn_index.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace strata::storage {

namespace {

StorageError corrupt(const std::string& path, uint64_t position, const std::string& why) {
  return storage_error(StorageErrc::kCorruptIndex,
                       path + ": " + why + " at byte " + std::to_string(position));
}

std::string describe(const AbortedTxn& t) {
  return "(producer " + std::to_string(t.producer_id.value()) + ", first " +
         std::to_string(t.first_offset.value()) + ", last " +
         std::to_string(t.last_offset.value()) + ")";
}

bool file_exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

// Decodes whole-file bytes; the error names the byte position of the bad entry.
Result<std::vector<AbortedTxn>, StorageError> decode_all(const std::string& path, Bytes bytes) {
  std::vector<AbortedTxn> out;
  out.reserve(bytes.size() / kAbortedTxnSize);
  uint64_t position = 0;
  for (; position + kAbortedTxnSize <= bytes.size(); position += kAbortedTxnSize) {
    auto txn = decode_aborted_txn(bytes.subspan(position, kAbortedTxnSize));
    if (!txn) return fail(corrupt(path, position, txn.error().detail));
    out.push_back(*txn);
  }
  if (position != bytes.size()) {
    return fail(corrupt(path, position,
                        "partial entry of " + std::to_string(bytes.size() - position) + " bytes"));
  }
  return out;
}

// The first `size` bytes of `file`.
Result<std::vector<uint8_t>, StorageError> read_bytes(const File& file, uint64_t size,
                                                      const std::string& path) {
  std::vector<uint8_t> bytes(size);
  auto got = file.pread_some(bytes, 0);
  if (!got) return fail(io_error("read " + path));
  bytes.resize(*got);
  return bytes;
}

}  // namespace

std::array<uint8_t, kAbortedTxnSize> encode_aborted_txn(const AbortedTxn& txn) {
  std::array<uint8_t, kAbortedTxnSize> out{};
  uint8_t* p = out.data();
  store_be16(p, uint16_t(txn.version));
  store_be64(p + 2, uint64_t(txn.producer_id.value()));
  store_be64(p + 10, uint64_t(txn.first_offset.value()));
  store_be64(p + 18, uint64_t(txn.last_offset.value()));
  store_be64(p + 26, uint64_t(txn.last_stable_offset.value()));
  return out;
}

Result<AbortedTxn, StorageError> decode_aborted_txn(Bytes entry) {
  if (entry.size() != kAbortedTxnSize) {
    return fail(storage_error(StorageErrc::kCorruptIndex,
                              "aborted transaction entry of " + std::to_string(entry.size()) +
                                  " bytes, not " + std::to_string(kAbortedTxnSize)));
  }
  const uint8_t* p = entry.data();
  AbortedTxn t;
  t.version = int16_t(load_be16(p));
  if (t.version != kAbortedTxnVersion) {
    return fail(storage_error(StorageErrc::kCorruptIndex,
                              "unknown aborted transaction version " + std::to_string(t.version)));
  }
  t.producer_id = ProducerId(int64_t(load_be64(p + 2)));
  t.first_offset = Offset(int64_t(load_be64(p + 10)));
  t.last_offset = Offset(int64_t(load_be64(p + 18)));
  t.last_stable_offset = Offset(int64_t(load_be64(p + 26)));
  return t;
}

Result<std::vector<AbortedTxn>, StorageError> read_txn_index_file(const std::string& path) {
  auto file = File::open(path, false);
  if (!file) return fail(file.error());
  auto size = (*file)->size();
  if (!size) return fail(size.error());
  auto bytes = read_bytes(**file, *size, path);
  if (!bytes) return fail(bytes.error());
  return decode_all(path, *bytes);
}

// ---- TxnIndex

TxnIndex::~TxnIndex() = default;

Result<std::unique_ptr<TxnIndex>, StorageError> TxnIndex::open(std::string path, Offset base,
                                                               uint64_t max_bytes) {
  std::unique_ptr<TxnIndex> index(new TxnIndex(std::move(path), base));
  if (!file_exists(index->path_)) return index;
  auto file = File::open(index->path_, false);
  if (!file) return fail(file.error());
  index->file_ = std::move(*file);
  auto size = index->file_->size();
  if (!size) return fail(size.error());
  if (auto r = index->load(*size, max_bytes); !r) return fail(r.error());
  return index;
}

// Reads the entries; a file that does not decode leaves the index corrupt, not failed.
Result<void, StorageError> TxnIndex::load(uint64_t size, uint64_t max_bytes) {
  if (size > max_bytes) {
    corrupt_ = corrupt(path_, size, "file larger than its segment (" +
                                        std::to_string(max_bytes) + " bytes)")
                   .detail;
    return {};
  }
  auto bytes = read_bytes(*file_, size, path_);
  if (!bytes) return fail(bytes.error());
  auto entries = decode_all(path_, *bytes);
  if (!entries) {
    corrupt_ = entries.error().detail;
    return {};
  }
  entries_ = std::move(*entries);
  return {};
}

Result<std::unique_ptr<TxnIndex>, StorageError> TxnIndex::create(std::string path, Offset base) {
  std::unique_ptr<TxnIndex> index(new TxnIndex(std::move(path), base));
  if (::unlink(index->path_.c_str()) != 0 && errno != ENOENT) {
    return fail(io_error("unlink " + index->path_));
  }
  return index;
}

Result<void, StorageError> TxnIndex::append(const AbortedTxn& txn) {
  if (!entries_.empty() && entries_.back().last_offset >= txn.last_offset) {
    return fail(storage_error(StorageErrc::kIndexOrder,
                              path_ + ": aborted transaction " + describe(txn) +
                                  " does not end after the last one " + describe(entries_.back())));
  }
  if (!file_) {
    auto file = File::open(path_, true);
    if (!file) return fail(file.error());
    file_ = std::move(*file);
  }
  const auto bytes = encode_aborted_txn(txn);
  if (auto w = file_->pwrite_all(bytes, entries_.size() * kAbortedTxnSize); !w) return w;
  entries_.push_back(txn);
  return {};
}

bool TxnIndex::collect(Offset start, Offset upper, std::vector<AbortedTxn>& out) const {
  // Entries are ordered by last offset, and an entry's last stable offset is at most its
  // last offset + 1, so the entries ending before both `start` and `upper` - 1 can neither
  // match nor complete the search: skipped at once.
  const Offset from = std::min(start, Offset(upper.value() - 1));
  auto it = std::lower_bound(entries_.begin(), entries_.end(), from,
                             [](const AbortedTxn& t, Offset o) { return t.last_offset < o; });
  for (; it != entries_.end(); ++it) {
    if (it->last_offset >= start && it->first_offset < upper) out.push_back(*it);
    if (it->last_stable_offset >= upper) return true;
  }
  return false;
}

Result<void, StorageError> TxnIndex::sanity_check(Offset end) const {
  if (!corrupt_.empty()) return fail(storage_error(StorageErrc::kCorruptIndex, corrupt_));
  for (size_t i = 0; i < entries_.size(); ++i) {
    const AbortedTxn& t = entries_[i];
    const uint64_t position = i * kAbortedTxnSize;
    if (t.last_offset < base_) return fail(corrupt(path_, position, "entry before the segment"));
    if (t.last_offset >= end) return fail(corrupt(path_, position, "entry past the segment's end"));
    if (t.first_offset > t.last_offset) return fail(corrupt(path_, position, "first offset after last"));
    if (i > 0 && entries_[i - 1].last_offset >= t.last_offset) {
      return fail(corrupt(path_, position, "entries out of order"));
    }
  }
  return {};
}

Result<void, StorageError> TxnIndex::truncate_to(Offset offset) {
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [offset](const AbortedTxn& t) { return t.last_offset >= offset; });
  if (it == entries_.end()) return {};
  const size_t keep = size_t(it - entries_.begin());
  if (auto t = file_->truncate(keep * kAbortedTxnSize); !t) return t;
  entries_.resize(keep);
  return {};
}

Result<void, StorageError> TxnIndex::reset() {
  entries_.clear();
  corrupt_.clear();
  if (file_) return file_->truncate(0);
  return {};
}

Result<void, StorageError> TxnIndex::flush() {
  if (file_) return file_->datasync();
  return {};
}

Result<void, StorageError> TxnIndex::rename(const std::string& new_path) {
  const std::string& to = new_path;
  if (file_ || file_exists(path_)) {
    if (auto r = rename_file(path_, to); !r) return r;
  }
  path_ = to;
  return {};
}

void TxnIndex::remove_file() { ::unlink(path_.c_str()); }

}  // namespace strata::storage
