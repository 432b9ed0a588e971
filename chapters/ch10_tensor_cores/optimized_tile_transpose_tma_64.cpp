// Optimized, control: the TMA kernel of optimized_tile_transpose_tma.cpp at the baseline's own
// 64×64 tile (16 KiB per copy instruction, 256-byte rows both ways, a 12-tile ring, 2 consumer
// warps and a producer warp per SM). With the tile geometry equal, what is left between it and
// the baseline is who moves the bytes: the copy engine from a deep ring, against 64 warps per SM
// each carrying its 64 bytes through registers.
// Pair tile_transpose: out = inᵀ, 16384×16384 fp32. Bytes: 2 GiB; 0 FLOPs. Ceiling: HBM
// bandwidth. Kernel: tile_transpose_tma_kernel.cu. Needs TMA (Feature::tma).
#include "tile_transpose_tma_variant.hpp"

using Variant = aisp::ch10::TileTransposeTmaVariant<64>;
AISP_VARIANT(Variant)
