// The grouped MoE GEMMs in FP8 e4m3 (moe_grouped_gemm.cuh): the BF16 kernels' template
// (moe_grouped_gemm_kernel.cuh) with e4m3 operands, wgmma.m64n256k32.e4m3 (128 k per ring slot,
// so half the k-steps of BF16 for the same bytes) and the dequantization factors applied in the
// epilogues: gate_up writes h in e4m3 (scaled by the static h_quant), down writes bf16.
// FLOPs as the BF16 kernels; bytes: x, h and the weights at one byte per element. Ceiling: the
// FP8 tensor-core rate. sm_90a only, like the BF16 kernels.
#include "moe_grouped_gemm_kernel.cuh"

namespace aisp::ch17 {

using grouped_detail::Operands;
using grouped_detail::Projection;

namespace {
template <Projection kProjection>
MoeGroupedGemmLaunch prepare_fp8(const MoeGroupedGemmArgs& args, const cudaDeviceProp& device,
                                 const char* name) {
  if (kProjection == Projection::gate_up && args.silu == MoeSiluMath::tanh_approx &&
      args.schedule != MoeTileSchedule::sorted_a_multicast)
    throw std::invalid_argument(
        std::string(name) + ": the tanh SiLU is built for the sorted_a_multicast schedule only");
  switch (args.schedule) {
  case MoeTileSchedule::rows_first:
    return grouped_detail::prepare<kProjection, Operands::e4m3, MoeTileSchedule::rows_first>(
        args, device, name);
  case MoeTileSchedule::l2_groups_multicast:
    return grouped_detail::prepare<kProjection, Operands::e4m3,
                                   MoeTileSchedule::l2_groups_multicast>(args, device, name);
  case MoeTileSchedule::sorted_a_multicast:
    if constexpr (kProjection == Projection::gate_up)
      if (args.silu == MoeSiluMath::tanh_approx)
        return grouped_detail::prepare<kProjection, Operands::e4m3,
                                       MoeTileSchedule::sorted_a_multicast, true>(args, device,
                                                                                  name);
    return grouped_detail::prepare<kProjection, Operands::e4m3,
                                   MoeTileSchedule::sorted_a_multicast>(args, device, name);
  }
  throw std::invalid_argument(std::string(name) + ": unknown tile schedule");
}

template <Projection kProjection>
cudaError_t launch_fp8(const MoeGroupedGemmLaunch& launch, cudaStream_t stream) {
  switch (launch.args.schedule) {
  case MoeTileSchedule::rows_first:
    return grouped_detail::launch<kProjection, Operands::e4m3, MoeTileSchedule::rows_first>(launch,
                                                                                            stream);
  case MoeTileSchedule::l2_groups_multicast:
    return grouped_detail::launch<kProjection, Operands::e4m3,
                                  MoeTileSchedule::l2_groups_multicast>(launch, stream);
  case MoeTileSchedule::sorted_a_multicast:
    if constexpr (kProjection == Projection::gate_up)
      if (launch.args.silu == MoeSiluMath::tanh_approx)
        return grouped_detail::launch<kProjection, Operands::e4m3,
                                      MoeTileSchedule::sorted_a_multicast, true>(launch, stream);
    return grouped_detail::launch<kProjection, Operands::e4m3, MoeTileSchedule::sorted_a_multicast>(
        launch, stream);
  }
  return cudaErrorInvalidValue;
}
}  // namespace

MoeGroupedGemmLaunch prepare_moe_gate_up_fp8(const MoeGroupedGemmArgs& args,
                                             const cudaDeviceProp& device) {
  return prepare_fp8<Projection::gate_up>(args, device, "moe gate_up (fp8)");
}
cudaError_t launch_moe_gate_up_fp8(const MoeGroupedGemmLaunch& launch, cudaStream_t stream) {
  return launch_fp8<Projection::gate_up>(launch, stream);
}

MoeGroupedGemmLaunch prepare_moe_down_fp8(const MoeGroupedGemmArgs& args,
                                          const cudaDeviceProp& device) {
  return prepare_fp8<Projection::down>(args, device, "moe down (fp8)");
}
cudaError_t launch_moe_down_fp8(const MoeGroupedGemmLaunch& launch, cudaStream_t stream) {
  return launch_fp8<Projection::down>(launch, stream);
}

}  // namespace aisp::ch17
