// Baseline: disaggregated serving done in phases. GPU 0 prefills all 8 requests, then the
// batch's KV caches (512 MiB) go down to pinned host memory and back up into GPU 1's decode caches
// (two PCIe crossings, no peer copy), then GPU 1 decodes the requests one after another. One GPU
// works at a time, and no request sees its first token before every prefill and the whole
// transfer are done.
// Bytes: 512 MiB of KV handed over (twice over PCIe here; ceiling nvlink_peer). FLOPs: 13.3 TFLOP
// (ceiling bf16_tensor). disaggregated_inference_common.hpp.
#include "disaggregated_inference_common.hpp"

namespace aisp::ch15 {

class DisaggregatedHostStagedAfterBatch : public DisaggregatedInferenceProblem {
 public:
  DisaggregatedHostStagedAfterBatch()
      : DisaggregatedInferenceProblem(Handoff::host_staged_after_batch) {}
};

}  // namespace aisp::ch15

AISP_VARIANT(aisp::ch15::DisaggregatedHostStagedAfterBatch)
