// One GPU's copy of a multi-GPU pair's tensor: allocated on that GPU and named "<name>_<rank>",
// so that verification, hashing and reports keep every GPU's inputs and outputs apart. Shared by
// the ch04 pairs that hold one tensor per GPU. The name carries the GPU's rank (ctx.rank(gpu)):
// GPU d in one process, this process's rank under mpirun, where each rank holds one GPU (local
// index 0). Its fill is then the same either way: rank r's data is GPU r's.
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <string>

namespace aisp::ch04 {

inline aisp::Tensor per_gpu_tensor(aisp::Context& ctx, const std::string& name, int gpu,
                                   std::size_t count, aisp::Role role,
                                   aisp::DType dtype = aisp::DType::bf16) {
  return ctx.alloc(name + "_" + std::to_string(ctx.rank(gpu)), dtype, count, role,
                   aisp::Memory::device, gpu);
}

}  // namespace aisp::ch04
