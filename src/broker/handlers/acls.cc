// CreateAcls, DescribeAcls and DeleteAcls over the broker's Authorizer. Kafka's rules:
// without an authorizer each answers SECURITY_DISABLED ("No Authorizer is configured.");
// DescribeAcls needs DESCRIBE on the CLUSTER, the other two ALTER
// (CLUSTER_AUTHORIZATION_FAILED otherwise); a binding or filter Kafka refuses gets its
// INVALID_REQUEST and message (security/acl.h); a store that fails answers
// UNKNOWN_SERVER_ERROR. Changes are written (file or etcd) on the blocking pool.
#include "broker/errors.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"

namespace strata::broker {

using protocol::CreateAclsRequest;
using protocol::CreateAclsResponse;
using protocol::DeleteAclsRequest;
using protocol::DeleteAclsResponse;
using protocol::DescribeAclsRequest;
using protocol::DescribeAclsResponse;
using security::AclBinding;
using security::AclFilter;

namespace {

constexpr const char* kNoAuthorizer = "No Authorizer is configured.";

// Why CreateAcls or DeleteAcls is refused whole (no authorizer, or no ALTER on the
// cluster): the error for every item, or nullopt.
std::optional<std::pair<int16_t, const char*>> refused(Broker& broker, const RequestContext& ctx) {
  if (!broker.authorizer().enabled()) return std::pair{kafka_error::kSecurityDisabled, kNoAuthorizer};
  if (!cluster_authorized(broker, ctx, AclOperation::kAlter)) {
    return std::pair{kafka_error::kClusterAuthorizationFailed, "Cluster authorization failed."};
  }
  return std::nullopt;
}

template <class F>
AclFilter filter_of(const F& f) {
  AclFilter out;
  out.type = security::resource_type_from_code(f.resource_type_filter);
  out.name = f.resource_name_filter;
  out.pattern = security::pattern_type_from_code(f.pattern_type_filter);
  out.principal = f.principal_filter;
  out.host = f.host_filter;
  out.operation = security::acl_operation_from_code(f.operation);
  out.permission = security::permission_type_from_code(f.permission_type);
  return out;
}

AclBinding binding_of(const CreateAclsRequest::Creation& c) {
  return AclBinding{security::resource_type_from_code(c.resource_type), c.resource_name,
                    security::pattern_type_from_code(c.resource_pattern_type), c.principal, c.host,
                    security::acl_operation_from_code(c.operation),
                    security::permission_type_from_code(c.permission_type)};
}

}  // namespace

asio::awaitable<CreateAclsResponse> handle_create_acls(Broker& broker, RequestContext& ctx,
                                                       CreateAclsRequest& request) {
  CreateAclsResponse r;
  if (auto no = refused(broker, ctx)) {
    for (size_t i = 0; i < request.creations.size(); ++i) r.results.push_back({no->first, no->second});
    co_return r;
  }
  std::vector<AclBinding> bindings;
  for (const auto& c : request.creations) bindings.push_back(binding_of(c));
  Authorizer* a = &broker.authorizer();
  const auto* b = &bindings;
  auto errors = co_await broker.blocking([a, b] { return a->create(*b); });
  for (const auto& e : errors) {
    if (e) {
      r.results.push_back({e->error_code, e->message});
    } else {
      r.results.push_back({0, std::nullopt});
    }
  }
  co_return r;
}

asio::awaitable<DescribeAclsResponse> handle_describe_acls(Broker& broker, RequestContext& ctx,
                                                           DescribeAclsRequest& request) {
  DescribeAclsResponse r;
  if (!broker.authorizer().enabled()) {
    r.error_code = kafka_error::kSecurityDisabled;
    r.error_message = "No Authorizer is configured on the broker";
    co_return r;
  }
  if (!cluster_authorized(broker, ctx, AclOperation::kDescribe)) {
    r.error_code = kafka_error::kClusterAuthorizationFailed;
    r.error_message = "Cluster authorization failed.";
    co_return r;
  }
  const AclFilter filter = filter_of(request);
  if (auto v = security::validate_acl_filter(filter); !v) {
    r.error_code = v.error().error_code;
    r.error_message = v.error().message;
    co_return r;
  }
  r.error_message = std::nullopt;
  for (const AclBinding& b : broker.authorizer().snapshot().matching(filter)) {
    const bool same = !r.resources.empty() && r.resources.back().resource_type == int8_t(b.type) &&
                      r.resources.back().resource_name == b.name &&
                      r.resources.back().pattern_type == int8_t(b.pattern);
    if (!same) {
      DescribeAclsResponse::Resource res;
      res.resource_type = int8_t(b.type);
      res.resource_name = b.name;
      res.pattern_type = int8_t(b.pattern);
      r.resources.push_back(std::move(res));
    }
    r.resources.back().acls.push_back({b.principal, b.host, int8_t(b.operation), int8_t(b.permission)});
  }
  co_return r;
}

asio::awaitable<DeleteAclsResponse> handle_delete_acls(Broker& broker, RequestContext& ctx,
                                                       DeleteAclsRequest& request) {
  DeleteAclsResponse r;
  if (auto no = refused(broker, ctx)) {
    for (size_t i = 0; i < request.filters.size(); ++i) r.filter_results.push_back({no->first, no->second, {}});
    co_return r;
  }
  std::vector<AclFilter> filters;
  for (const auto& f : request.filters) filters.push_back(filter_of(f));
  Authorizer* a = &broker.authorizer();
  const auto* fs = &filters;
  auto results = co_await broker.blocking([a, fs] { return a->remove(*fs); });
  for (const auto& result : results) {
    DeleteAclsResponse::FilterResult fr;
    if (result.error) {
      fr.error_code = result.error->error_code;
      fr.error_message = result.error->message;
    } else {
      fr.error_message = std::nullopt;
      for (const AclBinding& b : result.bindings) {
        DeleteAclsResponse::MatchingAcl m;
        m.error_message = std::nullopt;
        m.resource_type = int8_t(b.type);
        m.resource_name = b.name;
        m.pattern_type = int8_t(b.pattern);
        m.principal = b.principal;
        m.host = b.host;
        m.operation = int8_t(b.operation);
        m.permission_type = int8_t(b.permission);
        fr.matching_acls.push_back(std::move(m));
      }
    }
    r.filter_results.push_back(std::move(fr));
  }
  co_return r;
}

}  // namespace strata::broker
