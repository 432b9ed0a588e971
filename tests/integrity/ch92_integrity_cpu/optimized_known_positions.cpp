// Cheat: precision_preserved used to sample the same 2048 elements in every run, computed from
// a constant seed that can be read in the harness's source. This variant is exact at those
// elements and rounds its inputs to bfloat16 everywhere else, with a tolerance loosened to match
// and a plausible justification. Caught by: precision_preserved (the sampled elements are drawn
// from a seed of each run now).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cpu_affine_problem.hpp"

namespace aisp::integrity_cpu {
namespace {

std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The old sample: both ends, then mix64(0x243F6A8885A308D3 + k * golden) % count.
std::vector<std::size_t> old_reference_sample(std::size_t count) {
  std::vector<std::size_t> indices = {0, count - 1};
  for (std::uint64_t k = 1; indices.size() < 2048; ++k)
    indices.push_back(mix64(0x243F6A8885A308D3ull + k * 0x9E3779B97F4A7C15ull) % count);
  std::sort(indices.begin(), indices.end());
  return indices;
}

float to_bf16(float v) {
  std::uint32_t bits;
  std::memcpy(&bits, &v, 4);
  bits = (bits + 0x7FFFu + ((bits >> 16) & 1u)) & 0xFFFF0000u;  // round to nearest even
  std::memcpy(&v, &bits, 4);
  return v;
}

}  // namespace

struct KnownPositions : test_pairs::CpuAffineProblem {
  std::vector<std::size_t> exact = old_reference_sample(kCount);
  void run(Context&) override {
    const float* in = x.as<float>();
    float* out = y.as<float>();
    for (std::size_t i = 0; i < kCount; ++i)
      out[i] = 2.0f * to_bf16(in[i]) + 1.0f;
    for (const std::size_t i : exact)
      out[i] = 2.0f * in[i] + 1.0f;
  }
  std::optional<Tolerance> tolerance() const override {
    return Tolerance{1e-2, 1e-2, "bf16 fast path: 8 significant bits, errors up to 1% expected"};
  }
};
}  // namespace aisp::integrity_cpu
AISP_VARIANT(aisp::integrity_cpu::KnownPositions)
