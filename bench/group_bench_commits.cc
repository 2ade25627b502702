// Commit throughput: consumers that each commit one partition's offset synchronously in a
// loop, from their own threads, all starting together after a warm-up commit.
#include <barrier>
#include <cstdio>

#include "group_bench.h"

namespace group_bench {

namespace {

constexpr size_t kCommitsPerConsumerMax = 2'000'000;  // bounds the latency vectors

struct Loop {
  std::vector<double> latency_ms;  // of the commits that succeeded
  int64_t errors = 0;
  rd_kafka_resp_err_t first_error = RD_KAFKA_RESP_ERR_NO_ERROR;
  Clock::time_point last_done;
};

// Commits `partitions` of `topic` with a rising offset, synchronously, until `end`.
void commit_loop(rd_kafka_t* rk, const std::string& topic, const std::vector<int32_t>& partitions,
                 Clock::time_point end, Loop& out) {
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(int(partitions.size()));
  for (int32_t p : partitions) rd_kafka_topic_partition_list_add(list, topic.c_str(), p);
  int64_t offset = 1000;  // above the warm-up's
  while (Clock::now() < end && out.latency_ms.size() < kCommitsPerConsumerMax) {
    ++offset;
    for (int i = 0; i < list->cnt; ++i) list->elems[i].offset = offset;
    const Clock::time_point t0 = Clock::now();
    const rd_kafka_resp_err_t err = rd_kafka_commit(rk, list, 0);
    out.last_done = Clock::now();
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      out.latency_ms.push_back(ms_between(t0, out.last_done));
    } else if (out.errors++ == 0) {
      out.first_error = err;
    }
  }
  rd_kafka_topic_partition_list_destroy(list);
}

// One warm-up commit (finds the coordinator, opens its connection); dies on failure.
void warm_up(rd_kafka_t* rk, const std::string& topic, const std::vector<int32_t>& partitions,
             const char* target) {
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(int(partitions.size()));
  for (int32_t p : partitions)
    rd_kafka_topic_partition_list_add(list, topic.c_str(), p)->offset = 1;
  const rd_kafka_resp_err_t err = rd_kafka_commit(rk, list, 0);
  rd_kafka_topic_partition_list_destroy(list);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    die(std::string(target) + ": warm-up commit: " + rd_kafka_err2str(err));
  }
}

// Runs commit_loop for every consumer on its own thread: all warm up, meet at a barrier,
// then commit for o.commit_seconds.
CommitResult run_loops(const Options& o, const char* target, const std::string& topic,
                       const std::vector<rd_kafka_t*>& handles,
                       const std::vector<std::vector<int32_t>>& partitions) {
  const size_t n = handles.size();
  std::vector<Loop> loops(n);
  Clock::time_point start;
  std::barrier ready(std::ptrdiff_t(n), [&]() noexcept { start = Clock::now(); });
  std::vector<std::thread> threads;
  for (size_t i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      warm_up(handles[i], topic, partitions[i], target);
      ready.arrive_and_wait();
      const auto end = start + std::chrono::duration_cast<Clock::duration>(
                                   std::chrono::duration<double>(o.commit_seconds));
      commit_loop(handles[i], topic, partitions[i], end, loops[i]);
    });
  }
  for (std::thread& t : threads) t.join();

  CommitResult r;
  std::vector<double> all;
  Clock::time_point last = start;
  for (size_t i = 0; i < n; ++i) {
    const Loop& l = loops[i];
    r.commits += int64_t(l.latency_ms.size());
    r.errors += l.errors;
    all.insert(all.end(), l.latency_ms.begin(), l.latency_ms.end());
    last = std::max(last, l.last_done);
    if (l.errors > 0) {
      std::fprintf(stderr, "group_bench: %s consumer %zu: %lld commits failed, first: %s\n", target,
                   i, (long long)l.errors, rd_kafka_err2str(l.first_error));
    }
  }
  r.seconds = ms_between(start, last) / 1000;
  r.p50_ms = quantile(all, 0.50);
  r.p99_ms = quantile(all, 0.99);
  return r;
}

}  // namespace

CommitResult run_simple_commits(Target& target, const Options& o, const std::string& tag) {
  const std::string topic = "gb-" + tag;
  target.create_topic(topic, o.consumers);
  std::vector<rd_kafka_t*> handles;
  std::vector<std::vector<int32_t>> partitions;
  for (int i = 0; i < o.consumers; ++i) {
    const std::string group_id = "gb-" + tag + "-" + std::to_string(i % o.groups);
    rd_kafka_t* rk = new_consumer(consumer_conf(target, group_id));
    rd_kafka_topic_partition_list_t* mine = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(mine, topic.c_str(), i);
    const rd_kafka_resp_err_t err = rd_kafka_assign(rk, mine);
    rd_kafka_topic_partition_list_destroy(mine);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) die("assign: " + std::string(rd_kafka_err2str(err)));
    handles.push_back(rk);
    partitions.push_back({i});
  }
  const CommitResult r = run_loops(o, target.name(), topic, handles, partitions);
  for (rd_kafka_t* rk : handles) {
    rd_kafka_consumer_close(rk);  // no group membership to leave: stops the fetchers
    rd_kafka_destroy(rk);
  }
  return r;
}

CommitResult run_subscribed_commits(Target& target, const Options& o, const std::string& tag) {
  const std::string topic = "gb-" + tag;
  target.create_topic(topic, o.consumers);
  SubscribedGroup group(target, o, "gb-" + tag, topic, o.consumers);
  std::vector<int> all;
  for (int i = 0; i < o.consumers; ++i) all.push_back(i);
  if (!group.wait_held(all, o.consumers, Clock::time_point{}, o.stable_wait_ms_max)) {
    die(std::string(target.name()) + ": group " + tag + " not stable");
  }
  std::vector<rd_kafka_t*> handles;
  std::vector<std::vector<int32_t>> partitions;
  for (int i = 0; i < o.consumers; ++i) {
    handles.push_back(group.handle(i));
    partitions.push_back(group.held(i));
  }
  return run_loops(o, target.name(), topic, handles, partitions);
}

}  // namespace group_bench
