// The console's web files (src/console/web), compiled in by embed.cmake so the broker
// serves its page from the one binary.
#pragma once

#include <span>
#include <string_view>

namespace strata::console {

struct Asset {
  std::string_view path;  // "/", "/console.js", ...
  std::string_view content_type;
  std::string_view body;
};

std::span<const Asset> assets();

}  // namespace strata::console
