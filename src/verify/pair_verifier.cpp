#include "verify/pair_verifier.hpp"

#include <cublas_v2.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <thread>

#include "aisp/check.hpp"
#include "core/element_decoding.hpp"
#include "core/random_fill.hpp"
#include "core/secret_seed.hpp"
#include "system/thread_census.hpp"
#include "verify/content_hash.hpp"
#include "verify/content_hash_mix.hpp"
#include "verify/output_comparison.hpp"

namespace aisp {
namespace {

// Input contents before and after run(): device and managed memory are hashed on the GPU (no
// copy of a 1 GiB input to the host), host and pinned memory in place. A tensor on another GPU
// of a multi-GPU run than the stream's is read back and hashed on the host (the same hash).
std::uint64_t tensor_hash(const Tensor& t, cudaStream_t stream) {
  if ((t.memory() == Memory::device || t.memory() == Memory::managed) &&
      !on_stream_device(t, stream)) {
    const HostBytes bytes = read_tensor_bytes(t, stream);
    return host_content_hash({bytes.data(), bytes.size()});
  }
  if (t.memory() == Memory::device || t.memory() == Memory::managed)
    return device_content_hash(t.data(), t.bytes(), stream);
  if (stream != nullptr) AISP_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host_content_hash({static_cast<const unsigned char*>(t.data()), t.bytes()});
}

// Whole-output questions asked of stand-ins (would zeros pass?) look first at a sample: up to
// 64 evenly spaced runs of 4096 elements. A stand-in that fails on the sample fails on the
// whole; one that passes is confirmed on every element.
struct SampleLayout {
  std::size_t runs = 1, run_length = 0, stride = 0;  // in elements
  std::size_t count() const { return runs * run_length; }
};

SampleLayout sample_layout(std::size_t count) {
  constexpr std::size_t kRuns = 64, kRunLength = 4096;
  if (count <= kRuns * kRunLength) return {1, count, count};
  return {kRuns, kRunLength, count / kRuns};
}

HostBytes sample_of(const unsigned char* host, std::size_t width, const SampleLayout& layout) {
  HostBytes sample(layout.count() * width);
  for (std::size_t r = 0; r < layout.runs; ++r)
    std::memcpy(sample.data() + r * layout.run_length * width, host + r * layout.stride * width,
                layout.run_length * width);
  return sample;
}

HostBytes read_tensor_sample(const Tensor& t, const SampleLayout& layout, cudaStream_t stream) {
  const std::size_t width = dtype_size(t.dtype());
  if (!on_stream_device(t, stream)) {  // another GPU of the run: read there, then sample
    const HostBytes whole = read_tensor_bytes(t, stream);
    return sample_of(whole.data(), width, layout);
  }
  if (t.memory() == Memory::device || t.memory() == Memory::managed) {
    HostBytes sample(layout.count() * width);
    AISP_CUDA_CHECK(cudaMemcpy2DAsync(sample.data(), layout.run_length * width, t.data(),
                                      layout.stride * width, layout.run_length * width,
                                      layout.runs, cudaMemcpyDeviceToHost, stream));
    AISP_CUDA_CHECK(cudaStreamSynchronize(stream));
    return sample;
  }
  if (stream != nullptr) AISP_CUDA_CHECK(cudaStreamSynchronize(stream));
  return sample_of(static_cast<const unsigned char*>(t.data()), width, layout);
}

// Threads run() (or setup()) left running: started since `before` and not exiting. A thread
// that run() joined can stay listed for microseconds, but flagged as exiting (PF_EXITING; on
// this machine 4-8 of 20000 join-then-census checks saw one, every one of them exiting), so no
// grace period is needed: a thread still working when run() returns is work the timer did not
// see, however soon it ends. GPU variants exempt the CUDA driver's own helper threads.
std::vector<HostThread> threads_left_since(const std::vector<HostThread>& before, bool gpu) {
  std::vector<HostThread> left = threads_started_since(before, host_thread_census(), gpu);
  // The check has its answer; before verification goes on (and frees the buffers such a thread
  // may still write), give the threads time to end, so the cheat fails the pair, not the worker.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (!threads_started_since(before, host_thread_census(), gpu).empty() &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return left;
}

bool overlaps(const Tensor& a, const Tensor& b) {
  const auto* a0 = static_cast<const unsigned char*>(a.data());
  const auto* b0 = static_cast<const unsigned char*>(b.data());
  return a0 < b0 + b.bytes() && b0 < a0 + a.bytes();
}

// What one verification run of a variant showed.
struct Observation {
  std::vector<HostBytes> outputs;
  std::vector<std::string> mutated_inputs;
  std::vector<HostThread> threads_left_running;
  long long device_bytes_allocated = 0;
  std::string policy_drift;  // empty when the harness's policies are intact
  std::string l2_policy;     // empty when no persisting-L2 state was left set
};

// One variant instance under verification: a fresh context, setup done, ready to run.
class VerifiedVariant {
 public:
  VerifiedVariant(const BenchmarkFactory& factory, const ContextOptions& options)
      : options_(options), context_(make_context(options)), variant_(factory()) {
    const std::vector<HostThread> before_setup = host_thread_census();
    variant_->setup(*context_);
    if (gpu())
      synchronize_run_devices(options_);
    threads_left_by_setup = threads_started_since(before_setup, host_thread_census(), gpu());
    // After setup: a signature may record what setup found.
    signature = variant_->signature();
    workload = variant_->workload();
    tolerance = variant_->tolerance();
    lower_precision = variant_->lower_precision();
    outputs = variant_->outputs();
    const auto& owned = context_->tensors();
    for (const auto& out : outputs) {
      const bool harness_owned = std::any_of(owned.begin(), owned.end(), [&](const Tensor& t) {
        return t.data() == out.data() && t.bytes() == out.bytes();
      });
      if (!harness_owned)
        foreign_outputs.push_back(out.name());
    }
  }
  ~VerifiedVariant() {
    try {
      variant_->teardown(*context_);
    } catch (...) {
      // A teardown failure cannot change what verification saw.
    }
  }
  VerifiedVariant(const VerifiedVariant&) = delete;
  VerifiedVariant& operator=(const VerifiedVariant&) = delete;

  std::vector<Tensor> inputs() const {
    std::vector<Tensor> found;
    for (const auto& t : context_->tensors())
      if (t.role() == Role::input)
        found.push_back(t);
    return found;
  }

  // Poison outputs, hash inputs, run once, then look at everything the run may have touched.
  // `alternate_poison`: integer outputs poisoned with the second pattern (count_unwritten_integers).
  Observation run(bool alternate_poison = false) {
    Observation seen;
    for (const auto& out : outputs)
      poison_tensor(out, options_.stream, alternate_poison);
    const auto in = inputs();
    std::vector<std::uint64_t> before;
    for (const auto& t : in)
      before.push_back(tensor_hash(t, options_.stream));
    std::size_t free_before = 0, free_after = 0, total = 0;
    if (gpu())
      AISP_CUDA_CHECK(cudaMemGetInfo(&free_before, &total));
    const std::vector<HostThread> threads_before = host_thread_census();
    if (gpu() && cudaDeviceGetLimit(&persisting_limit_before_, cudaLimitPersistingL2CacheSize) !=
                     cudaSuccess)
      cudaGetLastError();

    variant_->run(*context_);
    // A CPU variant's work must be done when run() returns: look at once. A GPU variant's host
    // side is looked at after the device-wide synchronize (its timed region ends there too).
    if (!gpu()) seen.threads_left_running = threads_left_since(threads_before, false);
    if (gpu()) {
      AISP_CUDA_CHECK(cudaGetLastError());
      synchronize_run_devices(options_);
      seen.threads_left_running = threads_left_since(threads_before, true);
    }
    if (gpu()) {
      AISP_CUDA_CHECK(cudaMemGetInfo(&free_after, &total));
      seen.device_bytes_allocated =
          static_cast<long long>(free_before) - static_cast<long long>(free_after);
      inspect_policies(seen);
    }
    for (std::size_t i = 0; i < in.size(); ++i)
      if (tensor_hash(in[i], options_.stream) != before[i])
        seen.mutated_inputs.push_back(in[i].name());
    for (const auto& out : outputs)
      seen.outputs.push_back(read_tensor_bytes(out, options_.stream));
    return seen;
  }

  // run() once on the inputs setup left, nothing looked at: for comparing the outputs in place
  // (compare_tensors) without reading them back.
  // Outputs are poisoned first, as for every verification call: these calls are verification's
  // (it is the timed calls' checks that must look like timed calls).
  void run_only() {
    for (const auto& out : outputs) poison_tensor(out, options_.stream);
    const std::vector<HostThread> threads_before = host_thread_census();
    variant_->run(*context_);
    if (gpu()) {
      AISP_CUDA_CHECK(cudaGetLastError());
      synchronize_run_devices(options_);
    }
    // Not a check here (check_run holds the verified runs to it), but no thread run() left may
    // outlive the buffers it writes.
    static_cast<void>(threads_left_since(threads_before, gpu()));
  }

  const std::vector<Tensor>& tensors() const { return context_->tensors(); }
  const std::vector<FillRecord>& fills() const { return context_->state().fills; }
  std::optional<InputDomain> input_domain() const { return variant_->input_domain(); }

  // Overwrites this instance's inputs, in place, with the same-named inputs of `donor`.
  void take_inputs_from(const VerifiedVariant& donor) {
    for (const auto& mine : inputs())
      for (const auto& theirs : donor.inputs())
        if (mine.name() == theirs.name() && mine.bytes() == theirs.bytes()) {
          if (gpu()) {
            // Default: unified addressing routes device, managed, pinned and host alike.
            AISP_CUDA_CHECK(cudaMemcpyAsync(mine.data(), theirs.data(), mine.bytes(),
                                            cudaMemcpyDefault, options_.stream));
            AISP_CUDA_CHECK(cudaStreamSynchronize(options_.stream));
          } else {
            std::memcpy(mine.data(), theirs.data(), mine.bytes());
          }
        }
  }

  Benchmark::ReferenceFunction reference() const { return variant_->reference(); }
  std::size_t reference_row_length() const { return variant_->reference_row_length(); }

  // Host copies of every input, for a float64 reference.
  HostInputs host_inputs() const {
    HostInputs copies;
    for (const Tensor& t : inputs()) {
      std::unique_ptr<unsigned char[]> bytes(new unsigned char[std::max<std::size_t>(1, t.bytes())]);
      if (gpu()) {
        AISP_CUDA_CHECK(cudaMemcpyAsync(bytes.get(), t.data(), t.bytes(), cudaMemcpyDefault,
                                        options_.stream));
        AISP_CUDA_CHECK(cudaStreamSynchronize(options_.stream));
      } else {
        std::memcpy(bytes.get(), t.data(), t.bytes());
      }
      copies.add(t.name(), t.dtype(), t.count(), std::move(bytes));
    }
    return copies;
  }

  std::vector<std::string> aliased_outputs() const {
    std::vector<std::string> aliased;
    for (const auto& out : outputs)
      for (const auto& t : context_->tensors())
        if (t.role() == Role::input && overlaps(out, t))
          aliased.push_back(out.name() + "→" + t.name());
    return aliased;
  }

  Signature signature;
  Workload workload;
  std::optional<Tolerance> tolerance;
  std::optional<LowerPrecision> lower_precision;
  std::vector<Tensor> outputs;
  std::vector<std::string> foreign_outputs;
  std::vector<HostThread> threads_left_by_setup;  // still running after setup() returned

 private:
  bool gpu() const { return options_.device >= 0; }

  // Global policies the harness sets must be as it set them; persisting-L2 state a variant left
  // behind is reported and undone.
  void inspect_policies(Observation& seen) {
    cublasContext* handle = context_->state().cublas;
    if (handle != nullptr) {
      cublasMath_t mode{};
      if (cublasGetMathMode(handle, &mode) == CUBLAS_STATUS_SUCCESS && mode != CUBLAS_DEFAULT_MATH)
        seen.policy_drift = fmt::format("the context's cuBLAS handle was left in math mode {} "
                                        "(harness policy: CUBLAS_DEFAULT_MATH)",
                                        static_cast<int>(mode));
    }
    // Compared with the limit found before run(): a device may start with a set-aside already
    // (one H200 of ours reads 11.25 MiB at process start).
    std::size_t persisting = 0;
    if (cudaDeviceGetLimit(&persisting, cudaLimitPersistingL2CacheSize) == cudaSuccess &&
        persisting != persisting_limit_before_) {
      seen.l2_policy = fmt::format("persisting-L2 limit changed from {} to {} bytes",
                                   persisting_limit_before_, persisting);
      AISP_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, persisting_limit_before_));
    }
    cudaStreamAttrValue window{};
    if (options_.stream != nullptr &&
        cudaStreamGetAttribute(options_.stream, cudaStreamAttributeAccessPolicyWindow, &window) ==
            cudaSuccess &&
        window.accessPolicyWindow.num_bytes > 0) {
      seen.l2_policy +=
          fmt::format("{}access-policy window of {} bytes left on the stream",
                      seen.l2_policy.empty() ? "" : "; ", window.accessPolicyWindow.num_bytes);
      cudaStreamAttrValue none{};
      AISP_CUDA_CHECK(
          cudaStreamSetAttribute(options_.stream, cudaStreamAttributeAccessPolicyWindow, &none));
    }
    cudaGetLastError();
  }

  ContextOptions options_;
  std::size_t persisting_limit_before_ = 0;
  std::unique_ptr<Context> context_;
  std::unique_ptr<Benchmark> variant_;
};

bool looser_than_default(const Tolerance& t, DType dtype) {
  const Tolerance d = Tolerance::for_dtype(dtype);
  return t.rtol > d.rtol || t.atol > d.atol;
}

void add(Verification& v, std::string check, bool passed, std::string detail) {
  v.checks.push_back({std::move(check), passed, std::move(detail)});
}

// Integrity of one observed run: nothing escaped, nothing mutated, nothing left behind.
void check_run(Verification& v, const char* who, const Observation& seen, bool settled, bool gpu) {
  add(v, "inputs_unchanged", seen.mutated_inputs.empty(),
      seen.mutated_inputs.empty()
          ? fmt::format("{}: input hashes equal before and after run", who)
          : fmt::format("{}: run() changed input(s) {}; inputs must be read-only", who,
                        fmt::join(seen.mutated_inputs, ", ")));
  // The CUDA driver starts helper threads of its own on first use (unified-memory fault
  // handling, for one): for GPU variants only a settled run is held to the thread count.
  if (!gpu || settled)
    add(v, "no_work_after_return", seen.threads_left_running.empty(),
        seen.threads_left_running.empty()
            ? fmt::format("{}: no host threads left running after run()", who)
            : fmt::format("{}: {} host thread(s) still running when run() returned ({}): work "
                          "escaping the timed region; join every thread inside run()",
                          who, seen.threads_left_running.size(),
                          describe_threads(seen.threads_left_running)));
  add(v, "policies_unchanged", seen.policy_drift.empty(),
      seen.policy_drift.empty() ? fmt::format("{}: math mode as the harness set it", who)
                                : fmt::format("{}: {}", who, seen.policy_drift));
  add(v, "no_persisting_l2_state", seen.l2_policy.empty(),
      seen.l2_policy.empty() ? fmt::format("{}: no persisting-L2 state left set", who)
                             : fmt::format("{}: {} (reset by the harness)", who, seen.l2_policy));
  // Lazy module loading and library workspaces allocate on a first call, so only a settled
  // (second) run is held to this.
  if (settled) {
    constexpr long long kSlack = 2ll << 20;
    add(v, "no_allocation_in_run", seen.device_bytes_allocated <= kSlack,
        fmt::format("{}: device memory in use grew by {:.1f} MiB during run() (allowed {} MiB: "
                    "allocate in setup)",
                    who, static_cast<double>(seen.device_bytes_allocated) / (1 << 20),
                    kSlack >> 20));
  }
}

HostBytes constant_like(DType dtype, std::size_t count, double value) {
  HostBytes bytes(count * dtype_size(dtype));
  if (value == 0 || (dtype != DType::f32 && dtype != DType::f64)) {
    std::memset(bytes.data(), 0, bytes.size());
  } else if (dtype == DType::f32) {
    const float f = static_cast<float>(value);
    for (std::size_t i = 0; i < count; ++i)
      std::memcpy(bytes.data() + i * 4, &f, 4);
  } else {
    for (std::size_t i = 0; i < count; ++i)
      std::memcpy(bytes.data() + i * 8, &value, 8);
  }
  return bytes;
}

double mean_of(DType dtype, std::span<const unsigned char> bytes) {
  const std::size_t count = bytes.size() / dtype_size(dtype);
  double sum = 0;
  std::size_t stride = std::max<std::size_t>(1, count / 65536);
  std::size_t n = 0;
  for (std::size_t i = 0; i < count; i += stride, ++n)
    sum += decode_element(dtype, bytes.data(), i);
  return n ? sum / static_cast<double>(n) : 0;
}

// A stand-in for an output: something a wrong variant could produce without computing it.
struct StandIn {
  std::string what;                           // "all zeros", "a copy of input x"
  std::function<HostBytes(bool whole)> make;  // the whole output, or its sample
};

// A tolerance is vacuous when it lets a stand-in pass that only passes because of it: all
// zeros, the output's mean everywhere, or a copy of an input. (A stand-in equal to the true
// output under the dtype's default tolerance — a copy kernel's input — says nothing.)
std::string vacuous_tolerance(const Tensor& meta, const HostBytes& expected,
                              const Tolerance& tolerance, const std::vector<Tensor>& inputs,
                              cudaStream_t stream) {
  const DType dtype = meta.dtype();
  const SampleLayout layout = sample_layout(meta.count());
  std::vector<StandIn> stand_ins;
  stand_ins.push_back({"all zeros", [&](bool whole) {
                         return constant_like(dtype, whole ? meta.count() : layout.count(), 0);
                       }});
  if (dtype == DType::f32 || dtype == DType::f64) {
    const double mean = mean_of(dtype, expected);
    stand_ins.push_back({"the output's mean everywhere", [&, mean](bool whole) {
                           return constant_like(dtype, whole ? meta.count() : layout.count(), mean);
                         }});
  }
  for (const Tensor& input : inputs)
    if (input.dtype() == dtype && input.count() == meta.count())
      stand_ins.push_back({"a copy of input " + input.name(), [&, input](bool whole) {
                             return whole ? read_tensor_bytes(input, stream)
                                          : read_tensor_sample(input, layout, stream);
                           }});
  const Tolerance strict = Tolerance::for_dtype(dtype);
  const HostBytes expected_sample = sample_of(expected.data(), dtype_size(dtype), layout);
  for (const StandIn& stand_in : stand_ins) {
    if (!compare_within_tolerance(dtype, expected_sample, stand_in.make(false), tolerance).passed)
      continue;
    const HostBytes whole = stand_in.make(true);
    if (compare_within_tolerance(dtype, expected, whole, tolerance).passed &&
        !compare_within_tolerance(dtype, expected, whole, strict).passed)
      return stand_in.what;
  }
  return {};
}

// Up to 2048 distinct elements of the output, drawn from `seed`, a seed of each verification
// the variant cannot read (draw_secret_seed): a variant exact at positions it could know and
// sloppy elsewhere has nowhere to be exact. With 2048 uniform positions, a variant that lowers
// precision on a fraction f of the output has ~2048·f of them in the sample (20 at f = 1%), and
// its RMS error there is what the check compares. With `row_length` (Benchmark::
// reference_row_length, a reference whose cost is per row): 64 random rows, 32 random elements in
// each, sorted, so the reference is asked row by row; a variant sloppy on a fraction f of the rows
// then has ~64·f of them in the sample.
std::vector<std::size_t> reference_sample(std::size_t count, std::uint64_t seed,
                                          std::size_t row_length = 0) {
  constexpr std::size_t kSamples = 2048;
  constexpr std::size_t kRows = 64;
  std::vector<std::size_t> indices;
  if (count <= kSamples) {
    for (std::size_t i = 0; i < count; ++i) indices.push_back(i);
    return indices;
  }
  const auto distinct = [](std::vector<std::size_t>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  };
  const std::size_t rows = row_length > 0 ? count / row_length : 0;
  if (rows > kRows && row_length >= kSamples / kRows) {
    std::vector<std::size_t> chosen;
    for (std::uint64_t k = 0; chosen.size() < kRows; ++k) {
      chosen.push_back(detail::mix64(seed + k * 0x9E3779B97F4A7C15ull) % rows);
      if (chosen.size() == kRows) distinct(chosen);
    }
    for (std::size_t r = 0; r < chosen.size(); ++r) {
      std::vector<std::size_t> columns;
      for (std::uint64_t k = 0; columns.size() < kSamples / kRows; ++k) {
        const std::uint64_t row_seed = seed ^ (0xC2B2AE3D27D4EB4Full * (chosen[r] + 1));
        columns.push_back(detail::mix64(row_seed + k * 0x9E3779B97F4A7C15ull) % row_length);
        if (columns.size() == kSamples / kRows) distinct(columns);
      }
      for (std::size_t c : columns) indices.push_back(chosen[r] * row_length + c);
    }
    return indices;
  }
  for (std::uint64_t k = 0; indices.size() < kSamples; ++k) {
    indices.push_back(detail::mix64(seed + k * 0x9E3779B97F4A7C15ull) % count);
    if (indices.size() == kSamples) distinct(indices);
  }
  return indices;
}

// One output of one variant against the float64 reference at the sampled elements: relative
// RMS (||actual - reference|| / ||reference||, the absolute RMS when the reference is all zeros
// there), max absolute error, and max relative error over the elements whose |reference| is at
// least kRelativeFloor of the reference's RMS (near zero a relative error means nothing).
OutputError output_error(const std::string& name, DType dtype, const HostBytes& actual,
                         const std::vector<std::size_t>& indices,
                         const std::vector<double>& reference) {
  constexpr double kRelativeFloor = 0.1;
  OutputError result;
  result.output = name;
  result.sampled = indices.size();
  if (indices.empty())
    return result;
  double error = 0, norm = 0;
  std::vector<double> differences(indices.size());
  for (std::size_t k = 0; k < indices.size(); ++k) {
    differences[k] = decode_element(dtype, actual.data(), indices[k]) - reference[k];
    error += differences[k] * differences[k];
    norm += reference[k] * reference[k];
    result.max_abs = std::max(result.max_abs, std::fabs(differences[k]));
  }
  const auto n = static_cast<double>(indices.size());
  result.relative_rms = norm > 0 ? std::sqrt(error / norm) : std::sqrt(error / n);
  const double floor = kRelativeFloor * std::sqrt(norm / n);
  if (floor > 0) {
    double max_relative = 0;
    for (std::size_t k = 0; k < indices.size(); ++k) {
      if (std::fabs(reference[k]) < floor)
        continue;
      max_relative = std::max(max_relative, std::fabs(differences[k]) / std::fabs(reference[k]));
      ++result.relative_elements;
    }
    if (result.relative_elements > 0)
      result.max_relative = max_relative;
  }
  return result;
}

PrecisionDeclaration declaration_of(const LowerPrecision& declared) {
  return PrecisionDeclaration{declared.format, declared.max_relative_rms, declared.justification};
}

// What is wrong with a declaration on its face (empty when nothing): contract_audit.cpp asks the
// same of it before setup.
std::string declaration_problem(const LowerPrecision& declared) {
  if (declared.format.empty())
    return "its format is empty: say what it computes in";
  if (!(declared.max_relative_rms > 0) || !std::isfinite(declared.max_relative_rms))
    return fmt::format("its max_relative_rms {:g} is not a bound > 0", declared.max_relative_rms);
  if (declared.justification.empty())
    return "it gives no justification for its bound";
  return {};
}

// Each variant's error against the baseline's float64 reference, and the checks on it: a variant
// that declares lower precision (Benchmark::lower_precision) is held to its own bound
// (`precision_declared`); an optimized variant that does not is held to the baseline's error
// (`precision_preserved`): within kPrecisionFactor of it, or of the dtype's default relative
// tolerance when the baseline is closer than that (so rounding-order noise never trips it).
std::optional<PrecisionResult> check_precision(Verification& v, const VerifiedVariant& baseline,
                                               const VerifiedVariant& optimized,
                                               const Observation& b1, const Observation& o1,
                                               std::uint64_t sample_seed) {
  constexpr double kPrecisionFactor = 4.0;
  const Benchmark::ReferenceFunction reference = baseline.reference();
  const bool declared = baseline.lower_precision || optimized.lower_precision;
  if (!reference && !declared)
    return std::nullopt;
  PrecisionResult precision;
  if (baseline.lower_precision)
    precision.baseline.lower_precision = declaration_of(*baseline.lower_precision);
  if (optimized.lower_precision)
    precision.optimized.lower_precision = declaration_of(*optimized.lower_precision);
  const std::pair<const char*, const VerifiedVariant*> roles[] = {{"baseline", &baseline},
                                                                  {"optimized", &optimized}};
  for (const auto& [who, variant] : roles) {
    if (!variant->lower_precision)
      continue;
    if (const std::string problem = declaration_problem(*variant->lower_precision);
        !problem.empty())
      add(v, "precision_declared", false,
          fmt::format("{} declares lower precision ({}), but {}", who,
                      variant->lower_precision->format, problem));
    else if (!reference)
      add(v, "precision_declared", false,
          fmt::format("{} declares lower precision ({}), but the baseline gives no float64 "
                      "reference(): nothing to hold it to; give reference() in the pair's "
                      "problem class",
                      who, variant->lower_precision->format));
  }
  if (!reference)
    return precision;

  const HostInputs inputs = baseline.host_inputs();
  for (std::size_t i = 0; i < baseline.outputs.size(); ++i) {
    const Tensor& meta = baseline.outputs[i];
    if (!dtype_is_floating(meta.dtype())) continue;
    const std::vector<std::size_t> indices =
        reference_sample(meta.count(), sample_seed + i, baseline.reference_row_length());
    std::vector<double> expected;
    expected.reserve(indices.size());
    for (std::size_t index : indices) expected.push_back(reference(inputs, i, index));
    precision.baseline.outputs.push_back(
        output_error(meta.name(), meta.dtype(), b1.outputs[i], indices, expected));
    precision.optimized.outputs.push_back(
        output_error(meta.name(), meta.dtype(), o1.outputs[i], indices, expected));
    const double baseline_error = precision.baseline.outputs.back().relative_rms;
    const double optimized_error = precision.optimized.outputs.back().relative_rms;
    for (const auto& [who, variant] : roles) {
      const std::optional<LowerPrecision>& declared_format = variant->lower_precision;
      if (!declared_format || !declaration_problem(*declared_format).empty())
        continue;
      const double error = variant == &baseline ? baseline_error : optimized_error;
      const bool within = error <= declared_format->max_relative_rms;
      add(v, "precision_declared", within,
          fmt::format("{} {}: declared lower precision ({}): relative RMS error against the "
                      "float64 reference over {} sampled elements {:.3g}, bound {:.3g}{}",
                      who, meta.name(), declared_format->format, indices.size(), error,
                      declared_format->max_relative_rms,
                      within ? "" : ": beyond the bound it declared"));
    }
    if (optimized.lower_precision)
      continue;
    const double floor = Tolerance::for_dtype(meta.dtype()).rtol;
    const double allowed = kPrecisionFactor * std::max(baseline_error, floor);
    const bool kept = optimized_error <= allowed;
    add(v, "precision_preserved", kept,
        fmt::format("{}: relative RMS error vs the float64 reference, {} elements drawn for "
                    "this run (seed {:#x}): optimized {:.3g}, baseline {:.3g} (allowed {:g} x "
                    "max(baseline, {:g}) = {:.3g}){}",
                    meta.name(), indices.size(), sample_seed + i, optimized_error, baseline_error,
                    kPrecisionFactor, floor, allowed,
                    kept ? ""
                         : ": lower precision than the dtype; declare it if on purpose "
                           "(Benchmark::lower_precision)"));
  }
  return precision;
}

// Roles are part of the problem: a tensor that is an input in one variant is an input in the
// other (hashed before and after run(), refreshed with new inputs), by name. Otherwise a variant
// could declare its copy of an input as scratch and write to it unseen. An input only the
// optimized variant has (a derived form it keeps as an input, like ch07's presorted indices) is
// allowed: it is hashed and refreshed like the others. An input only the baseline has is not:
// the optimized variant would not see it change when the inputs are refreshed, so it could not
// be computing the same function of them. A filled tensor may be scratch (ch05 fills the
// contents it writes to a file in setup; the file is what run() reads).
std::string role_mismatch(const VerifiedVariant& baseline, const VerifiedVariant& optimized) {
  std::vector<std::string> problems;
  for (const Tensor& t : baseline.tensors()) {
    const auto theirs = std::find_if(optimized.tensors().begin(), optimized.tensors().end(),
                                     [&](const Tensor& o) { return o.name() == t.name(); });
    if (theirs == optimized.tensors().end()) {
      if (t.role() == Role::input)
        problems.push_back(fmt::format("the baseline's input '{}' is not a tensor of the "
                                       "optimized variant",
                                       t.name()));
    } else if (theirs->role() != t.role() &&
               (t.role() == Role::input || theirs->role() == Role::input)) {
      problems.push_back(fmt::format("'{}' is {} in the baseline but {} in the optimized variant",
                                     t.name(), role_name(t.role()), role_name(theirs->role())));
    }
  }
  return problems.empty()
             ? std::string{}
             : fmt::format("{}: give a tensor the same role in both variants (inputs are hashed "
                           "before and after run() and refreshed with new values; scratch and "
                           "outputs are not)",
                           fmt::join(problems, "; "));
}

// Threads a setup() left running (see threads_left_since). GPU variants are held to it from
// their second setup on: the first use of a library may start helpers of its own.
void note_setup_threads(std::vector<std::string>& found, const char* who,
                        const VerifiedVariant& variant, bool settled, bool gpu) {
  if ((!gpu || settled) && !variant.threads_left_by_setup.empty())
    found.push_back(fmt::format("{}: {} thread(s) started in setup() still running after it "
                                "returned ({})",
                                who, variant.threads_left_by_setup.size(),
                                describe_threads(variant.threads_left_by_setup)));
}

// The pair's input domain: the stricter of the two variants' (a pair declares it in its problem
// class, so both agree).
InputDomain pair_input_domain(const VerifiedVariant& baseline, const VerifiedVariant& optimized) {
  InputDomain domain;
  for (const VerifiedVariant* variant : {&baseline, &optimized}) {
    if (const auto declared = variant->input_domain()) {
      domain.offset = domain.offset && declared->offset;
      domain.wide_range = domain.wide_range && declared->wide_range;
      if (domain.justification.empty()) domain.justification = declared->justification;
    }
  }
  return domain;
}

// Varied inputs: the pair once more on each distribution of detail::InputDistribution beyond
// uniform that its domain and its inputs' dtypes allow, fresh instances of both variants filled
// from a new seed, outputs compared in place (on the GPU for device tensors). Where the
// outputs disagree and the baseline gives a float64 reference, the optimized variant still
// passes when its error on those inputs is within kPrecisionFactor of the baseline's: the
// tolerance was written for [-1, 1), the check asks whether the optimized variant is less
// accurate than the baseline away from it.
void check_varied_inputs(Verification& v, const BenchmarkFactory& baseline_factory,
                         const BenchmarkFactory& optimized_factory, const ContextOptions& options,
                         const InputDomain& domain, const std::vector<FillRecord>& fills,
                         const std::vector<Tolerance>& tolerances, std::uint64_t sample_seed,
                         std::vector<std::string>& setup_threads) {
  using detail::InputDistribution;
  for (const InputDistribution distribution :
       {InputDistribution::offset, InputDistribution::wide_range}) {
    const std::string_view name = detail::input_distribution_name(distribution);
    const bool declared_off = distribution == InputDistribution::offset ? !domain.offset
                                                                        : !domain.wide_range;
    if (declared_off) {
      add(v, "varied_inputs_agree", !domain.justification.empty(),
          domain.justification.empty()
              ? fmt::format("{}: turned off by input_domain() without a justification; say why "
                            "the problem is not defined there",
                            name)
              : fmt::format("{}: not tried: input_domain() restricts it ({})", name,
                            domain.justification));
      continue;
    }
    const bool any_allowed = std::any_of(fills.begin(), fills.end(), [&](const FillRecord& f) {
      return !f.integer && detail::distribution_allowed(f.dtype, distribution);
    });
    if (!any_allowed) {
      add(v, "varied_inputs_agree", true,
          fmt::format("{}: not tried: no input is filled by ctx.fill_uniform in a dtype that can "
                      "hold it (fp8 and integer inputs keep their distribution)",
                      name));
      continue;
    }
    ContextOptions varied = options;
    varied.seed = options.seed * 0xD1B54A32D192ED03ull + 7 + static_cast<std::uint64_t>(distribution);
    varied.distribution = distribution;
    VerifiedVariant baseline(baseline_factory, varied);
    VerifiedVariant optimized(optimized_factory, varied);
    note_setup_threads(setup_threads, "baseline", baseline, true, options.device >= 0);
    note_setup_threads(setup_threads, "optimized", optimized, true, options.device >= 0);
    baseline.run_only();
    optimized.run_only();
    const Benchmark::ReferenceFunction reference = baseline.reference();
    std::optional<HostInputs> host_inputs;
    for (std::size_t i = 0; i < baseline.outputs.size() && i < optimized.outputs.size(); ++i) {
      const Tensor& expected = baseline.outputs[i];
      const Tensor& actual = optimized.outputs[i];
      const Tolerance& tolerance = tolerances[i];
      // The same Inf or NaN in both agrees here: offset and wide-range values may overflow the
      // problem itself (a baseline that overflows too is not wrong).
      const ToleranceReport report = compare_tensors(expected, actual, tolerance, options.stream,
                                                     NonFiniteRule::same_agrees);
      std::string detail = fmt::format("{} inputs: {}", name,
                                       describe(report, tolerance, expected.name(), expected.count()));
      bool passed = report.passed;
      if (!passed && reference && dtype_is_floating(expected.dtype())) {
        if (!host_inputs) host_inputs = baseline.host_inputs();
        const std::vector<std::size_t> indices =
            reference_sample(expected.count(), sample_seed ^ (0xA5A5ull + i),
                             baseline.reference_row_length());
        std::vector<double> wanted;
        for (std::size_t index : indices) wanted.push_back(reference(*host_inputs, i, index));
        const HostBytes b = read_tensor_bytes(expected, options.stream);
        const HostBytes o = read_tensor_bytes(actual, options.stream);
        const double baseline_error =
            output_error(expected.name(), expected.dtype(), b, indices, wanted).relative_rms;
        const double optimized_error =
            output_error(actual.name(), actual.dtype(), o, indices, wanted).relative_rms;
        constexpr double kPrecisionFactor = 4.0;
        // A variant that declares lower precision is held to its own bound here too.
        const double allowed = std::max(
            kPrecisionFactor * std::max(baseline_error, Tolerance::for_dtype(expected.dtype()).rtol),
            optimized.lower_precision ? optimized.lower_precision->max_relative_rms : 0.0);
        passed = optimized_error <= allowed;
        detail += fmt::format("; against the float64 reference: optimized relative RMS error "
                              "{:.3g}, baseline {:.3g} (allowed {:.3g}): {}",
                              optimized_error, baseline_error, allowed,
                              passed ? "the optimized variant is as accurate as the baseline "
                                       "there, the tolerance is what does not fit"
                                     : "the optimized variant loses accuracy on these inputs");
      } else if (!passed) {
        detail += ": the variants disagree on inputs away from [-1, 1) (numerically unstable: "
                  "cancellation, overflow?); fix it, or declare input_domain() with a reason";
      }
      add(v, "varied_inputs_agree", passed, detail);
    }
  }
}

}  // namespace

Verification verify_pair(const BenchmarkFactory& baseline_factory,
                         const BenchmarkFactory& optimized_factory, const ContextOptions& options,
                         Signature* baseline_signature, std::optional<PrecisionResult>* precision) {
  const auto started = std::chrono::steady_clock::now();
  Verification v;
  ContextOptions second = options;
  second.seed = options.seed * 0x9E3779B97F4A7C15ull + 1;

  auto baseline = std::make_unique<VerifiedVariant>(baseline_factory, options);
  const Observation b1 = baseline->run();
  auto optimized = std::make_unique<VerifiedVariant>(optimized_factory, options);
  const Observation o1 = optimized->run();
  if (baseline_signature != nullptr)
    *baseline_signature = baseline->signature;

  add(v, "signatures_equal", baseline->signature == optimized->signature,
      baseline->signature == optimized->signature
          ? baseline->signature.to_string()
          : fmt::format("baseline [{}] vs optimized [{}]: the variants must solve the same problem",
                        baseline->signature.to_string(), optimized->signature.to_string()));
  const Workload& bw = baseline->workload;
  const Workload& ow = optimized->workload;
  const bool workloads_equal =
      bw.bytes == ow.bytes && bw.flops == ow.flops && bw.launches == ow.launches;
  add(v, "workloads_equal", workloads_equal,
      fmt::format("bytes {:g} vs {:g}, flops {:g} vs {:g}, launches {:g} vs {:g}", bw.bytes,
                  ow.bytes, bw.flops, ow.flops, bw.launches, ow.launches));
  const std::vector<Tensor> bo = baseline->outputs;  // metadata outlives the instance
  const auto& oo = optimized->outputs;
  bool shapes_match = !bo.empty() && bo.size() == oo.size();
  for (std::size_t i = 0; shapes_match && i < bo.size(); ++i)
    shapes_match = bo[i].name() == oo[i].name() && bo[i].dtype() == oo[i].dtype() &&
                   bo[i].count() == oo[i].count();
  add(v, "outputs_declared", shapes_match,
      shapes_match ? fmt::format("{} output(s)", bo.size())
                   : "outputs() must name the same non-empty list of tensors (name, dtype, count) "
                     "in both variants");
  const bool owned = baseline->foreign_outputs.empty() && optimized->foreign_outputs.empty();
  add(v, "outputs_harness_owned", owned,
      owned ? "every output allocated through ctx.alloc"
            : fmt::format("not allocated through ctx.alloc: {}",
                          fmt::join(baseline->foreign_outputs.empty() ? optimized->foreign_outputs
                                                                      : baseline->foreign_outputs,
                                    ", ")));
  if (!shapes_match || !owned) {
    v.passed = false;
    v.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return v;
  }
  const auto aliased = optimized->aliased_outputs();
  add(v, "outputs_not_aliasing_inputs", aliased.empty(),
      aliased.empty()
          ? "no output overlaps an input"
          : fmt::format("optimized output overlaps input: {}", fmt::join(aliased, ", ")));
  const std::string roles = role_mismatch(*baseline, *optimized);
  add(v, "input_roles_equal", roles.empty(),
      roles.empty() ? "every tensor that is an input in one variant is an input in the other"
                    : roles);
  check_run(v, "baseline", b1, false, options.device >= 0);
  check_run(v, "optimized", o1, false, options.device >= 0);
  std::vector<std::string> setup_threads;
  note_setup_threads(setup_threads, "baseline", *baseline, false, options.device >= 0);
  note_setup_threads(setup_threads, "optimized", *optimized, false, options.device >= 0);
  const InputDomain domain = pair_input_domain(*baseline, *optimized);
  const std::vector<FillRecord> baseline_fills = baseline->fills();

  // Integer outputs: each variant once more, same inputs, under the other poison pattern.
  const bool integer_outputs = std::any_of(bo.begin(), bo.end(), [](const Tensor& t) {
    return !dtype_is_floating(t.dtype());
  });
  Observation b1_alternate, o1_alternate;
  if (integer_outputs) {
    b1_alternate = baseline->run(true);
    o1_alternate = optimized->run(true);
  }

  std::vector<Tolerance> tolerances;
  for (std::size_t i = 0; i < bo.size(); ++i) {
    const Tensor& meta = bo[i];
    for (const auto* seen : {&b1, &o1}) {
      const char* who = seen == &b1 ? "baseline" : "optimized";
      const Observation& alternate = seen == &b1 ? b1_alternate : o1_alternate;
      const std::size_t unwritten =
          dtype_is_floating(meta.dtype())
              ? count_unwritten(meta.dtype(), seen->outputs[i])
              : count_unwritten_integers(meta.dtype(), seen->outputs[i], alternate.outputs[i]);
      add(v, "outputs_written", unwritten == 0,
          fmt::format("{} {}: {} of {} elements unwritten after the run (poisoned before it)", who,
                      meta.name(), unwritten, meta.count()));
      const std::size_t non_finite = count_non_finite(meta.dtype(), seen->outputs[i]);
      add(v, "outputs_finite", non_finite == 0,
          fmt::format("{} {}: {} NaN/Inf elements", who, meta.name(), non_finite));
    }
    const Tolerance tolerance = optimized->tolerance.value_or(
        baseline->tolerance.value_or(Tolerance::for_dtype(meta.dtype())));
    tolerances.push_back(tolerance);
    const bool justified =
        !looser_than_default(tolerance, meta.dtype()) || !tolerance.justification.empty();
    add(v, "tolerance_justified", justified,
        justified ? (tolerance.justification.empty() ? "dtype default" : tolerance.justification)
                  : fmt::format("rtol={:g} atol={:g} is looser than the {} default; give a "
                                "justification in tolerance()",
                                tolerance.rtol, tolerance.atol, dtype_name(meta.dtype())));
    const std::string stand_in =
        vacuous_tolerance(meta, b1.outputs[i], tolerance, baseline->inputs(), options.stream);
    add(v, "tolerance_not_vacuous", stand_in.empty(),
        stand_in.empty()
            ? fmt::format("{}: zeros, a constant or an input copy would not pass", meta.name())
            : fmt::format("{}: {} passes under rtol={:g} atol={:g}; the tolerance cannot tell a "
                          "wrong answer from a right one",
                          meta.name(), stand_in, tolerance.rtol, tolerance.atol));
    const ToleranceReport report =
        compare_within_tolerance(meta.dtype(), b1.outputs[i], o1.outputs[i], tolerance);
    add(v, "within_tolerance", report.passed,
        describe(report, tolerance, meta.name(), meta.count()));
  }
  const std::uint64_t sample_seed = draw_secret_seed();
  std::optional<PrecisionResult> measured_precision =
      check_precision(v, *baseline, *optimized, b1, o1, sample_seed);
  if (precision != nullptr)
    *precision = std::move(measured_precision);
  baseline.reset();

  // Second seed: the baseline afresh; the optimized instance keeps its buffers and gets the new
  // inputs written in place, so a result cached by address, by instance or in static state
  // shows up as a mismatch.
  Observation b2;
  {
    VerifiedVariant baseline_second(baseline_factory, second);
    note_setup_threads(setup_threads, "baseline (second seed)", baseline_second, true,
                       options.device >= 0);
    b2 = baseline_second.run();
  }
  Observation o2;
  std::string how;
  if (!optimized->inputs().empty()) {
    {
      const VerifiedVariant donor(optimized_factory, second);
      note_setup_threads(setup_threads, "optimized (second seed)", donor, true,
                         options.device >= 0);
      optimized->take_inputs_from(donor);
    }
    o2 = optimized->run();
    how = "new inputs written in place into the same buffers";
  } else {
    optimized.reset();
    VerifiedVariant fresh(optimized_factory, second);
    note_setup_threads(setup_threads, "optimized (second seed)", fresh, true, options.device >= 0);
    o2 = fresh.run();
    how = "a fresh instance with a new seed (the variant has no harness-owned inputs)";
  }
  check_run(v, "optimized (second run)", o2, true, options.device >= 0);
  bool seed_matters = false;
  for (std::size_t i = 0; i < bo.size(); ++i) {
    seed_matters = seed_matters || b1.outputs[i] != b2.outputs[i];
    const ToleranceReport report =
        compare_within_tolerance(bo[i].dtype(), b2.outputs[i], o2.outputs[i], tolerances[i]);
    add(v, "fresh_inputs_recomputed", report.passed,
        fmt::format("{}: {}", how, describe(report, tolerances[i], bo[i].name(), bo[i].count())));
  }
  add(v, "seed_changes_output", seed_matters,
      seed_matters ? "a new seed changes the baseline's output"
                   : "the outputs are identical for two seeds: verification cannot tell a cached "
                     "answer from a computed one; fill inputs from ctx.seed()");

  optimized.reset();
  check_varied_inputs(v, baseline_factory, optimized_factory, options, domain, baseline_fills,
                      tolerances, sample_seed, setup_threads);
  add(v, "no_threads_outside_run", setup_threads.empty(),
      setup_threads.empty()
          ? "no thread started in setup() outlived it"
          : fmt::format("{}: a thread alive outside its variant's run() takes a core from the other "
                        "variant while that one is timed; start and join threads inside run()",
                        fmt::join(setup_threads, "; ")));

  v.passed =
      std::all_of(v.checks.begin(), v.checks.end(), [](const CheckOutcome& c) { return c.passed; });
  v.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return v;
}

std::string first_failure(const Verification& verification) {
  for (const auto& c : verification.checks)
    if (!c.passed)
      return c.check + ": " + c.detail;
  return {};
}

}  // namespace aisp
