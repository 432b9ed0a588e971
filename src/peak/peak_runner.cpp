// The order of the measurements, their sizes, the report and the store. Each figure is measured
// in its own try block: one that fails (out of memory, a library without an algorithm) is
// reported as failed and the others still run.
#include "peak/peak_runner.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <exception>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/nccl_library.hpp"
#include "measure/statistics.hpp"
#include "peak/measurements.hpp"
#include "system/build_info.hpp"
#include "system/device_snapshot.hpp"
#include "system/nvml_probe.hpp"
#include "system/system_info.hpp"

namespace aisp {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr std::size_t kGiB = std::size_t{1} << 30;

// How big and how many: the full sizes are ANCHORS.md's (4 GiB copies, 8192³ GEMMs, 1 GiB
// transfers, 1000 launches); --quick shrinks everything so a test finishes in seconds.
struct PeakSizes {
  std::size_t copy_bytes;
  std::size_t min_copy_bytes;  // below this, a copy would measure latency, not bandwidth
  int gemm_n;
  std::size_t transfer_bytes;
  std::size_t peer_bytes;
  int launches;
  int graph_nodes;
  int pageable_allocations;  // fresh pageable buffers the pageable repetitions spread over
  std::size_t host_copy_bytes;  // host memory copy: far above any last-level cache
  peak::RepetitionPlan device_plan;    // copies, kernels, GEMMs, peer copies
  peak::RepetitionPlan transfer_plan;  // host transfers (a pageable 1 GiB copy takes ~150 ms)
  peak::RepetitionPlan launch_plan;    // launch loops
};

PeakSizes sizes_for(bool quick) {
  if (quick) {
    return {256 * kMiB, 16 * kMiB,  2048,      64 * kMiB, 64 * kMiB, 200,
            200,        1,          256 * kMiB, {3, 0.02}, {3, 0.0},  {3, 0.0}};
  }
  return {4 * kGiB, 64 * kMiB, 8192, kGiB,      kGiB,       1000,
          1000,     4,         kGiB, {20, 0.2}, {12, 0.0}, {20, 0.05}};
}

std::string utc_date() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  return fmt::format("{:04}-{:02}-{:02}", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday);
}

std::string cuda_version_text(int version) {
  return version > 0 ? fmt::format("{}.{}", version / 1000, version % 1000 / 10) : "unknown";
}

// Four significant figures without an exponent for the magnitudes the report shows.
std::string value_text(double value) {
  const double magnitude = std::abs(value);
  if (!std::isfinite(value)) {
    return fmt::format("{}", value);
  }
  if (magnitude >= 1000) {
    return fmt::format("{:.0f}", value);
  }
  if (magnitude >= 100) {
    return fmt::format("{:.1f}", value);
  }
  if (magnitude >= 1) {
    return fmt::format("{:.2f}", value);
  }
  return fmt::format("{:.3f}", value);
}

std::string_view status_name(PeakStatus status) {
  switch (status) {
  case PeakStatus::measured:
    return "measured";
  case PeakStatus::skipped:
    return "skipped";
  case PeakStatus::failed:
    return "failed";
  }
  return "failed";
}

bool lower_is_better(const PeakFigure& figure) { return figure.unit == "us"; }

PeakFigure make_figure(std::string name, std::string label, std::string unit,
                       Ceiling ceiling = Ceiling::none) {
  PeakFigure figure;
  figure.name = std::move(name);
  figure.label = std::move(label);
  figure.unit = std::move(unit);
  figure.ceiling = ceiling;
  return figure;
}

// Runs measurements into the report's figures, catching each one's failure. Figures left out by
// --figures are neither measured nor reported.
class FigureRecorder {
 public:
  FigureRecorder(std::vector<PeakFigure>& figures, std::ostream* progress,
                 std::vector<std::string> selected)
      : figures_(figures), progress_(progress), selected_(std::move(selected)) {}

  // Whether any of `names` is to be measured: lets a group skip its setup (buffers of GiBs).
  bool wants_any(std::initializer_list<std::string_view> names) const {
    return std::any_of(names.begin(), names.end(), [&](std::string_view name) { return wants(name); });
  }

  // Every figure measured must be listed in peak_figure_names(), which --figures checks names
  // against: a figure missing there could never be selected.
  bool wants(std::string_view name) const {
    const auto& known = peak_figure_names();
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      throw std::logic_error(fmt::format("bench peak: figure '{}' is not in peak_figure_names()",
                                         name));
    }
    return selected_.empty() ||
           std::find(selected_.begin(), selected_.end(), name) != selected_.end();
  }

  void measure(PeakFigure figure, const std::function<peak::PeakSamples()>& run) {
    if (!wants(figure.name)) {
      return;
    }
    if (progress_ != nullptr) {
      *progress_ << "  measuring " << figure.label << " ..." << std::endl;
    }
    try {
      peak::PeakSamples samples = run();
      figure.repetitions = std::move(samples.values);
      figure.median = median(figure.repetitions);
      figure.method = std::move(samples.method);
      figure.tool = std::move(samples.tool);
      figure.status = PeakStatus::measured;
    } catch (const std::exception& error) {
      figure.status = PeakStatus::failed;
      figure.reason = error.what();
    }
    figures_.push_back(std::move(figure));
  }

  void skip(PeakFigure figure, std::string reason) {
    if (!wants(figure.name)) {
      return;
    }
    figure.status = PeakStatus::skipped;
    figure.reason = std::move(reason);
    figures_.push_back(std::move(figure));
  }

 private:
  std::vector<PeakFigure>& figures_;
  std::ostream* progress_;
  std::vector<std::string> selected_;  // empty: all
};

// The largest copy size that leaves room on the device: both buffers plus 512 MiB for the
// context, the library workspaces and anything else resident.
std::size_t fitting_copy_bytes(const PeakSizes& sizes, std::size_t free_bytes) {
  std::size_t bytes = sizes.copy_bytes;
  if (free_bytes == 0) {  // unknown (cudaMemGetInfo failed): try the full size
    return bytes;
  }
  while (bytes >= 2 * sizes.min_copy_bytes && 2 * bytes + 512 * kMiB > free_bytes) {
    bytes /= 2;
  }
  return bytes;
}

// Figures of the host alone, measured with or without a GPU.
void measure_host_figures(const PeakSizes& sizes, FigureRecorder& recorder) {
  recorder.measure(make_figure("host_memory_bandwidth",
                               fmt::format("host memory copy {}, every core",
                                           peak::size_text(sizes.host_copy_bytes)),
                               "GB/s", Ceiling::host_memory_bandwidth),
                   [&] {
                     return peak::measure_host_memory_bandwidth(sizes.host_copy_bytes,
                                                                sizes.transfer_plan);
                   });
}

void measure_all(const peak::GpuUnderTest& gpu, int gpu_count, const PeakSizes& sizes,
                 const std::optional<std::string>& kernels_unavailable, bool quick,
                 FigureRecorder& recorder) {
  // --- Launch costs first, the graph before the launch loops: on H200s a graph of empty kernels
  // replays at ~0.51 us per node in a fresh context and at ~0.68 after some earlier work (launch
  // loops, our kernels; docs/peaks.md), and the ceiling is what the hardware can do.
  PeakFigure sync = make_figure("launch_with_sync", "empty kernel, synchronize after each", "us");
  PeakFigure async = make_figure("launch_async", "empty kernel, back to back", "us");
  PeakFigure graph =
      make_figure("graph_node_launch",
                  fmt::format("CUDA graph of {} empty kernels, per node", sizes.graph_nodes), "us",
                  Ceiling::graph_node_launch);
  if (kernels_unavailable) {
    recorder.skip(std::move(graph), *kernels_unavailable);
    recorder.skip(std::move(sync), *kernels_unavailable);
    recorder.skip(std::move(async), *kernels_unavailable);
  } else {
    recorder.measure(std::move(graph), [&] {
      return peak::measure_graph_node_cost(sizes.graph_nodes, sizes.launch_plan);
    });
    recorder.measure(std::move(sync), [&] {
      return peak::measure_launch_with_sync(sizes.launches, sizes.launch_plan);
    });
    recorder.measure(std::move(async),
                     [&] { return peak::measure_launch_async(sizes.launches, sizes.launch_plan); });
  }

  // --- HBM: both copies share one pair of buffers, freed before anything else is allocated.
  if (recorder.wants_any({"hbm_copy_memcpy", "hbm_copy_float4_kernel"})) {
    const std::size_t bytes = fitting_copy_bytes(sizes, gpu.free_bytes);
    std::optional<peak::DeviceCopyBenchmark> copy;
    std::string setup_error;
    try {
      if (bytes < sizes.min_copy_bytes) {
        throw std::runtime_error(fmt::format(
            "only {} free on the device, too little for two copy buffers of {}: free device "
            "memory (other processes?) and rerun",
            peak::size_text(gpu.free_bytes), peak::size_text(sizes.min_copy_bytes)));
      }
      copy.emplace(bytes, gpu);
    } catch (const std::exception& error) {
      setup_error = error.what();
    }
    const auto with_copy = [&](auto measure) {
      return [&, measure]() -> peak::PeakSamples {
        if (!copy) {
          throw std::runtime_error(setup_error);
        }
        peak::PeakSamples samples = measure(*copy);
        if (bytes != sizes.copy_bytes) {
          samples.method +=
              fmt::format(" (reduced from {}: {} free)", peak::size_text(sizes.copy_bytes),
                          peak::size_text(gpu.free_bytes));
        }
        return samples;
      };
    };
    recorder.measure(
        make_figure("hbm_copy_memcpy",
                    fmt::format("HBM copy, cudaMemcpyAsync {}", peak::size_text(bytes)), "GB/s",
                    Ceiling::hbm_bandwidth),
        with_copy([&](peak::DeviceCopyBenchmark& benchmark) {
          return benchmark.measure_memcpy(sizes.device_plan);
        }));
    PeakFigure kernel_copy = make_figure(
        "hbm_copy_float4_kernel",
        fmt::format("HBM copy, float4 grid-stride kernel {}", peak::size_text(bytes)), "GB/s");
    if (kernels_unavailable) {
      recorder.skip(std::move(kernel_copy), *kernels_unavailable);
    } else {
      recorder.measure(std::move(kernel_copy), with_copy([&](peak::DeviceCopyBenchmark& benchmark) {
                         return benchmark.measure_float4_kernel(sizes.device_plan);
                       }));
    }
  }

  // --- Kernels of our own: L2 and FP32.
  PeakFigure l2 =
      make_figure("l2_read", "L2 read, buffer of half the L2", "GB/s", Ceiling::l2_bandwidth);
  PeakFigure fma =
      make_figure("fp32_fma_kernel", "FP32 FMA chains kernel", "TFLOP/s", Ceiling::fp32_simt);
  if (kernels_unavailable) {
    recorder.skip(std::move(l2), *kernels_unavailable);
    recorder.skip(std::move(fma), *kernels_unavailable);
  } else {
    recorder.measure(std::move(l2), [&] {
      return peak::measure_l2_read_bandwidth(gpu, sizes.device_plan, quick);
    });
    recorder.measure(std::move(fma),
                     [&] { return peak::measure_fp32_fma_rate(gpu, sizes.device_plan, quick); });
  }

  // --- GEMMs through the libraries.
  struct GemmFigure {
    peak::GemmPrecision precision;
    const char* name;
    const char* label;
    const char* library;
    Ceiling ceiling;
  };
  const GemmFigure gemms[] = {
      {peak::GemmPrecision::fp32, "fp32_sgemm", "FP32 SGEMM", "cuBLASLt", Ceiling::fp32_simt},
      {peak::GemmPrecision::tf32, "tf32_gemm", "TF32 GEMM", "cuBLASLt", Ceiling::tf32_tensor},
      {peak::GemmPrecision::bf16, "bf16_gemm", "BF16 GEMM", "cuBLASLt", Ceiling::bf16_tensor},
      {peak::GemmPrecision::fp16, "fp16_gemm", "FP16 GEMM", "cuBLASLt", Ceiling::fp16_tensor},
      {peak::GemmPrecision::fp8_e4m3, "fp8_e4m3_gemm", "FP8 e4m3 GEMM", "cuBLASLt",
       Ceiling::fp8_tensor},
  };
  for (const GemmFigure& gemm : gemms) {
    PeakFigure figure =
        make_figure(gemm.name, fmt::format("{} {}^3, {}", gemm.label, sizes.gemm_n, gemm.library),
                    "TFLOP/s", gemm.ceiling);
    if (const std::optional<std::string> reason = peak::gemm_unsupported(gemm.precision, gpu)) {
      recorder.skip(std::move(figure), *reason);
      continue;
    }
    recorder.measure(std::move(figure), [&] {
      return peak::measure_gemm_rate(gemm.precision, sizes.gemm_n, sizes.device_plan);
    });
  }

  // --- Host transfers: one set of buffers for the four directions.
  if (recorder.wants_any({"host_to_device_pinned", "device_to_host_pinned",
                          "host_to_device_pageable", "device_to_host_pageable"})) {
    std::optional<peak::HostTransferBenchmark> transfers;
    std::string setup_error;
    try {
      transfers.emplace(sizes.transfer_bytes, sizes.pageable_allocations);
    } catch (const std::exception& error) {
      setup_error = error.what();
    }
    struct TransferFigure {
      peak::HostTransfer transfer;
      const char* name;
      const char* label;
      Ceiling ceiling;
    };
    const TransferFigure figures[] = {
        {peak::HostTransfer::host_to_device_pinned, "host_to_device_pinned",
         "host -> device, pinned", Ceiling::host_to_device_pinned},
        {peak::HostTransfer::device_to_host_pinned, "device_to_host_pinned",
         "device -> host, pinned", Ceiling::device_to_host_pinned},
        {peak::HostTransfer::host_to_device_pageable, "host_to_device_pageable",
         "host -> device, pageable", Ceiling::host_to_device_pageable},
        {peak::HostTransfer::device_to_host_pageable, "device_to_host_pageable",
         "device -> host, pageable", Ceiling::none},
    };
    for (const TransferFigure& transfer : figures) {
      recorder.measure(
          make_figure(transfer.name,
                      fmt::format("{} {}", transfer.label, peak::size_text(sizes.transfer_bytes)),
                      "GB/s", transfer.ceiling),
          [&] {
            if (!transfers) {
              throw std::runtime_error(setup_error);
            }
            return transfers->measure(transfer.transfer, sizes.transfer_plan);
          });
    }
  }

  // --- GPU to GPU, each way: the nvlink_peer ceiling of the multi-GPU pairs (ch02, ch04) is the
  // faster direction, stored under the multi-GPU hardware key ("2x_h200").
  const int peer_device = gpu.device == 0 ? 1 : 0;
  for (const auto& [name, from, to] :
       {std::tuple{"peer_copy_0_to_1", gpu.device, peer_device},
        std::tuple{"peer_copy_1_to_0", peer_device, gpu.device}}) {
    PeakFigure peer = make_figure(name, fmt::format("GPU {} -> GPU {}, cudaMemcpyPeerAsync", from, to),
                                  "GB/s", Ceiling::nvlink_peer);
    if (gpu_count < 2) {
      recorder.skip(std::move(peer), fmt::format("needs 2 GPUs; {} visible", gpu_count));
      continue;
    }
    recorder.measure(std::move(peer), [&, from = from, to = to] {
      return peak::measure_peer_copy(from, to, sizes.peer_bytes, sizes.device_plan);
    });
    // Back on the measured GPU for the launch figures (a failure shows in their rows).
    static_cast<void>(cudaSetDevice(gpu.device));
  }
  PeakFigure both = make_figure("peer_copy_both_ways",
                                fmt::format("GPU {} <-> GPU {} at once, cudaMemcpyPeerAsync",
                                            gpu.device, peer_device),
                                "GB/s");
  if (gpu_count < 2) {
    recorder.skip(std::move(both), fmt::format("needs 2 GPUs; {} visible", gpu_count));
  } else {
    recorder.measure(std::move(both), [&] {
      return peak::measure_peer_copy_both_ways(gpu.device, peer_device, sizes.peer_bytes,
                                               sizes.device_plan);
    });
    static_cast<void>(cudaSetDevice(gpu.device));
  }

  // --- NCCL's bus bandwidth over every visible GPU (information, stored under the machine's key
  // in the peaks file's "figures": docs/peaks.md), a size sweep from 64 KiB up to the peer copy's
  // size, each 16 times the last.
  std::vector<std::size_t> nccl_sizes;
  for (std::size_t bytes = 64 * 1024; bytes < sizes.peer_bytes; bytes *= 16) {
    nccl_sizes.push_back(bytes);
  }
  nccl_sizes.push_back(sizes.peer_bytes);
  const bool wants_nccl =
      recorder.wants_any({"nccl_all_reduce_busbw", "nccl_all_gather_busbw",
                          "nccl_reduce_scatter_busbw", "nccl_all_to_all_busbw"});
  // Loads libnccl.so.2 (once per process), so only when a figure needs it.
  const std::string nccl_missing =
      gpu_count < 2 || !wants_nccl ? std::string() : detail::nccl_unavailable_reason();
  for (const peak::NcclCollective collective :
       {peak::NcclCollective::all_reduce, peak::NcclCollective::all_gather,
        peak::NcclCollective::reduce_scatter, peak::NcclCollective::all_to_all}) {
    PeakFigure figure = make_figure(std::string(peak::nccl_busbw_figure_name(collective)),
                                    fmt::format("NCCL {} bus bandwidth, {} GPUs, {} to {}",
                                                peak::nccl_collective_name(collective), gpu_count,
                                                peak::size_text(nccl_sizes.front()),
                                                peak::size_text(sizes.peer_bytes)),
                                    "GB/s");
    if (gpu_count < 2) {
      recorder.skip(std::move(figure), fmt::format("needs 2 GPUs; {} visible", gpu_count));
      continue;
    }
    if (!nccl_missing.empty()) {
      recorder.skip(std::move(figure), nccl_missing);
      continue;
    }
    recorder.measure(std::move(figure), [&, collective] {
      return peak::measure_nccl_bus_bandwidth(collective, gpu_count, nccl_sizes, sizes.device_plan);
    });
    static_cast<void>(cudaSetDevice(gpu.device));
  }

  // --- The host's own memory, last (no GPU work in it).
  measure_host_figures(sizes, recorder);
}

std::string gpu_state_text(const GpuState& state) {
  const auto or_unknown = [](const auto& value, std::string_view unit) {
    return value ? fmt::format("{}{}", *value, unit) : std::string("?");
  };
  return fmt::format(
      "SM {}, memory {}, {}, {}, clock-event reasons: {}", or_unknown(state.sm_clock_mhz, " MHz"),
      or_unknown(state.memory_clock_mhz, " MHz"), or_unknown(state.power_w, " W"),
      or_unknown(state.temperature_c, " C"),
      state.throttle_reasons.empty() ? std::string("none")
                                     : fmt::format("{}", fmt::join(state.throttle_reasons, ",")));
}

nlohmann::ordered_json figure_to_json(const PeakFigure& figure) {
  nlohmann::ordered_json json{
      {"name", figure.name},
      {"label", figure.label},
      {"unit", figure.unit},
      {"ceiling", figure.ceiling == Ceiling::none
                      ? nlohmann::ordered_json(nullptr)
                      : nlohmann::ordered_json(std::string(ceiling_name(figure.ceiling)))},
      {"status", status_name(figure.status)},
  };
  if (figure.status != PeakStatus::measured) {
    json["reason"] = figure.reason;
    return json;
  }
  json["value"] = figure.median;
  json["repetitions"] = figure.repetitions;
  json["method"] = figure.method;
  json["tool"] = figure.tool;
  json["stored"] = figure.stored || figure.stored_as_figure;
  json["source"] = figure.source;
  if (figure.anchor) {
    const bool judged = figure.anchor->kind == AnchorKind::gpu_ceiling;
    json["anchor"] = {{"low", figure.anchor->low},
                      {"high", figure.anchor->high},
                      {"kind", judged ? "gpu_ceiling" : "host_dependent"},
                      {"source", figure.anchor->source}};
    json["ratio_to_anchor"] = figure.median / figure.anchor->middle();
    json["agrees_with_anchor"] =
        judged ? nlohmann::ordered_json(agrees_with_anchor(figure.median, *figure.anchor))
               : nlohmann::ordered_json(nullptr);
  } else {
    json["anchor"] = nullptr;
    json["ratio_to_anchor"] = nullptr;
    json["agrees_with_anchor"] = nullptr;
  }
  return json;
}

}  // namespace

const std::vector<std::string>& peak_figure_names() {
  static const std::vector<std::string> names{
      "graph_node_launch",     "launch_with_sync",        "launch_async",
      "hbm_copy_memcpy",       "hbm_copy_float4_kernel",  "l2_read",
      "fp32_fma_kernel",       "fp32_sgemm",              "tf32_gemm",
      "bf16_gemm",             "fp16_gemm",               "fp8_e4m3_gemm",
      "host_to_device_pinned", "device_to_host_pinned",   "host_to_device_pageable",
      "device_to_host_pageable", "peer_copy_0_to_1",      "peer_copy_1_to_0",
      "peer_copy_both_ways",   "nccl_all_reduce_busbw",   "nccl_all_gather_busbw",
      "nccl_reduce_scatter_busbw", "nccl_all_to_all_busbw", "host_memory_bandwidth"};
  return names;
}

void choose_stored_figures(std::vector<PeakFigure>& figures) {
  std::map<Ceiling, PeakFigure*> best;
  for (PeakFigure& figure : figures) {
    figure.stored = false;
    if (figure.status != PeakStatus::measured || figure.ceiling == Ceiling::none ||
        !std::isfinite(figure.median) || figure.median <= 0) {
      continue;
    }
    PeakFigure*& current = best[figure.ceiling];
    if (current == nullptr || (lower_is_better(figure) ? figure.median < current->median
                                                       : figure.median > current->median)) {
      current = &figure;
    }
  }
  for (auto& [ceiling, figure] : best) {
    figure->stored = true;
  }
}

void write_sources(PeakReport& report) {
  for (PeakFigure& figure : report.figures) {
    if (figure.status != PeakStatus::measured) {
      continue;
    }
    const std::string machine =
        ceiling_is_host_scoped(figure.ceiling)
            ? fmt::format("this host (host key {})", host_hardware_key())
            : fmt::format("{} (GPU {}, hardware key {}); CUDA runtime {}, driver {}",
                          report.gpu_name, report.device, report.hardware_key,
                          report.cuda_runtime, report.driver.empty() ? "unknown" : report.driver);
    figure.source = fmt::format("aisp bench peak{}, {}: {} = {} {}, median of {} ({}); {}; {}",
                                report.quick ? " --quick" : "", report.date, figure.label,
                                value_text(figure.median), figure.unit, figure.repetitions.size(),
                                figure.method, figure.tool, machine);
  }
  // A ceiling with several candidates says which one won, and against what.
  for (PeakFigure& figure : report.figures) {
    if (!figure.stored) {
      continue;
    }
    std::vector<std::string> candidates;
    for (const PeakFigure& other : report.figures) {
      if (other.status == PeakStatus::measured && other.ceiling == figure.ceiling) {
        candidates.push_back(
            fmt::format("{} {} {}", other.label, value_text(other.median), other.unit));
      }
    }
    if (candidates.size() > 1) {
      figure.source =
          fmt::format("{} is the {} of: {}; stored: {}. {}", ceiling_name(figure.ceiling),
                      lower_is_better(figure) ? "smallest" : "largest", fmt::join(candidates, ", "),
                      figure.label, figure.source);
    }
  }
}

std::string format_peak_report(const PeakReport& report) {
  std::string text =
      !report.no_gpu.empty()
          ? fmt::format("aisp bench peak{}: no GPU ({}): the host's figures only (host key {}), "
                        "{}\n\n",
                        report.quick ? " --quick" : "", report.no_gpu, host_hardware_key(),
                        report.date)
          : fmt::format("aisp bench peak{}: {} (GPU {} of {}, compute capability {}.{}, hardware "
                        "key {}), CUDA runtime {}, driver {}, {}\n\n",
                        report.quick ? " --quick" : "", report.gpu_name, report.device,
                        report.gpu_count, report.compute_capability / 10,
                        report.compute_capability % 10, report.hardware_key, report.cuda_runtime,
                        report.driver.empty() ? "unknown" : report.driver, report.date);
  std::size_t label_width = 6;
  for (const PeakFigure& figure : report.figures) {
    label_width = std::max(label_width, figure.label.size());
  }
  text += fmt::format("{:<{}}  {:>9}  {:<7}  {:>10}  {:>5}  {:<10}  {}\n", "figure", label_width,
                      "median", "unit", "ANCHORS.md", "ratio", "agreement", "stored as");
  bool any_anchor = false;
  int judged = 0, agreeing = 0, host_dependent = 0;
  for (const PeakFigure& figure : report.figures) {
    if (figure.status != PeakStatus::measured) {
      text +=
          fmt::format("{:<{}}  {}: {}\n", figure.label, label_width,
                      figure.status == PeakStatus::skipped ? "skipped" : "FAILED", figure.reason);
      continue;
    }
    std::string anchor = "-";
    std::string ratio = "-";
    std::string agreement = "-";
    if (figure.anchor) {
      any_anchor = true;
      anchor = figure.anchor->value_text();
      ratio = fmt::format("{:.2f}", figure.median / figure.anchor->middle());
      if (figure.anchor->kind == AnchorKind::host_dependent) {
        agreement = "host";
        ++host_dependent;
      } else {
        ++judged;
        const bool agrees = agrees_with_anchor(figure.median, *figure.anchor);
        agreeing += agrees ? 1 : 0;
        agreement = agrees ? "within 5%" : "OFF";
      }
    }
    std::string stored = "-";
    if (figure.stored_as_figure) {
      stored = "figures." + figure.name;
    } else if (figure.stored) {
      stored = std::string(ceiling_name(figure.ceiling));
    } else if (figure.ceiling != Ceiling::none) {
      stored = fmt::format("- ({}: the other candidate is stored)", ceiling_name(figure.ceiling));
    }
    text += fmt::format("{:<{}}  {:>9}  {:<7}  {:>10}  {:>5}  {:<10}  {}\n", figure.label,
                        label_width, value_text(figure.median), figure.unit, anchor, ratio,
                        agreement, stored);
  }
  text += "\n";
  if (any_anchor) {
    text += fmt::format("ratio = median / ANCHORS.md's figure for {} (the middle of a range; for "
                        "us figures, above 1 is slower).\n",
                        report.hardware_key);
    text += fmt::format(
        "Agreement: {} of {} GPU ceilings within 5% of ANCHORS.md{}; {} host-dependent figure{} "
        "(\"host\": pageable copies, launch and graph costs move with the host's CPU, memory and "
        "driver) shown, not judged (docs/peaks.md).\n",
        agreeing, judged, agreeing == judged ? "" : " (OFF: see the figure's method and the GPU state)",
        host_dependent, host_dependent == 1 ? "" : "s");
  } else {
    text += fmt::format("ANCHORS.md has no figures for {}: nothing to compare with.\n",
                        report.hardware_key);
  }
  if (!report.store_error.empty()) {
    text += fmt::format("error: the ceilings were not stored: {}\n", report.store_error);
  } else if (report.stored_count > 0) {
    const bool host_figure = std::any_of(report.figures.begin(), report.figures.end(),
                                         [](const PeakFigure& f) {
                                           return f.stored && ceiling_is_host_scoped(f.ceiling);
                                         });
    text += fmt::format("Stored {} ceilings in {}{}; rooflines read them before the built-in "
                        "ANCHORS.md table.\n",
                        report.stored_count, report.peaks_file.string(),
                        host_figure && report.no_gpu.empty()
                            ? fmt::format(" (the host's own in {}.json beside it)",
                                          host_hardware_key())
                            : std::string{});
  } else {
    text += "No ceiling was measured, so nothing was stored.\n";
  }
  if (report.state_after) {
    text +=
        fmt::format("GPU state after the measurements: {}\n", gpu_state_text(*report.state_after));
  }
  if (report.quick) {
    text += "--quick: small sizes and few repetitions, so these figures are rough; rerun without "
            "--quick before relying on rooflines computed from them.\n";
  }
  return text;
}

nlohmann::ordered_json peak_report_to_json(const PeakReport& report) {
  nlohmann::ordered_json figures = nlohmann::ordered_json::array();
  for (const PeakFigure& figure : report.figures) {
    figures.push_back(figure_to_json(figure));
  }
  return nlohmann::ordered_json{
      {"hardware_key", report.hardware_key},
      {"gpu",
       {{"index", report.device},
        {"name", report.gpu_name},
        {"compute_capability",
         fmt::format("{}.{}", report.compute_capability / 10, report.compute_capability % 10)}}},
      {"gpu_count", report.gpu_count},
      {"no_gpu", report.no_gpu.empty() ? nlohmann::ordered_json(nullptr)
                                       : nlohmann::ordered_json(report.no_gpu)},
      {"host_key", host_hardware_key()},
      {"cuda_runtime_version", report.cuda_runtime},
      {"nvidia_driver_version", report.driver},
      {"date", report.date},
      {"quick", report.quick},
      {"peaks_file", report.peaks_file.string()},
      {"stored_count", report.stored_count},
      {"store_error", report.store_error.empty() ? nlohmann::ordered_json(nullptr)
                                                 : nlohmann::ordered_json(report.store_error)},
      {"gpu_state_before", report.state_before ? nlohmann::ordered_json::parse(
                                                     gpu_state_to_json(*report.state_before).dump())
                                               : nlohmann::ordered_json(nullptr)},
      {"gpu_state_after", report.state_after ? nlohmann::ordered_json::parse(
                                                   gpu_state_to_json(*report.state_after).dump())
                                             : nlohmann::ordered_json(nullptr)},
      {"figures", std::move(figures)},
  };
}

namespace {

// The figures kept in the peaks file's "figures" (store_figure) rather than as ceilings: NCCL's
// bus bandwidths, measured.
bool is_stored_figure(const PeakFigure& figure) {
  return figure.status == PeakStatus::measured && figure.ceiling == Ceiling::none &&
         figure.name.rfind("nccl_", 0) == 0 && figure.name.size() > 6 &&
         figure.name.compare(figure.name.size() - 6, 6, "_busbw") == 0 &&
         std::isfinite(figure.median) && figure.median > 0;
}

// Chooses, stores and prints: shared by the GPU run and the host-only one. Host-scoped ceilings
// go to the host's own file (ceilings.hpp, host_hardware_key), the others to the machine's.
int store_and_print(const BenchPeakOptions& options, PeakReport& report, std::ostream& out,
                    std::ostream& err) {
  choose_stored_figures(report.figures);
  for (PeakFigure& figure : report.figures) {
    figure.anchor = anchor_for_figure(figure.name, report.hardware_key);
  }
  write_sources(report);
  for (const PeakFigure& figure : report.figures) {
    if (!figure.stored) {
      continue;
    }
    try {
      store_ceiling(options.peaks_dir,
                    ceiling_is_host_scoped(figure.ceiling) ? host_hardware_key()
                                                           : report.hardware_key,
                    figure.ceiling, CeilingValue{figure.median, figure.unit, figure.source});
      ++report.stored_count;
    } catch (const std::exception& error) {
      report.store_error = error.what();
      break;
    }
  }
  // NCCL's bus bandwidths: no pair is judged against them (no Ceiling), but they are the machine's
  // collective figures, kept per hardware key beside its ceilings.
  for (PeakFigure& figure : report.figures) {
    if (!report.store_error.empty() || !is_stored_figure(figure)) {
      continue;
    }
    try {
      store_figure(options.peaks_dir, report.hardware_key, figure.name,
                   CeilingValue{figure.median, figure.unit, figure.source});
      figure.stored_as_figure = true;
      ++report.stored_count;
    } catch (const std::exception& error) {
      report.store_error = error.what();
    }
  }

  if (options.json) {
    out << peak_report_to_json(report).dump(2) << "\n";
  } else {
    out << format_peak_report(report);
  }
  bool failed = !report.store_error.empty();
  if (!options.json_file.empty()) {
    std::ofstream file(options.json_file);
    file << peak_report_to_json(report).dump(2) << "\n";
    if (!file.good()) {
      err << "error: bench peak: could not write the JSON report to " << options.json_file.string()
          << " (does its folder exist and is it writable?); the ceilings were "
          << (report.store_error.empty() ? "stored" : "not stored") << "\n";
      failed = true;
    }
  }
  for (const PeakFigure& figure : report.figures) {
    if (figure.status == PeakStatus::failed) {
      err << "error: bench peak: " << figure.label << ": " << figure.reason << "\n";
      failed = true;
    }
  }
  if (!report.store_error.empty()) {
    err << "error: bench peak: the ceilings were not stored: " << report.store_error << "\n";
  }
  return failed ? 1 : 0;
}

// Without a usable GPU: the host's figures only; every GPU figure is skipped with the reason.
int run_host_only_peak(const BenchPeakOptions& options, const SystemInfo& info,
                       const std::string& no_gpu, std::ostream& out, std::ostream& err) {
  PeakReport report;
  report.hardware_key = hardware_key(info);
  report.no_gpu = no_gpu;
  report.gpu_name = "none";
  report.cuda_runtime = cuda_version_text(info.cuda_runtime_version);
  report.driver = info.nvidia_driver_version;
  report.date = utc_date();
  report.quick = options.quick;
  report.peaks_file = options.peaks_dir / (host_hardware_key() + ".json");
  std::ostream* progress = !options.json && isatty(STDERR_FILENO) != 0 ? &err : nullptr;
  FigureRecorder recorder(report.figures, progress, options.figures);
  for (const std::string& name : peak_figure_names())
    if (name != "host_memory_bandwidth")
      recorder.skip(make_figure(name, name, ""), "no GPU: " + no_gpu);
  measure_host_figures(sizes_for(options.quick), recorder);
  err << "bench peak: no GPU (" << no_gpu << "): measured the host's figures only\n";
  return store_and_print(options, report, out, err);
}

}  // namespace

int run_bench_peak(const BenchPeakOptions& options, std::ostream& out, std::ostream& err) {
  const SystemInfo info = collect_system_info();
  std::string no_gpu;
  std::optional<DeviceSnapshot> snapshot;
  if (info.gpus.empty()) {
    no_gpu = info.gpu_probe_error.empty() ? "no CUDA device is visible" : info.gpu_probe_error;
  } else {
    snapshot = probe_device(info.gpus.front().index);
    if (!snapshot->error.empty()) no_gpu = snapshot->error;
  }
  if (!no_gpu.empty()) {
    return run_host_only_peak(options, info, no_gpu, out, err);
  }
  const GpuInfo& gpu_info = info.gpus.front();
  std::optional<std::string> kernels_unavailable;
  if (!snapshot->binary_has_code) {
    kernels_unavailable =
        fmt::format("this binary has no code for {} (sm_{}): built for {}; rebuild with "
                    "-DCMAKE_CUDA_ARCHITECTURES={} ({})",
                    snapshot->name, snapshot->compute_capability, build_info().cuda_architectures,
                    snapshot->compute_capability, snapshot->code_error);
  }

  peak::GpuUnderTest gpu;
  gpu.device = gpu_info.index;
  gpu.name = gpu_info.name;
  gpu.compute_capability = gpu_info.cc_major * 10 + gpu_info.cc_minor;
  gpu.sm_count = gpu_info.sm_count;
  gpu.l2_bytes = gpu_info.l2_bytes;
  gpu.free_bytes = snapshot->free_bytes;

  PeakReport report;
  report.hardware_key = hardware_key(info);
  report.device = gpu.device;
  report.gpu_count = static_cast<int>(info.gpus.size());
  report.gpu_name = gpu.name;
  report.compute_capability = gpu.compute_capability;
  report.cuda_runtime = cuda_version_text(info.cuda_runtime_version);
  report.driver = info.nvidia_driver_version;
  report.date = utc_date();
  report.quick = options.quick;
  report.peaks_file = options.peaks_dir / (report.hardware_key + ".json");
  if (info.nvml_status == "available") {
    report.state_before = gpu_info.state;
  }

  std::ostream* progress = !options.json && isatty(STDERR_FILENO) != 0 ? &err : nullptr;
  FigureRecorder recorder(report.figures, progress, options.figures);
  measure_all(gpu, report.gpu_count, sizes_for(options.quick), kernels_unavailable, options.quick,
              recorder);

  if (const NvmlProbe nvml; nvml.available()) {
    report.state_after = nvml.read_state(gpu_info.pci_bus_id);
  }
  return store_and_print(options, report, out, err);
}

}  // namespace aisp
