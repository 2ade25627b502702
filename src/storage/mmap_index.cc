#include "storage/mmap_index.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cerrno>
#include <filesystem>
#include <utility>

namespace strata::storage {
namespace {

// Closes a descriptor on scope exit. Errors are built (and errno captured) in the return
// expression, before this destructor runs.
struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

uint64_t round_down(uint64_t n, size_t factor) {
  return n / factor * factor;
}

}  // namespace

Result<MmapIndex, StorageError> MmapIndex::open(const std::string& path, size_t entry_size,
                                                size_t max_index_bytes, bool writable) {
  assert(entry_size > 0);
  const uint64_t max_bytes = round_down(max_index_bytes, entry_size);
  if (writable && max_bytes == 0) {
    return fail(StorageError{
        StorageErrc::kIo, EINVAL,
        "Invalid max index size: " + std::to_string(max_index_bytes) + " (" + path + ")"});
  }
  bool created = false;
  int fd = -1;
  if (writable) {
    fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    created = fd >= 0;
    if (fd < 0 && errno == EEXIST) fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  } else {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  }
  if (fd < 0) return fail(io_error("open " + path));
  const FdCloser closer{fd};

  // A new file is preallocated (sparse, as Kafka's RandomAccessFile.setLength).
  if (created && ::ftruncate(fd, off_t(max_bytes)) != 0) {
    return fail(io_error("ftruncate " + path));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) return fail(io_error("fstat " + path));
  const uint64_t length = uint64_t(st.st_size);

  MmapIndex index(path, entry_size, writable);
  if (auto r = index.remap(fd, length); !r) return fail(r.error());
  index.length_ = length;
  index.checked_length_ = length;
  index.entries_ = created ? 0 : size_t(length / entry_size);
  index.max_entries_ = size_t(length / entry_size);
  if (writable && !created) {
    if (auto r = index.resize(max_bytes); !r) return fail(r.error());
    // Kafka sanity-checks a segment's indexes before it resizes the active one's.
    index.checked_length_ = length;
  }
  return index;
}

MmapIndex::MmapIndex(MmapIndex&& other) noexcept
    : path_(std::move(other.path_)),
      entry_size_(other.entry_size_),
      writable_(other.writable_),
      map_(std::exchange(other.map_, nullptr)),
      map_bytes_(std::exchange(other.map_bytes_, 0)),
      populated_bytes_(std::exchange(other.populated_bytes_, 0)),
      length_(other.length_),
      checked_length_(other.checked_length_),
      entries_(std::exchange(other.entries_, 0)),
      max_entries_(std::exchange(other.max_entries_, 0)) {}

MmapIndex& MmapIndex::operator=(MmapIndex&& other) noexcept {
  if (this != &other) {
    unmap();
    path_ = std::move(other.path_);
    entry_size_ = other.entry_size_;
    writable_ = other.writable_;
    map_ = std::exchange(other.map_, nullptr);
    map_bytes_ = std::exchange(other.map_bytes_, 0);
    populated_bytes_ = std::exchange(other.populated_bytes_, 0);
    length_ = other.length_;
    checked_length_ = other.checked_length_;
    entries_ = std::exchange(other.entries_, 0);
    max_entries_ = std::exchange(other.max_entries_, 0);
  }
  return *this;
}

MmapIndex::~MmapIndex() {
  unmap();
}

void MmapIndex::unmap() {
  if (map_ != nullptr) ::munmap(map_, map_bytes_);
  map_ = nullptr;
  map_bytes_ = 0;
  populated_bytes_ = 0;
}

bool MmapIndex::populate_from(uint64_t at) {
  // Set by the first EINVAL: the kernel lacks MADV_POPULATE_WRITE (before 5.14).
  static std::atomic<bool> unsupported{false};
  const uint64_t page = uint64_t(::sysconf(_SC_PAGESIZE));
  const uint64_t begin = round_down(at, page);
  const uint64_t end = std::min(begin + kPopulateBytes, map_bytes_);
  if (end <= begin || unsupported.load(std::memory_order_relaxed)) {
    populated_bytes_ = std::max(populated_bytes_, end);
    return true;
  }
  if (::madvise(map_ + begin, size_t(end - begin), MADV_POPULATE_WRITE) != 0) {
    if (errno != EINVAL) return false;  // nothing counts as populated: the next slot retries
    unsupported.store(true, std::memory_order_relaxed);
  }
  populated_bytes_ = end;
  return true;
}

Result<void, StorageError> MmapIndex::remap(int fd, uint64_t length) {
  uint8_t* fresh = nullptr;
  if (length > 0) {
    const int prot = writable_ ? PROT_READ | PROT_WRITE : PROT_READ;
    void* p = ::mmap(nullptr, size_t(length), prot, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) return fail(io_error("mmap " + path_));
    fresh = static_cast<uint8_t*>(p);
    // A writable index is mostly a hole past its entries. On a fault the kernel reads
    // around the page (read_ahead_kb, 8 MiB on some disks): page cache zero-filled for
    // entries not yet written, which was most of the index's cost in appends. Lookups
    // are binary searches anyway. Advice only: an error changes nothing that matters.
    if (writable_) (void)::madvise(p, size_t(length), MADV_RANDOM);
  }
  unmap();
  map_ = fresh;
  map_bytes_ = length;
  return {};
}

Result<void, StorageError> MmapIndex::resize(uint64_t bytes) {
  const uint64_t target =
      std::max(round_down(bytes, entry_size_), uint64_t(entries_) * entry_size_);
  if (target == length_) return {};
  const int fd = ::open(path_.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return fail(io_error("open " + path_));
  const FdCloser closer{fd};
  if (::ftruncate(fd, off_t(target)) != 0) return fail(io_error("ftruncate " + path_));
  length_ = target;
  checked_length_ = target;
  if (auto r = remap(fd, target); !r) {
    // The old mapping stays; only what is inside both it and the file may be used.
    // (Both hold the entries: the old length did, and the new one is never below them.)
    max_entries_ = size_t(std::min(map_bytes_, length_) / entry_size_);
    return r;
  }
  max_entries_ = size_t(target / entry_size_);
  return {};
}

Result<void, StorageError> MmapIndex::flush() {
  if (map_ != nullptr && ::msync(map_, size_t(map_bytes_), MS_SYNC) != 0) {
    return fail(io_error("msync " + path_));
  }
  return {};
}

Result<void, StorageError> MmapIndex::rename(const std::string& new_path) {
  if (::rename(path_.c_str(), new_path.c_str()) != 0) {
    return fail(io_error("rename " + path_ + " -> " + new_path));
  }
  path_ = new_path;
  return {};
}

std::string MmapIndex::absolute_path() const {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(path_, ec);
  return ec ? path_ : p.string();
}

}  // namespace strata::storage
