// The MoE layer's own grouped GEMMs (sm_90a: wgmma, TMA, setmaxnreg): one persistent launch per
// projection for all experts, tile sizes read on the device (no host round trip: the layer can be
// captured in a CUDA graph), in BF16 and in FP8 e4m3.
//
//   gate_up  h[r, i] = silu(Σ_c x[tok(r), c]·W1_e[i, c]) · (Σ_c x[tok(r), c]·W3_e[i, c])
//            for every expert-sorted row r of expert e (tok(r) = sorted_rows[r] / top_k): the
//            permutation is fused (A's rows are gathered from x by the producer, cp.async per
//            16 bytes, instead of a gathered copy of x in memory) and so is the SwiGLU (a tile
//            holds 128 gate and the matching 128 up columns; the epilogue pairs them in
//            registers and writes h, never g and u).
//   down     out[r, c] = Σ_i h[r, i]·W2_e[c, i] for the rows r of expert e (A = h by TMA).
//
// Shapes: x tokens × hidden; W13 experts × 2·inter × hidden (per expert gate rows, then up
// rows); h and out in the expert-sorted order, assignments × inter and assignments × hidden; W2
// experts × hidden × inter. hidden and inter multiples of 128 (of 256 for `down`'s N = hidden).
//
// BF16: bf16 operands, fp32 accumulation, h and out in bf16.
// FP8:  e4m3 operands (x and h with one per-tensor dequantization factor each, a device scalar;
//       W13 and W2 with one factor per output row), fp32 accumulation without promotion
//       (moe_wgmma_e4m3.cuh), the factors applied in the epilogue (they factor out of every dot
//       product); gate_up writes h in e4m3 scaled by h_quant (a device scalar: a static scale),
//       down writes out in bf16.
//
// The kernels (moe_grouped_bf16_kernel.cu, moe_grouped_fp8_kernel.cu, one template in
// moe_grouped_gemm_kernel.cuh) have chapter 10's persistent warp-specialized structure (a
// producer warpgroup and two consumer warpgroups on a 128 × 256 tile, a 4-slot mbarrier ring) with
// a device-side scheduler over every expert's tiles. Depends on CUDA and chapters/common only,
// so scripts/probes/moe_probe.cu links these files directly.
#pragma once

#include <cuda.h>  // CUtensorMap (a type only)
#include <cuda_runtime_api.h>

#include <cstdint>

namespace aisp::ch17 {

inline constexpr int kMoeTileRows = 128;  // rows of a tile (per expert; the last one masked)

// How the grouped kernels feed the tensor cores (moe_grouped_gemm_kernel.cuh). BF16 is built with
// rows_first only; FP8 with all three.
enum class MoeTileSchedule {
  // One block per SM; an expert's tiles down its 128-row blocks, then its next column tile;
  // gate_up's producer thread p gathers row p of the tile (rungs 3-5).
  rows_first,
  // 2-block clusters sharing each weight slot by TMA multicast; an expert's tiles in groups of 16
  // row blocks (a group's A stays in L2 while its column tiles go by); gate_up's gather copies
  // whole 128-byte rows per quarter-warp, the tile's tokens from a shared-memory table.
  l2_groups_multicast,
  // l2_groups_multicast with gate_up's A by TMA, like down's: the caller gives x already in expert
  // order, one row per assignment (a_rows = assignments; no sorted_rows), written by the x cast
  // itself (moe_layer_kernels.cuh's launch_quantize_scatter_e4m3). Down is l2_groups_multicast's.
  sorted_a_multicast,
};

// gate_up's SiLU in the epilogue: exact (g / (1 + e^-g), every rung) or tanh_approx (one
// tanh.approx.f32 per value; FP8 with sorted_a_multicast only: h is rounded to e4m3 next).
enum class MoeSiluMath { exact, tanh_approx };

struct MoeGroupedGemmArgs {
  // gate_up: x (tokens × hidden), gathered through sorted_rows, or with sorted_a_multicast x in
  // expert order (assignments × hidden). down: h (assignments × inter).
  const void* a = nullptr;
  int a_rows = 0;                       // tokens (gate_up, gathered) or assignments
  const int* sorted_rows = nullptr;     // gate_up, gathered only (moe_routing.cuh)
  int top_k = 0;                        // gate_up, gathered only
  const void* b = nullptr;              // W13 or W2 (all experts)
  const int* expert_offsets = nullptr;  // device, experts + 1
  int experts = 0;
  int assignments = 0;  // rows of the output
  int hidden = 0, intermediate = 0;
  void* out = nullptr;  // h (gate_up) or out (down), expert-sorted rows
  // FP8 only (device pointers): per-tensor factor of A, per-output-row factors of B (experts ×
  // B rows), and gate_up's quantization scale of h.
  const float* a_dequant = nullptr;
  const float* b_dequant = nullptr;
  const float* out_quant = nullptr;
  MoeTileSchedule schedule = MoeTileSchedule::rows_first;
  MoeSiluMath silu = MoeSiluMath::exact;  // gate_up only
};

struct MoeGroupedGemmLaunch {
  MoeGroupedGemmArgs args;
  CUtensorMap a_map{};  // down: A in boxes of 128 rows × 128 bytes (unused by gate_up)
  CUtensorMap b_map{};  // weights in boxes of 128 (gate_up) or 256 (down) rows × 128 bytes
  dim3 grid{1, 1, 1};
  dim3 block{1, 1, 1};
  unsigned shared_bytes = 0;
};

// In setup: check the arguments (std::invalid_argument saying what to change), raise the
// shared-memory limit, encode the tensor maps, size the grid (one block per SM). In run: one
// launch, returning its cudaError_t.
MoeGroupedGemmLaunch prepare_moe_gate_up_bf16(const MoeGroupedGemmArgs& args,
                                              const cudaDeviceProp& device);
cudaError_t launch_moe_gate_up_bf16(const MoeGroupedGemmLaunch& launch, cudaStream_t stream);
MoeGroupedGemmLaunch prepare_moe_down_bf16(const MoeGroupedGemmArgs& args,
                                           const cudaDeviceProp& device);
cudaError_t launch_moe_down_bf16(const MoeGroupedGemmLaunch& launch, cudaStream_t stream);

MoeGroupedGemmLaunch prepare_moe_gate_up_fp8(const MoeGroupedGemmArgs& args,
                                             const cudaDeviceProp& device);
cudaError_t launch_moe_gate_up_fp8(const MoeGroupedGemmLaunch& launch, cudaStream_t stream);
MoeGroupedGemmLaunch prepare_moe_down_fp8(const MoeGroupedGemmArgs& args,
                                          const cudaDeviceProp& device);
cudaError_t launch_moe_down_fp8(const MoeGroupedGemmLaunch& launch, cudaStream_t stream);

}  // namespace aisp::ch17
