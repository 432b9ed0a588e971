// A grouped BF16 GEMM: many GEMMs of different heights and one width, in ONE persistent launch.
// The work of a mixture-of-experts layer (tokens sorted by expert, each expert its own weights)
// and of any "loop of GEMMs over a batch of uneven sizes".
//
//   for every group g in 0..groups-1, with rows r in [row_offsets[g], row_offsets[g + 1]):
//     C[r, :] = A[r, :] · B_gᵀ,   B_g = B + g·N·K (N×K row-major: one weight matrix per group)
//
// A (total_rows × K) and C (total_rows × N) are row-major and hold the groups' rows one after
// the other (the layout a router's sort by expert produces); B is groups × N × K, every B_g
// K-major ("TN", as wgmma and torch.nn.Linear store it). bf16 in and out, fp32 accumulation.
// Group heights are arbitrary (0 included) and live on the DEVICE (row_offsets, groups + 1
// non-decreasing ints, row_offsets[0] = 0, row_offsets[groups] <= total_rows): the kernel's tile
// scheduler reads them, so a router can write them on the GPU and nothing waits for the host
// (the launch can be captured in a CUDA graph once and replayed for any routing).
// N must be a multiple of 256 and K of 64 (the tile); groups 1..1024. Rows of a tile that belong
// to the next group (or lie past total_rows, which TMA reads as zeros) are computed and never
// stored. Offsets outside [0, total_rows] are clamped: a bad router cannot make it write outside
// C.
//
//   auto launch = prepare_grouped_gemm_bf16(args, device_properties);  // setup: maps, checks
//   launch_grouped_gemm_bf16(launch, stream);                          // run: one launch
//
// The kernel (grouped_gemm_bf16.cu): chapter 10's persistent warp-specialized wgmma GEMM (a TMA
// producer warpgroup, two consumer warpgroups on a 128×256 tile, a 4-slot mbarrier ring), with a
// device-side scheduler walking all groups' tiles. sm_90a only (wgmma, setmaxnreg): elsewhere the
// launch traps, and callers declare Feature::wgmma and Feature::tma (ch14's grouped_gemm does).
// Depends on CUDA and chapters/common only (no harness headers), so probes can link it.
#pragma once

#include <cuda.h>  // CUtensorMap (a type only)
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

namespace aisp::common {

inline constexpr int kGroupedGemmMaxGroups = 1024;
inline constexpr int kGroupedGemmTileM = 128;  // rows of a tile (per group; the last one masked)
inline constexpr int kGroupedGemmTileN = 256;  // N must be a multiple of this
inline constexpr int kGroupedGemmTileK = 64;   // K must be a multiple of this

struct GroupedGemmBf16Args {
  const __nv_bfloat16* a = nullptr;  // total_rows × K, row-major
  const __nv_bfloat16* b = nullptr;  // groups × N × K, row-major (each B_g K-major)
  __nv_bfloat16* c = nullptr;        // total_rows × N, row-major
  const int* row_offsets = nullptr;  // device: groups + 1 entries (see above)
  int groups = 0;
  int total_rows = 0;  // rows allocated in A and C (>= row_offsets[groups])
  int n = 0, k = 0;
};

struct GroupedGemmBf16Launch {
  GroupedGemmBf16Args args;
  CUtensorMap a_map{};  // A in boxes of 128 rows × 64 k, 128-byte swizzle
  CUtensorMap b_map{};  // B as (groups·N) × K, boxes of 256 rows × 64 k
  dim3 grid{1, 1, 1};
  dim3 block{1, 1, 1};
  unsigned shared_bytes = 0;
};

// In setup: checks the arguments (std::invalid_argument saying what to change), raises the
// shared-memory limit, encodes the tensor maps, sizes the grid (one block per SM).
GroupedGemmBf16Launch prepare_grouped_gemm_bf16(const GroupedGemmBf16Args& args,
                                                const cudaDeviceProp& device);

// In run: one launch; returns the launch's cudaError_t for the caller to check.
cudaError_t launch_grouped_gemm_bf16(const GroupedGemmBf16Launch& launch, cudaStream_t stream);

}  // namespace aisp::common
