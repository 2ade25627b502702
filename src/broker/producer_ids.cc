#include "broker/producer_ids.h"

#include <charconv>
#include <fstream>
#include <sstream>

#include "storage/checkpoint.h"

namespace strata::broker {

Result<void, std::string> ProducerIds::load(const std::string& path) {
  std::lock_guard lock(mu_);
  path_ = path;
  std::ifstream in(path);
  if (!in) return {};  // first start
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  const std::string key = "next.block.start=";
  const auto at = s.find(key);
  int64_t v = -1;
  if (at != std::string::npos) {
    const char* b = s.data() + at + key.size();
    std::from_chars(b, s.data() + s.size(), v);
  }
  if (v < 0) return fail(path + ": no valid next.block.start");
  next_ = reserved_end_ = v;
  return {};
}

void ProducerIds::reserve_from(Reserve reserve) {
  std::lock_guard lock(mu_);
  reserve_ = std::move(reserve);
  next_ = reserved_end_ = 0;  // nothing reserved from the cluster yet
}

Result<void, std::string> ProducerIds::prefetch() {
  std::lock_guard lock(mu_);
  if (!reserve_ || next_ < reserved_end_) return {};
  auto start = reserve_();
  if (!start) return fail(start.error());
  next_ = *start;
  reserved_end_ = *start + kBlockSize;
  return {};
}

Result<ProducerId, std::string> ProducerIds::next() {
  std::lock_guard lock(mu_);
  if (next_ >= reserved_end_ && reserve_) {
    auto start = reserve_();
    if (!start) return fail("cannot reserve producer ids: " + start.error());
    next_ = *start;
    reserved_end_ = *start + kBlockSize;
  }
  if (next_ >= reserved_end_) {
    const int64_t end = next_ + kBlockSize;
    auto w = storage::atomic_write_file(path_, "version=0\nnext.block.start=" + std::to_string(end) + "\n");
    if (!w) return fail("cannot reserve producer ids: " + w.error().message());
    reserved_end_ = end;
  }
  return ProducerId(next_++);
}

}  // namespace strata::broker
