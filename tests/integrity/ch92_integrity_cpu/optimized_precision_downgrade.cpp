// Cheat: an fp32 problem computed from inputs rounded to bfloat16 (8 significant bits), with a
// tolerance loosened to match and a plausible justification, so it agrees with the baseline.
// Caught by: precision_preserved (its error against the float64 reference is ~100x the
// baseline's).
#include <cstdint>
#include <cstring>

#include "cpu_affine_problem.hpp"

namespace aisp::integrity_cpu {
struct PrecisionDowngrade : test_pairs::CpuAffineProblem {
  static float to_bf16(float v) {
    std::uint32_t bits;
    std::memcpy(&bits, &v, 4);
    bits = (bits + 0x7FFFu + ((bits >> 16) & 1u)) & 0xFFFF0000u;  // round to nearest even
    std::memcpy(&v, &bits, 4);
    return v;
  }
  void run(Context&) override {
    const float* in = x.as<float>();
    float* out = y.as<float>();
    for (std::size_t i = 0; i < kCount; ++i) out[i] = 2.0f * to_bf16(in[i]) + 1.0f;
  }
  std::optional<Tolerance> tolerance() const override {
    return Tolerance{1e-2, 1e-2, "bf16 fast path: 8 significant bits, errors up to 1% expected"};
  }
};
}  // namespace aisp::integrity_cpu
AISP_VARIANT(aisp::integrity_cpu::PrecisionDowngrade)
