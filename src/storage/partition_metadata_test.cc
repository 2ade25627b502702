// partition.metadata (docs/formats/partition-metadata.md) and Kafka's Uuid text.
#include "storage/partition_metadata.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace strata::storage {
namespace {

TEST(PartitionMetadata, UuidTextIsKafkasBase64) {
  Uuid id;
  for (size_t i = 0; i < 16; ++i) id.bytes[i] = uint8_t(i * 17);
  const std::string text = uuid_to_base64(id);
  EXPECT_EQ(text.size(), 22u);
  EXPECT_EQ(text, "ABEiM0RVZneImaq7zN3u_w");  // java.util.Base64 URL encoder, no padding
  EXPECT_EQ(uuid_from_base64(text), id);
  EXPECT_FALSE(uuid_from_base64("ABEiM0RVZneImaq7zN3u_"));    // 21 characters
  EXPECT_FALSE(uuid_from_base64("ABEiM0RVZneImaq7zN3u_x"));   // stray low bits
  EXPECT_FALSE(uuid_from_base64("ABEiM0RVZneImaq7zN3u/w"));   // not the URL alphabet
}

TEST(PartitionMetadata, WrittenFileReadsBackAndDamageIsNoId) {
  const std::string dir = testing::TempDir() + "/partition-metadata-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  EXPECT_FALSE(read_partition_metadata(dir));  // missing: adopted at start-up
  Uuid id;
  id.bytes[0] = 0xab;
  id.bytes[15] = 0x01;
  ASSERT_TRUE(write_partition_metadata(dir, id).ok());
  std::ifstream in(dir + "/partition.metadata");
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "version: 0\ntopic_id: " + uuid_to_base64(id) + "\n");
  EXPECT_EQ(read_partition_metadata(dir), id);
  std::ofstream(dir + "/partition.metadata", std::ios::trunc) << "version: 1\ntopic_id: x\n";
  EXPECT_FALSE(read_partition_metadata(dir));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace strata::storage
