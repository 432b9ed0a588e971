// The grouped MoE GEMMs in BF16 (moe_grouped_gemm.cuh): gate_up with the permutation and the
// SwiGLU fused, and down. One template (moe_grouped_gemm_kernel.cuh, which describes the kernel),
// two instantiations compiled here.
// gate_up: 2·rows·2·inter·hidden FLOPs; reads the gathered x rows (L2-resident per expert) and
// W13 once per 128-row block of each expert, writes h once (bf16). down: 2·rows·hidden·inter
// FLOPs, reads h and W2, writes out (bf16). Ceiling: the BF16 tensor-core rate.
// sm_90a only (wgmma, setmaxnreg): elsewhere the kernel body is a trap and the variants declare
// Feature::wgmma and Feature::tma.
#include "moe_grouped_gemm_kernel.cuh"

namespace aisp::ch17 {

using grouped_detail::Operands;
using grouped_detail::Projection;

namespace {
void require_rows_first(const MoeGroupedGemmArgs& args, const char* name) {
  if (args.schedule != MoeTileSchedule::rows_first)
    throw std::invalid_argument(std::string(name) +
                                ": only the rows_first tile schedule is built for BF16 "
                                "(the multicast schedules are FP8 rungs)");
  if (args.silu != MoeSiluMath::exact)
    throw std::invalid_argument(std::string(name) + ": BF16 is built with the exact SiLU only");
}
constexpr auto kRowsFirst = MoeTileSchedule::rows_first;
}  // namespace

MoeGroupedGemmLaunch prepare_moe_gate_up_bf16(const MoeGroupedGemmArgs& args,
                                              const cudaDeviceProp& device) {
  require_rows_first(args, "moe gate_up (bf16)");
  return grouped_detail::prepare<Projection::gate_up, Operands::bf16, kRowsFirst>(
      args, device, "moe gate_up (bf16)");
}
cudaError_t launch_moe_gate_up_bf16(const MoeGroupedGemmLaunch& launch, cudaStream_t stream) {
  return grouped_detail::launch<Projection::gate_up, Operands::bf16, kRowsFirst>(launch, stream);
}

MoeGroupedGemmLaunch prepare_moe_down_bf16(const MoeGroupedGemmArgs& args,
                                           const cudaDeviceProp& device) {
  require_rows_first(args, "moe down (bf16)");
  return grouped_detail::prepare<Projection::down, Operands::bf16, kRowsFirst>(args, device,
                                                                               "moe down (bf16)");
}
cudaError_t launch_moe_down_bf16(const MoeGroupedGemmLaunch& launch, cudaStream_t stream) {
  return grouped_detail::launch<Projection::down, Operands::bf16, kRowsFirst>(launch, stream);
}

}  // namespace aisp::ch17
