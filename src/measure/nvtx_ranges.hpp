// The NVTX ranges the harness marks around a variant's setup, warm-up, method probes and every
// timed sample, always on. Their names carry the target and the variant, so a profiler can select
// one variant's timed samples by name: `ncu --nvtx --nvtx-include "aisp:sample <label>/"` is how
// `bench run --profile` does it (docs/profiling.md).
#pragma once

#include <string>
#include <string_view>

namespace aisp {

// The phases a range marks: "aisp:setup", "aisp:warmup", "aisp:probe" (the per-call samples
// that choose the timing method; never timed) and "aisp:sample" (one timed sample).
inline constexpr std::string_view kNvtxSetup = "aisp:setup";
inline constexpr std::string_view kNvtxWarmup = "aisp:warmup";
inline constexpr std::string_view kNvtxProbe = "aisp:probe";
inline constexpr std::string_view kNvtxSample = "aisp:sample";

// "<target> <variant>", with the characters Nsight Compute's NVTX filter reads as operators
// (/ [ ] + * @ \) replaced by '_': "ch07:transpose_padded optimized_transpose_padded",
// "labs_attention:flash optimized_flash" for the target "labs/attention:flash".
std::string nvtx_label(std::string_view target, std::string_view variant);

// A range's name: the phase, then the label after one space ("aisp:sample ch07:x optimized_x");
// the phase alone when the label is empty.
std::string nvtx_range_name(std::string_view phase, std::string_view label);

}  // namespace aisp
