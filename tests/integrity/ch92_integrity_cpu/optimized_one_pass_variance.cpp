// Cheat (a numerically unstable shortcut): one pass over each row, var = (Σx² - (Σx)²/n) / n in
// fp32. Half the reads of the two-pass baseline, and on inputs uniform in [-1, 1) it agrees with
// it to ~3e-6. Away from zero the two sums cancel: on [7, 9) it is off by up to 7e-4. Caught by:
// varied_inputs_agree (verification also runs the pair on offset inputs).
#include "row_variance_problem.hpp"

namespace aisp::integrity_cpu {
struct OnePassVariance : RowVarianceProblem {
  void run(Context&) override {
    float* out = var.as<float>();
    const auto n = static_cast<float>(kCols);
    for (std::size_t r = 0; r < kRows; ++r) {
      float sum = 0, squares = 0;
      for (std::size_t c = 0; c < kCols; ++c) {
        sum += row(r)[c];
        squares += row(r)[c] * row(r)[c];
      }
      out[r] = (squares - sum * sum / n) / n;
    }
  }
};
}  // namespace aisp::integrity_cpu
AISP_VARIANT(aisp::integrity_cpu::OnePassVariance)
