// Optimized: the handoff pipelined per request over NVLink. As soon as request r's prefill ends
// on GPU 0, its KV cache (64 MiB) goes to GPU 1 by cudaMemcpyPeerAsync on GPU 0's copy stream
// (one contiguous block, already in the decode cache's layout), and GPU 1 decodes request r while
// GPU 0 prefills r + 1. Cross-GPU events order it; the host never waits inside run().
// Both GPUs then work at once except for the fill (GPU 1 waits for the first prefill and its copy)
// and the drain (GPU 1 decodes the last request alone): the time tends to the larger of the two
// GPUs' totals plus one request of the other, and the first token comes after one prefill instead
// of eight.
// Bytes: 512 MiB of KV over NVLink (ceiling nvlink_peer). FLOPs: 13.3 TFLOP (ceiling
// bf16_tensor). disaggregated_inference_common.hpp.
#include "disaggregated_inference_common.hpp"

namespace aisp::ch15 {

class DisaggregatedPeerPerRequest : public DisaggregatedInferenceProblem {
 public:
  DisaggregatedPeerPerRequest() : DisaggregatedInferenceProblem(Handoff::peer_per_request) {}
};

}  // namespace aisp::ch15

AISP_VARIANT(aisp::ch15::DisaggregatedPeerPerRequest)
