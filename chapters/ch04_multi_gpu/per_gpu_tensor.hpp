// One GPU's copy of a multi-GPU pair's tensor: allocated on that GPU and named "<name>_<gpu>",
// so that verification, hashing and reports keep every GPU's inputs and outputs apart. Shared by
// the ch04 pairs that hold one tensor per GPU.
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <string>

namespace aisp::ch04 {

inline aisp::Tensor per_gpu_tensor(aisp::Context& ctx, const std::string& name, int gpu,
                                   std::size_t count, aisp::Role role,
                                   aisp::DType dtype = aisp::DType::bf16) {
  return ctx.alloc(name + "_" + std::to_string(gpu), dtype, count, role, aisp::Memory::device, gpu);
}

}  // namespace aisp::ch04
