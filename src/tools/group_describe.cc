// `strata group describe G... | --all-groups [--state | --members]`:
// kafka-consumer-groups.sh --describe, in its three views and its layout (a blank line
// before each table; columns padded as Kafka pads them, trailing spaces included).
//   offsets (default): GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID
//                      HOST CLIENT-ID; one row per assigned partition (members with the
//                      most partitions first), then committed partitions no member owns
//   --members: GROUP CONSUMER-ID [GROUP-INSTANCE-ID] HOST CLIENT-ID #PARTITIONS, and with
//              --verbose ASSIGNMENT (a classic group) or CURRENT-EPOCH CURRENT-ASSIGNMENT
//              TARGET-EPOCH TARGET-ASSIGNMENT (a consumer-protocol group, KIP-848)
//   --state:   GROUP COORDINATOR (ID) ASSIGNMENT-STRATEGY STATE [GROUP-EPOCH
//              TARGET-ASSIGNMENT-EPOCH with --verbose] #MEMBERS
// An assignment is written "topic:0,1;other:3" ("-" when empty).
// A missing value is "-". Before a table, stderr notes an Empty group ("has no active
// members") or a rebalancing one; a Dead (unknown) group is an error.
#include <algorithm>
#include <ostream>
#include <set>

#include "tools/group_admin.h"

namespace strata::tools {

namespace {

constexpr const char* kMissing = "-";

struct Row {
  std::string topic = kMissing;
  std::string partition = kMissing;
  std::string offset = kMissing;
  std::string end = kMissing;
  std::string lag = kMissing;
  std::string consumer = kMissing;
  std::string host = kMissing;
  std::string client = kMissing;
};

// Prints Kafka's note about the group's state; false when there is nothing to show.
bool note_state(const GroupInfo& g, std::ostream& err) {
  if (g.state == "Dead") return false;
  if (g.state == "Empty") {
    err << "\nConsumer group '" << g.id << "' has no active members.\n";
  } else if (g.state != "Stable") {
    err << "\nWarning: Consumer group '" << g.id << "' is rebalancing.\n";
  }
  return true;
}

Result<std::vector<Row>, CommandError> offset_rows(GroupAdmin& admin, const GroupInfo& g) {
  auto committed = admin.committed(g.id);
  if (!committed) return fail(committed.error());
  std::vector<const GroupMember*> owners;
  for (const GroupMember& m : g.members) {
    if (!m.assignment.empty()) owners.push_back(&m);
  }
  std::stable_sort(owners.begin(), owners.end(),
                   [](auto* a, auto* b) { return a->assignment.size() > b->assignment.size(); });
  // Each partition's row and its owner (nullptr: committed, but no member owns it).
  std::vector<std::pair<PartitionKey, const GroupMember*>> owned;
  std::set<PartitionKey> assigned;
  for (const GroupMember* m : owners) {
    for (const PartitionKey& p : m->assignment) {
      owned.emplace_back(p, m);
      assigned.insert(p);
    }
  }
  for (const auto& [p, offset] : *committed) {
    if (assigned.count(p) == 0) owned.emplace_back(p, nullptr);
  }
  std::vector<PartitionKey> all;
  for (const auto& [p, m] : owned) all.push_back(p);
  auto ends = admin.offsets_at(all, kLatestTimestamp);
  if (!ends) return fail(ends.error());
  std::vector<Row> rows;
  for (const auto& [p, m] : owned) {
    Row r{p.first, std::to_string(p.second)};
    const auto c = committed->find(p);
    if (c != committed->end()) r.offset = std::to_string(c->second);
    const OffsetAnswer& end = (*ends)[p];
    if (!end.error) r.end = std::to_string(end.offset);
    if (c != committed->end() && !end.error) r.lag = std::to_string(end.offset - c->second);
    if (m != nullptr) {
      r.consumer = m->id;
      r.host = m->host;
      r.client = m->client_id;
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

Status print_offsets(GroupAdmin& admin, const GroupInfo& g, std::ostream& out) {
  auto rows = offset_rows(admin, g);
  if (!rows) return fail(rows.error());
  if (rows->empty()) return {};
  size_t group_w = std::max<size_t>(15, g.id.size()), topic_w = 15, consumer_w = 15, host_w = 15;
  for (const Row& r : *rows) {
    topic_w = std::max(topic_w, r.topic.size());
    consumer_w = std::max(consumer_w, r.consumer.size());
    host_w = std::max(host_w, r.host.size());
  }
  auto line = [&](const Row& r, const std::string& group) {
    out << "\n"
        << pad(group, group_w) << " " << pad(r.topic, topic_w) << " " << pad(r.partition, 10) << " "
        << pad(r.offset, 15) << " " << pad(r.end, 15) << " " << pad(r.lag, 15) << " "
        << pad(r.consumer, consumer_w) << " " << pad(r.host, host_w) << " " << r.client;
  };
  line(Row{"TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST",
           "CLIENT-ID"},
       "GROUP");
  for (const Row& r : *rows) line(r, g.id);
  out << "\n";
  return {};
}

// "topic:0,1;other:3", "-" for nothing.
std::string assignment_text(const std::vector<PartitionKey>& parts) {
  if (parts.empty()) return kMissing;
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i == 0 || parts[i].first != parts[i - 1].first) {
      if (i > 0) out += ";";
      out += parts[i].first + ":";
    } else {
      out += ",";
    }
    out += std::to_string(parts[i].second);
  }
  return out;
}

void print_members(const GroupInfo& g, bool verbose, std::ostream& out) {
  if (g.members.empty()) return;
  const bool consumer = g.type == "consumer";
  size_t group_w = std::max<size_t>(15, g.id.size()), id_w = 15, instance_w = 17, host_w = 15,
         client_w = 15;
  bool instances = false;
  for (const GroupMember& m : g.members) {
    id_w = std::max(id_w, m.id.size());
    instance_w = std::max(instance_w, m.instance_id.value_or("").size());
    host_w = std::max(host_w, m.host.size());
    client_w = std::max(client_w, m.client_id.size());
    instances = instances || !m.instance_id.value_or("").empty();
  }
  size_t current_w = 18;
  for (const GroupMember& m : g.members) current_w = std::max(current_w, assignment_text(m.assignment).size());
  auto line = [&](const std::string& group, const std::string& id, const std::string& instance,
                  const std::string& host, const std::string& client, const std::string& count,
                  const std::vector<std::string>& extra) {
    out << pad(group, group_w) << " " << pad(id, id_w) << " ";
    if (instances) out << pad(instance, instance_w) << " ";
    out << pad(host, host_w) << " " << pad(client, client_w) << " " << pad(count, 15) << " ";
    if (verbose && consumer) {
      out << pad(extra[0], 15) << " " << pad(extra[1], current_w) << " " << pad(extra[2], 15) << " " << extra[3];
    } else if (verbose) {
      out << extra[1];
    }
    out << "\n";
  };
  out << "\n";
  line("GROUP", "CONSUMER-ID", "GROUP-INSTANCE-ID", "HOST", "CLIENT-ID", "#PARTITIONS",
       {"CURRENT-EPOCH", consumer ? "CURRENT-ASSIGNMENT" : "ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT"});
  for (const GroupMember& m : g.members) {
    line(g.id, m.id, m.instance_id.value_or(""), m.host, m.client_id, std::to_string(m.assignment.size()),
         {m.epoch ? std::to_string(*m.epoch) : kMissing, assignment_text(m.assignment),
          std::to_string(g.assignment_epoch), assignment_text(m.target)});
  }
}

void print_state(const GroupInfo& g, bool verbose, std::ostream& out) {
  const std::string coordinator = g.coordinator.host + ":" + std::to_string(g.coordinator.port) +
                                  "  (" + std::to_string(g.coordinator.id) + ")";
  const size_t width = std::max<size_t>(25, coordinator.size());
  auto line = [&](const std::string& group, const std::string& node, const std::string& assignor,
                  const std::string& state, const std::string& epoch, const std::string& target,
                  const std::string& members) {
    out << "\n"
        << pad(group, width) << " " << pad(node, 25) << " " << pad(assignor, 20) << " "
        << pad(state, 15) << " ";
    if (verbose) out << pad(epoch, 15) << " " << pad(target, 25) << " ";
    out << members;
  };
  const bool consumer = g.type == "consumer";
  line("GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE", "GROUP-EPOCH", "TARGET-ASSIGNMENT-EPOCH",
       "#MEMBERS");
  line(g.id, coordinator, g.protocol, g.state,
       consumer ? std::to_string(g.group_epoch) : kMissing, consumer ? std::to_string(g.assignment_epoch) : kMissing,
       std::to_string(g.members.size()));
  out << "\n";
}

Status describe_one(GroupAdmin& admin, const std::string& group, std::ostream& out,
                    std::ostream& err) {
  auto g = admin.describe(group);
  if (!g) return fail(g.error());
  if (!note_state(*g, err)) {
    return fail(CommandError{"Consumer group '" + group + "' does not exist."});
  }
  if (admin.args().state_view) {
    print_state(*g, admin.args().verbose, out);
  } else if (admin.args().members_view) {
    print_members(*g, admin.args().verbose, out);
  } else {
    return print_offsets(admin, *g, out);
  }
  return {};
}

}  // namespace

Status describe_groups(GroupAdmin& admin, std::ostream& out, std::ostream& err) {
  const GroupArgs& args = admin.args();
  if (args.state_view && args.members_view) {
    return fail(CommandError{"--state and --members are different views: give one"});
  }
  std::vector<std::string> groups = args.groups;
  if (args.all_groups) {
    auto all = consumer_group_ids(admin);
    if (!all) return fail(all.error());
    groups = std::move(*all);
  }
  std::sort(groups.begin(), groups.end());
  groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  bool failed = false;
  for (const std::string& group : groups) {
    if (auto r = describe_one(admin, group, out, err); !r) {
      out.flush();
      err << "Error: " << r.error().message << "\n";
      failed = true;
    }
  }
  if (failed) return fail(CommandError{});
  return {};
}

}  // namespace strata::tools
