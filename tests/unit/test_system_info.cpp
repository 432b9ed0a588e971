// System probes, hardware keys and ceilings. Runs on any machine: where a GPU or NVML is present
// the tests check what was found, where not they check that the absence is explained.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "system/ceilings.hpp"
#include "system/nvml_probe.hpp"
#include "system/system_info.hpp"

namespace aisp {
namespace {

GpuInfo gpu_named(std::string name) {
  GpuInfo gpu;
  gpu.name = std::move(name);
  return gpu;
}

void expect_empty(const GpuState& state) {
  EXPECT_FALSE(state.sm_clock_mhz);
  EXPECT_FALSE(state.memory_clock_mhz);
  EXPECT_FALSE(state.power_w);
  EXPECT_FALSE(state.temperature_c);
  EXPECT_TRUE(state.throttle_reasons.empty());
}

// A fresh directory under the system temp dir, removed with the fixture.
class TemporaryDirectory {
 public:
  TemporaryDirectory()
      : path_(std::filesystem::temp_directory_path() /
              ("aisp_test_ceilings_" + std::to_string(getpid()) + "_" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TemporaryDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;

  const std::filesystem::path& path() const { return path_; }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name) << text;
  }

 private:
  std::filesystem::path path_;
};

TEST(SystemInfo, CollectNeverThrowsAndExplainsMissingGpus) {
  SystemInfo info;
  ASSERT_NO_THROW(info = collect_system_info());
  if (info.gpus.empty()) {
    EXPECT_FALSE(info.gpu_probe_error.empty());
    EXPECT_EQ(hardware_key(info), "cpu_only");
  } else {
    EXPECT_TRUE(info.gpu_probe_error.empty()) << info.gpu_probe_error;
    for (const GpuInfo& gpu : info.gpus) {
      EXPECT_FALSE(gpu.name.empty());
      EXPECT_GT(gpu.sm_count, 0);
      EXPECT_GT(gpu.l2_bytes, 0U);
      EXPECT_FALSE(gpu.pci_bus_id.empty());
      EXPECT_EQ(gpu.uuid.rfind("GPU-", 0), 0U) << gpu.uuid;
    }
  }
  EXPECT_GT(info.cuda_runtime_version, 0);
  EXPECT_FALSE(info.nvml_status.empty());
  EXPECT_GT(info.cpu_logical_cores, 0);
  EXPECT_GT(info.host_memory_bytes, 0U);
  EXPECT_FALSE(info.kernel.empty());
  EXPECT_TRUE(!info.git_commit.empty() || !info.git_status_error.empty());
  EXPECT_FALSE(format_system_info(info).empty());
}

// Hiding every device from a fresh process exercises the no-GPU path on a GPU machine too.
TEST(SystemInfoDeathTest, NoVisibleGpuIsReportedNotFatal) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // re-executes: CUDA starts uninitialized
  EXPECT_EXIT(
      {
        setenv("CUDA_VISIBLE_DEVICES", "", 1);
        const SystemInfo info = collect_system_info();
        std::cerr << "probe error: " << info.gpu_probe_error << "\n";
        std::exit(info.gpus.empty() && !info.gpu_probe_error.empty() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "probe error: no NVIDIA ");
}

TEST(SystemInfo, JsonHasEveryField) {
  const nlohmann::json json = system_info_to_json(collect_system_info());
  for (const char* key :
       {"hardware_key", "gpus", "gpu_probe_error", "cuda_driver_api_version",
        "cuda_runtime_version", "nvidia_driver_version", "nvml_status", "runtime_libraries",
        "cpu_model",
        "cpu_logical_cores", "host_memory_bytes", "cpu_governor", "os", "kernel", "hostname",
        "build", "git_commit", "git_dirty", "git_status_error"}) {
    EXPECT_TRUE(json.contains(key)) << key;
  }
  EXPECT_TRUE(json["gpus"].is_array());
  EXPECT_TRUE(json["build"].contains("source_dir"));
}

// Each library the pairs open at run time is reported, found (with where from) or not (with what
// was tried and what to do), and a found one's version call is read where it has one.
TEST(SystemInfo, RuntimeLibrariesAreEachFoundOrExplained) {
  const std::vector<RuntimeLibrary> libraries = probe_runtime_libraries();
  std::vector<std::string> names;
  for (const RuntimeLibrary& library : libraries) {
    names.push_back(library.name);
    EXPECT_FALSE(library.used_by.empty()) << library.name;
    if (library.found) {
      EXPECT_FALSE(library.loaded_from.empty()) << library.name;
      EXPECT_TRUE(library.reason.empty()) << library.name;
    } else {
      EXPECT_NE(library.reason.find("not found"), std::string::npos) << library.reason;
      EXPECT_NE(library.reason.find(".so"), std::string::npos) << library.reason;
    }
  }
  EXPECT_EQ(names, (std::vector<std::string>{"cuDNN", "NCCL", "NVRTC", "CUPTI"}));
  const std::string text = format_system_info(collect_system_info());
  for (const char* name : {"cuDNN", "NCCL", "NVRTC", "CUPTI"})
    EXPECT_NE(text.find(std::string("\n") + name), std::string::npos) << name;
}

TEST(SystemInfo, GpuJsonWritesAbsentValuesAsNull) {
  SystemInfo info;
  GpuInfo gpu = gpu_named("NVIDIA H200");
  gpu.state.sm_clock_mhz = 1980;
  gpu.state.throttle_reasons = {"sw_power_cap"};
  info.gpus.push_back(gpu);
  const nlohmann::json json = system_info_to_json(info);
  ASSERT_EQ(json["gpus"].size(), 1U);
  const nlohmann::json& gpu_json = json["gpus"][0];
  for (const char* key :
       {"index", "name", "cc_major", "cc_minor", "sm_count", "l2_bytes", "persisting_l2_max_bytes",
        "memory_bytes", "memory_bus_width_bits", "shared_per_block_optin", "pci_bus_id", "uuid",
        "max_sm_clock_mhz", "power_limit_w", "state"}) {
    EXPECT_TRUE(gpu_json.contains(key)) << key;
  }
  EXPECT_TRUE(gpu_json["max_sm_clock_mhz"].is_null());
  EXPECT_EQ(gpu_json["state"]["sm_clock_mhz"], 1980);
  EXPECT_TRUE(gpu_json["state"]["power_w"].is_null());
  EXPECT_EQ(gpu_json["state"]["throttle_reasons"], nlohmann::json::array({"sw_power_cap"}));
  EXPECT_EQ(json["hardware_key"], "h200");
}

TEST(HardwareKey, NamesKnownModels) {
  EXPECT_EQ(gpu_model_key("NVIDIA H200"), "h200");
  EXPECT_EQ(gpu_model_key("NVIDIA H200 NVL"), "h200_nvl");
  EXPECT_EQ(gpu_model_key("NVIDIA H100 80GB HBM3"), "h100_sxm");
  EXPECT_EQ(gpu_model_key("NVIDIA H100 PCIe"), "h100_pcie");
  EXPECT_EQ(gpu_model_key("NVIDIA H100 NVL"), "h100_nvl");
  EXPECT_EQ(gpu_model_key("NVIDIA B200"), "b200");
  EXPECT_EQ(gpu_model_key("NVIDIA B300 SXM6 AC"), "b300");
  EXPECT_EQ(gpu_model_key("NVIDIA GB200"), "gb200");
  EXPECT_EQ(gpu_model_key("NVIDIA GH200 480GB"), "gh200");
  EXPECT_EQ(gpu_model_key("NVIDIA A100-SXM4-80GB"), "a100_sxm");
  EXPECT_EQ(gpu_model_key("NVIDIA A100-PCIE-40GB"), "a100_pcie");
  EXPECT_EQ(gpu_model_key("NVIDIA L40S"), "l40s");
  EXPECT_EQ(gpu_model_key("NVIDIA GeForce RTX 4090"), "geforce_rtx_4090");
  EXPECT_EQ(gpu_model_key("Tesla V100-SXM2-16GB"), "tesla_v100_sxm2_16gb");
}

TEST(HardwareKey, CountsIdenticalGpusAndJoinsMixedOnes) {
  SystemInfo info;
  EXPECT_EQ(hardware_key(info), "cpu_only");
  info.gpus = {gpu_named("NVIDIA H200")};
  EXPECT_EQ(hardware_key(info), "h200");
  info.gpus = {gpu_named("NVIDIA H200"), gpu_named("NVIDIA H200")};
  EXPECT_EQ(hardware_key(info), "2x_h200");
  info.gpus = {gpu_named("NVIDIA H100 80GB HBM3"), gpu_named("NVIDIA L40S"),
               gpu_named("NVIDIA L40S")};
  EXPECT_EQ(hardware_key(info), "h100_sxm+2x_l40s");
}

TEST(NvmlProbe, MissingLibraryIsUnavailableWithReason) {
  const NvmlProbe probe(std::vector<std::string>{"libaisp-no-such-nvml.so.1"});
  EXPECT_FALSE(probe.available());
  EXPECT_NE(probe.unavailable_reason().find("libaisp-no-such-nvml.so.1"), std::string::npos)
      << probe.unavailable_reason();
  expect_empty(probe.read_state("0000:19:00.0"));
  EXPECT_FALSE(probe.driver_version());
  EXPECT_FALSE(probe.max_sm_clock_mhz("0000:19:00.0"));
  EXPECT_FALSE(probe.power_limit_w("0000:19:00.0"));
}

TEST(NvmlProbe, DefaultProbeExplainsItselfAndIgnoresUnknownDevices) {
  const NvmlProbe probe;
  EXPECT_EQ(probe.available(), probe.unavailable_reason().empty()) << probe.unavailable_reason();
  expect_empty(probe.read_state("ffff:ff:1f.7"));  // no such device on any machine
  expect_empty(probe.read_state(""));
}

TEST(NvmlProbe, DecodesClockEventReasons) {
  EXPECT_TRUE(clock_event_reason_names(0).empty());
  EXPECT_EQ(clock_event_reason_names(0x1), std::vector<std::string>{"gpu_idle"});
  EXPECT_EQ(clock_event_reason_names(0x4 | 0x40),
            (std::vector<std::string>{"sw_power_cap", "hw_thermal_slowdown"}));
  EXPECT_EQ(clock_event_reason_names(0x100 | 0x1000),
            (std::vector<std::string>{"display_clock_setting", "unknown_0x1000"}));
}

TEST(Ceilings, NamesAndUnits) {
  EXPECT_EQ(ceiling_name(Ceiling::hbm_bandwidth), "hbm_bandwidth");
  EXPECT_EQ(ceiling_name(Ceiling::graph_node_launch), "graph_node_launch");
  EXPECT_EQ(ceiling_unit(Ceiling::hbm_bandwidth), "GB/s");
  EXPECT_EQ(ceiling_unit(Ceiling::bf16_tensor), "TFLOP/s");
  EXPECT_EQ(ceiling_unit(Ceiling::graph_node_launch), "us");
  EXPECT_EQ(ceiling_from_name("fp8_tensor"), Ceiling::fp8_tensor);
  EXPECT_FALSE(ceiling_from_name("hbm"));
}

TEST(Ceilings, BuiltInH200Table) {
  const auto hbm = measured_ceiling("h200", Ceiling::hbm_bandwidth);
  ASSERT_TRUE(hbm);
  EXPECT_DOUBLE_EQ(hbm->value, 4275);
  EXPECT_EQ(hbm->unit, "GB/s");
  EXPECT_NE(hbm->source.find("ANCHORS.md"), std::string::npos);
  const auto bf16 = measured_ceiling("h200", Ceiling::bf16_tensor);
  ASSERT_TRUE(bf16);
  EXPECT_DOUBLE_EQ(bf16->value, 770);
  EXPECT_NE(bf16->source.find("764-776"), std::string::npos);
  EXPECT_DOUBLE_EQ(measured_ceiling("h200", Ceiling::graph_node_launch)->value, 0.68);
  EXPECT_DOUBLE_EQ(measured_ceiling("h200", Ceiling::fp8_tensor)->value, 1438);
  EXPECT_FALSE(measured_ceiling("h200", Ceiling::fp16_tensor));  // not measured
  EXPECT_FALSE(measured_ceiling("h200", Ceiling::none));
  EXPECT_DOUBLE_EQ(measured_ceiling("2x_h200", Ceiling::hbm_bandwidth)->value, 4275);
  EXPECT_DOUBLE_EQ(measured_ceiling("h100_sxm", Ceiling::bf16_tensor)->value, 798);
  EXPECT_FALSE(measured_ceiling("h100_sxm", Ceiling::fp8_tensor));
  EXPECT_FALSE(measured_ceiling("cpu_only", Ceiling::hbm_bandwidth));
}

TEST(Ceilings, StoredValuesTakePrecedence) {
  const TemporaryDirectory peaks;
  EXPECT_FALSE(stored_ceiling(peaks.path(), "h200", Ceiling::hbm_bandwidth));
  peaks.write("h200.json", R"({"ceilings": {"hbm_bandwidth":
      {"value": 4300.5, "unit": "GB/s", "source": "aisp bench peak, 2026-12-01"}}})");
  const auto stored = resolve_ceiling(peaks.path(), "h200", Ceiling::hbm_bandwidth);
  ASSERT_TRUE(stored);
  EXPECT_DOUBLE_EQ(stored->value, 4300.5);
  EXPECT_NE(stored->source.find("aisp bench peak"), std::string::npos);
  EXPECT_NE(stored->source.find("h200.json"), std::string::npos);
  // Not in the file: the built-in value.
  EXPECT_DOUBLE_EQ(resolve_ceiling(peaks.path(), "h200", Ceiling::fp8_tensor)->value, 1438);
  // A multi-GPU key uses the single-GPU file.
  EXPECT_DOUBLE_EQ(resolve_ceiling(peaks.path(), "2x_h200", Ceiling::hbm_bandwidth)->value, 4300.5);
  // No directory at all: the built-in value.
  EXPECT_DOUBLE_EQ(resolve_ceiling(peaks.path() / "absent", "h200", Ceiling::hbm_bandwidth)->value,
                   4275);
}

TEST(Ceilings, StoreKeepsOtherEntries) {
  const TemporaryDirectory peaks;
  store_ceiling(peaks.path(), "b200", Ceiling::hbm_bandwidth, {7000, "GB/s", "test"});
  store_ceiling(peaks.path(), "b200", Ceiling::bf16_tensor, {1500, "", "test"});
  EXPECT_DOUBLE_EQ(stored_ceiling(peaks.path(), "b200", Ceiling::hbm_bandwidth)->value, 7000);
  const auto bf16 = stored_ceiling(peaks.path(), "b200", Ceiling::bf16_tensor);
  ASSERT_TRUE(bf16);
  EXPECT_EQ(bf16->unit, "TFLOP/s");
}

TEST(Ceilings, CorruptFileIsAClearError) {
  const TemporaryDirectory peaks;
  peaks.write("h200.json", R"({"ceilings": {"hbm_bandwidth": {"value": 42)");
  try {
    resolve_ceiling(peaks.path(), "h200", Ceiling::hbm_bandwidth);
    FAIL() << "a corrupt file must not be ignored";
  } catch (const std::runtime_error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("h200.json"), std::string::npos) << message;
    EXPECT_NE(message.find("not valid JSON"), std::string::npos) << message;
  }
}

TEST(Ceilings, MalformedEntriesAreErrors) {
  const TemporaryDirectory peaks;
  peaks.write("h200.json", R"({"ceilings": {"hbm_bandwidth": {"value": "fast"}}})");
  EXPECT_THROW(stored_ceiling(peaks.path(), "h200", Ceiling::hbm_bandwidth), std::runtime_error);
  peaks.write("h200.json", R"({"ceilings": {"hbm_bandwidth": {"value": 4.3, "unit": "TB/s"}}})");
  EXPECT_THROW(stored_ceiling(peaks.path(), "h200", Ceiling::hbm_bandwidth), std::runtime_error);
  peaks.write("h200.json", R"({"ceilings": {"hbm_bandwidth": {"value": -1}}})");
  EXPECT_THROW(stored_ceiling(peaks.path(), "h200", Ceiling::hbm_bandwidth), std::runtime_error);
  peaks.write("h200.json", R"([1, 2])");
  EXPECT_THROW(stored_ceiling(peaks.path(), "h200", Ceiling::hbm_bandwidth), std::runtime_error);
}

}  // namespace
}  // namespace aisp
