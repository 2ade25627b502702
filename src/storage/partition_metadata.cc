#include "storage/partition_metadata.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "storage/file.h"

namespace strata::storage {

namespace {
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int value_of(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}
}  // namespace

std::string uuid_to_base64(const Uuid& id) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (uint8_t b : id.bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += kAlphabet[(acc >> bits) & 63];
    }
  }
  if (bits > 0) out += kAlphabet[(acc << (6 - bits)) & 63];
  return out;  // 128 bits: 21 full sextets and 2 bits, 22 characters
}

std::optional<Uuid> uuid_from_base64(const std::string& text) {
  if (text.size() != 22) return std::nullopt;
  Uuid id;
  uint32_t acc = 0;
  int bits = 0;
  size_t at = 0;
  for (char c : text) {
    const int v = value_of(c);
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | uint32_t(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      if (at < 16) id.bytes[at++] = uint8_t(acc >> bits);
    }
  }
  if (at != 16 || (acc & ((1u << bits) - 1)) != 0) return std::nullopt;
  return id;
}

std::optional<Uuid> read_partition_metadata(const std::string& dir) {
  std::ifstream in(dir + "/" + kPartitionMetadataFile);
  if (!in) return std::nullopt;
  std::string version, id;
  if (!std::getline(in, version) || !std::getline(in, id)) return std::nullopt;
  if (version != "version: 0" || !id.starts_with("topic_id: ")) return std::nullopt;
  return uuid_from_base64(id.substr(10));
}

Result<void, StorageError> write_partition_metadata(const std::string& dir, const Uuid& id) {
  const std::string path = dir + "/" + kPartitionMetadataFile;
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << "version: 0\ntopic_id: " << uuid_to_base64(id) << "\n";
    if (!out.flush()) return fail(storage_error(StorageErrc::kIo, "write " + tmp));
  }
  return rename_file(tmp, path);
}

}  // namespace strata::storage
