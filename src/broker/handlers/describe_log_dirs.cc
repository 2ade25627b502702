// DescribeLogDirs: the one log directory (absolute path, its volume's total and usable
// bytes from statvfs) and the size of each partition in it, read on the owner shards
// (one hop per shard). No replication here, so every offset lag is 0 and there are no
// future logs. Errors: KAFKA_STORAGE_ERROR for the directory when statvfs fails;
// CLUSTER_AUTHORIZATION_FAILED (v3+; no directories before) without DESCRIBE on the cluster.
#include <sys/statvfs.h>

#include <filesystem>
#include <map>
#include <set>

#include "broker/errors.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"
#include "storage/checkpoint.h"

namespace strata::broker {

using protocol::DescribeLogDirsRequest;
using protocol::DescribeLogDirsResponse;

namespace {

std::string absolute_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(dir, ec);
  if (ec) return dir;
  std::string s = p.lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

// The partitions to describe: all of this broker's, or those requested that it has.
std::vector<storage::TopicPartition> selected(Broker& broker, const DescribeLogDirsRequest& req) {
  std::vector<storage::TopicPartition> all = broker.logs().partitions();
  if (!req.topics) return all;
  std::set<storage::TopicPartition> wanted;
  for (const auto& t : *req.topics) {
    for (int32_t p : t.partitions) wanted.insert({t.topic, PartitionId(p)});
  }
  std::vector<storage::TopicPartition> out;
  for (const auto& tp : all) {
    if (wanted.count(tp)) out.push_back(tp);
  }
  return out;
}

}  // namespace

asio::awaitable<DescribeLogDirsResponse> handle_describe_log_dirs(Broker& broker, RequestContext& ctx,
                                                                  DescribeLogDirsRequest& request) {
  DescribeLogDirsResponse response;
  // Kafka's check: DESCRIBE on the cluster, else no log dirs (and, from v3, the error).
  if (!cluster_authorized(broker, ctx, AclOperation::kDescribe)) {
    response.error_code = kafka_error::kClusterAuthorizationFailed;
    co_return response;
  }
  DescribeLogDirsResponse::Result dir;
  dir.log_dir = absolute_dir(broker.config().log_dir);
  struct statvfs vfs {};
  if (::statvfs(broker.config().log_dir.c_str(), &vfs) != 0) {
    dir.error_code = kafka_error::kKafkaStorageError;
    response.results.push_back(std::move(dir));
    co_return response;
  }
  dir.total_bytes = int64_t(vfs.f_blocks) * int64_t(vfs.f_frsize);
  dir.usable_bytes = int64_t(vfs.f_bavail) * int64_t(vfs.f_frsize);
  // Sizes are read where each log lives, one hop per owner shard; -1: the log is gone.
  const std::vector<storage::TopicPartition> tps = selected(broker, request);  // sorted
  std::vector<int64_t> sizes(tps.size(), -1);
  std::map<size_t, std::vector<size_t>> by_shard;  // indexes into tps
  for (size_t i = 0; i < tps.size(); ++i) by_shard[broker.owner_shard(tps[i])].push_back(i);
  for (const auto& [shard, indexes] : by_shard) {
    // Captures references and pointers only, as Broker::on_shard requires.
    const bool done =
        co_await broker.on_shard(shard, [&broker, in = &tps, out = &sizes, which = &indexes] {
          for (size_t i : *which) {
            if (const storage::Log* log = broker.logs().get((*in)[i])) {
              (*out)[i] = int64_t(log->size_bytes());
            }
          }
          return true;
        });
    (void)done;
  }
  for (size_t i = 0; i < tps.size(); ++i) {
    if (sizes[i] < 0) continue;
    const storage::TopicPartition& tp = tps[i];
    if (dir.topics.empty() || dir.topics.back().name != tp.topic) {
      dir.topics.push_back({tp.topic, {}});
    }
    DescribeLogDirsResponse::Partition p;
    p.partition_index = tp.partition.value();
    p.partition_size = sizes[i];
    p.offset_lag = 0;
    p.is_future_key = false;
    dir.topics.back().partitions.push_back(p);
  }
  response.results.push_back(std::move(dir));
  co_return response;
}

}  // namespace strata::broker
