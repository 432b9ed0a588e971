// `_bulk` launched with programmatic dependent launch (PDL): each block lets the next launch
// start at once and issues its weight copies before griddepcontrol.wait, reading x and writing y
// only after the call before it has completed. Under graph replay the time per call is then that
// of back-to-back calls whose ramp (launch, first bytes) hides under the previous call's tail, as
// in a decode step whose kernels all launch with PDL (weight_only_gemv_kernel.cu).
#include "weight_only_variants.cuh"

using Variant = aisp::ch19::WeightOnlyBulk<8, 1, true>;
AISP_VARIANT(Variant)
