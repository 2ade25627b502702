// One handler per API; each file states its Kafka error mapping beside its code.
#pragma once

#include "broker/broker.h"
#include "protocol/apis/api_versions.h"
#include "protocol/apis/create_topics.h"
#include "protocol/apis/delete_topics.h"
#include "protocol/apis/fetch.h"
#include "protocol/apis/list_offsets.h"
#include "protocol/apis/metadata.h"
#include "protocol/apis/produce.h"

namespace strata::broker {

#define STRATA_HANDLER(fn, Api)                                                    \
  asio::awaitable<protocol::Api##Response> fn(Broker& broker, RequestContext& ctx, \
                                              protocol::Api##Request& request)

STRATA_HANDLER(handle_api_versions, ApiVersions);
STRATA_HANDLER(handle_metadata, Metadata);
STRATA_HANDLER(handle_produce, Produce);
STRATA_HANDLER(handle_fetch, Fetch);
STRATA_HANDLER(handle_list_offsets, ListOffsets);
STRATA_HANDLER(handle_create_topics, CreateTopics);
STRATA_HANDLER(handle_delete_topics, DeleteTopics);

#undef STRATA_HANDLER

}  // namespace strata::broker
