// Optimized, the copy path alone: the baseline's phases (every prefill, then the whole batch's
// KV, then every decode), with the 512 MiB handed over GPU 0 -> GPU 1 in one
// cudaMemcpyPeerAsync over NVLink instead of through pinned host memory. Against the baseline it
// measures what the link buys; against the pipelined variant, what overlapping prefill, handoff
// and decode buys on top.
// Bytes: 512 MiB of KV over NVLink (ceiling nvlink_peer). FLOPs: 13.3 TFLOP (ceiling
// bf16_tensor). disaggregated_inference_common.hpp.
#include "disaggregated_inference_common.hpp"

namespace aisp::ch15 {

class DisaggregatedPeerAfterBatch : public DisaggregatedInferenceProblem {
 public:
  DisaggregatedPeerAfterBatch() : DisaggregatedInferenceProblem(Handoff::peer_after_batch) {}
};

}  // namespace aisp::ch15

AISP_VARIANT(aisp::ch15::DisaggregatedPeerAfterBatch)
