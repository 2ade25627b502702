#include "broker/topics.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <random>

#include "storage/checkpoint.h"

namespace strata::broker {

protocol::Uuid new_topic_id() {
  std::random_device rd;
  protocol::Uuid id;
  for (auto& b : id.bytes) b = uint8_t(rd());
  id.bytes[6] = uint8_t((id.bytes[6] & 0x0f) | 0x40);  // version 4, as Java's randomUUID
  id.bytes[8] = uint8_t((id.bytes[8] & 0x3f) | 0x80);
  return id;
}

namespace {

std::string to_hex(const protocol::Uuid& id) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (uint8_t b : id.bytes) {
    s += d[b >> 4];
    s += d[b & 15];
  }
  return s;
}

std::optional<protocol::Uuid> from_hex(const std::string& s) {
  if (s.size() != 32) return std::nullopt;
  protocol::Uuid id;
  for (size_t i = 0; i < 16; ++i) {
    unsigned v = 0;
    for (int k = 0; k < 2; ++k) {
      const char c = s[2 * i + size_t(k)];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= unsigned(c - '0');
      else if (c >= 'a' && c <= 'f') v |= unsigned(c - 'a' + 10);
      else return std::nullopt;
    }
    id.bytes[i] = uint8_t(v);
  }
  return id;
}

}  // namespace

Result<void, std::string> Topics::load(const std::string& path) {
  std::lock_guard lock(mu_);
  path_ = path;
  std::ifstream in(path);
  if (!in) return {};
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.contains("topics")) return fail(path + ": not a topics file");
  for (const auto& t : j["topics"]) {
    TopicInfo info;
    info.name = t.value("name", "");
    auto id = from_hex(t.value("id", ""));
    info.partitions = t.value("partitions", 0);
    if (info.name.empty() || !id || info.partitions <= 0) return fail(path + ": bad topic entry");
    info.id = *id;
    if (t.contains("configs") && t["configs"].is_object()) {
      const nlohmann::json& configs = t["configs"];
      for (auto it = configs.begin(); it != configs.end(); ++it) {
        info.configs[it.key()] = it.value().get<std::string>();
      }
    }
    topics_[info.name] = info;
  }
  return {};
}

Result<void, std::string> Topics::save_locked() const {
  nlohmann::json j;
  j["version"] = 1;
  j["topics"] = nlohmann::json::array();
  for (const auto& [name, t] : topics_) {
    j["topics"].push_back({{"name", name}, {"id", to_hex(t.id)}, {"partitions", t.partitions},
                           {"configs", t.configs}});
  }
  if (auto r = storage::atomic_write_file(path_, j.dump(1) + "\n"); !r) {
    return fail(r.error().message());
  }
  return {};
}

std::optional<TopicInfo> Topics::get(const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = topics_.find(name);
  if (it == topics_.end()) return std::nullopt;
  return it->second;
}

std::optional<TopicInfo> Topics::get(const protocol::Uuid& id) const {
  std::lock_guard lock(mu_);
  for (const auto& [name, t] : topics_) {
    if (t.id == id) return t;
  }
  return std::nullopt;
}

std::vector<TopicInfo> Topics::all() const {
  std::lock_guard lock(mu_);
  std::vector<TopicInfo> out;
  for (const auto& [name, t] : topics_) out.push_back(t);
  return out;
}

Result<TopicInfo, std::string> Topics::add(const std::string& name, const protocol::Uuid& id,
                                           int32_t partitions,
                                           std::map<std::string, std::string> configs) {
  std::lock_guard lock(mu_);
  if (topics_.count(name)) return fail("topic " + name + " already exists");
  TopicInfo t{name, id, partitions, std::move(configs)};
  topics_[name] = t;
  if (auto r = save_locked(); !r) {
    topics_.erase(name);
    return fail(r.error());
  }
  return t;
}

Result<void, std::string> Topics::remove(const std::string& name) {
  std::lock_guard lock(mu_);
  topics_.erase(name);
  return save_locked();
}

Result<void, std::string> Topics::set_partitions(const std::string& name, int32_t partitions) {
  std::lock_guard lock(mu_);
  auto it = topics_.find(name);
  if (it == topics_.end()) return fail("unknown topic " + name);
  it->second.partitions = partitions;
  return save_locked();
}

Result<void, std::string> Topics::set_configs(const std::string& name,
                                              std::map<std::string, std::string> configs) {
  std::lock_guard lock(mu_);
  auto it = topics_.find(name);
  if (it == topics_.end()) return fail("unknown topic " + name);
  it->second.configs = std::move(configs);
  return save_locked();
}

}  // namespace strata::broker
