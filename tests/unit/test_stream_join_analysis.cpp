// The structural join check (measure/stream_join_analysis.hpp) on hand-built record sequences:
// the patterns a variant can use to fork work onto another stream, joined and not.
#include "measure/stream_join_analysis.hpp"

#include <gtest/gtest.h>

namespace aisp {
namespace {

constexpr TracedStream kEnd{1, 10};
constexpr TracedStream kSide{1, 11};
constexpr TracedStream kThird{1, 12};
constexpr TracedStream kOtherGpu{2, 20};
constexpr std::uint32_t kEndMarker = 100;

TracedWork on(TracedStream stream, std::uint32_t correlation) {
  return {"kernel k", stream, correlation, false};
}
TracedSynchronization wait(TracedStream waiting, std::uint32_t correlation, std::uint64_t id) {
  return {TracedSyncKind::stream_wait_event, waiting, correlation, id};
}

TEST(StreamJoinAnalysis, WorkOnTheEndStreamIsJoined) {
  EXPECT_TRUE(find_unjoined_work({on(kEnd, 5), on(kEnd, 6)}, {}, {}, kEnd, kEndMarker).empty());
}

TEST(StreamJoinAnalysis, SideWorkNeverJoinedIsFound) {
  // ch93:slack_stream: kernels on a private stream, no event, no wait.
  const auto loose =
      find_unjoined_work({on(kSide, 5), on(kSide, 6), on(kEnd, 7)}, {}, {}, kEnd, kEndMarker);
  EXPECT_EQ(loose, (std::vector<std::size_t>{0, 1}));
}

TEST(StreamJoinAnalysis, ForkAndJoinPasses) {
  // ch93:fork_join: record on the side stream after its work, ctx.stream waits before the end.
  const auto loose = find_unjoined_work({on(kSide, 5), on(kEnd, 6)}, {{kSide, 7, 1}},
                                        {wait(kEnd, 8, 1)}, kEnd, kEndMarker);
  EXPECT_TRUE(loose.empty());
}

TEST(StreamJoinAnalysis, WorkAfterTheJoiningRecordIsNotJoined) {
  const auto loose = find_unjoined_work({on(kSide, 5), on(kSide, 9)}, {{kSide, 7, 1}},
                                        {wait(kEnd, 8, 1)}, kEnd, kEndMarker);
  EXPECT_EQ(loose, (std::vector<std::size_t>{1}));
}

TEST(StreamJoinAnalysis, AWaitAfterTheEndJoinsNothing) {
  const auto loose = find_unjoined_work({on(kSide, 5)}, {{kSide, 7, 1}},
                                        {wait(kEnd, kEndMarker + 1, 1)}, kEnd, kEndMarker);
  EXPECT_EQ(loose.size(), 1u);
}

TEST(StreamJoinAnalysis, AWaitOnAnotherUnjoinedStreamJoinsNothing) {
  // The side stream waits on the third's event, but nothing joins the side stream itself.
  const auto loose = find_unjoined_work({on(kThird, 5), on(kSide, 9)}, {{kThird, 6, 1}},
                                        {wait(kSide, 8, 1)}, kEnd, kEndMarker);
  EXPECT_EQ(loose, (std::vector<std::size_t>{0, 1}));
}

TEST(StreamJoinAnalysis, ChainsAreFollowedInAnyRecordOrder) {
  // third -> side -> end; the syncs listed end-first so one pass is not enough.
  const auto loose = find_unjoined_work(
      {on(kThird, 5), on(kSide, 6)}, {{kThird, 7, 1}, {kSide, 9, 2}},
      {wait(kEnd, 10, 2), wait(kSide, 8, 1)}, kEnd, kEndMarker);
  EXPECT_TRUE(loose.empty());
}

TEST(StreamJoinAnalysis, TheWaitUsesTheLatestRecordBeforeIt) {
  // The event is recorded twice; CUPTI's sync id ties the wait to the first record only, so
  // work between the two records is not joined.
  const auto loose =
      find_unjoined_work({on(kSide, 5), on(kSide, 7)}, {{kSide, 6, 1}, {kSide, 9, 2}},
                         {wait(kEnd, 8, 1)}, kEnd, kEndMarker);
  EXPECT_EQ(loose, (std::vector<std::size_t>{1}));
}

TEST(StreamJoinAnalysis, HostSynchronizesJoin) {
  const std::vector<TracedWork> work = {on(kSide, 5)};
  EXPECT_TRUE(find_unjoined_work(work, {{kSide, 6, 1}},
                                 {{TracedSyncKind::event_synchronize, {1, 0}, 7, 1}}, kEnd,
                                 kEndMarker)
                  .empty());
  EXPECT_TRUE(find_unjoined_work(work, {}, {{TracedSyncKind::stream_synchronize, kSide, 7, 0}},
                                 kEnd, kEndMarker)
                  .empty());
  EXPECT_TRUE(find_unjoined_work(work, {}, {{TracedSyncKind::context_synchronize, {1, 0}, 7, 0}},
                                 kEnd, kEndMarker)
                  .empty());
  // A synchronize of another stream, or of another GPU's context, joins nothing here.
  EXPECT_EQ(find_unjoined_work(work, {}, {{TracedSyncKind::stream_synchronize, kThird, 7, 0}},
                               kEnd, kEndMarker)
                .size(),
            1u);
  EXPECT_EQ(find_unjoined_work(work, {}, {{TracedSyncKind::context_synchronize, {2, 0}, 7, 0}},
                               kEnd, kEndMarker)
                .size(),
            1u);
}

TEST(StreamJoinAnalysis, ASynchronousHostCopyIsJoined) {
  TracedWork copy = on(kSide, 5);
  copy.host_waited = true;
  EXPECT_TRUE(find_unjoined_work({copy}, {}, {}, kEnd, kEndMarker).empty());
}

TEST(StreamJoinAnalysis, AnotherGpusStreamJoinsThroughItsStopEvent) {
  // The harness's multi-GPU timing: each GPU's stop event, waited on by the first GPU's stream.
  const auto loose = find_unjoined_work({on(kOtherGpu, 5)}, {{kOtherGpu, 6, 1}},
                                        {wait(kEnd, 7, 1)}, kEnd, kEndMarker);
  EXPECT_TRUE(loose.empty());
}

}  // namespace
}  // namespace aisp
