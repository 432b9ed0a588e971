// The grouped_gemm pair's shape: 64 experts' GEMMs, Y_g (M_g × N) = X_g (M_g × K) · W_gᵀ, with
// N = 2048, K = 7168 and the uneven expert heights M_g below (sum 32768), drawn once from a
// log-normal spread (one expert empty, one with 4 rows, one a multiple of 128) and fixed so that
// every variant, and scripts/probes/grouped_gemm_probe.cu, solves the same problem. No harness
// headers (the probe includes it).
#pragma once

#include <array>

namespace aisp::ch14 {

inline constexpr int kGroups = 64;
inline constexpr int kGroupedN = 2048;
inline constexpr int kGroupedK = 7168;
inline constexpr std::array<int, kGroups> kGroupRows = {
    466, 1100, 495,  249, 927,  266,  598, 733, 501, 319,  197, 329, 513, 485,  457,  1611,
    379, 0,    768,  868, 1078, 1104, 148, 719, 257, 288,  704, 542, 148, 167,  245,  324,
    84,  297,  1345, 326, 738,  387,  176, 250, 4,   1214, 863, 330, 353, 1311, 444,  195,
    117, 559,  147,  273, 735,  572,  833, 458, 286, 529,  132, 780, 454, 185,  1107, 299};

// Prefix sums of kGroupRows: expert g owns rows [offsets[g], offsets[g + 1]).
inline std::array<int, kGroups + 1> group_row_offsets() {
  std::array<int, kGroups + 1> offsets{};
  for (int g = 0; g < kGroups; ++g)
    offsets[g + 1] = offsets[g] + kGroupRows[g];
  return offsets;
}

inline int grouped_total_rows() { return group_row_offsets()[kGroups]; }

}  // namespace aisp::ch14
