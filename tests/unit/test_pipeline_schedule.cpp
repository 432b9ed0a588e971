// ch04's 1F1B pipeline schedule (chapters/ch04_multi_gpu/pipeline_schedule.hpp), which
// pipeline_1f1b queues on two GPUs: each stage's pass order, a host queue order that never waits
// on a pass not yet queued, and the bubble the README states, from a simulation of the order with
// unit pass costs. The pair itself needs two GPUs; this is its orchestration on the CPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "../../chapters/ch04_multi_gpu/pipeline_schedule.hpp"

namespace aisp::ch04 {
namespace {

std::string describe(const std::vector<PipelinePass>& order) {
  std::string text;
  for (const PipelinePass& p : order)
    text += (text.empty() ? "" : " ") + std::to_string(p.stage) + (p.forward ? "F" : "B") +
            std::to_string(p.micro_batch);
  return text;
}

// The time the queued passes take when each stage runs its passes in order, a forward costs
// `forward`, a backward `backward`, and a pass starts when its stage is free and the pass it
// needs (the previous stage's forward, the next stage's backward) has ended. Transfers free.
double makespan(const std::vector<PipelinePass>& order, int stages, int micro_batches,
                double forward, double backward) {
  const auto m = static_cast<std::size_t>(micro_batches);
  std::vector<double> stage_free(static_cast<std::size_t>(stages), 0.0);
  std::vector<std::vector<double>> ended(static_cast<std::size_t>(stages),
                                         std::vector<double>(2 * m, -1.0));
  double end = 0;
  for (const PipelinePass& p : order) {
    const std::size_t slot = (p.forward ? 0 : m) + static_cast<std::size_t>(p.micro_batch);
    const int needed = p.forward ? p.stage - 1 : p.stage + 1;
    double start = stage_free[static_cast<std::size_t>(p.stage)];
    if (needed >= 0 && needed < stages) {
      const double ready = ended[static_cast<std::size_t>(needed)][slot];
      EXPECT_GE(ready, 0.0) << "stage " << p.stage << " queued before what it needs";
      start = std::max(start, ready);
    }
    const double finish = start + (p.forward ? forward : backward);
    stage_free[static_cast<std::size_t>(p.stage)] = finish;
    ended[static_cast<std::size_t>(p.stage)][slot] = finish;
    end = std::max(end, finish);
  }
  return end;
}

TEST(PipelineSchedule, StageOrdersAreOneForwardOneBackward) {
  auto only = [](const std::vector<PipelinePass>& order) { return describe(order); };
  EXPECT_EQ(only(one_f_one_b_stage_order(2, 0, 4)), "0F0 0F1 0B0 0F2 0B1 0F3 0B2 0B3");
  EXPECT_EQ(only(one_f_one_b_stage_order(2, 1, 4)), "1F0 1B0 1F1 1B1 1F2 1B2 1F3 1B3");
  // Four stages: the first warms up with three forwards, the last with none.
  EXPECT_EQ(only(one_f_one_b_stage_order(4, 0, 4)), "0F0 0F1 0F2 0F3 0B0 0B1 0B2 0B3");
  EXPECT_EQ(only(one_f_one_b_stage_order(4, 2, 4)), "2F0 2F1 2B0 2F2 2B1 2F3 2B2 2B3");
  // Fewer micro-batches than the warm-up asks for: all forwards, then all backwards.
  EXPECT_EQ(only(one_f_one_b_stage_order(4, 0, 2)), "0F0 0F1 0B0 0B1");
}

TEST(PipelineSchedule, OneMicroBatchIsTheScheduleWithoutMicroBatching) {
  EXPECT_EQ(describe(one_f_one_b_host_order(2, 1)), "0F0 1F0 1B0 0B0");
}

TEST(PipelineSchedule, HostOrderHoldsEveryPassOnceAfterWhatItNeeds) {
  for (int stages : {2, 3, 4}) {
    for (int micro_batches : {1, 2, 3, 8, 16}) {
      const std::vector<PipelinePass> order = one_f_one_b_host_order(stages, micro_batches);
      std::set<std::tuple<int, bool, int>> seen;
      for (const PipelinePass& p : order) {
        const int needed = p.forward ? p.stage - 1 : p.stage + 1;
        if (needed >= 0 && needed < stages) {
          EXPECT_TRUE(seen.count({needed, p.forward, p.micro_batch}))
              << stages << " stages, " << micro_batches << " micro-batches: " << describe(order);
        }
        EXPECT_TRUE(seen.insert({p.stage, p.forward, p.micro_batch}).second)
            << "a pass queued twice: " << describe(order);
      }
      EXPECT_EQ(seen.size(), static_cast<std::size_t>(2 * stages * micro_batches));
      // Each stage's passes keep the stage's own order.
      for (int s = 0; s < stages; ++s) {
        std::vector<PipelinePass> mine;
        for (const PipelinePass& p : order)
          if (p.stage == s)
            mine.push_back(p);
        EXPECT_EQ(describe(mine), describe(one_f_one_b_stage_order(stages, s, micro_batches)));
      }
    }
  }
}

// The README's bubble: (S-1)/(M+S-1) of each stage's time, so a step takes (M+S-1)·(f+b) where
// a stage's pass of one micro-batch costs f forward and b backward; without micro-batching
// (M = 1 of the whole batch, M times the cost) both stages' work adds up.
TEST(PipelineSchedule, TwoStagesTakeMPlusOnePassPairs) {
  const double f = 1.0, b = 2.0;
  for (int micro_batches : {1, 2, 4, 8, 16}) {
    const std::vector<PipelinePass> order = one_f_one_b_host_order(2, micro_batches);
    EXPECT_DOUBLE_EQ(makespan(order, 2, micro_batches, f, b), (micro_batches + 1) * (f + b))
        << micro_batches << " micro-batches: " << describe(order);
  }
  // The whole batch as one micro-batch: passes 8 times as long, one stage idle at any time.
  const double baseline = makespan(one_f_one_b_host_order(2, 1), 2, 1, 8 * f, 8 * b);
  const double pipelined = makespan(one_f_one_b_host_order(2, 8), 2, 8, f, b);
  EXPECT_DOUBLE_EQ(baseline, 48.0);
  EXPECT_DOUBLE_EQ(pipelined, 27.0);  // bubble 3/27 = 1/9 of each stage's time
}

TEST(PipelineSchedule, RefusesImpossibleShapes) {
  EXPECT_THROW(one_f_one_b_stage_order(2, 2, 4), std::invalid_argument);
  EXPECT_THROW(one_f_one_b_stage_order(2, 0, 0), std::invalid_argument);
  EXPECT_THROW(one_f_one_b_host_order(0, 4), std::invalid_argument);
}

}  // namespace
}  // namespace aisp::ch04
