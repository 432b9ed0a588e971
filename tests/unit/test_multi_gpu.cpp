// The orchestration of multi-GPU pairs, without a GPU (docs/multi-gpu.md): how many GPUs a pair
// gets from its min_gpus and --gpus, and the skip reasons when it cannot have them; --gpus as a
// run setting (parsed, range-checked, carried to the worker); a multi-GPU variant timed per call
// with the reason; the context's per-device calls refused outside the run's GPUs, with the
// message naming them.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "aisp/benchmark.hpp"
#include "aisp/context.hpp"
#include "aisp/nccl.hpp"
#include "core/context_state.hpp"
#include "core/nccl_library.hpp"
#include "core/measurement_settings.hpp"
#include "measure/timing_method_choice.hpp"
#include "system/device_snapshot.hpp"

namespace aisp {
namespace {

Requirements needs_gpus(int count) {
  Requirements r;
  r.min_gpus = count;
  return r;
}

TEST(GpuAssignment, WithoutGpusFlagEachPairGetsItsMinimum) {
  EXPECT_EQ(assign_gpus(needs_gpus(1), 0, 8).devices, 1);
  EXPECT_EQ(assign_gpus(needs_gpus(2), 0, 8).devices, 2);
  EXPECT_EQ(assign_gpus(needs_gpus(4), 0, 8).devices, 4);
  EXPECT_TRUE(assign_gpus(needs_gpus(2), 0, 8).skip_reason.empty());
}

TEST(GpuAssignment, CpuPairsGetNone) {
  const GpuAssignment a = assign_gpus(Requirements::cpu(), 4, 8);
  EXPECT_EQ(a.devices, 0);
  EXPECT_TRUE(a.skip_reason.empty());
}

TEST(GpuAssignment, OneGpuPairsRunOnOneGpuWhateverTheFlag) {
  EXPECT_EQ(assign_gpus(needs_gpus(1), 4, 8).devices, 1);
  EXPECT_EQ(assign_gpus(needs_gpus(1), 4, 1).devices, 1);  // not skipped for --gpus 4 on 1 GPU
  EXPECT_TRUE(assign_gpus(needs_gpus(1), 4, 1).skip_reason.empty());
}

TEST(GpuAssignment, MultiGpuPairsGetExactlyTheFlag) {
  EXPECT_EQ(assign_gpus(needs_gpus(2), 2, 8).devices, 2);
  EXPECT_EQ(assign_gpus(needs_gpus(2), 4, 8).devices, 4);
  EXPECT_EQ(assign_gpus(needs_gpus(2), 8, 8).devices, 8);
}

TEST(GpuAssignment, FewerThanThePairNeedsIsASkipThatSaysSo) {
  const GpuAssignment a = assign_gpus(needs_gpus(4), 2, 8);
  EXPECT_EQ(a.devices, 0);
  EXPECT_EQ(a.skip_reason,
            "needs 4 GPUs; --gpus 2 gives it 2: run it with --gpus 4 or more, or without --gpus");
}

TEST(GpuAssignment, MoreThanVisibleIsASkipThatSaysSo) {
  const GpuAssignment a = assign_gpus(needs_gpus(2), 4, 2);
  EXPECT_EQ(a.devices, 0);
  EXPECT_EQ(a.skip_reason, "--gpus 4 asks for 4 GPUs and 2 are visible (CUDA_VISIBLE_DEVICES may "
                           "hide some): lower --gpus to 2 or fewer");
  EXPECT_NE(assign_gpus(needs_gpus(2), 2, 1).skip_reason.find("and 1 is visible"),
            std::string::npos);
}

TEST(GpuAssignment, TooFewVisibleForTheMinimumIsTheRequirementCheck) {
  // 2 GPUs needed, 1 visible, no --gpus: unmet_requirement says it (test_requirements.cpp);
  // the assignment alone would give it its 2.
  DeviceSnapshot one;
  one.device_count = 1;
  one.name = "NVIDIA H200";
  one.compute_capability = 90;
  one.binary_has_code = true;
  EXPECT_EQ(unmet_requirement(needs_gpus(2), one).value_or("(met)"),
            "needs 2 GPUs, 1 visible (CUDA_VISIBLE_DEVICES may hide some); run it on a machine "
            "with 2 or more");
  DeviceSnapshot none;
  none.error = "no NVIDIA GPU visible";
  EXPECT_EQ(unmet_requirement(needs_gpus(2), none).value_or("(met)"),
            "needs 2 GPUs: no NVIDIA GPU visible");
  EXPECT_EQ(unmet_requirement(needs_gpus(1), none).value_or("(met)"),
            "needs a GPU: no NVIDIA GPU visible");
}

const RunSettingDescriptor& gpus_setting() {
  for (const RunSettingDescriptor& d : run_setting_descriptors())
    if (std::string(d.flag) == "--gpus") return d;
  throw std::logic_error("no --gpus setting");
}

TEST(GpusSetting, AcceptsZeroToSixtyFour) {
  for (const char* text : {"0", "1", "2", "8", "64"}) {
    MeasurementSettings s;
    EXPECT_EQ(apply_run_setting(s, gpus_setting(), text), std::nullopt) << text;
    EXPECT_EQ(s.gpus, std::stoi(text));
  }
  EXPECT_EQ(MeasurementSettings{}.gpus, 0);
  EXPECT_TRUE(gpus_setting().applies_to_verify);
}

TEST(GpusSetting, RefusesEverythingElseWithTheAllowedRange) {
  for (const char* text : {"-1", "65", "two", "1.5", "", "2x", "+2"}) {
    MeasurementSettings s;
    const std::optional<std::string> problem = apply_run_setting(s, gpus_setting(), text);
    ASSERT_TRUE(problem.has_value()) << text;
    EXPECT_EQ(*problem, std::string("--gpus ") + text +
                            ": must be an integer from 0 to 64 (0 = each pair the GPUs it needs)");
    EXPECT_EQ(s.gpus, 0) << text;
  }
}

TEST(GpusSetting, TravelsToTheWorkerAndBack) {
  MeasurementSettings s;
  s.gpus = 2;
  const nlohmann::json json = measurement_settings_to_json(s);
  EXPECT_EQ(json.at("gpus"), 2);
  EXPECT_EQ(measurement_settings_from_json(json).gpus, 2);
  nlohmann::json bad = json;
  bad["gpus"] = 100;
  EXPECT_THROW(measurement_settings_from_json(bad), std::invalid_argument);
  nlohmann::json old = json;
  old.erase("gpus");  // a manifest from before --gpus: the default
  EXPECT_EQ(measurement_settings_from_json(old).gpus, 0);
}

TEST(MultiGpuTiming, AMultiGpuVariantIsTimedPerCallAndSaysWhy) {
  TimingCandidate two;
  two.devices = 2;
  two.call_us = 3;  // short enough that a one-GPU variant would be replayed
  const PairTimingChoice choice = choose_pair_timing(two, two, 20);
  EXPECT_FALSE(choice.baseline_graph);
  EXPECT_FALSE(choice.optimized_graph);
  EXPECT_EQ(choice.baseline_note, "runs on 2 GPUs: timed per call, with events on every GPU's "
                                  "stream (the slowest GPU's time is the sample)");
  TimingCandidate one = two;
  one.devices = 1;
  EXPECT_TRUE(choose_pair_timing(one, one, 20).baseline_graph);
}

TEST(MultiGpuContext, ACpuContextHasNoGpusAndSaysSo) {
  ContextOptions options;  // device -1: CPU-only, no CUDA call
  const auto ctx = make_context(options);
  EXPECT_EQ(ctx->device_count(), 0);
  EXPECT_EQ(run_device_count(options), 0);
  try {
    static_cast<void>(ctx->stream(1));
    FAIL() << "stream(1) of a CPU context";
  } catch (const std::out_of_range& e) {
    EXPECT_EQ(std::string(e.what()),
              "stream(1): this run uses 0 GPUs (a CPU-only variant); a pair that needs more "
              "declares Requirements::min_gpus (or is run with bench run --gpus N)");
  }
  EXPECT_THROW(static_cast<void>(ctx->nccl(0)), std::out_of_range);
  EXPECT_THROW(static_cast<void>(ctx->peer_access(0, 1)), std::out_of_range);
  // A CPU variant's host allocation works as before and records device 0.
  const Tensor t = ctx->alloc("host", DType::f32, 4, Role::scratch, Memory::host);
  EXPECT_EQ(t.device(), 0);
}

TEST(MultiGpuContext, RunDeviceCountFollowsTheStreams) {
  ContextOptions options;
  options.device = 0;
  EXPECT_EQ(run_device_count(options), 1);
  options.device_streams = {nullptr, nullptr};  // handles are not touched by the count
  EXPECT_EQ(run_device_count(options), 2);
}

// The loader resolves every function aisp/nccl.hpp offers from libnccl.so.2 (a misspelt symbol
// would make every NCCL variant a skip), or says why it cannot; a build without nccl.h says so.
TEST(NcclLibrary, LoadsEveryFunctionOrSaysWhyNot) {
  const std::string reason = detail::nccl_unavailable_reason();
#if AISP_HAVE_NCCL
  if (reason.empty()) {
    const NcclFunctions& f = nccl_functions();
    EXPECT_NE(f.AllReduce, nullptr);
    EXPECT_NE(f.AllGather, nullptr);
    EXPECT_NE(f.ReduceScatter, nullptr);
    EXPECT_NE(f.Send, nullptr);
    EXPECT_NE(f.Recv, nullptr);
    EXPECT_NE(f.GroupStart, nullptr);
    EXPECT_NE(f.GroupEnd, nullptr);
    ASSERT_NE(f.GetErrorString, nullptr);
    EXPECT_GT(f.version, 0);
    EXPECT_STRNE(f.GetErrorString(ncclInvalidArgument), "");
  } else {
    EXPECT_TRUE(reason.find("libnccl.so.2") != std::string::npos ||
                reason.find("lacks") != std::string::npos)
        << reason;
    EXPECT_THROW(static_cast<void>(nccl_functions()), Unavailable);
  }
#else
  EXPECT_NE(reason.find("built without NCCL"), std::string::npos) << reason;
  EXPECT_THROW(static_cast<void>(detail::create_nccl_communicators(2)), Unavailable);
#endif
}

}  // namespace
}  // namespace aisp
