// Optimized: the tiles move by TMA, both ways, 128×128 fp32 at a time (64 KiB, one box per copy
// instruction each way), transposed in place in shared memory by 8 warps while a ninth keeps a
// 3-tile ring loading. What changed from the per-thread baseline: who moves the bytes (the copy
// engine: no byte passes through a register between HBM and shared memory, no thread computes a
// global address) and, because a tile then costs no registers, how big a tile is: every row of
// in and of out is read or written 512 contiguous bytes at a time, against the baseline's 256.
// optimized_tile_transpose_tma_64.cpp is the same kernel at the baseline's 64×64 tile.
// Pair tile_transpose: out = inᵀ, 16384×16384 fp32. Bytes: 2 GiB; 0 FLOPs. Ceiling: HBM
// bandwidth. Kernel: tile_transpose_tma_kernel.cu (its header comment has the design and the
// bank arithmetic). Needs TMA (compute capability 9.0+: Feature::tma).
#include "tile_transpose_tma_variant.hpp"

using Variant = aisp::ch10::TileTransposeTmaVariant<128>;
AISP_VARIANT(Variant)
