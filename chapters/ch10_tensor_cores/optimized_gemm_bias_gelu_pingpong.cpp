// Ping-pong: the fused epilogue, hidden under the other warpgroup's MMAs. Each consumer
// warpgroup owns a whole 128×128 tile and the two take turns on one in-order TMA ring (a turn
// token passed after each tile's last k-step), so one stores its tile (bias, GELU, bf16, 32 KiB
// of C) while the other multiplies; in the cooperative kernel (_wgmma) both store at once and
// the tensor cores wait.
// Pair gemm_bias_gelu: C = GELU_tanh(A·Bᵀ + bias) at M = 8192, N = 14336, K = 4096 (bf16, fp32
// accumulation). Kernel: gemm_bf16_pingpong_kernel.cu.
#include "gemm_bias_gelu_variants.hpp"

using Variant = aisp::ch10::GemmBiasGeluHandWritten<aisp::ch10::PingpongBiasGelu>;
AISP_VARIANT(Variant)
