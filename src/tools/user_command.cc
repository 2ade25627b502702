#include "tools/user_command.h"

#include <CLI/CLI.hpp>

#include <charconv>
#include <ostream>

#include "protocol/apis/alter_user_scram_credentials.h"
#include "protocol/apis/describe_user_scram_credentials.h"
#include "security/scram_credential.h"
#include "tools/cli.h"
#include "tools/cluster.h"

namespace strata::tools {

namespace {

using protocol::AlterUserScramCredentialsRequest;
using protocol::AlterUserScramCredentialsResponse;
using protocol::DescribeUserScramCredentialsRequest;
using protocol::DescribeUserScramCredentialsResponse;

constexpr const char* kClientId = "strata-user";
constexpr int32_t kDefaultIterations = 4096;

struct ScramConfig {
  security::ScramMechanism mechanism;
  int32_t iterations = kDefaultIterations;
  std::string password;
};

// "SCRAM-SHA-256=[iterations=8192,password=x],SCRAM-SHA-512=[password=y]": Kafka's
// --add-config syntax for users. The password runs to the closing bracket's last
// comma-free key, so a password may not contain ',' or ']' (as in Kafka's parser).
Result<std::vector<ScramConfig>, CommandError> parse_add_config(const std::string& text) {
  std::vector<ScramConfig> out;
  size_t at = 0;
  while (at < text.size()) {
    const size_t eq = text.find('=', at);
    if (eq == std::string::npos) return fail(CommandError{"--add-config: expected MECHANISM=[...]: " + text});
    const std::string name = text.substr(at, eq - at);
    auto mech = security::scram_mechanism_from_name(name);
    if (!mech) return fail(CommandError{"--add-config: unknown SCRAM mechanism " + name});
    if (eq + 1 >= text.size() || text[eq + 1] != '[') {
      return fail(CommandError{"--add-config: expected " + name + "=[password=...]"});
    }
    const size_t close = text.find(']', eq);
    if (close == std::string::npos) return fail(CommandError{"--add-config: missing ']' after " + name});
    ScramConfig c{*mech, kDefaultIterations, {}};
    bool has_password = false;
    for (size_t p = eq + 2; p < close;) {
      const size_t comma = std::min(text.find(',', p), close);
      const std::string kv = text.substr(p, comma - p);
      p = comma + 1;
      const size_t k = kv.find('=');
      if (k == std::string::npos) return fail(CommandError{"--add-config: expected key=value: " + kv});
      const std::string key = kv.substr(0, k), value = kv.substr(k + 1);
      if (key == "password") {
        c.password = value;
        has_password = true;
      } else if (key == "iterations") {
        auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), c.iterations);
        if (ec != std::errc() || end != value.data() + value.size()) {
          return fail(CommandError{"--add-config: iterations is not a number: " + value});
        }
      } else {
        return fail(CommandError{"--add-config: unknown key " + key + " (password, iterations)"});
      }
    }
    if (!has_password) return fail(CommandError{"--add-config: " + name + " needs a password"});
    out.push_back(std::move(c));
    at = close + 1;
    if (at < text.size() && text[at] == ',') ++at;
  }
  if (out.empty()) return fail(CommandError{"--add-config: nothing to add"});
  return out;
}

Result<AlterUserScramCredentialsRequest, CommandError> alter_request(const UserArgs& args) {
  AlterUserScramCredentialsRequest request;
  for (const std::string& user : args.entity_names) {
    for (const std::string& name : args.delete_config) {
      auto mech = security::scram_mechanism_from_name(name);
      if (!mech) return fail(CommandError{"--delete-config: unknown SCRAM mechanism " + name});
      request.deletions.push_back({user, int8_t(*mech)});
    }
    if (args.add_config.empty()) continue;
    auto configs = parse_add_config(args.add_config);
    if (!configs) return fail(configs.error());
    for (const ScramConfig& c : *configs) {
      auto salt = security::random_salt();
      if (!salt) return fail(CommandError{salt.error()});
      if (auto ok = security::check_scram_iterations(c.iterations); !ok) return fail(CommandError{ok.error()});
      const std::string salted = security::scram_salted_password(c.mechanism, c.password, *salt, c.iterations);
      AlterUserScramCredentialsRequest::Upsertion u;
      u.name = user;
      u.mechanism = int8_t(c.mechanism);
      u.iterations = c.iterations;
      u.salt.assign(salt->begin(), salt->end());
      u.salted_password.assign(salted.begin(), salted.end());
      request.upsertions.push_back(std::move(u));
    }
  }
  return request;
}

Result<int, CommandError> alter(KafkaClient& client, const UserArgs& args, std::ostream& out) {
  auto request = alter_request(args);
  if (!request) return fail(request.error());
  auto r = client.call<AlterUserScramCredentialsResponse>(*request);
  if (!r) return fail(client_error(r.error()));
  for (const auto& result : r->results) {
    if (result.error_code != 0) return fail(kafka_error(result.error_code, result.error_message));
  }
  for (const std::string& user : args.entity_names) out << "Completed updating config for user " << user << ".\n";
  return 0;
}

Result<int, CommandError> describe(KafkaClient& client, const UserArgs& args, std::ostream& out) {
  DescribeUserScramCredentialsRequest request;
  if (!args.entity_names.empty()) {
    request.users.emplace();
    for (const std::string& u : args.entity_names) request.users->push_back({u});
  }
  auto r = client.call<DescribeUserScramCredentialsResponse>(request);
  if (!r) return fail(client_error(r.error()));
  if (r->error_code != 0) return fail(kafka_error(r->error_code, r->error_message));
  for (const auto& result : r->results) {
    if (result.error_code == kafka_error::kResourceNotFound) continue;  // Kafka prints nothing for them
    if (result.error_code != 0) return fail(kafka_error(result.error_code, result.error_message));
    out << "SCRAM credential configs for user-principal '" << result.user << "' are ";
    for (size_t i = 0; i < result.credential_infos.size(); ++i) {
      const auto& c = result.credential_infos[i];
      const auto mech = security::scram_mechanism_from_code(c.mechanism);
      out << (i ? ", " : "") << (mech ? security::scram_mechanism_name(*mech) : "UNKNOWN")
          << "=iterations=" << c.iterations;
    }
    out << "\n";
  }
  return 0;
}

}  // namespace

void add_user_command(CLI::App& app, UserArgs& args) {
  CLI::App* cmd = app.add_subcommand(
      "user", "Add, remove or describe users' SCRAM credentials, as kafka-configs.sh --entity-type users");
  add_connection_options(*cmd, args);
  auto* alter = cmd->add_flag("--alter", args.alter, "Add or delete credentials");
  auto* describe = cmd->add_flag("--describe", args.describe, "List users' SCRAM mechanisms and iterations");
  alter->excludes(describe);
  cmd->add_option("--entity-type", args.entity_type, "users (the only type)")->check(CLI::IsMember({"users"}));
  cmd->add_option("--entity-name", args.entity_names, "The user (repeatable)");
  cmd->add_option("--add-config", args.add_config,
                  "'SCRAM-SHA-256=[iterations=8192,password=...],SCRAM-SHA-512=[password=...]'");
  cmd->add_option("--delete-config", args.delete_config, "SCRAM-SHA-256 and/or SCRAM-SHA-512")->delimiter(',');
  cmd->add_option("--timeout-ms", args.timeout_ms, "Connect and request timeout")->check(CLI::PositiveNumber);
  cmd->callback([&args] {
    if (!args.alter && !args.describe) throw CLI::ValidationError("one of --alter or --describe is required");
    if (args.alter && args.entity_names.empty()) throw CLI::ValidationError("--alter needs --entity-name");
    if (args.alter && args.add_config.empty() && args.delete_config.empty()) {
      throw CLI::ValidationError("--alter needs --add-config or --delete-config");
    }
  });
}

int run_user(const UserArgs& args, std::ostream& out, std::ostream& err) {
  auto client = connect_bootstrap(args.bootstrap_server, args.timeout_ms, kClientId, args.command_config);
  Result<int, CommandError> r = client ? (args.alter ? alter(*client, args, out) : describe(*client, args, out))
                                       : Result<int, CommandError>(fail(client.error()));
  out.flush();
  if (r) return *r;
  err << "Error while executing config command with args '" << (args.alter ? "--alter" : "--describe")
      << "': " << r.error().message << "\n";
  return 1;
}

}  // namespace strata::tools
