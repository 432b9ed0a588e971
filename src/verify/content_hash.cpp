#include "verify/content_hash.hpp"

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "verify/content_hash_mix.hpp"

namespace aisp {

std::uint64_t host_content_hash(std::span<const unsigned char> bytes) {
  const std::size_t words = bytes.size() / 8;
  const std::size_t workers =
      std::clamp<std::size_t>(words >> 20, 1, std::max(1u, std::thread::hardware_concurrency()));
  const std::size_t chunk = (words + workers - 1) / workers;
  std::vector<std::uint64_t> partial(workers, 0);
  auto hash_chunk = [&](std::size_t w) {
    std::uint64_t sum = 0;
    for (std::size_t i = w * chunk; i < std::min(words, (w + 1) * chunk); ++i) {
      std::uint64_t v;
      std::memcpy(&v, bytes.data() + i * 8, 8);
      sum += detail::word_term(v, i);
    }
    partial[w] = sum;
  };
  std::vector<std::thread> pool;
  for (std::size_t w = 1; w < workers; ++w) pool.emplace_back(hash_chunk, w);
  hash_chunk(0);
  for (auto& t : pool) t.join();
  std::uint64_t hash = 0;
  for (std::uint64_t p : partial) hash += p;
  if (const std::size_t tail = bytes.size() % 8; tail != 0) {
    std::uint64_t last = 0;
    std::memcpy(&last, bytes.data() + words * 8, tail);
    hash += detail::word_term(last, words);
  }
  return hash;
}

}  // namespace aisp
