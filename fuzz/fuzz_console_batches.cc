// Fuzzes the web console's reading of a Fetch answer (src/console/batch_json.h): whatever
// the bytes, the batch list, the record pages (with a filter) and each batch opened end,
// stay within their bounds, and render as JSON text (bytes that are not UTF-8 replaced).
#include <cstdint>
#include <nlohmann/json.hpp>

#include "console/batch_json.h"
#include "record/log_scanner.h"
#include "record/validate.h"

using namespace strata;

namespace {

void render(const nlohmann::json& j) { (void)j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Bytes bytes(data, size);
  render(console::batch_list(bytes, 0));
  auto page = console::record_list(bytes, {.from = 0, .limit = 50, .filter = "a", .bytes_max = 1 << 16});
  if (page["records"].size() > 50) __builtin_trap();
  if (page["next"].get<int64_t>() < 0) __builtin_trap();
  render(page);
  record::LogScanner scanner(bytes, 1 << 20);
  while (auto entry = scanner.next()) {
    if (entry->magic != 2) continue;
    if (auto batch = record::frame_batch(entry->bytes)) {
      auto opened = console::batch_detail(*batch, entry->position);
      if (opened["records"].size() > console::kRecordsPerAnswerMax) __builtin_trap();
      render(opened);
    }
  }
  return 0;
}
