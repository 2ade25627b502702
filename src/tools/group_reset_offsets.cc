// `strata group reset-offsets G... (--topic T[:p,p]... | --all-topics) <scenario>
// [--dry-run | --execute]`: kafka-consumer-groups.sh --reset-offsets. A dry run (the
// default) only prints the plan; --execute commits it (OffsetCommit with generation -1,
// as Kafka's admin client) and prints the same table:
//   <blank line>
//   GROUP (30) TOPIC (30) PARTITION (10) NEW-OFFSET (15)
// Like Kafka, only an inactive group (Empty, or Dead: no group yet) may be reset, and
// --to-offset / --shift-by are clamped to the log's start and end with a warning.
// Warnings go to stderr (Kafka logs the clamping and prints the empty-partition
// fallback of --to-datetime on stdout).
#include <algorithm>
#include <charconv>
#include <ostream>
#include <set>

#include "tools/datetime.h"
#include "tools/group_admin.h"

namespace strata::tools {

namespace {

using Partitions = std::vector<PartitionKey>;

Result<int32_t, CommandError> parse_partition(std::string_view text, const std::string& arg) {
  int32_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) {
    return fail(CommandError{"Invalid partition '" + std::string(text) +
                             "' specified in topic arg '" + arg + "'"});
  }
  return v;
}

// --topic T (every partition Metadata lists) and --topic T:p,p (those partitions).
Result<Partitions, CommandError> topic_partitions(GroupAdmin& admin) {
  std::set<PartitionKey> chosen;
  for (const std::string& arg : admin.args().topics) {
    const size_t colon = arg.find(':');
    if (colon != std::string::npos) {
      if (arg.find(':', colon + 1) != std::string::npos || colon == 0) {
        return fail(
            CommandError{"Invalid topic arg '" + arg + "', expected topic name and partitions"});
      }
      const std::string topic = arg.substr(0, colon);
      std::string_view rest = std::string_view(arg).substr(colon + 1);
      for (;;) {
        const size_t comma = rest.find(',');
        auto p = parse_partition(rest.substr(0, comma), arg);
        if (!p) return fail(p.error());
        chosen.emplace(topic, *p);
        if (comma == std::string_view::npos) break;
        rest = rest.substr(comma + 1);
      }
      continue;
    }
    auto metadata = admin.metadata();
    if (!metadata) return fail(metadata.error());
    const auto& topics = (*metadata)->topics;
    const auto t = std::find_if(topics.begin(), topics.end(),
                                [&](const auto& m) { return m.name && *m.name == arg; });
    if (t == topics.end() || t->error_code != 0) {
      return fail(CommandError{"Topic '" + arg + "' does not exist"});
    }
    for (const auto& p : t->partitions) chosen.emplace(arg, p.partition_index);
  }
  return Partitions(chosen.begin(), chosen.end());
}

// ListOffsets for `timestamp` of each partition; `what` names it in Kafka's error.
Result<std::map<PartitionKey, OffsetAnswer>, CommandError> offsets_or_fail(
    GroupAdmin& admin, const Partitions& partitions, int64_t timestamp, const char* what) {
  auto answers = admin.offsets_at(partitions, timestamp);
  if (!answers) return fail(answers.error());
  for (const auto& [p, a] : *answers) {
    if (a.error) {
      return fail(CommandError{std::string("Error getting ") + what + " of topic partition: " +
                               partition_text(p) + " (" + *a.error + ")"});
    }
  }
  return answers;
}

// Kafka's checkOffsetsRange: a wanted offset past the log end or before its start is
// moved to that end, with a warning.
Result<GroupOffsets, CommandError> clamp(GroupAdmin& admin, const GroupOffsets& wanted,
                                         std::ostream& err) {
  Partitions partitions;
  for (const auto& [p, offset] : wanted) partitions.push_back(p);
  auto starts = admin.offsets_at(partitions, kEarliestTimestamp);
  if (!starts) return fail(starts.error());
  auto ends = admin.offsets_at(partitions, kLatestTimestamp);
  if (!ends) return fail(ends.error());
  GroupOffsets out;
  for (const auto& [p, offset] : wanted) {
    const OffsetAnswer& start = (*starts)[p];
    const OffsetAnswer& end = (*ends)[p];
    int64_t chosen = offset;
    const char* side = nullptr;
    if (!end.error && offset > end.offset) {
      chosen = end.offset;
      side = "higher than latest";
    } else if (!start.error && offset < start.offset) {
      chosen = start.offset;
      side = "lower than earliest";
    }
    if (side) {
      err << "Warning: New offset (" << offset << ") is " << side << " offset for topic partition "
          << partition_text(p) << ". Value will be set to " << chosen << "\n";
    }
    out[p] = chosen;
  }
  return out;
}

Result<GroupOffsets, CommandError> at_timestamp(GroupAdmin& admin, const Partitions& partitions,
                                                int64_t timestamp, std::ostream& err) {
  auto found = offsets_or_fail(admin, partitions, timestamp, "offset by timestamp");
  if (!found) return fail(found.error());
  GroupOffsets out;
  Partitions empty;
  for (const auto& [p, a] : *found) {
    if (a.offset >= 0) {
      out[p] = a.offset;
    } else {
      err << "Warning: Partition " << p.second << " from topic " << p.first
          << " is empty. Falling back to latest known offset.\n";
      empty.push_back(p);
    }
  }
  if (empty.empty()) return out;
  auto ends = offsets_or_fail(admin, empty, kLatestTimestamp, "ending offset");
  if (!ends) return fail(ends.error());
  for (const auto& [p, a] : *ends) out[p] = a.offset;
  return out;
}

Result<GroupOffsets, CommandError> new_offsets(GroupAdmin& admin, const std::string& group,
                                               const Partitions& partitions, std::ostream& err) {
  const GroupArgs& args = admin.args();
  if (args.to_earliest || args.to_latest) {
    const bool earliest = args.to_earliest;
    auto found =
        offsets_or_fail(admin, partitions, earliest ? kEarliestTimestamp : kLatestTimestamp,
                        earliest ? "starting offset" : "ending offset");
    if (!found) return fail(found.error());
    GroupOffsets out;
    for (const auto& [p, a] : *found) out[p] = a.offset;
    return out;
  }
  if (args.to_datetime) {
    return at_timestamp(admin, partitions, *parse_kafka_datetime(*args.to_datetime), err);
  }
  GroupOffsets wanted;
  if (args.to_offset) {
    for (const PartitionKey& p : partitions) wanted[p] = *args.to_offset;
    return clamp(admin, wanted, err);
  }
  auto committed = admin.committed(group);
  if (!committed) return fail(committed.error());
  for (const PartitionKey& p : partitions) {
    const auto c = committed->find(p);
    if (c == committed->end()) {
      return fail(CommandError{"Cannot shift offset for partition " + partition_text(p) +
                               " since there is no current committed offset"});
    }
    wanted[p] = c->second + *args.shift_by;
  }
  return clamp(admin, wanted, err);
}

Result<GroupOffsets, CommandError> reset_one(GroupAdmin& admin, const std::string& group,
                                             std::ostream& err) {
  auto g = admin.describe(group);
  if (!g) return fail(g.error());
  if (g->state != "Empty" && g->state != "Dead") {
    return fail(CommandError{"Assignments can only be reset if the group '" + group +
                             "' is inactive, but the current state is " + g->state + "."});
  }
  Partitions partitions;
  if (admin.args().all_topics) {
    auto committed = admin.committed(group);
    if (!committed) return fail(committed.error());
    for (const auto& [p, offset] : *committed) partitions.push_back(p);
  } else {
    auto chosen = topic_partitions(admin);
    if (!chosen) return fail(chosen.error());
    partitions = std::move(*chosen);
  }
  if (partitions.empty()) return GroupOffsets{};
  auto plan = new_offsets(admin, group, partitions, err);
  if (!plan) return fail(plan.error());
  if (admin.args().execute) {
    if (auto r = admin.commit(group, *plan); !r) return fail(r.error());
  }
  return plan;
}

Status check_args(const GroupArgs& a) {
  if (a.groups.empty()) return fail(CommandError{"reset-offsets needs a group id"});
  if (a.all_topics == !a.topics.empty()) {
    return fail(CommandError{"One of the reset scopes should be defined: --all-topics, --topic."});
  }
  const int scenarios = a.to_earliest + a.to_latest + a.to_offset.has_value() +
                        a.to_datetime.has_value() + a.shift_by.has_value();
  if (scenarios != 1) {
    return fail(CommandError{
        "exactly one of --to-earliest, --to-latest, --to-offset, --to-datetime, --shift-by "
        "is required"});
  }
  if (a.to_datetime && !parse_kafka_datetime(*a.to_datetime)) {
    return fail(CommandError{"Error parsing timestamp '" + *a.to_datetime +
                             "': expected YYYY-MM-DDTHH:mm:SS.sss, optionally followed by Z, "
                             "+HH, +HHMM or +HH:MM"});
  }
  if (a.dry_run && a.execute)
    return fail(CommandError{"--dry-run and --execute exclude each other"});
  return {};
}

}  // namespace

Status reset_offsets(GroupAdmin& admin, std::ostream& out, std::ostream& err) {
  if (auto r = check_args(admin.args()); !r) return r;
  std::map<std::string, GroupOffsets> plans;
  bool failed = false;
  for (const std::string& group : admin.args().groups) {
    auto plan = reset_one(admin, group, err);
    if (!plan) {
      err << "Error: " << plan.error().message << "\n";
      failed = true;
      continue;
    }
    plans[group] = std::move(*plan);
  }
  if (!plans.empty()) {
    auto line = [&](const std::string& g, const std::string& t, const std::string& p,
                    const std::string& o) {
      out << "\n" << pad(g, 30) << " " << pad(t, 30) << " " << pad(p, 10) << " " << pad(o, 15);
    };
    line("GROUP", "TOPIC", "PARTITION", "NEW-OFFSET");
    for (const auto& [group, plan] : plans) {
      for (const auto& [p, offset] : plan) {
        line(group, p.first, std::to_string(p.second), std::to_string(offset));
      }
    }
    out << "\n";
  }
  if (failed) return fail(CommandError{});
  return {};
}

}  // namespace strata::tools
