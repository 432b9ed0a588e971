// `aisp bench peak`: measures this machine's ceilings (src/peak/measurements.hpp, one file per
// measurement), prints them next to ANCHORS.md's figures, and stores each ceiling with
// store_ceiling under the machine's hardware key, where rooflines read it first
// (resolve_ceiling). docs/peaks.md describes every figure.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "aisp/benchmark.hpp"
#include "aisp/result.hpp"
#include "results/artifacts_layout.hpp"
#include "system/anchor_figures.hpp"
#include "system/ceilings.hpp"

namespace aisp {

struct BenchPeakOptions {
  // Where the ceilings go: <peaks_dir>/<hardware key>.json, and the host's own figures to
  // <peaks_dir>/<host key>.json (ceilings.hpp, host_hardware_key). The harness reads
  // <artifacts dir>/peaks, so the default matches `bench run`'s default artifacts dir.
  std::filesystem::path peaks_dir = artifacts::default_peaks_dir();
  bool quick = false;  // smaller sizes, fewer repetitions: for tests, not for ceilings to trust
  bool json = false;
  std::filesystem::path json_file;  // also write the JSON report here (empty: no file)
  // Measure only these figures (PeakFigure::name; peak_figure_names() lists them); empty: all.
  // The others are neither measured nor touched in the peaks file.
  std::vector<std::string> figures;
};

// Every figure `bench peak` can measure, in the order it measures them.
const std::vector<std::string>& peak_figure_names();

enum class PeakStatus { measured, skipped, failed };

// One figure of the report, whether measured or not.
struct PeakFigure {
  std::string name;   // stable identifier, the JSON key: "hbm_copy_memcpy"
  std::string label;  // what the table says: "HBM copy, cudaMemcpyAsync"
  std::string unit;   // "GB/s", "TFLOP/s", "us"
  // The ceiling this figure measures (a candidate to store); Ceiling::none for information.
  Ceiling ceiling = Ceiling::none;
  PeakStatus status = PeakStatus::measured;
  std::string reason;  // why it was skipped or failed
  std::vector<double> repetitions;
  double median = 0;
  std::string method;                  // PeakSamples::method
  std::string tool;                    // PeakSamples::tool
  bool stored = false;                 // chosen to be stored (choose_stored_figures)
  // Stored in the peaks file's "figures", not as a ceiling (NCCL's bus bandwidths: store_figure).
  bool stored_as_figure = false;
  std::string source;                  // the source string stored with it
  // ANCHORS.md's figure for this measurement, and whether it should agree (anchor_figures.hpp).
  std::optional<FigureAnchor> anchor;
};

struct PeakReport {
  std::string hardware_key;
  int device = 0;
  int gpu_count = 0;
  std::string gpu_name;
  int compute_capability = 0;
  std::string cuda_runtime;  // "13.0"
  std::string driver;        // "580.95.05"
  std::string date;          // UTC, "2026-11-25"
  bool quick = false;
  std::filesystem::path peaks_file;
  std::vector<PeakFigure> figures;
  std::optional<GpuState> state_before;  // NVML, when available: clocks, power, clock events
  std::optional<GpuState> state_after;
  int stored_count = 0;
  std::string store_error;  // why the peaks file could not be written; empty when it was
  // Why no GPU was measured (none visible, or unusable): only the host's figures were; empty
  // when the GPU was measured.
  std::string no_gpu;
};

// Marks the figures to store: every measured one with a ceiling, except that where several
// measure the same ceiling (fp32_simt: the FMA kernel and cuBLAS SGEMM), only the largest is.
void choose_stored_figures(std::vector<PeakFigure>& figures);

// Writes each figure's source string: what was measured, how, with what, when, on which GPU and
// CUDA version; for a ceiling with several candidates, which one won and by how much.
void write_sources(PeakReport& report);

// The table: each figure, its unit, ANCHORS.md's value where there is one and the ratio, and
// whether it was stored.
std::string format_peak_report(const PeakReport& report);
nlohmann::ordered_json peak_report_to_json(const PeakReport& report);

// Measures, prints (text or JSON on `out`), stores. Exit code: 0 when every figure was measured
// or skipped with a reason and the ceilings were stored; 1 when a figure failed or the peaks
// file could not be written. Without a usable GPU it measures the host's figures only
// (host_memory_bandwidth), skips the others with the reason and says so on `err`.
int run_bench_peak(const BenchPeakOptions& options, std::ostream& out, std::ostream& err);

}  // namespace aisp
