// `_bulk` launched with programmatic dependent launch (PDL): each block lets the next launch
// start at once, and the next call's blocks begin copying their weights wherever one of this
// call's blocks has exited, reading x and writing y only after this call has completed. Under
// graph replay the time per call is then that of back-to-back calls whose ramp overlaps the
// previous call's tail, as in a decode step whose kernels all launch with PDL
// (weight_only_gemv_kernel.cu, launch_weight_only_gemv_bulk).
#include "weight_only_variants.cuh"

using Variant = aisp::ch19::WeightOnlyBulk<1, true>;
AISP_VARIANT(Variant)
