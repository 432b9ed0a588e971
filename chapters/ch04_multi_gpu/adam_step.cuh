// The fused AdamW step both zero2_optimizer_step variants run (adam_step.cu): one pass over the
// elements reads the parameter, the summed gradient and the two moments, and writes the new
// parameter and moments (out of place, so a step's inputs stay as they were). The baseline runs
// it over every parameter on every GPU; ZeRO runs it over each GPU's shard only.
// Bytes per element: 16 read (p, g, m, v) + 12 written (p', m', v'), fp32; about 15 FLOPs per
// element, negligible. Ceiling: HBM bandwidth.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace aisp::ch04 {

struct AdamHyperparameters {
  float learning_rate = 0;
  float beta1 = 0;
  float beta2 = 0;
  float epsilon = 0;
  float weight_decay = 0;    // AdamW's decoupled decay
  int step = 1;              // the step being taken, from 1: sets the bias corrections
  float gradient_scale = 1;  // applied to the summed gradient: 1/G for the mean over G GPUs
};

struct AdamOperands {
  const float* params = nullptr;
  const float* gradient_sum = nullptr;
  const float* m = nullptr;
  const float* v = nullptr;
  float* params_out = nullptr;
  float* m_out = nullptr;
  float* v_out = nullptr;
};

// Launches the step over `count` elements on `stream` (the current device's). `count` must be a
// multiple of 4 and every pointer 16-byte aligned (float4 accesses); throws std::invalid_argument
// otherwise. Every launch is checked.
void launch_adam_step(const AdamOperands& operands, std::size_t count,
                      const AdamHyperparameters& hyper, cudaStream_t stream);

}  // namespace aisp::ch04
