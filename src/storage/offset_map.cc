#include "storage/offset_map.h"

#include <openssl/evp.h>
#include <sys/mman.h>

#include <algorithm>
#include <cassert>

namespace strata::storage {

// OpenSSL's digest, fetched once per map, and a context reused for every key.
struct OffsetMap::Digest {
  EVP_MD* md = nullptr;
  EVP_MD_CTX* ctx = nullptr;
  ~Digest() {
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
  }
};

Result<std::unique_ptr<OffsetMap>, StorageError> OffsetMap::create(size_t memory_bytes) {
  auto digest = std::make_unique<Digest>();
  digest->md = EVP_MD_fetch(nullptr, "MD5", nullptr);
  if (digest->md == nullptr) digest->md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  digest->ctx = EVP_MD_CTX_new();
  if (digest->md == nullptr || digest->ctx == nullptr) {
    return fail(storage_error(StorageErrc::kIo, "OpenSSL offers no MD5 or SHA-256 digest"));
  }
  const size_t slots = std::max<size_t>(memory_bytes / kSlotBytes, 2);
  // Zero pages until written: nothing resident until a cleaning needs it.
  void* table = ::mmap(nullptr, slots * kSlotBytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (table == MAP_FAILED) {
    return fail(storage_error(StorageErrc::kIo, "cannot map an offset map of " +
                                                    std::to_string(slots * kSlotBytes) + " bytes"));
  }
  // Every put and get is a random access into the table: with 4 KiB pages nearly each
  // one is also a TLB miss. Huge pages where the kernel has them (a hint; ignored if
  // transparent huge pages are off).
  ::madvise(table, slots * kSlotBytes, MADV_HUGEPAGE);
  return std::unique_ptr<OffsetMap>(
      new OffsetMap(slots, static_cast<Slot*>(table), std::move(digest)));
}

OffsetMap::OffsetMap(size_t slots, Slot* table, std::unique_ptr<Digest> digest)
    : slots_(slots), table_(table), digest_(std::move(digest)) {}

OffsetMap::~OffsetMap() { ::munmap(table_, slots_ * kSlotBytes); }

KeyHash OffsetMap::hash(Bytes key) const {
  uint8_t out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  const bool ok = EVP_DigestInit_ex2(digest_->ctx, digest_->md, nullptr) == 1 &&
                  EVP_DigestUpdate(digest_->ctx, key.data(), key.size()) == 1 &&
                  EVP_DigestFinal_ex(digest_->ctx, out, &n) == 1;
  // A fetched digest does not fail on memory it was given; a failure is a broken library.
  assert(ok && n >= kHashBytes);
  (void)ok;
  return KeyHash{load_be64(out), load_be64(out + 8)};
}

// Double hashing over the 16 bytes for the first probes, then slot by slot: the walk
// visits every slot, so it always finds the key or an empty slot (size < slots).
size_t OffsetMap::probe(const KeyHash& h, size_t attempt) const {
  if (attempt < kHashedProbesMax) return size_t((h.hi + attempt * (h.lo | 1)) % slots_);
  return size_t((h.hi + attempt) % slots_);
}

size_t OffsetMap::find(const KeyHash& h) const {
  for (size_t attempt = 0; attempt < kHashedProbesMax + slots_; ++attempt) {
    const size_t i = probe(h, attempt);
    if (table_[i].offset_plus_one == 0 || table_[i].hash == h) return i;
  }
  return slots_;  // every slot holds another key
}

void OffsetMap::put(Bytes key, Offset offset) {
  assert(offset.value() >= 0);
  const KeyHash h = hash(key);
  const size_t i = find(h);
  assert(i < slots_);
  Slot& slot = table_[i];
  if (slot.offset_plus_one == 0) {
    assert(size_ < slots_);
    slot.hash = h;
    ++size_;
  }
  slot.offset_plus_one = offset.value() + 1;
  touched_ = true;
  latest_ = offset;
}

std::optional<Offset> OffsetMap::get(Bytes key) const {
  const size_t i = find(hash(key));
  if (i == slots_ || table_[i].offset_plus_one == 0) return std::nullopt;
  return Offset(table_[i].offset_plus_one - 1);
}

void OffsetMap::clear() {
  // A private anonymous mapping reads as zeros again after MADV_DONTNEED.
  if (touched_) ::madvise(table_, slots_ * kSlotBytes, MADV_DONTNEED);
  touched_ = false;
  size_ = 0;
  latest_ = Offset(-1);
}

}  // namespace strata::storage
