// Optimized, finer: the same overlap as optimized_tensor_parallel_mlp with 8 chunks of 1024
// tokens (512 per GPU on 2 GPUs). Exposed: 1/8 of the communication instead of 1/4, at the cost
// of GEMMs half as tall (1024 rows: in 128 × 256 tiles GEMM 2's 1024 × 4096 output is 128 tiles,
// under one wave on 132 SMs) and twice the collectives' fixed costs. The A/B of the chunk count:
// which of the two wins is to be measured on two GPUs.
// Bytes: 64 MiB per GPU over NVLink on 2 GPUs (ceiling nvlink_peer). FLOPs: 1.10 TFLOP per GPU
// on 2 GPUs (ceiling bf16_tensor). tensor_parallel_mlp_overlapped.hpp.
#include "tensor_parallel_mlp_overlapped.hpp"

namespace aisp::ch04 {

class TensorParallelMlpOverlapped8 : public TensorParallelMlpOverlapped {
 public:
  TensorParallelMlpOverlapped8() : TensorParallelMlpOverlapped(/*chunks=*/8) {}
};

}  // namespace aisp::ch04

AISP_VARIANT(aisp::ch04::TensorParallelMlpOverlapped8)
