// The benchmark contract: one class per variant file, registered with AISP_VARIANT.
//
// A pair is chapters/chNN_<topic>/baseline_<name>.{cu,cpp} and optimized_<name>[_<suffix>].{cu,cpp}.
// Both variants usually derive from one problem class (signature, setup, outputs, workload) and
// differ only in run(). docs/contract.md describes every hook.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "aisp/context.hpp"
#include "aisp/dtype.hpp"
#include "aisp/host_inputs.hpp"
#include "aisp/tensor.hpp"

namespace aisp {

// The problem a variant solves: named sizes, dtypes and parameters, in insertion order.
// Baseline and optimized must report equal signatures, or the pair is refused.
class Signature {
 public:
  Signature& set(std::string key, std::string value);
  Signature& set(std::string key, const char* value) { return set(std::move(key), std::string(value)); }
  Signature& set(std::string key, long long value);
  Signature& set(std::string key, int value) { return set(std::move(key), static_cast<long long>(value)); }
  Signature& set(std::string key, std::size_t value) { return set(std::move(key), static_cast<long long>(value)); }
  Signature& set(std::string key, double value);
  Signature& set(std::string key, DType value);

  const std::vector<std::pair<std::string, std::string>>& entries() const { return entries_; }
  std::string to_string() const;  // "n=4096 dtype=f32"
  bool operator==(const Signature& other) const = default;

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
};

// Which measured hardware ceiling bounds a resource. docs/measurement.md lists how each is measured.
enum class Ceiling {
  none,
  hbm_bandwidth,          // device-to-device copy, bytes read + written
  l2_bandwidth,
  host_to_device_pinned,
  host_to_device_pageable,
  device_to_host_pinned,
  host_memory_bandwidth,  // host memcpy, bytes read + written
  fp32_simt,              // FP32 FMA without tensor cores
  tf32_tensor,
  bf16_tensor,
  fp16_tensor,
  fp8_tensor,
  graph_node_launch,      // per-kernel cost of a CUDA graph replay
  nvlink_peer,            // GPU-to-GPU copy (cudaMemcpyPeerAsync), one direction, bytes copied
};
std::string_view ceiling_name(Ceiling ceiling);

// A named per-run count that becomes a rate in results: tokens (tokens/s), requests, samples.
struct Counter {
  std::string name;
  double per_run = 0;
  std::string unit;  // "tokens", "requests", ...
};

// Work done by one call of run(), for the roofline. Bytes are the fewest the problem must move
// (each input read once, each output written once); FLOPs count a multiply-add as two.
struct Workload {
  double bytes = 0;
  double flops = 0;
  double launches = 0;  // kernels launched per run, for launch-bound pairs
  Ceiling memory_ceiling = Ceiling::hbm_bandwidth;
  Ceiling compute_ceiling = Ceiling::fp32_simt;
  Ceiling launch_ceiling = Ceiling::none;
  std::vector<Counter> counters;
};

// allclose semantics: |optimized - baseline| <= atol + rtol * |baseline|, element by element.
struct Tolerance {
  double rtol = 0;
  double atol = 0;
  std::string justification;  // required when looser than the dtype's default

  static Tolerance for_dtype(DType dtype);
};

// Optional hardware features a variant may need; unmet ones are a skip with a reason.
enum class Feature { tma, wgmma, thread_block_clusters, fp8, tcgen05 };
std::string_view feature_name(Feature feature);

struct Requirements {
  bool cpu_only = false;
  int min_compute_capability = 70;  // major * 10 + minor
  std::vector<Feature> features;
  int min_gpus = 1;
  std::size_t min_free_device_bytes = 0;
  // Non-empty: this variant drives every GPU of its run from one process (peer pointers, peer
  // copies, events across GPUs, a host-staged step that adds every GPU's buffer), and says so
  // here. Under `mpirun` (one process and one GPU per rank, docs/multi-gpu.md) its pair is then
  // skipped with this as the reason; in one process it changes nothing.
  std::string needs_one_process;

  static Requirements cpu() { Requirements r; r.cpu_only = true; r.min_gpus = 0; return r; }
};

// Thrown from setup() by a variant that finds only at run time that this machine cannot run it:
// a library it loads is absent (cuDNN, NVRTC), the library offers no algorithm for the request
// on this GPU, the scratch filesystem refuses O_DIRECT. The message says what is missing and
// what to do; the harness records the target as skipped with it as the reason, not as failed
// (docs/contract.md). Never thrown to hide a wrong answer or a slow path.
class Unavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// How the harness times run(). `automatic` replays a captured graph over rotating input sets
// when one run is only a few microseconds; `direct` always times each call on its own (pairs
// whose subject is launch overhead or host work); `graph` forces graph replay.
enum class TimingMode { automatic, direct, graph };

// Declared by a variant that computes in a lower-precision number format than its problem's
// dtype (FP8 operands for a BF16 GEMM, TF32 for an FP32 one, an INT4 weight): it changes the
// answer on purpose. Verification then holds it to its own bound against the float64
// reference() instead of `precision_preserved`, and the results mark it and report its error
// beside its time (docs/contract.md, "Lower precision").
struct LowerPrecision {
  std::string format;           // what it computes in: "fp8_e4m3 A and B, per-tensor scales"
  double max_relative_rms = 0;  // bound on its relative RMS error against reference()
  std::string justification;    // why the format gives that bound
};

// The inputs a pair's problem is defined on, when narrower than verification tries. Besides the
// values setup asks for (ctx.fill_uniform's [lo, hi)), verification runs every pair on that
// range moved away from zero (`offset`: [lo + 4(hi-lo), hi + 4(hi-lo)), so [-1, 1) becomes
// [7, 9)) and on magnitudes spread over many binades (`wide_range`: each value scaled by 2^u,
// u uniform in [-12, 12], [-4, 4] for f16), where the filled tensor's dtype can hold them; an
// algorithm that is only accurate near zero (a one-pass variance, softmax without its max) fails
// there. A pair whose problem is not defined on them (probabilities, the domain of a logarithm)
// turns them off and says why; `aisp bench audit` shows it (docs/integrity.md).
struct InputDomain {
  bool offset = true;
  bool wide_range = true;
  std::string justification;  // required when either is off
};

class Benchmark {
 public:
  virtual ~Benchmark() = default;

  virtual Signature signature() const = 0;
  virtual Requirements requirements() const { return {}; }
  // Allocate through ctx and fill inputs deterministically from ctx.seed().
  virtual void setup(Context& ctx) = 0;
  // The timed region. All device work on ctx.stream(); nothing may outlive the call on the host.
  virtual void run(Context& ctx) = 0;
  // The tensors verification compares: real outputs, never checksums.
  virtual std::vector<Tensor> outputs() const = 0;
  // Defaults by the outputs' dtype; a looser tolerance must carry a justification.
  virtual std::optional<Tolerance> tolerance() const { return std::nullopt; }
  virtual Workload workload() const = 0;
  // Optional float64 reference: given the inputs as setup left them (host copies), the value of
  // element `index` of outputs()[output]. When the baseline gives one, verification samples
  // elements, measures both variants' error against it, and refuses an optimized variant whose
  // error is far beyond the baseline's: an fp32 problem quietly solved in TF32 or BF16. An
  // empty function (the default): no reference.
  using ReferenceFunction =
      std::function<double(const HostInputs& inputs, std::size_t output, std::size_t index)>;
  virtual ReferenceFunction reference() const { return {}; }
  // Optional, with reference(): the length of a row of the outputs when the reference's cost is
  // per row (a row of a layer's output shares one token's hidden activations: an MoE layer's
  // element costs ~10^8 multiply-adds, its row-mates almost nothing once the reference keeps the
  // row's state). Verification then samples random rows (64) and random elements in each (32),
  // asking the reference row by row, instead of 2048 elements of 2048 rows. 0: elements at random.
  virtual std::size_t reference_row_length() const { return 0; }
  virtual TimingMode timing_mode() const { return TimingMode::automatic; }
  virtual void teardown(Context& /*ctx*/) {}
  // The library this variant hands the pair's work to ("cuBLASLt", "cuDNN", "CUB", "NCCL"), when
  // it stands as the pair's library reference: every other variant of the pair then also
  // reports its fraction of this one (docs/contract.md, "Library reference"). At most one
  // variant of a pair declares it. Empty: not a library reference.
  virtual std::string library_reference() const { return {}; }
  // Non-empty when this variant changes the number format on purpose (see LowerPrecision).
  virtual std::optional<LowerPrecision> lower_precision() const { return std::nullopt; }
  // Restricts the input distributions verification tries (see InputDomain); nullopt: all of
  // them. Give it in the problem class, so both variants agree.
  virtual std::optional<InputDomain> input_domain() const { return std::nullopt; }
  // Why this variant may be timed by another method than its partner (per call vs graph
  // replay): a launch-overhead lesson whose subject is the per-call cost graph replay removes.
  // Empty (the default): both variants of the pair are timed by the same method, and a pair
  // timed differently without a reason fails `timing_methods_equal` (docs/integrity.md).
  virtual std::string timing_asymmetry_justification() const { return {}; }
};

using BenchmarkFactory = std::function<std::unique_ptr<Benchmark>()>;

// Records a variant under the chapter and name its source path encodes. Returns true so it can
// initialize a static. Called by AISP_VARIANT; rarely needed directly.
bool register_variant(const char* source_path, BenchmarkFactory factory);

}  // namespace aisp

#define AISP_DETAIL_CONCAT_INNER(a, b) a##b
#define AISP_DETAIL_CONCAT(a, b) AISP_DETAIL_CONCAT_INNER(a, b)

// Registers the class as the variant named by this file's path.
#define AISP_VARIANT(Class)                                                                \
  namespace {                                                                              \
  [[maybe_unused]] const bool AISP_DETAIL_CONCAT(aisp_registered_, __LINE__) =             \
      ::aisp::register_variant(__FILE__, [] { return std::unique_ptr<::aisp::Benchmark>(   \
                                                  std::make_unique<Class>()); });          \
  }
