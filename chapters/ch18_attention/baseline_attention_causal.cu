// Baseline: causal attention by the dense kernel applying the mask. The FA3-style kernel
// (flash_attention_fa3.cu) visits every 128-key tile for every block of 128 query rows and sets
// the scores of keys later than the query to -inf (element by element, in the tiles that cross
// or pass the diagonal): all S² scores are computed, half of them thrown away.
// B 4, H 16, S 4096, D 128. FLOPs counted: the visible pairs only, 4·B·H·D·S(S+1)/2 = 275 G (as
// FlashAttention counts causal work: the dense kernel's rate is "useful TFLOP/s").
// Ceiling: BF16 tensor. sm_90a.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct CausalDenseMasked : FlashFa3Attention {
  CausalDenseMasked() : FlashFa3Attention(kCausalD128, MaskedTiles::compute) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::CausalDenseMasked)
