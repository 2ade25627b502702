// Kafka's embedded consumer protocol, as the tools name it: protocol/consumer_protocol.h.
#pragma once

#include "protocol/consumer_protocol.h"

namespace strata::tools {
using protocol::ConsumerAssignment;
using protocol::ConsumerSubscription;
using protocol::ConsumerTopicPartitions;
using protocol::decode_consumer_assignment;
using protocol::decode_consumer_subscription;
using protocol::kConsumerProtocolVersionMax;
using protocol::Versioned;
}  // namespace strata::tools
