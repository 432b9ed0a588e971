// cuBLASLt FP8 e4m3 with the DeepSeek-V3 recipe: A (activations) in 1x128 blocks, B (weights) in
// 128x128 blocks (VEC128_32F × BLK128x128_32F). Quantized in setup. The same operands and scales
// the hand-written gemm_fp8_wgmma_block_scaled kernel takes, so the two compare like for like.
// setup asks cuBLASLt's heuristic and refuses with its answer where it offers no algorithm.
#include "gemm_fp8_variants.cuh"

using Variant = aisp::ch19::GemmFp8Cublaslt<aisp::common::Fp8ScaleGranularity::block_1x128,
                                            aisp::common::Fp8ScaleGranularity::block_128x128,
                                            aisp::ch19::QuantizeIn::setup>;
AISP_VARIANT(Variant)
