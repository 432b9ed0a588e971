// Optimized: the all-gather and the reduce-scatter cut into 4 chunks of 2048 tokens (1024 per GPU
// on 2 GPUs) and run on a communication stream under the other chunks' GEMMs; each chunk's GEMMs
// start when its tokens have arrived (events, no host synchronization), and everything is joined
// back into each GPU's stream (tensor_parallel_mlp_overlapped.hpp). Exposed: the first chunk's
// all-gather and the last chunk's reduce-scatter, 1/4 of the communication at 4 chunks.
// Bytes: 64 MiB per GPU over NVLink on 2 GPUs (ceiling nvlink_peer). FLOPs: 1.10 TFLOP per GPU
// on 2 GPUs (ceiling bf16_tensor); the floor is max(communication, compute).
#include "tensor_parallel_mlp_overlapped.hpp"

namespace aisp::ch04 {

class TensorParallelMlpOverlapped4 : public TensorParallelMlpOverlapped {
 public:
  TensorParallelMlpOverlapped4() : TensorParallelMlpOverlapped(/*chunks=*/4) {}
};

}  // namespace aisp::ch04

AISP_VARIANT(aisp::ch04::TensorParallelMlpOverlapped4)
