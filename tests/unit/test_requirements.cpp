// unmet_requirement: each requirement a pair can state, against device snapshots of machines
// that lack it (no GPU, too few GPUs, a binary without code for the GPU, too old an architecture,
// a missing feature, too little free memory), and the skip reason that says what is missing.
#include <gtest/gtest.h>

#include "system/device_snapshot.hpp"

namespace aisp {
namespace {

DeviceSnapshot h200(int device_count = 1) {
  DeviceSnapshot s;
  s.device_count = device_count;
  s.name = "NVIDIA H200";
  s.compute_capability = 90;
  s.free_bytes = std::size_t{140} << 30;
  s.binary_has_code = true;
  return s;
}

DeviceSnapshot other_gpu(const char* name, int compute_capability) {
  DeviceSnapshot s = h200();
  s.name = name;
  s.compute_capability = compute_capability;
  return s;
}

std::string reason(const Requirements& r, const DeviceSnapshot& s) {
  return unmet_requirement(r, s).value_or("(met)");
}

TEST(Requirements, AHopperMeetsTheDefaultsAndHopperFeatures) {
  Requirements r;
  r.min_compute_capability = 90;
  r.features = {Feature::tma, Feature::wgmma, Feature::thread_block_clusters, Feature::fp8};
  EXPECT_EQ(reason(r, h200()), "(met)");
}

TEST(Requirements, CpuPairsNeedNothing) {
  DeviceSnapshot none;
  none.error = "no CUDA device is visible (CUDA_VISIBLE_DEVICES may hide them)";
  EXPECT_EQ(reason(Requirements::cpu(), none), "(met)");
}

TEST(Requirements, NoGpuIsASkipWithTheProbesReason) {
  DeviceSnapshot none;
  none.error = "no NVIDIA driver or GPU found (libcuda.so.1 is not installed)";
  EXPECT_EQ(reason(Requirements{}, none),
            "needs a GPU: no NVIDIA driver or GPU found (libcuda.so.1 is not installed)");
}

// The reasons a user reads when no GPU is usable say what is missing, not how CUDA words it: a
// machine without a driver is not one with an old driver (the runtime reports both the same way).
TEST(Requirements, NoGpuReasonsSayWhatIsMissing) {
  EXPECT_EQ(describe_gpu_unavailable("cudaGetDeviceCount", cudaErrorNoDevice),
            "no NVIDIA GPU visible (the driver sees none: check nvidia-smi and "
            "CUDA_VISIBLE_DEVICES)");
  int driver = 0;
  const bool no_driver = cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0;
  const std::string insufficient =
      describe_gpu_unavailable("cudaGetDeviceCount", cudaErrorInsufficientDriver);
  if (no_driver) {
    EXPECT_EQ(insufficient, "no NVIDIA driver or GPU found (libcuda.so.1 is not installed)");
  } else {
    EXPECT_NE(insufficient.find("but this binary needs"), std::string::npos) << insufficient;
  }
  const std::string other =
      describe_gpu_unavailable("cudaGetDeviceCount", cudaErrorDevicesUnavailable);
  EXPECT_NE(other.find("cudaGetDeviceCount: "), std::string::npos) << other;
  EXPECT_NE(other.find("cudaErrorDevicesUnavailable"), std::string::npos) << other;
}

TEST(Requirements, TooFewGpusSaysHowManyAreNeeded) {
  Requirements r;
  r.min_gpus = 2;
  EXPECT_EQ(reason(r, h200(1)),
            "needs 2 GPUs, 1 visible (CUDA_VISIBLE_DEVICES may hide some); run it on a machine "
            "with 2 or more");
  EXPECT_EQ(reason(r, h200(2)), "(met)");
  r.min_gpus = 8;
  EXPECT_NE(reason(r, h200(4)).find("needs 8 GPUs, 4 visible"), std::string::npos);
}

TEST(Requirements, ABinaryWithoutCodeForTheGpuSaysHowToRebuild) {
  DeviceSnapshot s = other_gpu("NVIDIA B200", 100);
  s.binary_has_code = false;
  s.code_error = "no kernel image is available for execution on the device";
  const std::string why = reason(Requirements{}, s);
  EXPECT_EQ(why.rfind("this binary has no code for NVIDIA B200 (sm_100)", 0), 0u) << why;
  EXPECT_NE(why.find("-DCMAKE_CUDA_ARCHITECTURES=100"), std::string::npos) << why;
}

TEST(Requirements, TooOldAnArchitectureNamesBoth) {
  const DeviceSnapshot a100 = other_gpu("NVIDIA A100-SXM4-80GB", 80);
  Requirements r;
  r.min_compute_capability = 90;
  EXPECT_EQ(reason(r, a100), "needs compute capability 9.0 or newer; NVIDIA A100-SXM4-80GB is 8.0");
}

TEST(Requirements, MissingFeaturesAreNamed) {
  const DeviceSnapshot a100 = other_gpu("NVIDIA A100-SXM4-80GB", 80);
  Requirements fp8;
  fp8.features = {Feature::fp8};
  EXPECT_EQ(reason(fp8, a100), "needs fp8, which NVIDIA A100-SXM4-80GB (sm_80) lacks");

  // wgmma is sm_90a only: a Blackwell part has tcgen05 instead.
  const DeviceSnapshot b200 = other_gpu("NVIDIA B200", 100);
  Requirements wgmma;
  wgmma.features = {Feature::wgmma};
  EXPECT_EQ(reason(wgmma, b200), "needs wgmma, which NVIDIA B200 (sm_100) lacks");
  Requirements tcgen05;
  tcgen05.features = {Feature::tcgen05};
  EXPECT_EQ(reason(tcgen05, b200), "(met)");
  EXPECT_EQ(reason(tcgen05, h200()), "needs tcgen05, which NVIDIA H200 (sm_90) lacks");
}

TEST(Requirements, TooLittleFreeMemoryGivesBothSizes) {
  Requirements r;
  r.min_free_device_bytes = std::size_t{200} << 30;
  EXPECT_EQ(reason(r, h200()), "needs 200.0 GiB of free device memory; 140.0 GiB free");
}

}  // namespace
}  // namespace aisp
