// The fused AdamW step (adam_step.cuh): one thread per four elements, one float4 of each operand,
// so a thread keeps 64 bytes of loads in flight and 256-thread blocks fill an SM eight at a time
// (2048 threads x 64 B = 128 KiB in flight per SM, several times what Little's law asks at the
// H200's bandwidth). No reuse: plain loads and stores (ch07 measured cache hints no faster).
// Per element (PyTorch's AdamW, foreach and fused alike):
//   g  = gradient_sum · gradient_scale
//   m' = β1·m + (1-β1)·g            v' = β2·v + (1-β2)·g²
//   p' = p·(1 - lr·wd) - (lr / (1-β1^t)) · m' / (sqrt(v') / sqrt(1-β2^t) + ε)
// Bytes: 28 per element (16 read, 12 written, fp32). Ceiling: HBM bandwidth.
#include "adam_step.cuh"

#include <aisp/check.hpp>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace aisp::ch04 {
namespace {

constexpr int kThreads = 256;

// The step's constants, folded on the host once per launch.
struct AdamCoefficients {
  float one_minus_beta1, one_minus_beta2, beta1, beta2;
  float decay_factor;              // 1 - lr·wd
  float step_size;                 // lr / (1 - β1^t)
  float inverse_sqrt_correction2;  // 1 / sqrt(1 - β2^t)
  float epsilon, gradient_scale;
};

__device__ __forceinline__ void adam_element(float p, float g, float m, float v,
                                             const AdamCoefficients& c, float& p_out, float& m_out,
                                             float& v_out) {
  const float grad = g * c.gradient_scale;
  m_out = c.beta1 * m + c.one_minus_beta1 * grad;
  v_out = c.beta2 * v + c.one_minus_beta2 * grad * grad;
  const float denominator = sqrtf(v_out) * c.inverse_sqrt_correction2 + c.epsilon;
  p_out = p * c.decay_factor - c.step_size * (m_out / denominator);
}

__global__ void __launch_bounds__(kThreads)
    adam_step_kernel(AdamOperands x, std::size_t vectors, AdamCoefficients c) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= vectors)
    return;
  const float4 p = reinterpret_cast<const float4*>(x.params)[i];
  const float4 g = reinterpret_cast<const float4*>(x.gradient_sum)[i];
  const float4 m = reinterpret_cast<const float4*>(x.m)[i];
  const float4 v = reinterpret_cast<const float4*>(x.v)[i];
  float4 p2, m2, v2;
  adam_element(p.x, g.x, m.x, v.x, c, p2.x, m2.x, v2.x);
  adam_element(p.y, g.y, m.y, v.y, c, p2.y, m2.y, v2.y);
  adam_element(p.z, g.z, m.z, v.z, c, p2.z, m2.z, v2.z);
  adam_element(p.w, g.w, m.w, v.w, c, p2.w, m2.w, v2.w);
  reinterpret_cast<float4*>(x.params_out)[i] = p2;
  reinterpret_cast<float4*>(x.m_out)[i] = m2;
  reinterpret_cast<float4*>(x.v_out)[i] = v2;
}

bool aligned16(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }

}  // namespace

void launch_adam_step(const AdamOperands& x, std::size_t count, const AdamHyperparameters& h,
                      cudaStream_t stream) {
  if (count == 0)
    return;
  const void* pointers[] = {x.params, x.gradient_sum, x.m, x.v, x.params_out, x.m_out, x.v_out};
  bool all_aligned = true;
  for (const void* pointer : pointers)
    all_aligned = all_aligned && aligned16(pointer);
  if (count % 4 != 0 || !all_aligned)
    throw std::invalid_argument("launch_adam_step: " + std::to_string(count) +
                                " elements; needs a multiple of 4 and 16-byte aligned operands "
                                "(float4 accesses): give shards of whole float4s");
  if (h.step < 1)
    throw std::invalid_argument("launch_adam_step: step counts from 1");
  AdamCoefficients c{};
  c.beta1 = h.beta1;
  c.beta2 = h.beta2;
  c.one_minus_beta1 = 1.0f - h.beta1;
  c.one_minus_beta2 = 1.0f - h.beta2;
  c.decay_factor = 1.0f - h.learning_rate * h.weight_decay;
  c.step_size = static_cast<float>(h.learning_rate / (1.0 - std::pow(double{h.beta1}, h.step)));
  c.inverse_sqrt_correction2 =
      static_cast<float>(1.0 / std::sqrt(1.0 - std::pow(double{h.beta2}, h.step)));
  c.epsilon = h.epsilon;
  c.gradient_scale = h.gradient_scale;
  const std::size_t vectors = count / 4;
  const auto blocks = static_cast<unsigned>((vectors + kThreads - 1) / kThreads);
  adam_step_kernel<<<blocks, kThreads, 0, stream>>>(x, vectors, c);
  AISP_CHECK_LAUNCH();
}

}  // namespace aisp::ch04
