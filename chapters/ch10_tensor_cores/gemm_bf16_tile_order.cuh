// The order in which a persistent GEMM walks its output tiles. Tiles are taken in groups of
// `group_rows` block rows: within a group, down the rows first, then across the columns. The
// ~132 tiles in flight at any moment then share a few block rows of A and a band of block columns
// of B, so the operands they read are found in L2 far more often than in a row-by-row order
// (which would sweep all of B for every block row).
#pragma once

namespace aisp::ch10 {

struct TileCoordinate {
  int row = 0;  // block row (M direction)
  int col = 0;  // block column (N direction)
};

__host__ __device__ __forceinline__ TileCoordinate grouped_tile(int tile, int tiles_m, int tiles_n,
                                                                int group_rows) {
  const int tiles_per_group = group_rows * tiles_n;
  const int group = tile / tiles_per_group;
  const int first_row = group * group_rows;
  const int rows_here = tiles_m - first_row < group_rows ? tiles_m - first_row : group_rows;
  const int in_group = tile % tiles_per_group;
  return {first_row + in_group % rows_here, in_group / rows_here};
}

}  // namespace aisp::ch10
