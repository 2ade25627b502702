// compat_batches DIR: Strata's side of the kafka-python cross-check (run_batches.sh).
// For every case in DIR/cases.json:
//  - validate and decode kafka-python's DIR/NAME.kp.bin, compare with the inputs;
//  - build the case with Strata's BatchBuilder; uncompressed output must equal
//    kafka-python's byte for byte; write it to DIR/NAME.strata.bin for the reverse check.
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "record/batch_builder.h"
#include "record/validate.h"

using namespace strata;
using namespace strata::record;
using json = nlohmann::json;

namespace {

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::optional<std::vector<uint8_t>> unhex(const json& j) {
  if (j.is_null()) return std::nullopt;
  const std::string s = j.get<std::string>();
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < s.size(); i += 2) out.push_back(uint8_t(std::stoi(s.substr(i, 2), nullptr, 16)));
  return out;
}

std::optional<Bytes> view(const std::optional<std::vector<uint8_t>>& v) {
  if (!v) return std::nullopt;
  return Bytes(*v);
}

const std::map<std::string, Codec> kCodecs = {{"none", Codec::kNone}, {"gzip", Codec::kGzip},
    {"snappy", Codec::kSnappy}, {"lz4", Codec::kLz4}, {"zstd", Codec::kZstd}};

// Every mismatch is reported as "case: what"; returns the number found.
struct Checker {
  std::string name;
  int failures = 0;
  void expect(bool ok, const std::string& what) {
    if (!ok) { ++failures; std::cout << "FAIL " << name << ": " << what << "\n"; }
  }
};

void check_decoded(Checker& c, const json& cs, const std::vector<uint8_t>& bytes) {
  std::vector<uint8_t> scratch;
  auto batch = validate_batch(bytes, {}, scratch);
  if (!batch) return c.expect(false, std::string("rejected: ") + to_string(batch.error()));
  c.expect(batch->producer_id().value() == cs["producer_id"].get<int64_t>(), "producerId");
  c.expect(batch->producer_epoch().value() == cs["producer_epoch"].get<int16_t>(), "producerEpoch");
  c.expect(batch->base_sequence().value() == cs["base_sequence"].get<int32_t>(), "baseSequence");
  c.expect(batch->is_transactional() == cs["transactional"].get<bool>(), "transactional");
  c.expect(batch->codec() == kCodecs.at(cs["codec"]), "codec");
  const auto& want = cs["records"];
  c.expect(batch->record_count() == int32_t(want.size()), "recordCount");
  auto records = uncompressed_records(*batch, scratch);
  if (!records) return c.expect(false, "decompress");
  RecordCursor cursor(*records, batch->record_count());
  RecordView r;
  for (size_t i = 0; i < want.size(); ++i) {
    auto more = cursor.next(r);
    if (!more || !*more) return c.expect(false, "record " + std::to_string(i) + " missing");
    const auto& w = want[i];
    const std::string at = " of record " + std::to_string(i);
    c.expect(batch->offset_of(r).value() == int64_t(i), "offset" + at);
    c.expect(batch->timestamp_of(r) == w["ts"].get<int64_t>(), "timestamp" + at);
    auto key = unhex(w["key"]), value = unhex(w["value"]);
    c.expect(r.key.has_value() == key.has_value() &&
             (!key || std::equal(r.key->begin(), r.key->end(), key->begin(), key->end())), "key" + at);
    c.expect(r.value.has_value() == value.has_value() &&
             (!value || std::equal(r.value->begin(), r.value->end(), value->begin(), value->end())),
             "value" + at);
    HeaderCursor hc(r);
    Header h;
    for (const auto& wh : w["headers"]) {
      if (!hc.next(h)) { c.expect(false, "header missing" + at); break; }
      auto hv = unhex(wh[1]);
      c.expect(h.key == wh[0].get<std::string>(), "header key" + at);
      c.expect(h.value.has_value() == hv.has_value() &&
               (!hv || std::equal(h.value->begin(), h.value->end(), hv->begin(), hv->end())),
               "header value" + at);
    }
    c.expect(!hc.next(h), "extra header" + at);
  }
  auto end = cursor.next(r);
  c.expect(end.ok() && !*end, "extra records");
}

std::vector<uint8_t> build(Checker& c, const json& cs) {
  BatchOptions o;
  o.codec = kCodecs.at(cs["codec"]);
  o.partition_leader_epoch = LeaderEpoch(0);  // what kafka-python writes
  o.producer_id = ProducerId(cs["producer_id"].get<int64_t>());
  o.producer_epoch = ProducerEpoch(cs["producer_epoch"].get<int16_t>());
  o.base_sequence = Sequence(cs["base_sequence"].get<int32_t>());
  o.transactional = cs["transactional"].get<bool>();
  BatchBuilder b(o);
  for (const auto& w : cs["records"]) {
    auto key = unhex(w["key"]), value = unhex(w["value"]);
    std::vector<std::optional<std::vector<uint8_t>>> hvalues;
    std::vector<std::string> hkeys;
    for (const auto& wh : w["headers"]) {
      hkeys.push_back(wh[0].get<std::string>());
      hvalues.push_back(unhex(wh[1]));
    }
    std::vector<Header> headers;
    for (size_t i = 0; i < hkeys.size(); ++i) headers.push_back({hkeys[i], view(hvalues[i])});
    b.append(w["ts"].get<int64_t>(), view(key), view(value), headers);
  }
  auto out = b.finish();
  if (!out) { c.expect(false, "build failed"); return {}; }
  return std::move(out).value();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) { std::cerr << "usage: compat_batches DIR\n"; return 2; }
  const std::string dir = argv[1];
  std::ifstream in(dir + "/cases.json");
  const json cases = json::parse(in);
  int failures = 0, identical = 0;
  for (const auto& cs : cases) {
    Checker c{cs["name"].get<std::string>()};
    const auto theirs = read_file(dir + "/" + c.name + ".kp.bin");
    check_decoded(c, cs, theirs);
    const auto ours = build(c, cs);
    if (cs["codec"] == "none") {
      c.expect(ours == theirs, "Strata's bytes differ from kafka-python's");
      identical += ours == theirs;
    }
    check_decoded(c, cs, ours);
    std::ofstream(dir + "/" + c.name + ".strata.bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(ours.data()), std::streamsize(ours.size()));
    failures += c.failures;
  }
  std::cout << "Strata decoded " << cases.size() << " kafka-python batches; " << identical
            << " uncompressed builds byte-identical; " << failures << " failures\n";
  return failures == 0 ? 0 : 1;
}
