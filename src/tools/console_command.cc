#include "tools/console_command.h"

#include <CLI/CLI.hpp>
#include <librdkafka/rdkafka.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <memory>
#include <random>

#include "tools/console_format.h"
#include "tools/rdkafka_client.h"

namespace strata::tools {
namespace {

std::atomic<bool> g_interrupted{false};

void on_signal(int) { g_interrupted = true; }

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Prints a setup step's error as the commands report them; true when there was one.
template <class T>
bool failed(const Result<T, std::string>& r, std::ostream& err) {
  if (r) return false;
  err << "ERROR " << r.error() << "\n";
  return true;
}

// ---- produce

// The error callback's state: why the brokers refused us (TLS or SASL failed, an
// authorization, a fatal error), empty until then. A client's opaque is one of these.
struct Refusal {
  std::string refused;
};

struct Deliveries : Refusal {
  std::ostream* err = nullptr;
  std::string topic;
  int64_t failed = 0;
};

// Errors that retrying cannot mend end the command at once, as the Java client fails
// its sends on an authentication error (librdkafka would retry until message.timeout.ms).
bool refusal(rd_kafka_resp_err_t e) {
  return e == RD_KAFKA_RESP_ERR__AUTHENTICATION || e == RD_KAFKA_RESP_ERR__SSL || e == RD_KAFKA_RESP_ERR__FATAL ||
         e == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED || e == RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED ||
         e == RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED;
}

void on_error(rd_kafka_t*, int e, const char* reason, void* opaque) {
  auto* r = static_cast<Refusal*>(opaque);
  if (refusal(rd_kafka_resp_err_t(e)) && r->refused.empty()) r->refused = reason;
}

// Serves callbacks until nothing is left to acknowledge, the brokers refused us, or
// `timeout_ms` passed.
void drain(rd_kafka_t* rk, const Deliveries& d, int64_t timeout_ms) {
  const int64_t until = now_ms() + timeout_ms;
  while (rd_kafka_outq_len(rk) > 0 && d.refused.empty() && now_ms() < until) rd_kafka_poll(rk, 50);
}

void on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  auto* d = static_cast<Deliveries*>(static_cast<Refusal*>(opaque));  // set as a Refusal*
  if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) return;
  ++d->failed;
  const std::string key = m->key == nullptr ? "null" : std::to_string(m->key_len) + " bytes";
  *d->err << "ERROR Error when sending message to topic " << d->topic << " with key: " << key
          << ", value: " << (m->payload == nullptr ? std::string("null") : std::to_string(m->len) + " bytes")
          << " with error: " << rd_kafka_err2str(m->err) << "\n";
}

// One record, waiting while the local queue is full.
rd_kafka_resp_err_t send(rd_kafka_t* rk, const ProduceArgs& args, const ConsoleRecord& r) {
  rd_kafka_headers_t* headers = rd_kafka_headers_new(r.headers.size());
  for (const auto& [k, v] : r.headers) {
    rd_kafka_header_add(headers, k.data(), ssize_t(k.size()), v ? v->data() : nullptr, v ? ssize_t(v->size()) : 0);
  }
  // librdkafka's macros cast their arguments unparenthesized: plain values only.
  const void* key = r.key ? r.key->data() : nullptr;
  const size_t key_size = r.key ? r.key->size() : 0;
  void* value = r.value ? const_cast<char*>(r.value->data()) : nullptr;
  const size_t value_size = r.value ? r.value->size() : 0;
  const int32_t partition = args.partition.value_or(RD_KAFKA_PARTITION_UA);
  for (;;) {
    const rd_kafka_resp_err_t e =
        rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(args.topic.c_str()), RD_KAFKA_V_PARTITION(partition),
                          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_KEY(key, key_size),
                          RD_KAFKA_V_VALUE(value, value_size), RD_KAFKA_V_HEADERS(headers), RD_KAFKA_V_END);
    if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
      if (e != RD_KAFKA_RESP_ERR_NO_ERROR) rd_kafka_headers_destroy(headers);
      return e;
    }
    rd_kafka_poll(rk, 100);
  }
}

// ---- consume

ConsoleRecord record_of(const rd_kafka_message_t* m) {
  ConsoleRecord r;
  r.topic = rd_kafka_topic_name(m->rkt);
  r.partition = m->partition;
  r.offset = m->offset;
  rd_kafka_timestamp_type_t type = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE;
  r.timestamp = rd_kafka_message_timestamp(m, &type);
  r.timestamp_type = type == RD_KAFKA_TIMESTAMP_CREATE_TIME       ? ConsoleRecord::TimestampType::kCreateTime
                     : type == RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME ? ConsoleRecord::TimestampType::kLogAppendTime
                                                                  : ConsoleRecord::TimestampType::kNone;
  if (m->key != nullptr) r.key = std::string(static_cast<const char*>(m->key), m->key_len);
  if (m->payload != nullptr) r.value = std::string(static_cast<const char*>(m->payload), m->len);
  rd_kafka_headers_t* headers = nullptr;
  if (rd_kafka_message_headers(m, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR) {
    const char* name = nullptr;
    const void* value = nullptr;
    size_t size = 0;
    for (size_t i = 0; rd_kafka_header_get_all(headers, i, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR; ++i) {
      r.headers.emplace_back(name, value == nullptr ? std::nullopt
                                                    : std::optional<std::string>(std::string(
                                                          static_cast<const char*>(value), size)));
    }
  }
  return r;
}

// Kafka's ConsoleConsumerOptions checks; an error text or "".
std::string misuse(const ConsumeArgs& a) {
  if (a.topic.empty()) return "Exactly one of --include/--topic is required.";
  if (a.partition && !a.group.empty()) return "Options group and partition cannot be specified together.";
  if (!a.offset.empty() && !a.partition) return "The partition is required when offset is specified.";
  if (a.partition && a.from_beginning && !a.offset.empty()) {
    return "Options from-beginning and offset cannot be specified together.";
  }
  return "";
}

// --offset as librdkafka's start for the one partition; a timestamp is looked up.
Result<int64_t, std::string> start_offset(rd_kafka_t* rk, const ConsumeArgs& a) {
  const std::string& o = a.offset;
  if (o.empty()) return a.from_beginning ? int64_t(RD_KAFKA_OFFSET_BEGINNING) : int64_t(RD_KAFKA_OFFSET_END);
  if (o == "earliest" || o == "EARLIEST") return int64_t(RD_KAFKA_OFFSET_BEGINNING);
  if (o == "latest" || o == "LATEST") return int64_t(RD_KAFKA_OFFSET_END);
  const bool at_time = o[0] == '@';
  const std::string digits = at_time ? o.substr(1) : o;
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 18) {
    return fail("The provided offset value '" + o +
                "' is incorrect. Valid values are 'earliest', 'latest', a non-negative long or @TIMESTAMP_MS.");
  }
  const int64_t n = std::stoll(digits);
  if (!at_time) return n;
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(list, a.topic.c_str(), *a.partition)->offset = n;
  const rd_kafka_resp_err_t e = rd_kafka_offsets_for_times(rk, list, 30000);
  const int64_t found = list->elems[0].offset;
  const rd_kafka_resp_err_t pe = list->elems[0].err;
  rd_kafka_topic_partition_list_destroy(list);
  if (e != RD_KAFKA_RESP_ERR_NO_ERROR || pe != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return fail("offsets for time " + digits + ": " + rd_kafka_err2str(e != 0 ? e : pe));
  }
  return found < 0 ? int64_t(RD_KAFKA_OFFSET_END) : found;
}

}  // namespace

void add_produce_command(CLI::App& app, ProduceArgs& a) {
  CLI::App* cmd = app.add_subcommand("produce", "Write stdin's lines to a topic (kafka-console-producer)");
  cmd->add_option("--bootstrap-server", a.bootstrap_server, "HOST:PORT[,HOST:PORT...] (default 127.0.0.1:9092)");
  cmd->add_option("--topic", a.topic, "The topic to write to")->required();
  cmd->add_option("--property", a.properties,
                  "The line reader's settings: parse.key, key.separator, parse.headers, headers.delimiter, "
                  "headers.separator, headers.key.separator, null.marker, ignore.error");
  cmd->add_option("--producer-property", a.producer_properties, "A producer setting k=v (wins over the file)");
  cmd->add_option("--producer.config", a.producer_config, "Producer properties file")->check(CLI::ExistingFile);
  cmd->add_option("--command-config", a.command_config, "Client properties file (security settings)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--request-required-acks", a.acks, "acks: -1 (all, default), 1 or 0");
  cmd->add_option("--compression-codec", a.compression, "none, gzip (given bare), snappy, lz4 or zstd")
      ->expected(0, 1)
      ->default_str("");
  cmd->add_option("--partition,-p", a.partition, "Write every record to this partition");
  cmd->add_option("--key,-k", a.key, "The key of every record whose line names none");
  cmd->add_option("--header,-H", a.headers, "A header k:v on every record (repeatable)");
  cmd->add_flag("--sync", a.sync, "Wait for each record's acknowledgement before the next");
  cmd->add_option("--timeout", a.linger_ms, "linger.ms: how long records wait to fill a batch (default 1000)");
}

void add_consume_command(CLI::App& app, ConsumeArgs& a) {
  CLI::App* cmd = app.add_subcommand("consume", "Print a topic's records (kafka-console-consumer)");
  cmd->add_option("--bootstrap-server", a.bootstrap_server, "HOST:PORT[,HOST:PORT...] (default 127.0.0.1:9092)");
  cmd->add_option("--topic", a.topic, "The topic to read");
  cmd->add_option("--group", a.group, "Consumer group (default: console-consumer-<random>, not committed)");
  cmd->add_option("--partition", a.partition, "Read only this partition (no group)");
  cmd->add_option("--offset", a.offset, "With --partition: earliest, latest (default), N or @TIMESTAMP_MS");
  cmd->add_flag("--from-beginning", a.from_beginning, "Start at the earliest offset when none is committed");
  cmd->add_option("--max-messages", a.max_messages, "Stop after this many records");
  cmd->add_option("--timeout-ms", a.timeout_ms, "Stop after this long without a record");
  cmd->add_option("--isolation-level", a.isolation_level, "read_uncommitted (default) or read_committed");
  cmd->add_option("--property", a.properties,
                  "The formatter's settings: print.key, print.value, print.timestamp, print.partition, "
                  "print.offset, print.headers, key.separator, line.separator, headers.separator, null.literal");
  cmd->add_option("--consumer-property", a.consumer_properties, "A consumer setting k=v (wins over the file)");
  cmd->add_option("--consumer.config", a.consumer_config, "Consumer properties file")->check(CLI::ExistingFile);
  cmd->add_option("--command-config", a.command_config, "Client properties file (security settings)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--format,-f", a.format, "json, or a template: %t %p %o %T %k %K %v %V %h %H, \\n \\t");
}

int run_produce(const ProduceArgs& args, std::istream& in, std::ostream& err) {
  auto settings = gather_properties("", args.properties);
  if (failed(settings, err)) return 1;
  auto reader = LineReader::from(*settings);
  if (failed(reader, err)) return 1;
  auto java = client_properties(args.producer_config, args.command_config, args.producer_properties);
  if (failed(java, err)) return 1;
  Settings& p = *java;
  p["bootstrap.servers"] = args.bootstrap_server;
  p.try_emplace("client.id", "console-producer");
  p.try_emplace("acks", args.acks);
  p.try_emplace("linger.ms", std::to_string(args.linger_ms));
  const std::string acks = p["acks"];
  p.try_emplace("enable.idempotence", acks == "-1" || acks == "all" ? "true" : "false");
  if (args.compression) p["compression.type"] = args.compression->empty() ? "gzip" : *args.compression;
  Deliveries deliveries;
  deliveries.err = &err;
  deliveries.topic = args.topic;
  RdKafka rk = make_client(RD_KAFKA_PRODUCER, p, err, [&deliveries](rd_kafka_conf_t* conf) {
    rd_kafka_conf_set_opaque(conf, static_cast<Refusal*>(&deliveries));  // what on_error reads
    rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
    rd_kafka_conf_set_error_cb(conf, on_error);
  });
  if (!rk) return 1;
  std::vector<std::pair<std::string, std::optional<std::string>>> fixed_headers;
  for (const std::string& h : args.headers) {
    const size_t at = h.find_first_of(":=");
    fixed_headers.emplace_back(h.substr(0, at), at == std::string::npos ? std::string() : h.substr(at + 1));
  }
  std::string line;
  int64_t n = 0;
  int status = 0;
  while (std::getline(in, line)) {
    auto record = reader->parse(line, ++n);
    if (!record) {
      err << "ERROR " << record.error() << "\n";
      status = 1;
      break;
    }
    if (!record->key && args.key) record->key = args.key;
    record->headers.insert(record->headers.begin(), fixed_headers.begin(), fixed_headers.end());
    if (rd_kafka_resp_err_t e = send(rk.get(), args, *record); e != RD_KAFKA_RESP_ERR_NO_ERROR) {
      err << "ERROR " << rd_kafka_err2str(e) << "\n";
      status = 1;
      break;
    }
    rd_kafka_poll(rk.get(), 0);
    if (args.sync) drain(rk.get(), deliveries, INT64_MAX / 2);
    if (!deliveries.refused.empty()) break;
  }
  drain(rk.get(), deliveries, 120000);
  if (!deliveries.refused.empty()) {
    err << "ERROR " << deliveries.refused << "\n";
    rd_kafka_purge(rk.get(), RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
    rd_kafka_flush(rk.get(), 1000);  // the purged records' reports, so none is left at exit
    return 1;
  }
  if (const int left = rd_kafka_outq_len(rk.get()); left > 0) {
    err << "ERROR " << left << " records were still unacknowledged after 120 s\n";
    status = 1;
  }
  return deliveries.failed > 0 ? 1 : status;
}

int run_consume(const ConsumeArgs& args, std::ostream& out, std::ostream& err) {
  if (std::string why = misuse(args); !why.empty()) {
    err << why << "\n";
    return 1;
  }
  auto settings = gather_properties("", args.properties);
  if (failed(settings, err)) return 1;
  auto formatter = Formatter::from(args.format, *settings);
  if (failed(formatter, err)) return 1;
  auto java = client_properties(args.consumer_config, args.command_config, args.consumer_properties);
  if (failed(java, err)) return 1;
  Settings& p = *java;
  p["bootstrap.servers"] = args.bootstrap_server;
  p.try_emplace("client.id", "console-consumer");
  if (!args.group.empty()) p["group.id"] = args.group;
  if (p.count("group.id") == 0) {
    p["group.id"] = "console-consumer-" + std::to_string(std::random_device{}() % 100000);
    p.try_emplace("enable.auto.commit", "false");
  }
  p.try_emplace("auto.offset.reset", args.from_beginning ? "earliest" : "latest");
  p["isolation.level"] = args.isolation_level;
  Refusal errors;
  RdKafka rk = make_client(RD_KAFKA_CONSUMER, p, err, [&errors](rd_kafka_conf_t* conf) {
    rd_kafka_conf_set_opaque(conf, &errors);
    rd_kafka_conf_set_error_cb(conf, on_error);
  });
  if (!rk) return 1;
  rd_kafka_poll_set_consumer(rk.get());
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
  rd_kafka_resp_err_t started = RD_KAFKA_RESP_ERR_NO_ERROR;
  if (args.partition) {
    auto offset = start_offset(rk.get(), args);
    if (!offset) {
      err << offset.error() << "\n";
      rd_kafka_topic_partition_list_destroy(list);
      return 1;
    }
    rd_kafka_topic_partition_list_add(list, args.topic.c_str(), *args.partition)->offset = *offset;
    started = rd_kafka_assign(rk.get(), list);
  } else {
    rd_kafka_topic_partition_list_add(list, args.topic.c_str(), RD_KAFKA_PARTITION_UA);
    started = rd_kafka_subscribe(rk.get(), list);
  }
  rd_kafka_topic_partition_list_destroy(list);
  if (started != RD_KAFKA_RESP_ERR_NO_ERROR) {
    err << "ERROR " << rd_kafka_err2str(started) << "\n";
    return 1;
  }
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  int64_t count = 0;
  int status = 0;
  int64_t last = now_ms();
  while (!g_interrupted && (args.max_messages < 0 || count < args.max_messages)) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk.get(), 100);
    if (!errors.refused.empty()) {
      err << "ERROR " << errors.refused << "\n";
      status = 1;
      if (m != nullptr) rd_kafka_message_destroy(m);
      break;
    }
    if (m == nullptr) {
      if (args.timeout_ms >= 0 && now_ms() - last >= args.timeout_ms) {
        err << "ERROR Error processing message, terminating consumer process: no record for "
            << args.timeout_ms << " ms\n";
        break;
      }
      continue;
    }
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      out << formatter->format(record_of(m));
      out.flush();
      ++count;
      last = now_ms();
    } else if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      err << "ERROR " << rd_kafka_message_errstr(m) << "\n";
      if (refusal(m->err)) status = 1;
    }
    rd_kafka_message_destroy(m);
    if (status != 0) break;
  }
  rd_kafka_consumer_close(rk.get());
  err << "Processed a total of " << count << " messages\n";
  return status;
}

}  // namespace strata::tools
