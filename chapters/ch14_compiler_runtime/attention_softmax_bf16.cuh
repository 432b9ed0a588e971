// Row softmax over attention scores (bf16 rows, fp32 math): the separate softmax of the eager
// block. Compiled once (attention_softmax_bf16.cu).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstddef>

namespace aisp::ch14 {

// Row lengths the launchers have kernels for.
inline constexpr int kSoftmaxCols = 2048;

// p[r] = softmax(s[r]) for `rows` rows of `cols` elements; masked entries arrive as -inf (the
// eager chain's masked fill) and come out as 0. s and p may be the same buffer.
void launch_softmax_rows_bf16(const __nv_bfloat16* s, __nv_bfloat16* p, std::size_t rows, int cols,
                              cudaStream_t stream);

}  // namespace aisp::ch14
