// Launchers of the key-major split-K decode kernel (decode_attention_fp8_kv_kernel.cu): decode
// attention over a BF16 or an FP8 e4m3 KV cache (chapters/common/attention_kv_fp8.cuh), writing
// the partial outputs chapter 18's combine kernel reduces (launch_decode_combine). No harness
// types: plain device pointers, shapes and a stream; a launcher throws std::invalid_argument for a
// shape it was not built for, and the caller checks the launch (AISP_CHECK_LAUNCH()).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "../ch18_attention/attention_kernels.cuh"

namespace aisp::ch19 {

using attention::DecodeShape;

// t.k and t.v: the contiguous BF16 caches [B, Hkv, max_len, D]; partials and o as chapter 18's
// split-K (ch18::decode_partial_rows/floats). Same chunks, same combine, keys on the MMA's M.
void launch_decode_key_major_bf16(const DecodeShape& shape, const ch18::DecodeTensors& t,
                                  cudaStream_t stream);

// The same over e4m3 caches of the same shape (t.k, t.v unused): k_e4m3/v_e4m3 one byte per
// element, k_dequant/v_dequant[Hkv] the per-KV-head factors amax/448 (device floats).
void launch_decode_key_major_e4m3(const DecodeShape& shape, const ch18::DecodeTensors& t,
                                  const std::uint8_t* k_e4m3, const std::uint8_t* v_e4m3,
                                  const float* k_dequant, const float* v_dequant,
                                  cudaStream_t stream);

}  // namespace aisp::ch19
