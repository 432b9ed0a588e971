// The pieces of the integrity checks that need no GPU and no timing: one timing method per pair,
// the NaN-aware tolerance message, the thread census, the varied input distributions and the
// element-wise regeneration of fills, and where host ceilings are stored. The device comparison
// is checked against the host one where a GPU is present (skipped otherwise).
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <thread>
#include <vector>

#include "core/random_fill.hpp"
#include "measure/timing_method_choice.hpp"
#include "system/ceilings.hpp"
#include "system/thread_census.hpp"
#include "temp_files.hpp"
#include "verify/output_comparison.hpp"

namespace aisp {
namespace {

TimingCandidate gpu(TimingMode mode, double call_us, bool marks = false) {
  TimingCandidate c;
  c.mode = mode;
  c.call_us = call_us;
  c.marks = marks;
  return c;
}

TEST(PairTiming, BothReplayedWhenEitherCallIsShort) {
  // A 30 us baseline and a 10 us optimized variant: both replayed, or the optimized one alone
  // would shed its launch overhead.
  const PairTimingChoice choice =
      choose_pair_timing(gpu(TimingMode::automatic, 30), gpu(TimingMode::automatic, 10), 20);
  EXPECT_TRUE(choice.baseline_graph);
  EXPECT_TRUE(choice.optimized_graph);
  EXPECT_NE(choice.baseline_note.find("like its partner"), std::string::npos);
  EXPECT_TRUE(choice.optimized_note.empty());
}

TEST(PairTiming, BothPerCallWhenBothCallsAreLong) {
  const PairTimingChoice choice =
      choose_pair_timing(gpu(TimingMode::automatic, 30), gpu(TimingMode::automatic, 25), 20);
  EXPECT_FALSE(choice.baseline_graph);
  EXPECT_FALSE(choice.optimized_graph);
}

TEST(PairTiming, AnAutomaticVariantFollowsAPartnerTimedPerCall) {
  for (const TimingCandidate& partner :
       {gpu(TimingMode::direct, -1), gpu(TimingMode::automatic, -1, /*marks=*/true)}) {
    const PairTimingChoice choice = choose_pair_timing(partner, gpu(TimingMode::automatic, 2), 20);
    EXPECT_FALSE(choice.baseline_graph);
    EXPECT_FALSE(choice.optimized_graph);
    EXPECT_NE(choice.optimized_note.find("like its partner"), std::string::npos);
  }
}

TEST(PairTiming, ForcedGraphAgainstDirectStaysAsymmetric) {
  // The worker's timing_methods_equal refuses this unless a variant justifies it.
  const PairTimingChoice choice =
      choose_pair_timing(gpu(TimingMode::direct, -1), gpu(TimingMode::graph, 2), 20);
  EXPECT_FALSE(choice.baseline_graph);
  EXPECT_TRUE(choice.optimized_graph);
}

TEST(PairTiming, CpuPairsUseTheHostClock) {
  TimingCandidate cpu;
  cpu.cpu_only = true;
  const PairTimingChoice choice = choose_pair_timing(cpu, cpu, 20);
  EXPECT_FALSE(choice.baseline_graph);
  EXPECT_FALSE(choice.optimized_graph);
  EXPECT_EQ(choice.baseline_note, "host clock");
}

TEST(ToleranceMessage, NaNIsReportedAsNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> expected = {1, 2, 3, 4}, actual = {nan, nan, nan, nan};
  const auto bytes = [](const std::vector<float>& v) {
    std::vector<unsigned char> b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  };
  const ToleranceReport report = compare_within_tolerance(
      DType::f32, bytes(expected), bytes(actual), Tolerance::for_dtype(DType::f32));
  EXPECT_FALSE(report.passed);
  EXPECT_EQ(report.non_finite_actual, 4u);
  const std::string text = describe(report, Tolerance::for_dtype(DType::f32), "y", 4);
  EXPECT_NE(text.find("max abs error NaN (4 NaN/Inf in the optimized output"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("max abs error 0,"), std::string::npos) << text;
}

TEST(ThreadCensus, AJoinedThreadIsNotLeftRunningADetachedOneIs) {
  const std::vector<HostThread> before = host_thread_census();
  std::thread([] {}).join();
  EXPECT_TRUE(threads_started_since(before, host_thread_census(), false).empty());

  std::atomic<bool> stop{false};
  std::thread running([&] {
    while (!stop)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  const std::vector<HostThread> left = threads_started_since(before, host_thread_census(), false);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_FALSE(left.front().exiting);
  EXPECT_NE(describe_threads(left).find("tid"), std::string::npos);
  stop = true;
  running.join();
}

TEST(ThreadCensus, CudaHelperThreadsAreExemptOnlyWhenAsked) {
  const std::vector<HostThread> before = host_thread_census();
  std::vector<HostThread> now = before;
  now.push_back({999999, "cuda-EvtHandlr", false});
  EXPECT_EQ(threads_started_since(before, now, false).size(), 1u);
  EXPECT_TRUE(threads_started_since(before, now, true).empty());
}

TEST(VariedInputs, OffsetAndWideRangeWhereTheDtypeHoldsThem) {
  using detail::InputDistribution;
  EXPECT_TRUE(detail::distribution_allowed(DType::f32, InputDistribution::offset));
  EXPECT_TRUE(detail::distribution_allowed(DType::bf16, InputDistribution::wide_range));
  EXPECT_FALSE(detail::distribution_allowed(DType::fp8_e4m3, InputDistribution::offset));
  EXPECT_FALSE(detail::distribution_allowed(DType::fp8_e5m2, InputDistribution::wide_range));
  EXPECT_EQ(detail::wide_range_exponent(DType::f16), 4.0);

  constexpr std::size_t kCount = 4096;
  const std::uint64_t key = detail::fill_key(7, "x", 1);
  std::vector<float> uniform(kCount), offset(kCount), wide(kCount);
  detail::fill_uniform_host(DType::f32, uniform.data(), kCount, key, -1, 1, 1);
  detail::fill_uniform_host(DType::f32, offset.data(), kCount, key, -1, 1, 1,
                            InputDistribution::offset);
  detail::fill_uniform_host(DType::f32, wide.data(), kCount, key, -1, 1, 1,
                            InputDistribution::wide_range);
  float wide_min = 1e30f, wide_max = 0;
  for (std::size_t i = 0; i < kCount; ++i) {
    EXPECT_GE(uniform[i], -1.0f);
    EXPECT_LT(uniform[i], 1.0f);
    EXPECT_FLOAT_EQ(offset[i], uniform[i] + 8.0f);  // [-1, 1) moved by four widths
    EXPECT_EQ(std::signbit(wide[i]), std::signbit(uniform[i]));
    wide_min = std::min(wide_min, std::fabs(wide[i]));
    wide_max = std::max(wide_max, std::fabs(wide[i]));
  }
  EXPECT_GT(wide_max, 256.0f);      // magnitudes up to 2^12
  EXPECT_LT(wide_min, 1.0f / 256);  // and down to 2^-12 (times |u|)
}

TEST(VariedInputs, ValuesAtIndicesAreTheFillsValues) {
  constexpr std::size_t kCount = 1000;
  const std::uint64_t key = detail::fill_key(11, "w", 1);
  for (const auto distribution :
       {detail::InputDistribution::uniform, detail::InputDistribution::offset,
        detail::InputDistribution::wide_range}) {
    std::vector<float> whole(kCount);
    detail::fill_uniform_host(DType::f32, whole.data(), kCount, key, -2, 3, 2, distribution);
    const std::vector<std::size_t> indices = {0, 17, 999, 500};
    const HostBytes some = detail::uniform_values_at(DType::f32, key, -2, 3, distribution, indices);
    for (std::size_t k = 0; k < indices.size(); ++k) {
      float v;
      std::memcpy(&v, some.data() + 4 * k, 4);
      EXPECT_EQ(v, whole[indices[k]]);
    }
  }
  std::vector<std::int32_t> ints(kCount);
  detail::fill_int_host(DType::i32, ints.data(), kCount, key, -5, 5, 1);
  const HostBytes some = detail::int_values_at(DType::i32, key, -5, 5, {3, 999});
  std::int32_t a, b;
  std::memcpy(&a, some.data(), 4);
  std::memcpy(&b, some.data() + 4, 4);
  EXPECT_EQ(a, ints[3]);
  EXPECT_EQ(b, ints[999]);
}

TEST(HostCeiling, StoredUnderTheHostKeyAndNeverBuiltIn) {
  const test::ScopedTempDir dir("host_ceiling");
  EXPECT_TRUE(ceiling_is_host_scoped(Ceiling::host_memory_bandwidth));
  EXPECT_FALSE(ceiling_is_host_scoped(Ceiling::hbm_bandwidth));
  EXPECT_EQ(host_hardware_key().rfind("host_", 0), 0u);
  EXPECT_FALSE(resolve_ceiling(dir.path(), "h200", Ceiling::host_memory_bandwidth));
  store_ceiling(dir.path(), host_hardware_key(), Ceiling::host_memory_bandwidth,
                CeilingValue{42.0, "GB/s", "test"});
  // Whatever key a pair asks with ("cpu_only", "h200"), the host's own figure answers.
  for (const char* key : {"cpu_only", "h200"}) {
    const auto found = resolve_ceiling(dir.path(), key, Ceiling::host_memory_bandwidth);
    ASSERT_TRUE(found) << key;
    EXPECT_EQ(found->value, 42.0);
  }
}

TEST(DeviceComparison, AgreesWithTheHostComparison) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();
    GTEST_SKIP() << "no GPU: the device comparison runs on the GPU machine";
  }
  constexpr std::size_t kCount = (std::size_t{1} << 20) + 3;
  std::vector<float> expected(kCount), actual(kCount);
  for (std::size_t i = 0; i < kCount; ++i) {
    expected[i] = std::sin(static_cast<float>(i));
    actual[i] = expected[i];
  }
  actual[12345] += 1e-3f;
  actual[777777] = std::numeric_limits<float>::quiet_NaN();
  actual[kCount - 1] = -actual[kCount - 1] - 1.0f;
  void *e = nullptr, *a = nullptr;
  ASSERT_EQ(cudaMalloc(&e, kCount * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&a, kCount * 4), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(e, expected.data(), kCount * 4, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(a, actual.data(), kCount * 4, cudaMemcpyHostToDevice), cudaSuccess);
  const Tolerance tolerance = Tolerance::for_dtype(DType::f32);
  const ToleranceReport device = compare_on_device(DType::f32, e, a, kCount, tolerance, nullptr);
  std::vector<unsigned char> eb(kCount * 4), ab(kCount * 4);
  std::memcpy(eb.data(), expected.data(), eb.size());
  std::memcpy(ab.data(), actual.data(), ab.size());
  const ToleranceReport host = compare_within_tolerance(DType::f32, eb, ab, tolerance);
  EXPECT_EQ(device.passed, host.passed);
  EXPECT_EQ(device.mismatches, host.mismatches);
  EXPECT_EQ(device.mismatches, 3u);
  EXPECT_EQ(device.first_mismatch, host.first_mismatch);
  EXPECT_EQ(device.first_expected, host.first_expected);
  EXPECT_EQ(device.first_actual, host.first_actual);
  EXPECT_EQ(device.max_abs_error, host.max_abs_error);
  EXPECT_EQ(device.max_rel_error, host.max_rel_error);
  EXPECT_EQ(device.non_finite_actual, 1u);
  const ToleranceReport same = compare_on_device(DType::f32, e, e, kCount, tolerance, nullptr);
  EXPECT_TRUE(same.passed);
  cudaFree(e);
  cudaFree(a);
}

}  // namespace
}  // namespace aisp
