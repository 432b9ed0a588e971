// The `mpirun` path on the CPU (docs/multi-gpu.md, "Several hosts"): reading the launcher's
// variables, pinning a rank to its GPU, the exchanges a worker's measurement makes with the other
// ranks (every rank records the slowest rank's samples, rank 0 decides when sampling stops), the
// orchestrators' per-pair steps when one rank's worker leaves early, and rank 0's merge of every
// rank's result. Ranks are threads here, joined by an in-process all-gather; MPI itself is
// exercised by tests/cli/test_mpi.sh.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>

#include <algorithm>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "aisp/aisp.hpp"
#include "core/launcher_ranks.hpp"
#include "core/measurement_settings.hpp"
#include "core/rank_exchange.hpp"
#include "measure/interleaved_sampling.hpp"
#include "results/results_json.hpp"
#include "run/rank_steps.hpp"
#include "shell_worker.hpp"
#include "system/shell_words.hpp"
#include "temp_files.hpp"
#include "worker/pair_measurement.hpp"
#include "worker/worker_channel.hpp"
#include "worker/worker_process.hpp"
#include "worker/worker_protocol.hpp"
#include "worker/worker_rank_exchange.hpp"
#include "worker/worker_request.hpp"

namespace aisp {
namespace {

using Environment = std::map<std::string, std::string>;

EnvironmentLookup lookup_in(const Environment& environment) {
  return [&environment](const char* name) -> const char* {
    const auto found = environment.find(name);
    return found == environment.end() ? nullptr : found->second.c_str();
  };
}

TEST(LauncherRanks, PlainStartAndOneRankAreNotAJob) {
  EXPECT_FALSE(detect_launcher_ranks(lookup_in({})).has_value());
  EXPECT_FALSE(detect_launcher_ranks(
                   lookup_in({{"OMPI_COMM_WORLD_SIZE", "1"}, {"OMPI_COMM_WORLD_RANK", "0"}}))
                   .has_value());
  // Slurm's own variables alone (a batch script that starts aisp once) are not read.
  EXPECT_FALSE(
      detect_launcher_ranks(lookup_in({{"SLURM_NTASKS", "4"}, {"SLURM_PROCID", "0"}})).has_value());
}

TEST(LauncherRanks, OpenMpiVariables) {
  const auto ranks = detect_launcher_ranks(lookup_in({{"OMPI_COMM_WORLD_SIZE", "4"},
                                                      {"OMPI_COMM_WORLD_RANK", "3"},
                                                      {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                                                      {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}}));
  ASSERT_TRUE(ranks.has_value());
  EXPECT_EQ(ranks->launcher, "Open MPI");
  EXPECT_EQ(ranks->rank, 3);
  EXPECT_EQ(ranks->size, 4);
  EXPECT_EQ(ranks->local_rank, 1);
  EXPECT_EQ(ranks->local_size, 2);
  EXPECT_NE(ranks->source.find("OMPI_COMM_WORLD_SIZE=4"), std::string::npos);
}

TEST(LauncherRanks, PmiVariablesAndALocalRankOverride) {
  const auto pmi = detect_launcher_ranks(lookup_in(
      {{"PMI_SIZE", "2"}, {"PMI_RANK", "1"}, {"MPI_LOCALRANKID", "1"}, {"MPI_LOCALNRANKS", "2"}}));
  ASSERT_TRUE(pmi.has_value());
  EXPECT_EQ(pmi->launcher, "PMI");
  EXPECT_EQ(pmi->rank, 1);
  EXPECT_EQ(pmi->local_rank, 1);
  // A launcher that gives no local rank: refused with what to set, unless AISP_LOCAL_RANK says it.
  const Environment bare{{"PMI_SIZE", "2"}, {"PMI_RANK", "1"}};
  try {
    detect_launcher_ranks(lookup_in(bare));
    FAIL() << "no local rank accepted";
  } catch (const LauncherEnvironmentError& error) {
    EXPECT_NE(std::string(error.what()).find("AISP_LOCAL_RANK"), std::string::npos) << error.what();
  }
  Environment forced = bare;
  forced["AISP_LOCAL_RANK"] = "0";
  const auto ranks = detect_launcher_ranks(lookup_in(forced));
  ASSERT_TRUE(ranks.has_value());
  EXPECT_EQ(ranks->local_rank, 0);
}

TEST(LauncherRanks, ContradictionsAreRefused) {
  for (const Environment& bad :
       {Environment{{"OMPI_COMM_WORLD_SIZE", "2"},
                    {"OMPI_COMM_WORLD_RANK", "2"},
                    {"OMPI_COMM_WORLD_LOCAL_RANK", "0"}},
        Environment{{"OMPI_COMM_WORLD_SIZE", "two"}, {"OMPI_COMM_WORLD_RANK", "0"}},
        Environment{{"OMPI_COMM_WORLD_SIZE", "2"}, {"OMPI_COMM_WORLD_RANK", "-1"}},
        Environment{{"OMPI_COMM_WORLD_SIZE", "1"}, {"OMPI_COMM_WORLD_RANK", "1"}},
        Environment{{"OMPI_COMM_WORLD_SIZE", "2"},
                    {"OMPI_COMM_WORLD_RANK", "1"},
                    {"OMPI_COMM_WORLD_LOCAL_RANK", "2"},
                    {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}}})
    EXPECT_THROW(detect_launcher_ranks(lookup_in(bad)), LauncherEnvironmentError);
}

TEST(LauncherRanks, EachLocalRankGetsOneVisibleGpu) {
  LauncherRanks ranks;
  ranks.size = 4;
  ranks.local_size = 2;
  ranks.local_rank = 1;
  EXPECT_EQ(rank_visible_devices(ranks, nullptr), "1");
  EXPECT_EQ(rank_visible_devices(ranks, ""), "1");
  EXPECT_EQ(rank_visible_devices(ranks, "4,6"), "6");
  EXPECT_EQ(rank_visible_devices(ranks, "GPU-aaaa, GPU-bbbb,GPU-cccc"), "GPU-bbbb");
  EXPECT_THROW(rank_visible_devices(ranks, "3"), LauncherEnvironmentError);
}

// R ranks as threads: all_gather returns when every thread has called it.
class ThreadJob {
 public:
  explicit ThreadJob(int size) : slots_(static_cast<std::size_t>(size)), size_(size) {}

  std::vector<std::string> all_gather(int rank, const std::string& mine) {
    std::unique_lock<std::mutex> lock(mutex_);
    const long round = round_;
    slots_[static_cast<std::size_t>(rank)] = mine;
    if (++arrived_ == size_) {
      gathered_ = slots_;
      arrived_ = 0;
      ++round_;
      changed_.notify_all();
      return gathered_;
    }
    changed_.wait(lock, [&] { return round_ != round; });
    return gathered_;  // the next round cannot complete before this rank joins it
  }
  int size() const { return size_; }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> slots_, gathered_;
  int size_;
  int arrived_ = 0;
  long round_ = 0;
};

class ThreadRank final : public RankExchange {
 public:
  ThreadRank(ThreadJob& job, int rank) : job_(job), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return job_.size(); }
  std::vector<std::string> all_gather(const std::string& mine) override {
    ++exchanges;
    return job_.all_gather(rank_, mine);
  }
  int exchanges = 0;

 private:
  ThreadJob& job_;
  int rank_;
};

// Runs `body(rank)` on `size` threads and waits for all of them.
void on_ranks(int size, const std::function<void(RankExchange&)>& body) {
  ThreadJob job(size);
  std::vector<std::unique_ptr<ThreadRank>> ranks;
  for (int r = 0; r < size; ++r)
    ranks.push_back(std::make_unique<ThreadRank>(job, r));
  std::vector<std::thread> threads;
  for (int r = 0; r < size; ++r)
    threads.emplace_back([&, r] { body(*ranks[r]); });
  for (std::thread& t : threads)
    t.join();
}

TEST(RankExchange, HelpersAgreeOnEveryRank) {
  std::mutex mutex;
  std::map<int, std::vector<std::string>> seen;
  on_ranks(3, [&](RankExchange& ranks) {
    const int r = ranks.rank();
    const double largest = ranks_max(&ranks, 1.5 + r);
    const std::vector<double> pair = ranks_max(&ranks, {r == 1 ? 9.0 : 0.25, 10.0 - r});
    const bool all = ranks_all(&ranks, r != 2);
    const bool all_true = ranks_all(&ranks, true);
    const std::uint64_t root = ranks_root_value(&ranks, std::uint64_t{100} + r);
    const std::vector<bool> decided = ranks_root_value(&ranks, std::vector<bool>{r == 0, r != 0});
    const std::vector<std::string> names = ranks_gather(&ranks, "gpu" + std::to_string(r));
    std::lock_guard<std::mutex> lock(mutex);
    seen[r] = {std::to_string(largest),
               std::to_string(pair[0]),
               std::to_string(pair[1]),
               std::to_string(all),
               std::to_string(all_true),
               std::to_string(root),
               std::to_string(decided[0]) + std::to_string(decided[1]),
               names[0] + names[2]};
  });
  const std::vector<std::string> expected = {
      std::to_string(3.5), std::to_string(9.0), std::to_string(10.0), "0", "1", "100", "10",
      "gpu0gpu2"};
  for (int r = 0; r < 3; ++r)
    EXPECT_EQ(seen[r], expected) << "rank " << r;
  // Without an exchange (one process) each helper returns the local value.
  EXPECT_EQ(ranks_max(nullptr, 2.0), 2.0);
  EXPECT_FALSE(ranks_all(nullptr, false));
  EXPECT_EQ(ranks_root_value(nullptr, std::uint64_t{7}), 7u);
  EXPECT_EQ(ranks_gather(nullptr, "x"), std::vector<std::string>{"x"});
}

class ConstantSource final : public SampleSource {
 public:
  ConstantSource(double event_ms, double host_ms) : event_ms_(event_ms), host_ms_(host_ms) {}
  TimedSample sample() override {
    ++taken;
    return {event_ms_, host_ms_, {}};
  }
  TimingMethod method() const override { return TimingMethod::cuda_events; }
  int taken = 0;

 private:
  double event_ms_, host_ms_;
};

TEST(RankExchange, LockstepSamplingRecordsTheSlowestRankAndRankZeroStops) {
  MeasurementSettings settings;
  settings.min_samples = 5;
  settings.min_time_s = 0.5;
  settings.max_time_s = 1000;
  settings.max_noise = 0.005;
  std::mutex mutex;
  std::map<int, InterleavedSeries> series;
  std::map<int, int> taken;
  on_ranks(2, [&](RankExchange& ranks) {
    const int r = ranks.rank();
    // Rank 1's baseline is slower, its optimized variant faster; its clock runs 100x faster, so
    // on its own it would stop after the minimum samples while rank 0 needs 0.5 s of them.
    ConstantSource baseline(r == 0 ? 1.0 : 2.0, 3.0), optimized(r == 0 ? 0.5 : 0.25, 1.0 + r);
    auto now = std::make_shared<double>(0.0);
    const double step = r == 0 ? 0.01 : 1.0;
    const WallClock clock = [now, step] { return *now += step; };
    InterleavedSeries s =
        sample_interleaved({&baseline, &optimized}, settings, clock, nullptr, &ranks);
    std::lock_guard<std::mutex> lock(mutex);
    series[r] = std::move(s);
    taken[r] = baseline.taken + optimized.taken;
  });
  ASSERT_EQ(series[0].samples.size(), 2u);
  EXPECT_EQ(taken[0], taken[1]) << "every rank calls run() the same number of times";
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(series[r].samples[0].event_ms,
              std::vector<double>(series[0].samples[0].event_ms.size(), 2.0));
    EXPECT_EQ(series[r].samples[1].event_ms,
              std::vector<double>(series[0].samples[1].event_ms.size(), 0.5));
    EXPECT_EQ(series[r].samples[1].host_ms,
              std::vector<double>(series[0].samples[1].host_ms.size(), 2.0));
    EXPECT_EQ(series[r].samples[0].event_ms.size(), series[0].samples[0].event_ms.size());
  }
  // Rank 0's clock (0.01 s a reading, read once or twice a round) needs more than the minimum.
  EXPECT_GT(series[0].samples[0].event_ms.size(), 5u);
}

TEST(RankSteps, AWorkerThatLeavesEarlyEndsTheOthersExchangesAndEveryResultReachesEveryRank) {
  std::mutex mutex;
  std::map<int, std::vector<std::string>> finished;
  std::string rank0_reply_after_leave;
  on_ranks(2, [&](RankExchange& job) {
    RankSteps steps(job);
    ASSERT_EQ(steps.begin_pair("ch04:x", false).kind, RankSteps::Begin::Kind::go);
    std::vector<std::string> results;
    if (job.rank() == 0) {
      // Two exchanges answered with both payloads, then rank 1 has left.
      const ExchangeReply first = read_exchange_reply(steps.exchange("a0"));
      EXPECT_TRUE(first.ok);
      EXPECT_EQ(first.values, (std::vector<std::string>{"a0", "a1"}));
      const ExchangeReply second = read_exchange_reply(steps.exchange("b0"));
      EXPECT_FALSE(second.ok);
      std::lock_guard<std::mutex> lock(mutex);
      rank0_reply_after_leave = second.error;
    } else {
      EXPECT_TRUE(read_exchange_reply(steps.exchange("a1")).ok);
    }
    results = steps.finish_pair("result of rank " + std::to_string(job.rank()));
    // The next pair begins in step on both; rank 1 was interrupted, so both stop, and rank 0's
    // exit code reaches every rank.
    EXPECT_EQ(steps.begin_pair("ch04:y", job.rank() == 1).kind, RankSteps::Begin::Kind::stop);
    EXPECT_EQ(steps.end_job(job.rank() == 0 ? 130 : 0), 130);
    std::lock_guard<std::mutex> lock(mutex);
    finished[job.rank()] = results;
  });
  EXPECT_NE(rank0_reply_after_leave.find("rank 1 ended the pair"), std::string::npos)
      << rank0_reply_after_leave;
  const std::vector<std::string> both{"result of rank 0", "result of rank 1"};
  EXPECT_EQ(finished[0], both);
  EXPECT_EQ(finished[1], both);
}

TEST(RankSteps, RankZeroEndingBeforeAPairEndsTheOthersWithItsCode) {
  std::mutex mutex;
  RankSteps::Begin seen;
  on_ranks(2, [&](RankExchange& job) {
    RankSteps steps(job);
    if (job.rank() == 0) {
      EXPECT_EQ(steps.end_job(2), 2);  // e.g. it refused to write expectations
    } else {
      const RankSteps::Begin begin = steps.begin_pair("ch04:x", false);
      std::lock_guard<std::mutex> lock(mutex);
      seen = begin;
    }
  });
  EXPECT_EQ(seen.kind, RankSteps::Begin::Kind::job_ended);
  EXPECT_EQ(seen.exit_code, 2);
}

TEST(RankSteps, RanksThatSelectDifferentPairsStop) {
  std::mutex mutex;
  int mismatches = 0;
  on_ranks(2, [&](RankExchange& job) {
    RankSteps steps(job);
    try {
      steps.begin_pair(job.rank() == 0 ? "ch04:a" : "ch04:b", false);
    } catch (const RankMismatch&) {
      std::lock_guard<std::mutex> lock(mutex);
      ++mismatches;
    }
  });
  EXPECT_EQ(mismatches, 2);
}

PairResult rank_result(PairStatus status, std::string reason = {}) {
  PairResult r;
  r.target = "ch04:p";
  r.status = status;
  r.reason = std::move(reason);
  r.verification.passed = status == PairStatus::passed;
  r.verification.checks.push_back({"within_tolerance", status == PairStatus::passed, "reduced_0"});
  return r;
}

TEST(RankResults, OneGpuPairsAreRankZerosAndMultiGpuPairsTheWorstRanks) {
  // A one-GPU pair: rank 0 ran it alone.
  const PairResult alone = merge_rank_results(
      {rank_result(PairStatus::passed), rank_result(PairStatus::skipped, kRankZeroOnlyReason)});
  EXPECT_EQ(alone.status, PairStatus::passed);
  EXPECT_EQ(alone.verification.checks.size(), 1u);
  // Every rank skipped alike: said once.
  const PairResult skipped = merge_rank_results(
      {rank_result(PairStatus::skipped, "no GPU"), rank_result(PairStatus::skipped, "no GPU")});
  EXPECT_EQ(skipped.status, PairStatus::skipped);
  EXPECT_EQ(skipped.reason, "no GPU");
  // Rank 1 failed a check: the pair fails, names rank 1, carries its failed check.
  PairResult passed = rank_result(PairStatus::passed);
  passed.speedup = Speedup{};
  const PairResult failed = merge_rank_results(
      {passed, rank_result(PairStatus::failed, "verification failed: within_tolerance")});
  EXPECT_EQ(failed.status, PairStatus::failed);
  EXPECT_EQ(failed.reason, "rank 1: verification failed: within_tolerance");
  EXPECT_FALSE(failed.verification.passed);
  EXPECT_FALSE(failed.speedup.has_value());
  ASSERT_EQ(failed.verification.checks.size(), 2u);
  EXPECT_EQ(failed.verification.checks[1].detail, "rank 1: reduced_0");
  // The same failure on every rank: said once.
  const PairResult both = merge_rank_results(
      {rank_result(PairStatus::failed, "error: x"), rank_result(PairStatus::failed, "error: x")});
  EXPECT_EQ(both.reason, "error: x (on all 2 ranks)");
  // A crash outranks a failure.
  const PairResult crashed = merge_rank_results(
      {rank_result(PairStatus::failed, "x"), rank_result(PairStatus::crashed, "signal 11")});
  EXPECT_EQ(crashed.status, PairStatus::crashed);
  EXPECT_EQ(crashed.reason, "rank 0: x; rank 1: signal 11");
}

TEST(WorkerProtocol, ExchangeLinesAndReplies) {
  const WorkerMessage message = read_worker_line(worker_exchange_line("0x1p+0 0x1p-1"));
  EXPECT_EQ(message.kind, WorkerMessage::Kind::exchange);
  EXPECT_EQ(message.payload, "0x1p+0 0x1p-1");
  const ExchangeReply ok = read_exchange_reply(exchange_reply_line({"a", "", "c"}));
  EXPECT_TRUE(ok.ok);
  EXPECT_EQ(ok.values, (std::vector<std::string>{"a", "", "c"}));
  const ExchangeReply error = read_exchange_reply(exchange_error_line("rank 1 ended the pair"));
  EXPECT_FALSE(error.ok);
  EXPECT_EQ(error.error, "rank 1 ended the pair");
  EXPECT_THROW(read_exchange_reply("{\"values\":1}"), RankExchangeError);
  EXPECT_THROW(read_exchange_reply("not json"), RankExchangeError);
}

TEST(WorkerProtocol, RankFlagsOnlyUnderMpirun) {
  WorkerRequest request;
  request.target = "ch04:zero2_optimizer_step";
  const std::vector<std::string> plain = worker_argv("aisp", request);
  EXPECT_EQ(std::count(plain.begin(), plain.end(), std::string(worker_flags::kRank)), 0);
  request.rank = 1;
  request.rank_count = 2;
  const std::vector<std::string> ranked = worker_argv("aisp", request);
  const auto at = std::find(ranked.begin(), ranked.end(), std::string(worker_flags::kRank));
  ASSERT_NE(at, ranked.end());
  EXPECT_EQ(*(at + 1), "1");
  EXPECT_EQ(*(at + 3), "2");
  EXPECT_EQ(*(at + 5), std::to_string(kWorkerReplyFd));
}

TEST(WorkerRelay, AWorkersExchangeLinesAreAnsweredOnItsReplyDescriptor) {
  // A stand-in worker: two exchanges, each reply read from the reply descriptor and logged.
  const test::ScopedTempDir dir("mpi_relay");
  const std::string out = std::to_string(kWorkerProtocolFd);
  const std::string in = std::to_string(kWorkerReplyFd);
  std::string script;
  for (const char* payload : {"first", "second"})
    script += "printf '%s\\n' " + shell_quote(worker_exchange_line(payload)) + " >&" + out +
              "; read -r reply <&" + in + "; echo \"$reply\"; ";
  WorkerLaunch launch = test::shell_worker_launch(dir.path(), script);
  launch.reply_channel = true;
  WorkerEvents events;
  std::vector<std::string> payloads;
  events.on_exchange = [&](const std::string& payload) {
    payloads.push_back(payload);
    return exchange_reply_line({payload, "from rank 1"});
  };
  const std::atomic<bool> interrupt{false};
  const WorkerOutcome outcome = run_worker_process(launch, interrupt, events);
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_EQ(payloads, (std::vector<std::string>{"first", "second"}));
  EXPECT_EQ(test::read_file(launch.log_file), exchange_reply_line({"first", "from rank 1"}) + "\n" +
                                                  exchange_reply_line({"second", "from rank 1"}) +
                                                  "\n");
}

TEST(WorkerRelay, WorkerRankExchangeReadsItsOrchestratorsReplies) {
  int to_orchestrator[2], to_worker[2];
  ASSERT_EQ(pipe(to_orchestrator), 0);
  ASSERT_EQ(pipe(to_worker), 0);
  // The orchestrator's side: answers two exchanges, then an error (a rank left the pair).
  std::thread orchestrator([&] {
    std::string buffer;
    char chunk[256];
    for (int answered = 0; answered < 3;) {
      const ssize_t n = read(to_orchestrator[0], chunk, sizeof(chunk));
      if (n <= 0)
        break;
      buffer.append(chunk, static_cast<std::size_t>(n));
      for (std::size_t nl; (nl = buffer.find('\n')) != std::string::npos; ++answered) {
        const WorkerMessage m = read_worker_line(buffer.substr(0, nl));
        buffer.erase(0, nl + 1);
        const std::string reply = (answered < 2 ? exchange_reply_line({m.payload, "0x1p+1"})
                                                : exchange_error_line("rank 0 ended the pair")) +
                                  "\n";
        ASSERT_EQ(write(to_worker[1], reply.data(), reply.size()),
                  static_cast<ssize_t>(reply.size()));
      }
    }
  });
  {
    const WorkerChannel channel(to_orchestrator[1]);
    WorkerRankExchange ranks(channel, to_worker[0], 1, 2);
    EXPECT_EQ(ranks_max(&ranks, 1.0), 2.0);
    EXPECT_EQ(ranks_gather(&ranks, "x"), (std::vector<std::string>{"x", "0x1p+1"}));
    EXPECT_THROW(ranks_all(&ranks, true), RankExchangeError);
  }
  orchestrator.join();
  for (const int fd : {to_orchestrator[0], to_orchestrator[1], to_worker[0], to_worker[1]})
    close(fd);
}

TEST(RankSteps, HostAllReduceSumsInRankOrderWhenEveryRankAsksAlike) {
  std::mutex mutex;
  std::map<int, std::vector<float>> sums;
  std::map<int, std::string> mismatch;
  on_ranks(3, [&](RankExchange& job) {
    RankSteps steps(job);
    const float r = static_cast<float>(job.rank());
    std::vector<float> data{1.0f + r, 0.5f * r, -r};
    EXPECT_TRUE(read_exchange_reply(steps.host_all_reduce(data.data(), data.size())).ok);
    // Rank 2 asks for another count: every rank gets an error, none sums.
    std::vector<float> other(job.rank() == 2 ? 2 : 3, 1.0f);
    const ExchangeReply refused =
        read_exchange_reply(steps.host_all_reduce(other.data(), other.size()));
    EXPECT_FALSE(refused.ok);
    EXPECT_EQ(other, std::vector<float>(other.size(), 1.0f));
    std::lock_guard<std::mutex> lock(mutex);
    sums[job.rank()] = data;
    mismatch[job.rank()] = refused.error;
  });
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(sums[r], (std::vector<float>{6.0f, 1.5f, -3.0f})) << "rank " << r;
    EXPECT_NE(mismatch[r].find("did not ask for a host all-reduce"), std::string::npos)
        << mismatch[r];
  }
}

TEST(WorkerRelay, AHostAllReduceGoesThroughTheSharedMemory) {
  // A stand-in worker writes one float (0.0) into the shared memory, asks for a host all-reduce
  // of 1 float, and prints what the memory holds after the reply.
  const test::ScopedTempDir dir("mpi_relay_shared");
  const std::string out = std::to_string(kWorkerProtocolFd);
  const std::string in = std::to_string(kWorkerReplyFd);
  const std::string shared = std::to_string(kWorkerSharedMemoryFd);
  const std::string script = "printf '\\000\\000\\000\\000' >&" + shared + "; printf '%s\\n' " +
                             shell_quote(worker_host_all_reduce_line(1)) + " >&" + out +
                             "; read -r reply <&" + in + "; echo \"$reply\"; od -An -tf4 " +
                             "/proc/self/fd/" + shared + " | tr -d ' '";
  WorkerLaunch launch = test::shell_worker_launch(dir.path(), script);
  launch.reply_channel = true;
  WorkerEvents events;
  std::vector<std::size_t> counts;
  events.on_host_all_reduce = [&](float* data, std::size_t count) {
    counts.push_back(count);
    data[0] += 2.5f;  // the other ranks' share
    return exchange_reply_line({});
  };
  const std::atomic<bool> interrupt{false};
  const WorkerOutcome outcome = run_worker_process(launch, interrupt, events);
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_EQ(counts, std::vector<std::size_t>{1});
  EXPECT_EQ(test::read_file(launch.log_file), exchange_reply_line({}) + "\n2.5\n");
}

TEST(WorkerRelay, WorkerRankExchangeSumsThroughTheOrchestrator) {
  int to_orchestrator[2], to_worker[2];
  ASSERT_EQ(pipe(to_orchestrator), 0);
  ASSERT_EQ(pipe(to_worker), 0);
  const int shared = memfd_create("aisp-test-shared", MFD_CLOEXEC);
  ASSERT_GE(shared, 0);
  std::thread orchestrator([&] {
    std::string buffer;
    char chunk[256];
    for (bool answered = false; !answered;) {
      const ssize_t n = read(to_orchestrator[0], chunk, sizeof(chunk));
      if (n <= 0)
        break;
      buffer.append(chunk, static_cast<std::size_t>(n));
      const std::size_t nl = buffer.find('\n');
      if (nl == std::string::npos)
        continue;
      const WorkerMessage m = read_worker_line(buffer.substr(0, nl));
      EXPECT_EQ(m.kind, WorkerMessage::Kind::host_all_reduce);
      void* mapped =
          mmap(nullptr, m.count * sizeof(float), PROT_READ | PROT_WRITE, MAP_SHARED, shared, 0);
      ASSERT_NE(mapped, MAP_FAILED);
      float* data = static_cast<float*>(mapped);
      for (std::size_t i = 0; i < m.count; ++i)
        data[i] *= 2;  // two ranks holding the same
      munmap(mapped, m.count * sizeof(float));
      const std::string reply = exchange_reply_line({}) + "\n";
      ASSERT_EQ(write(to_worker[1], reply.data(), reply.size()),
                static_cast<ssize_t>(reply.size()));
      answered = true;
    }
  });
  {
    const WorkerChannel channel(to_orchestrator[1]);
    WorkerRankExchange ranks(channel, to_worker[0], 0, 2, shared);
    std::vector<float> data{1.0f, -2.0f, 3.5f};
    ranks.all_reduce_sum(data.data(), data.size());
    EXPECT_EQ(data, (std::vector<float>{2.0f, -4.0f, 7.0f}));
  }
  orchestrator.join();
  for (const int fd : {to_orchestrator[0], to_orchestrator[1], to_worker[0], to_worker[1], shared})
    close(fd);
}

TEST(ResultsJson, RanksRoundTrip) {
  PairResult result = rank_result(PairStatus::passed);
  result.chapter = "ch04";
  result.pair = "p";
  result.baseline_variant = "baseline_p";
  result.optimized_variant = "optimized_p";
  result.gpus = 2;
  result.ranks = 2;
  const PairResult back = pair_result_from_json(to_json(result));
  EXPECT_EQ(back.ranks, 2);
  result.ranks = 0;
  EXPECT_FALSE(to_json(result).contains("ranks"));
}

}  // namespace
}  // namespace aisp
