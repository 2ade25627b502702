#include "broker/config_admin.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "protocol/apis/incremental_alter_configs.h"

namespace strata::broker {
namespace {

TEST(ConfigAdmin, CatalogIsSortedAndUnique) {
  const auto& keys = topic_config_keys();
  for (size_t i = 1; i < keys.size(); ++i) {
    EXPECT_LT(std::string(keys[i - 1].name), std::string(keys[i].name));
  }
  for (const TopicConfigKey& k : keys) EXPECT_EQ(find_topic_config_key(k.name), &k);
  EXPECT_EQ(find_topic_config_key("no.such.config"), nullptr);
}

// Every catalog entry names a LogConfig setting, and its value parses back to itself.
TEST(ConfigAdmin, EveryKeyRoundTripsThroughLogConfig) {
  const storage::LogConfig defaults;
  for (const TopicConfigKey& k : topic_config_keys()) {
    const std::string value = k.value(defaults);
    storage::LogConfig c;
    ASSERT_TRUE(c.apply({{k.name, value}}).ok()) << k.name << "=" << value;
    EXPECT_EQ(k.value(c), value) << k.name;
  }
}

TEST(ConfigAdmin, OverridesShowInValues) {
  storage::LogConfig c;
  ASSERT_TRUE(c.apply({{"retention.ms", "1234"}, {"cleanup.policy", "compact,delete"}}).ok());
  EXPECT_EQ(find_topic_config_key("retention.ms")->value(c), "1234");
  EXPECT_EQ(find_topic_config_key("cleanup.policy")->value(c), "compact,delete");
}

TEST(ConfigAdmin, OnlyCleanupPolicyIsAList) {
  for (const TopicConfigKey& k : topic_config_keys()) {
    EXPECT_EQ(k.type == config_type::kList, std::string(k.name) == "cleanup.policy") << k.name;
  }
}

TEST(ConfigAdmin, SplitAndJoinLists) {
  EXPECT_EQ(split_list("delete,,compact,"), (std::vector<std::string>{"delete", "compact"}));
  EXPECT_TRUE(split_list("").empty());
  EXPECT_EQ(join_list({"delete", "compact"}), "delete,compact");
  EXPECT_EQ(join_list({}), "");
}

// alter_broker_configs run to its end (on a single node it needs no shard).
ApiError alter_broker(Broker& broker, const std::string& name, const std::vector<std::string>& keys,
                      std::map<std::string, std::string> set = {}) {
  asio::io_context io;
  OverridesEdit edit = [&set](std::map<std::string, std::string>& overrides) {
    for (const auto& [k, v] : set) overrides[k] = v;
    return std::optional<ApiError>();
  };
  auto f = asio::co_spawn(io, alter_broker_configs(broker, name, keys, edit, false), asio::use_future);
  io.run();
  return f.get();
}

TEST(ConfigAdmin, BrokerResourceNames) {
  BrokerConfig config;
  config.node_id = 3;
  Broker broker(config);
  EXPECT_EQ(alter_broker(broker, "", {}).code, 0);
  EXPECT_EQ(alter_broker(broker, "3", {}).code, 0);
  auto other = alter_broker(broker, "4", {});
  EXPECT_EQ(other.code, kafka_error::kInvalidRequest);
  EXPECT_EQ(other.message, "Unexpected broker id, expected 3, but received 4");
  auto junk = alter_broker(broker, "3x", {});
  EXPECT_EQ(junk.message, "Node id must be an integer, but it is: 3x");
  auto any = alter_broker(broker, "", {"log.retention.ms", "num.partitions"});
  EXPECT_EQ(any.code, kafka_error::kInvalidRequest);
  EXPECT_EQ(any.message, "Cannot update these configs dynamically: Set(log.retention.ms, num.partitions)");
  // The throttle rates are dynamic in a cluster only; removing none is no change.
  EXPECT_EQ(alter_broker(broker, "3", {"leader.replication.throttled.rate"}).code, 0);
  auto single = alter_broker(broker, "3", {"leader.replication.throttled.rate"},
                             {{"leader.replication.throttled.rate", "1000"}});
  EXPECT_EQ(single.code, kafka_error::kInvalidRequest);
  EXPECT_EQ(single.message,
            "Cannot update these configs dynamically: Set(leader.replication.throttled.rate) (no etcd.connect: "
            "dynamic broker configs live in a cluster's etcd)");
  auto bad = alter_broker(broker, "", {"follower.replication.throttled.rate"},
                          {{"follower.replication.throttled.rate", "-1"}});
  EXPECT_EQ(bad.code, kafka_error::kInvalidConfig);
  EXPECT_EQ(bad.message, "Invalid value -1 for configuration follower.replication.throttled.rate: "
                         "Value must be at least 0");
}

TEST(ConfigAdmin, DuplicatesAndNulls) {
  using Req = protocol::IncrementalAlterConfigsRequest;
  std::vector<Req::Resource> resources(3);
  resources[0] = {2, "a", {}};
  resources[1] = {4, "a", {}};
  resources[2] = {2, "a", {}};
  const auto dups = duplicate_resources(resources);
  EXPECT_EQ(dups.size(), 1u);
  EXPECT_TRUE(dups.count({int8_t(2), std::string("a")}));
  std::vector<Req::Config> configs = {{"x", 0, "1"}, {"y", 0, "2"}};
  EXPECT_FALSE(check_unique_keys(configs));
  configs.push_back({"x", 1, std::nullopt});
  auto dup = check_unique_keys(configs);
  ASSERT_TRUE(dup);
  EXPECT_EQ(dup->message, "Error due to duplicate config keys");
  EXPECT_FALSE(null_values_error({}));
  EXPECT_EQ(null_values_error({"a", "b"})->message, "Null value not supported for : a, b");
}

}  // namespace
}  // namespace strata::broker
