// The host content hash that tells whether run() changed an input: equal contents hash equal,
// and a changed byte, two swapped words or a changed tail byte change the hash.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "verify/content_hash.hpp"

namespace aisp {
namespace {

std::vector<unsigned char> counting_bytes(std::size_t n) {
  std::vector<unsigned char> bytes(n);
  for (std::size_t i = 0; i < n; ++i) bytes[i] = static_cast<unsigned char>(i * 131 + 7);
  return bytes;
}

TEST(ContentHash, EqualContentsHashEqual) {
  const auto a = counting_bytes(4096 + 5);
  const auto b = a;
  EXPECT_EQ(host_content_hash(a), host_content_hash(b));
}

TEST(ContentHash, OneChangedByteChangesIt) {
  // Large enough to be hashed in several parallel chunks.
  auto bytes = counting_bytes((std::size_t{3} << 20) * 8 + 3);
  const std::uint64_t before = host_content_hash(bytes);
  for (std::size_t where : {std::size_t{0}, bytes.size() / 2, bytes.size() - 4, bytes.size() - 1}) {
    bytes[where] ^= 0x10;
    EXPECT_NE(host_content_hash(bytes), before) << "byte " << where;
    bytes[where] ^= 0x10;
  }
  EXPECT_EQ(host_content_hash(bytes), before);
}

TEST(ContentHash, SwappedWordsChangeIt) {
  auto bytes = counting_bytes(64);
  const std::uint64_t before = host_content_hash(bytes);
  for (int i = 0; i < 8; ++i) std::swap(bytes[static_cast<std::size_t>(i)], bytes[static_cast<std::size_t>(8 + i)]);
  EXPECT_NE(host_content_hash(bytes), before);
}

TEST(ContentHash, AllZerosOfDifferentLengthsDiffer) {
  const std::vector<unsigned char> a(16, 0), b(24, 0);
  EXPECT_NE(host_content_hash(a), host_content_hash(b));
}

TEST(ContentHash, EmptyIsDefined) {
  const std::vector<unsigned char> none;
  EXPECT_EQ(host_content_hash(none), host_content_hash(none));
}

}  // namespace
}  // namespace aisp
