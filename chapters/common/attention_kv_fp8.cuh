// An FP8 e4m3 KV cache with one scale per KV head (fp8_e4m3.cuh's conventions): the contiguous
// BF16 cache [B, Hkv, max_len, D] of attention_shapes.cuh stored as one byte per element,
// e4m3(x · 448 / amax_h), where amax_h is the largest |x| over the valid rows of KV head h in
// every sequence; the kernels multiply by the dequantization factor amax_h / 448. K and V have
// their own scales. Rows past a sequence's length are stored as zeros (never read; a stray read
// of 0x7F, e4m3's NaN, would poison a sum).
//
// One scale per KV head is what a serving system can keep fixed while the cache grows (a scale
// per token or per page would have to be stored beside it); it is derived here from the cache
// itself at setup, the "calibrated" case: values beyond a later amax would saturate at ±448.
// Setup-time work (two passes over the BF16 cache); launchers only, no harness types, so probes
// link this file directly. Each launcher returns the first launch's error for the caller to check.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstdint>

#include "attention_shapes.cuh"

namespace aisp::attention {

// amax_bits[h] = bit pattern of max |x| over the valid rows of KV head h of `cache` (float bits:
// non-negative floats order as unsigned integers, so one atomicMax per block merges them). The
// caller zeroes amax_bits (Hkv words) first.
cudaError_t launch_kv_head_amax(const __nv_bfloat16* cache, const int* cache_lengths,
                                const DecodeShape& shape, unsigned int* amax_bits,
                                cudaStream_t stream);

// cache_e4m3 = e4m3(cache · 448 / amax_h) on valid rows, 0 past each length; then, in place,
// amax_bits[h] becomes the float dequantization factor amax_h / 448 (1 for an all-zero head).
// `amax_bits` is the buffer launch_kv_head_amax filled, reinterpreted as float on exit.
cudaError_t launch_quantize_kv_e4m3(const __nv_bfloat16* cache, const int* cache_lengths,
                                    const DecodeShape& shape, unsigned int* amax_bits,
                                    std::uint8_t* cache_e4m3, cudaStream_t stream);

}  // namespace aisp::attention
