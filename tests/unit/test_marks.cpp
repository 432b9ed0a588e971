// ctx.mark's machinery on the host: the recorder (order, the refusals) and the series (every
// sample must reach the same marks; statistics per name).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <thread>

#include "measure/mark_recorder.hpp"
#include "measure/mark_series.hpp"

namespace aisp {
namespace {

TEST(MarkRecorder, CpuMarksAreTimesFromTheRunsStartInTheOrderReached) {
  MarkRecorder recorder(/*gpu=*/false);
  const auto start = MarkRecorder::Clock::now();
  recorder.begin_run(start);
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  recorder.record("first_token", nullptr);
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  recorder.record("done", nullptr);
  const auto marks = recorder.resolve(nullptr);
  ASSERT_EQ(marks.size(), 2U);
  EXPECT_EQ(marks[0].first, "first_token");
  EXPECT_EQ(marks[1].first, "done");
  EXPECT_GE(marks[0].second, 2.0);
  EXPECT_GE(marks[1].second, marks[0].second + 1.0);
  // A new run forgets the previous run's marks but not the names seen.
  recorder.begin_run();
  EXPECT_TRUE(recorder.resolve(nullptr).empty());
  EXPECT_EQ(recorder.names_seen(), (std::vector<std::string>{"first_token", "done"}));
}

TEST(MarkRecorder, RefusesEmptyRepeatedAndTooManyMarks) {
  MarkRecorder recorder(/*gpu=*/false);
  recorder.begin_run();
  EXPECT_THROW(recorder.record("", nullptr), std::invalid_argument);
  recorder.record("a", nullptr);
  try {
    recorder.record("a", nullptr);
    ADD_FAILURE() << "a repeated mark was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("reached twice in one run()"), std::string::npos);
  }
  recorder.begin_run();
  for (std::size_t i = 0; i < kMaxMarksPerRun; ++i) recorder.record("m" + std::to_string(i), nullptr);
  EXPECT_THROW(recorder.record("one_too_many", nullptr), std::invalid_argument);
}

TEST(MarkSeries, SummarizesEachMarkOverTheSamples) {
  MarkSeries series;
  series.add({{"first_token", 2.0}, {"done", 3.0}});
  series.add({{"first_token", 4.0}, {"done", 5.0}});
  series.add({{"done", 7.0}, {"first_token", 6.0}});  // another order, the same marks
  const std::vector<MarkMeasurement> marks = series.summarize();
  ASSERT_EQ(marks.size(), 2U);
  EXPECT_EQ(marks[0].name, "first_token");
  EXPECT_EQ(marks[0].ms, (std::vector<double>{2.0, 4.0, 6.0}));
  EXPECT_DOUBLE_EQ(marks[0].stats.median, 4.0);
  EXPECT_EQ(marks[1].name, "done");
  EXPECT_DOUBLE_EQ(marks[1].stats.median, 5.0);
}

TEST(MarkSeries, ASampleWithOtherMarksIsAnError) {
  MarkSeries series;
  series.add({{"first_token", 2.0}});
  try {
    series.add({{"first_token", 2.0}, {"second_token", 3.0}});
    ADD_FAILURE() << "a sample with another set of marks was accepted";
  } catch (const std::runtime_error& error) {
    const std::string text = error.what();
    EXPECT_NE(text.find("[first_token]"), std::string::npos) << text;
    EXPECT_NE(text.find("[first_token, second_token] in sample 2"), std::string::npos) << text;
  }
}

TEST(MarkSeries, NoMarksSummarizeToNothing) {
  MarkSeries series;
  series.add({});
  series.add({});
  EXPECT_TRUE(series.summarize().empty());
}

}  // namespace
}  // namespace aisp
