#include "worker/timed_call_checks.hpp"

#include "core/rank_exchange.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "aisp/check.hpp"
#include "core/context_state.hpp"
#include "core/random_fill.hpp"
#include "verify/output_comparison.hpp"

namespace aisp {
namespace {

// The changed elements of one input before a checked sample: kRuns runs at random places, each
// count/65536 elements long (at least one), so about 1/1024 of a large input changes. A
// fingerprint reading a few fixed elements almost never sees it (16 elements: ~1.6%); the whole
// output comparison sees every output those elements feed.
constexpr std::size_t kRuns = 64;
constexpr std::size_t kRunDivisor = 65536;
// Elements of each filled input compared with its fill before sampling: a setup that rescaled or
// rewrote a filled input makes new values from the fill's generator foreign to it.
constexpr std::size_t kFillProbes = 8;

std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

std::uint64_t name_key(const std::string& name) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (const char c : name)
    h = (h ^ static_cast<unsigned char>(c)) * 0x100000001B3ull;
  return h;
}

bool on_device(const Tensor& t) {
  return t.memory() == Memory::device || t.memory() == Memory::managed;
}

std::vector<Tensor> inputs_of(Context& ctx) {
  std::vector<Tensor> inputs;
  for (const Tensor& t : ctx.tensors())
    if (t.role() == Role::input)
      inputs.push_back(t);
  return inputs;
}

const FillRecord* last_fill(Context& ctx, const std::string& name) {
  const auto& fills = ctx.state().fills;
  for (auto it = fills.rbegin(); it != fills.rend(); ++it)
    if (it->tensor == name)
      return &*it;
  return nullptr;
}

bool same_fill(const FillRecord& a, const FillRecord& b) {
  return a.dtype == b.dtype && a.integer == b.integer && a.lo == b.lo && a.hi == b.hi &&
         a.int_lo == b.int_lo && a.int_hi == b.int_hi && a.distribution == b.distribution;
}

HostBytes values_at(const FillRecord& fill, std::uint64_t seed,
                    const std::vector<std::size_t>& indices) {
  const std::uint64_t key = detail::fill_key(seed, fill.tensor.data(), fill.tensor.size());
  return fill.integer ? detail::int_values_at(fill.dtype, key, fill.int_lo, fill.int_hi, indices)
                      : detail::uniform_values_at(fill.dtype, key, fill.lo, fill.hi,
                                                  fill.distribution, indices);
}

// Writes `count` elements starting at element `first` of the tensor from `bytes`.
void write_elements(const Tensor& t, std::size_t first, std::size_t count,
                    const unsigned char* bytes, cudaStream_t stream) {
  const std::size_t width = dtype_size(t.dtype());
  auto* destination = static_cast<unsigned char*>(t.data()) + first * width;
  if (on_device(t))
    AISP_CUDA_CHECK(
        cudaMemcpyAsync(destination, bytes, count * width, cudaMemcpyHostToDevice, stream));
  else
    std::memcpy(destination, bytes, count * width);
}

HostBytes read_elements(const Tensor& t, const std::vector<std::size_t>& indices,
                        cudaStream_t stream) {
  const std::size_t width = dtype_size(t.dtype());
  HostBytes bytes(indices.size() * width);
  const auto* source = static_cast<const unsigned char*>(t.data());
  for (std::size_t k = 0; k < indices.size(); ++k) {
    if (on_device(t))
      AISP_CUDA_CHECK(cudaMemcpyAsync(bytes.data() + k * width, source + indices[k] * width, width,
                                      cudaMemcpyDeviceToHost, stream));
    else
      std::memcpy(bytes.data() + k * width, source + indices[k] * width, width);
  }
  if (stream != nullptr)
    AISP_CUDA_CHECK(cudaStreamSynchronize(stream));
  return bytes;
}

Tolerance pair_tolerance(VariantTimer& baseline, VariantTimer& optimized, const Tensor& output) {
  if (auto t = optimized.instance(0).tolerance())
    return *t;
  if (auto t = baseline.instance(0).tolerance())
    return *t;
  return Tolerance::for_dtype(output.dtype());
}

std::size_t instances_that_ran(VariantTimer& timer) {
  return timer.method() == TimingMethod::graph_replay ? timer.instance_count() : 1;
}

}  // namespace

class TimedCallChecker::CheckedSource final : public SampleSource {
 public:
  explicit CheckedSource(TimedCallChecker& owner) : owner_(owner) {}

  TimedSample sample() override {
    TimedCallChecker& o = owner_;
    const std::size_t index = o.samples_++;
    const bool checked = o.draw_() % (index + 1) == 0;  // probability 1/(index+1)
    if (checked && o.perturb_)
      o.perturb(index + 1);
    const TimedSample taken = o.optimized_.sample();
    if (checked) {
      o.checked_samples_.push_back(index + 1);
      o.baseline_.sample_untimed();
      const Comparison comparison = o.compare_outputs();
      if (!comparison.passed && o.sampling_passed_) {
        o.sampling_passed_ = false;
        o.sampling_failure_ = fmt::format("timed sample {}: {}", index + 1, comparison.detail);
      }
    }
    return taken;
  }
  TimingMethod method() const override { return owner_.optimized_.method(); }

 private:
  TimedCallChecker& owner_;
};

TimedCallChecker::TimedCallChecker(VariantTimer& baseline, VariantTimer& optimized,
                                   BenchmarkFactory baseline_factory,
                                   BenchmarkFactory optimized_factory, ContextOptions options,
                                   std::uint64_t secret)
    : baseline_(baseline), optimized_(optimized), baseline_factory_(std::move(baseline_factory)),
      optimized_factory_(std::move(optimized_factory)), options_(std::move(options)),
      secret_(secret), draw_(secret), source_(std::make_unique<CheckedSource>(*this)) {
  perturb_ = perturbable(no_perturb_reason_);
  // Under mpirun every rank changes its inputs before a checked sample, or none does: a rank whose
  // inputs include copies of another rank's (replicated state) cannot, and changing the others'
  // alone would make the replicas disagree.
  if (!ranks_all(options_.ranks, perturb_) && perturb_) {
    perturb_ = false;
    no_perturb_reason_ = "another rank's inputs are not all harness fills it can change in place";
  }
}

TimedCallChecker::~TimedCallChecker() = default;

SampleSource& TimedCallChecker::optimized_source() { return *source_; }

// Element-wise changes need inputs the harness can regenerate element by element: every input
// of both variants a ctx.fill_* of the same name and parameters, still holding that fill.
bool TimedCallChecker::perturbable(std::string& why_not) {
  std::vector<std::string> names[2];
  int side = 0;
  for (VariantTimer* timer : {&baseline_, &optimized_}) {
    const char* who = timer == &baseline_ ? "baseline" : "optimized variant";
    for (std::size_t i = 0; i < timer->instance_count(); ++i) {
      Context& ctx = timer->instance_context(i);
      for (const Tensor& input : inputs_of(ctx)) {
        if (last_fill(ctx, input.name()) == nullptr) {
          why_not = fmt::format("the {}'s input '{}' is not a ctx.fill_* of its own (a form "
                                "derived in setup), so the harness cannot change it element by "
                                "element",
                                who, input.name());
          return false;
        }
        if (i == 0)
          names[side].push_back(input.name());
      }
    }
    std::sort(names[side].begin(), names[side].end());
    ++side;
  }
  if (names[0].empty()) {
    why_not = "the pair has no harness-owned inputs";
    return false;
  }
  if (names[0] != names[1]) {
    why_not = "the variants' inputs differ by name, so one change cannot reach both alike";
    return false;
  }
  Context& b = baseline_.instance_context(0);
  Context& o = optimized_.instance_context(0);
  for (const std::string& name : names[0]) {
    const FillRecord& fb = *last_fill(b, name);
    if (!same_fill(fb, *last_fill(o, name))) {
      why_not = fmt::format("'{}' is filled with different parameters in the two variants", name);
      return false;
    }
    for (Context* ctx : {&b, &o}) {
      const Tensor* tensor = nullptr;
      for (const Tensor& t : ctx->tensors())
        if (t.name() == name)
          tensor = &t;
      std::vector<std::size_t> probes;
      for (std::size_t k = 0; k < std::min(kFillProbes, tensor->count()); ++k)
        probes.push_back(mix(secret_ ^ name_key(name) ^ (k + 1)) % tensor->count());
      if (values_at(fb, ctx->seed(), probes) != read_elements(*tensor, probes, options_.stream)) {
        why_not = fmt::format("'{}' no longer holds its ctx.fill_* values after setup (setup "
                              "changed it)",
                              name);
        return false;
      }
    }
  }
  return true;
}

// The changed runs are written into the baseline's first instance; every other instance of both
// variants then takes that tensor whole (they all held the same fill before), one copy each.
void TimedCallChecker::perturb(std::uint64_t selection) {
  Context& reference = baseline_.instance_context(0);
  elements_changed_ = 0;
  for (const Tensor& input : inputs_of(reference)) {
    const FillRecord& fill = *last_fill(reference, input.name());
    const std::size_t count = input.count();
    const std::size_t length = std::max<std::size_t>(1, count / kRunDivisor);
    const std::size_t runs = std::min(kRuns, count);
    std::vector<std::size_t> starts, indices;
    for (std::size_t r = 0; r < runs; ++r) {
      const std::uint64_t pick = mix(secret_ ^ mix(selection) ^ name_key(input.name()) ^ (r << 32));
      const std::size_t start = count > length ? pick % (count - length + 1) : 0;
      starts.push_back(start);
      for (std::size_t e = 0; e < length && start + e < count; ++e)
        indices.push_back(start + e);
    }
    const HostBytes values = values_at(fill, mix(secret_ + selection), indices);
    const std::size_t width = dtype_size(input.dtype());
    std::size_t offset = 0;
    for (const std::size_t start : starts) {
      const std::size_t n = std::min(length, count - start);
      write_elements(input, start, n, values.data() + offset * width, options_.stream);
      offset += n;
    }
    elements_changed_ += indices.size();
    for (VariantTimer* timer : {&baseline_, &optimized_})
      for (std::size_t i = 0; i < timer->instance_count(); ++i)
        for (const Tensor& target : inputs_of(timer->instance_context(i)))
          if (target.name() == input.name() && target.bytes() == input.bytes() &&
              target.data() != input.data()) {
            if (options_.device >= 0)
              AISP_CUDA_CHECK(cudaMemcpyAsync(target.data(), input.data(), input.bytes(),
                                              cudaMemcpyDefault, options_.stream));
            else
              std::memcpy(target.data(), input.data(), input.bytes());
          }
  }
  if (options_.stream != nullptr)
    AISP_CUDA_CHECK(cudaStreamSynchronize(options_.stream));
}

TimedCallChecker::Comparison TimedCallChecker::compare_outputs() {
  Comparison result;
  const std::vector<Tensor> expected = baseline_.instance(0).outputs();
  const std::size_t sets = instances_that_ran(optimized_);
  std::size_t compared = 0;
  for (std::size_t j = 0; j < sets; ++j) {
    const std::vector<Tensor> actual = optimized_.instance(j).outputs();
    if (actual.size() != expected.size()) {
      return {false, fmt::format("the optimized variant returned {} outputs, the baseline {}",
                                 actual.size(), expected.size())};
    }
    for (std::size_t i = 0; i < expected.size(); ++i) {
      const Tolerance tolerance = pair_tolerance(baseline_, optimized_, expected[i]);
      const ToleranceReport report =
          compare_tensors(expected[i], actual[i], tolerance, options_.stream);
      compared += expected[i].count();
      if (!report.passed)
        return {false,
                fmt::format("{}{}",
                            describe(report, tolerance, expected[i].name(), expected[i].count()),
                            sets > 1 ? fmt::format(" (rotating input set {} of {})", j + 1, sets)
                                     : std::string{})};
    }
  }
  result.detail = fmt::format("{} output element(s) compared", compared);
  return result;
}

bool TimedCallChecker::refresh_inputs(std::string& note) {
  ContextOptions donor_options = options_;
  donor_options.seed = mix(secret_ ^ 0x5EEDF00Dull);
  std::size_t refreshed = 0;
  for (auto [timer, factory] :
       {std::pair{&baseline_, &baseline_factory_}, std::pair{&optimized_, &optimized_factory_}}) {
    std::unique_ptr<Context> context = make_context(donor_options);
    std::unique_ptr<Benchmark> donor = (*factory)();
    donor->setup(*context);
    synchronize_run_devices(options_);  // a multi-GPU donor fills on every GPU's stream
    const std::vector<Tensor> fresh = inputs_of(*context);
    for (std::size_t i = 0; i < timer->instance_count(); ++i)
      for (const Tensor& mine : inputs_of(timer->instance_context(i)))
        for (const Tensor& theirs : fresh)
          if (mine.name() == theirs.name() && mine.bytes() == theirs.bytes()) {
            if (options_.device >= 0)
              AISP_CUDA_CHECK(cudaMemcpyAsync(mine.data(), theirs.data(), mine.bytes(),
                                              cudaMemcpyDefault, options_.stream));
            else
              std::memcpy(mine.data(), theirs.data(), mine.bytes());
            ++refreshed;
          }
    if (options_.device >= 0)
      AISP_CUDA_CHECK(cudaStreamSynchronize(options_.stream));
    donor->teardown(*context);
  }
  note = refreshed > 0 ? "every input refreshed in place from a new seed"
                       : "the pair has no harness-owned inputs: compared on the inputs it had";
  return refreshed > 0;
}

std::string TimedCallChecker::trace_outcome(const char* who, const KernelTrace& trace,
                                            bool& passed) const {
  if (!trace.traced)
    return fmt::format("{}: not traced: {}", who, trace.not_traced);
  const std::string structure =
      !trace.joins_checked
          ? fmt::format("joins not checked: {}", trace.joins_not_checked)
      : trace.unjoined.empty()
          ? fmt::format("every operation on another stream joined back into it before the end{}",
                        trace.graph_operations > 0
                            ? fmt::format(" ({} run by a graph launch: timeline only)",
                                          trace.graph_operations)
                            : "")
          : std::string{};
  if (trace.clean())
    return fmt::format("{}: {} kernel(s), copies and memsets traced, every one ended before the "
                       "run's end on ctx.stream (stream {}){}; {}",
                       who, trace.operations, trace.end_stream,
                       trace.off_stream_margin_ns
                           ? fmt::format("; the last one on another stream {:.1f} us before it",
                                         *trace.off_stream_margin_ns * 1e-3)
                           : "",
                       structure);
  passed = false;
  std::vector<std::string> problems;
  if (!trace.after_end.empty()) {
    std::vector<std::string> late;
    for (const TracedOperation& op : trace.after_end)
      late.push_back(fmt::format("{} on stream {} ended {:.1f} us after it", op.what, op.stream,
                                 op.ns_after_end * 1e-3));
    problems.push_back(fmt::format("{} of {} traced operation(s) ended after the run's end on "
                                   "ctx.stream (stream {}): {}",
                                   trace.after_end.size(), trace.operations, trace.end_stream,
                                   fmt::join(late, "; ")));
  }
  if (!trace.unjoined.empty()) {
    std::vector<std::string> loose;
    for (const TracedOperation& op : trace.unjoined)
      loose.push_back(fmt::format("{} on stream {}", op.what, op.stream));
    problems.push_back(fmt::format(
        "{} operation(s) on other streams were never joined back into ctx.stream (stream {}) "
        "before the run's end, whenever they finished: no event recorded after them that "
        "ctx.stream waited on, and no host synchronize for them: {}",
        trace.unjoined.size(), trace.end_stream, fmt::join(loose, "; ")));
  }
  return fmt::format("{}: {}; work left running on another stream is not timed: join it back "
                     "(cudaEventRecord on that stream, cudaStreamWaitEvent on ctx.stream) before "
                     "run() returns",
                     who, fmt::join(problems, "; "));
}

void TimedCallChecker::finish(std::vector<CheckOutcome>& checks, KernelTracer* tracer) {
  const bool gpu = options_.device >= 0;
  std::string refresh_note;
  try {
    refresh_inputs(refresh_note);
  } catch (const std::exception& e) {
    if (gpu)
      cudaGetLastError();
    refresh_note = fmt::format("the inputs could not be refreshed ({}): compared on the inputs "
                               "it had",
                               e.what());
  }
  // Under mpirun every rank traces, or none does: a traced call is one more run() of each
  // variant, and its collectives need every rank.
  const bool traced =
      ranks_all(options_.ranks, gpu && tracer != nullptr && tracer->available());
  // Each variant is traced over two calls, CUPTI enabled once before the first (KernelTracer keeps
  // it enabled): on the H200 one call traced right after enabling CUPTI did not show
  // ch93:slack_stream's 30 us of unjoined side work as late, though the host-vs-event gap of its
  // samples did (27 us); enabling costs the next launches time, which shifts a short call's
  // timeline. Late work in either call fails the check; the second is reported unless only the
  // first shows it.
  const auto traced_call = [&](VariantTimer& timer) {
    KernelTrace settle;
    if (traced) {
      timer.trace_next_call(tracer);
      timer.sample_untimed();
      settle = timer.take_trace();
      timer.trace_next_call(tracer);
    }
    timer.sample_untimed();
    KernelTrace trace = timer.take_trace();
    if (trace.clean() && !settle.clean())
      return settle;
    return trace;
  };
  const KernelTrace optimized_trace = traced_call(optimized_);
  const KernelTrace baseline_trace = traced_call(baseline_);
  const Comparison after = compare_outputs();

  std::string during;
  if (checked_samples_.empty()) {
    during = "no timed sample was drawn for a check";
  } else {
    std::vector<std::string> numbers;
    for (const std::size_t n : checked_samples_)
      numbers.push_back(std::to_string(n));
    during =
        fmt::format("{} of {} timed samples checked, drawn at random (samples {}); {}",
                    checked_samples_.size(), samples_, fmt::join(numbers, ", "),
                    perturb_ ? fmt::format("before each, {} element(s) of the inputs took new "
                                           "values in place",
                                           elements_changed_)
                             : fmt::format("inputs left as they were ({})", no_perturb_reason_));
  }
  checks.push_back({"timed_calls_checked", sampling_passed_,
                    sampling_passed_
                        ? during + "; every output within tolerance of the baseline's on the same "
                                   "inputs"
                        : fmt::format("{}: {}: the optimized variant's timed calls do not compute "
                                      "what its verified calls do",
                                      sampling_failure_, during)});
  checks.push_back(
      {"timed_calls_checked", after.passed,
       after.passed
           ? fmt::format("after the samples: {}, both variants run as timed ({}): {}", refresh_note,
                         timing_method_name(optimized_.method()), after.detail)
           : fmt::format("after the samples: {}, both variants run as timed ({}): {}: the "
                         "optimized variant's timed calls do not compute what its verified calls "
                         "do",
                         refresh_note, timing_method_name(optimized_.method()), after.detail)});
  if (!gpu)
    return;
  bool passed = true;
  std::string detail;
  if (!traced) {
    detail = fmt::format("not traced: {}",
                         tracer == nullptr ? "no tracer" : tracer->unavailable_reason());
  } else {
    detail = trace_outcome("optimized", optimized_trace, passed) + "; " +
             trace_outcome("baseline", baseline_trace, passed);
  }
  checks.push_back({"traced_work_inside_stream", passed, detail});
}

}  // namespace aisp
