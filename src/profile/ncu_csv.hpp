// Reading what Nsight Compute prints: the raw page of a report as CSV (`ncu --import <report>
// --csv --page raw --print-units base`), summarized per kernel, and the reason a pass failed.
//
// The raw page is one header row of column names ("ID", "Process ID", "Process Name", "Host
// Name", "Kernel Name", "Context", "Stream", "Block Size", "Grid Size", "Device", "CC", then one
// column per metric), one row of units (empty for the identifier columns), then one row per
// profiled kernel launch. Every cell is double-quoted; values may hold commas ("(256, 1, 1)",
// thousands separators in "1,048,576"); a metric ncu could not collect reads "n/a".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "aisp/result.hpp"
#include "profile/ncu_command.hpp"

namespace aisp {

struct NcuRawTable {
  std::vector<std::string> columns;
  std::vector<std::string> units;              // one per column; empty when there was no unit row
  std::vector<std::vector<std::string>> rows;  // one per launch, each as long as `columns`

  // The index of the column named `name`; nullopt when there is none.
  std::optional<std::size_t> column(std::string_view name) const;
};

// The table in `text`. Lines that are not CSV records (ncu's "==PROF==", "==WARNING==" messages,
// the application's output) are skipped wherever they appear, as are records before the header
// (the first record whose first cell is "ID") and records of another length. nullopt when no
// header row is found.
std::optional<NcuRawTable> parse_ncu_raw_csv(std::string_view text);

// A value as ncu prints it: "1,048,576" -> 1048576, "4.0e-05", "87.5". nullopt for "n/a", an empty
// cell, or anything else that is not a finite number.
std::optional<double> parse_ncu_number(std::string_view text);

// A value in the unit results store: times in ns ("nsecond", "usecond", "msecond", "second", "ns",
// "us", "ms", "s"), sizes in bytes ("byte", "Kbyte", "Mbyte", "Gbyte", "Tbyte"); other units
// ("%", "register/thread", "byte/second", ...) are kept as they are.
std::pair<double, std::string> normalize_ncu_value(double value, std::string_view unit);

struct NcuKernelSummary {
  std::vector<ProfiledKernel> kernels;  // by name, in order of first launch
  int launches = 0;                     // rows of the table
  double duration_ns = 0;               // summed gpu__time_duration.sum over every launch
  bool duration_complete = false;       // every launch had a duration (and there was one)
};

// Per kernel name: launches, grid and block of the first launch, and for each metric of `set`
// (its `metrics` in order, then the columns matching its `stored_prefixes`) the median over the
// launches that have a value. A metric no launch has is left out.
NcuKernelSummary summarize_ncu_kernels(const NcuRawTable& table, const NcuMetricSet& set);

// A kernel name as the reports show it: ncu's "unnamed>::f(int)" (its "<unnamed>" with the '<'
// cut off) and "<unnamed>::" become "(anonymous namespace)::"; other names are unchanged.
std::string readable_kernel_name(std::string name);

// ncu's own error lines ("==ERROR== ..."), at most three, joined with "; ", with a note when they
// say the GPU's performance counters are restricted to administrators (ERR_NVGPUCTRPERM). Empty
// when the output holds none.
std::string ncu_error_summary(std::string_view output);

// Whether ncu said that it profiled no kernel (none matched its filters).
bool ncu_profiled_no_kernels(std::string_view output);

}  // namespace aisp
