// Optimized, the handoff by NCCL: the pipelined variant's schedule (request r's KV handed over as
// soon as its prefill ends, GPU 1 decoding r while GPU 0 prefills r + 1), with each 64.5 MiB
// handoff an ncclSend on GPU 0 / ncclRecv on GPU 1 (the harness's communicator) instead of a
// cudaMemcpyPeerAsync. NCCL moves the bytes with kernels, on SMs of both GPUs, beside the
// prefill's GEMMs and the decode's GEMVs; the copy engines take no SMs. Against the pipelined
// variant it measures that difference (and NCCL's protocol) at the same overlap.
// Bytes: 512 MiB of KV over NVLink (ceiling nvlink_peer). FLOPs: 13.3 TFLOP (ceiling
// bf16_tensor). disaggregated_inference_common.hpp.
#include "disaggregated_inference_common.hpp"

namespace aisp::ch15 {

class DisaggregatedNcclPerRequest : public DisaggregatedInferenceProblem {
 public:
  DisaggregatedNcclPerRequest() : DisaggregatedInferenceProblem(Handoff::nccl_per_request) {}
};

}  // namespace aisp::ch15

AISP_VARIANT(aisp::ch15::DisaggregatedNcclPerRequest)
