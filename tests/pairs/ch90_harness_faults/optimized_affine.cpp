// Honest: the same loop split over host threads. Must pass verification and get a speedup with
// a confidence interval (whatever its verdict on a 2-core machine).
#include <thread>
#include <vector>

#include "cpu_affine_problem.hpp"

namespace aisp::test_pairs {
struct ThreadedAffine : CpuAffineProblem {
  void run(Context& ctx) override {
    const std::size_t workers = static_cast<std::size_t>(ctx.host_threads());
    const std::size_t chunk = (kCount + workers - 1) / workers;
    std::vector<std::thread> pool;
    for (std::size_t w = 0; w < workers; ++w)
      pool.emplace_back([this, w, chunk] { affine(w * chunk, std::min(kCount, (w + 1) * chunk)); });
    for (auto& t : pool) t.join();
  }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::ThreadedAffine)
