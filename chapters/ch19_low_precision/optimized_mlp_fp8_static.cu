// The MLP in FP8 with static (precalibrated) per-tensor activation scales: what changed from
// mlp_fp8_dynamic_fused is that x's and h's scales were fixed in setup from a calibration batch
// (another random x of the same distribution run through the FP8 path), so the timed region has
// no amax at all: x is cast by an elementwise kernel, h by the SwiGLU kernel's own epilogue, each
// read once (4 launches). Values beyond the calibrated amax saturate to ±448.
#include "mlp_fp8_variants.cuh"

using Variant = aisp::ch19::MlpFp8<aisp::ch19::MlpScaling::static_calibrated>;
AISP_VARIANT(Variant)
