// Test-only pairs whose optimized variant writes a scratch file (ctx.scratch_dir(), as the file
// read pairs of chapter 5 do) and then never finishes: it crashes, or it hangs until the
// orchestrator kills it at --timeout or on Ctrl-C. tests/cli/test_signals_and_scratch.sh checks
// that no scratch is left in TMPDIR however the worker ended.
#pragma once

#include <fstream>
#include <vector>

#include "cpu_affine_problem.hpp"

namespace aisp::test_pairs {

// Writes 1 MiB into the scratch directory in setup, as a pair that reads a file would.
struct ScratchWritingVariant : CpuAffineProblem {
  void setup(Context& ctx) override {
    CpuAffineProblem::setup(ctx);
    std::ofstream file(ctx.scratch_dir() / "scratch.bin", std::ios::binary);
    const std::vector<char> bytes(std::size_t{1} << 20, 'x');
    file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!file)
      throw Unavailable("scratch_problem: cannot write into ctx.scratch_dir()");
  }
};

}  // namespace aisp::test_pairs
