// The cluster's decoders of what etcd sends: the gateway's answers (range, txn, lease,
// watch messages) and the values under the cluster's keys (registration, controller,
// cluster id, assignment, partition state, topic config, producer-id block). Any input:
// an error or a value, never a crash, and a decoded value encodes and decodes back.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cluster/base64.h"
#include "cluster/etcd_json.h"
#include "cluster/keys.h"

using namespace strata::cluster;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  (void)parse_range(in);
  (void)parse_txn(in);
  (void)parse_lease_grant(in);
  (void)parse_keepalive(in);
  (void)parse_watch_message(in);
  (void)gateway_error_object(in);
  (void)base64_decode(in);
  (void)Keys("/r").parse(in);
  if (auto r = decode_registration(1, in)) {
    if (!decode_registration(1, encode_registration(*r))) __builtin_trap();
  }
  if (auto a = decode_assignment(in)) {
    auto back = decode_assignment(encode_assignment(*a));
    if (!back || back->replicas != a->replicas) __builtin_trap();
  }
  if (auto s = decode_partition_state(in)) {
    auto back = decode_partition_state(encode_partition_state(*s));
    if (!back || !(*back == *s)) __builtin_trap();
  }
  (void)decode_controller(in);
  (void)decode_cluster_id(in);
  (void)decode_topic_config(in);
  (void)decode_producer_id_block(in);
  return 0;
}
