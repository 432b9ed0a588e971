// The same RMSNorm kernel with the residual stream stored in bf16: what changed from the baseline
// is only the input's storage (2 bytes per element instead of 4; compute stays fp32, the output
// bf16), so the bytes per element drop from 6 to 4. A memory-bound kernel should speed up 1.5x
// if nothing but bytes matters; the measured ratio says whether it does.
#include "rmsnorm_storage_variants.cuh"

using Variant = aisp::ch19::RmsNormStorage<aisp::DType::bf16>;
AISP_VARIANT(Variant)
