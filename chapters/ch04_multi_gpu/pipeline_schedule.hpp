// The 1F1B pipeline schedule (one forward, one backward: PipeDream-Flush, Megatron-LM's default)
// as plain data, for pipeline_mlp_common.cpp and its CPU unit test
// (tests/unit/test_pipeline_schedule.cpp). No CUDA.
//
// Per stage s of S, for M micro-batches, in the order the stage's stream runs them:
//   warm-up:   F(0) .. F(w-1)                 w = min(S - s - 1, M) forwards
//   steady:    F(w + i), B(i)                 for i = 0 .. M - w - 1
//   drain:     B(M - w) .. B(M - 1)
// A forward of stage s > 0 needs the same micro-batch's forward of stage s-1 (its input
// activation); a backward of stage s < S-1 needs the same micro-batch's backward of stage s+1
// (its output gradient). The host must queue the passes in an order where every pass comes after
// the pass it needs (so each cudaStreamWaitEvent finds its event recorded): host_queue_order
// walks the stages' lists round-robin and takes each stage's next pass as soon as what it needs
// is queued. With M = 1 it is the schedule without micro-batching: every stage's forward in
// stage order, then every stage's backward in reverse.
#pragma once

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace aisp::ch04 {

struct PipelinePass {
  int stage = 0;
  bool forward = true;
  int micro_batch = 0;
};

// The passes of stage `stage` in the order its stream runs them.
inline std::vector<PipelinePass> one_f_one_b_stage_order(int stages, int stage, int micro_batches) {
  if (stages < 1 || stage < 0 || stage >= stages || micro_batches < 1)
    throw std::invalid_argument("one_f_one_b_stage_order: stage " + std::to_string(stage) + " of " +
                                std::to_string(stages) + " with " + std::to_string(micro_batches) +
                                " micro-batches; needs 0 <= stage < stages and micro-batches >= 1");
  const int warm_up = std::min(stages - stage - 1, micro_batches);
  std::vector<PipelinePass> order;
  for (int i = 0; i < warm_up; ++i)
    order.push_back({stage, true, i});
  for (int i = 0; i + warm_up < micro_batches; ++i) {
    order.push_back({stage, true, warm_up + i});
    order.push_back({stage, false, i});
  }
  for (int i = micro_batches - warm_up; i < micro_batches; ++i)
    order.push_back({stage, false, i});
  return order;
}

// Every stage's passes merged into one host queue order that respects the dependencies above.
// Throws std::logic_error if the stages' orders cannot be merged (they always can for 1F1B).
inline std::vector<PipelinePass> one_f_one_b_host_order(int stages, int micro_batches) {
  if (stages < 1 || micro_batches < 1)
    throw std::invalid_argument("one_f_one_b_host_order: " + std::to_string(stages) + " stages, " +
                                std::to_string(micro_batches) +
                                " micro-batches; needs at least one of each");
  std::vector<std::vector<PipelinePass>> per_stage;
  for (int s = 0; s < stages; ++s)
    per_stage.push_back(one_f_one_b_stage_order(stages, s, micro_batches));
  const auto m = static_cast<std::size_t>(micro_batches);
  // queued[stage][forward ? micro_batch : M + micro_batch]
  std::vector<std::vector<bool>> queued(static_cast<std::size_t>(stages),
                                        std::vector<bool>(2 * m, false));
  auto slot = [m](const PipelinePass& p) {
    return (p.forward ? 0 : m) + static_cast<std::size_t>(p.micro_batch);
  };
  std::vector<std::size_t> next(static_cast<std::size_t>(stages), 0);
  std::vector<PipelinePass> order;
  const std::size_t total = 2 * m * static_cast<std::size_t>(stages);
  while (order.size() < total) {
    bool progressed = false;
    for (int s = 0; s < stages; ++s) {
      const auto i = static_cast<std::size_t>(s);
      if (next[i] == per_stage[i].size())
        continue;
      const PipelinePass& pass = per_stage[i][next[i]];
      const int needed_stage = pass.forward ? s - 1 : s + 1;
      if (needed_stage >= 0 && needed_stage < stages &&
          !queued[static_cast<std::size_t>(needed_stage)][slot(pass)])
        continue;
      queued[i][slot(pass)] = true;
      order.push_back(pass);
      ++next[i];
      progressed = true;
    }
    if (!progressed)
      throw std::logic_error("one_f_one_b_host_order: no stage can queue its next pass after " +
                             std::to_string(order.size()) + " of " + std::to_string(total) +
                             " passes: the stage orders wait on each other");
  }
  return order;
}

}  // namespace aisp::ch04
