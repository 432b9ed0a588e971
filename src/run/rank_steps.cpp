#include "run/rank_steps.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "worker/pair_measurement.hpp"
#include "worker/worker_protocol.hpp"

namespace aisp {
namespace {

nlohmann::json parse_step(const std::string& text, std::size_t rank) {
  try {
    nlohmann::json step = nlohmann::json::parse(text);
    if (step.is_object() && step.contains("step"))
      return step;
  } catch (const nlohmann::json::exception&) {
  }
  throw RankMismatch(fmt::format("rank {} sent '{}', not a step of this aisp's protocol: every "
                                 "rank must run the same aisp binary",
                                 rank, text.substr(0, 120)));
}

std::vector<nlohmann::json> gather_steps(RankExchange& job, const nlohmann::json& mine) {
  const std::vector<std::string> all = job.all_gather(mine.dump());
  std::vector<nlohmann::json> steps;
  for (std::size_t r = 0; r < all.size(); ++r)
    steps.push_back(parse_step(all[r], r));
  return steps;
}

// Worst first: what the merged pair's status is when ranks differ.
int severity(PairStatus status) {
  switch (status) {
  case PairStatus::crashed:
    return 6;
  case PairStatus::timed_out:
    return 5;
  case PairStatus::interrupted:
    return 4;
  case PairStatus::failed:
    return 3;
  case PairStatus::quarantined:
    return 2;
  case PairStatus::skipped:
    return 1;
  case PairStatus::passed:
    return 0;
  }
  return 6;
}

}  // namespace

RankSteps::Begin RankSteps::begin_pair(const std::string& target, bool interrupted) {
  const std::vector<nlohmann::json> steps = gather_steps(
      job_, nlohmann::json{{"step", "begin"}, {"target", target}, {"interrupted", interrupted}});
  if (steps.front().at("step") == "end")  // rank 0 refused to measure, or has stopped
    return {Begin::Kind::job_ended, steps.front().value("code", 1)};
  bool any_interrupted = false;
  for (std::size_t r = 0; r < steps.size(); ++r) {
    if (steps[r].at("step") != "begin")
      throw RankMismatch(fmt::format("rank {} is still in another pair's steps while this rank "
                                     "begins {}: the ranks lost step",
                                     r, target));
    if (steps[r].value("target", std::string()) != target)
      throw RankMismatch(fmt::format("rank {} runs {} where rank {} runs {}: every rank must "
                                     "select the same pairs (the same aisp and the same -t)",
                                     r, steps[r].value("target", std::string("?")), job_.rank(),
                                     target));
    any_interrupted = any_interrupted || steps[r].value("interrupted", false);
  }
  return {any_interrupted ? Begin::Kind::stop : Begin::Kind::go, 0};
}

int RankSteps::end_job(int exit_code) {
  const std::vector<nlohmann::json> steps =
      gather_steps(job_, nlohmann::json{{"step", "end"}, {"code", exit_code}});
  // A rank about to begin a pair (rank 0 ends before it) sees the end there and stops.
  for (std::size_t r = 0; r < steps.size(); ++r)
    if (steps[r].at("step") != "end" && steps[r].at("step") != "begin")
      throw RankMismatch(fmt::format("rank {} is still measuring while rank {} ends the run: the "
                                     "ranks lost step",
                                     r, job_.rank()));
  return steps.front().value("code", 1);
}

std::string RankSteps::exchange(const std::string& payload) {
  const std::vector<nlohmann::json> steps =
      gather_steps(job_, nlohmann::json{{"step", "x"}, {"payload", payload}});
  std::vector<std::string> values;
  std::vector<std::string> gone;
  for (std::size_t r = 0; r < steps.size(); ++r) {
    if (steps[r].at("step") == "x")
      values.push_back(steps[r].value("payload", std::string()));
    else
      gone.push_back(std::to_string(r));
  }
  if (!gone.empty())
    return exchange_error_line(fmt::format(
        "rank{} {} ended the pair, or went to another step, while this rank still measured it "
        "(its result says why)",
        gone.size() == 1 ? "" : "s", fmt::join(gone, ", ")));
  return exchange_reply_line(values);
}

std::string RankSteps::host_all_reduce(float* data, std::size_t count) {
  const std::vector<nlohmann::json> steps =
      gather_steps(job_, nlohmann::json{{"step", "r"}, {"count", count}});
  std::vector<std::string> other;
  for (std::size_t r = 0; r < steps.size(); ++r)
    if (steps[r].at("step") != "r" || steps[r].value("count", std::size_t{0}) != count)
      other.push_back(std::to_string(r));
  // Every rank saw the same steps, so every rank sums, or none does.
  if (!other.empty())
    return exchange_error_line(fmt::format(
        "rank{} {} did not ask for a host all-reduce of {} floats with this rank (another step, "
        "or another count): the ranks do not run the pair alike",
        other.size() == 1 ? "" : "s", fmt::join(other, ", "), count));
  try {
    job_.all_reduce_sum(data, count);
  } catch (const RankExchangeError& error) {
    return exchange_error_line(error.what());
  }
  return exchange_reply_line({});
}

std::vector<std::string> RankSteps::finish_pair(const std::string& result) {
  const nlohmann::json mine{{"step", "done"}, {"result", result}};
  for (;;) {
    const std::vector<nlohmann::json> steps = gather_steps(job_, mine);
    const bool all_done = std::all_of(
        steps.begin(), steps.end(), [](const nlohmann::json& s) { return s.at("step") == "done"; });
    if (!all_done)
      continue;  // another rank's worker still exchanges; it gets an error
    std::vector<std::string> results;
    for (const nlohmann::json& s : steps)
      results.push_back(s.value("result", std::string()));
    return results;
  }
}

PairResult merge_rank_results(const std::vector<PairResult>& per_rank) {
  if (per_rank.empty())
    throw std::invalid_argument("merge_rank_results: no ranks");
  PairResult merged = per_rank.front();
  // A one-GPU (or CPU) pair: rank 0 ran it alone; the others said so.
  const bool rank_zero_alone =
      std::all_of(per_rank.begin() + 1, per_rank.end(), [](const PairResult& r) {
        return r.status == PairStatus::skipped && r.reason == kRankZeroOnlyReason;
      });
  if (rank_zero_alone)
    return merged;
  std::size_t worst = 0;
  std::vector<std::string> reasons;
  for (std::size_t r = 0; r < per_rank.size(); ++r) {
    const PairResult& result = per_rank[r];
    if (severity(result.status) > severity(per_rank[worst].status))
      worst = r;
    if (result.status != PairStatus::passed && !result.reason.empty())
      reasons.push_back(fmt::format("rank {}: {}", r, result.reason));
  }
  // Every rank skipped for the same reason (no GPU, one process needed): said once.
  const bool same_skip = std::all_of(per_rank.begin(), per_rank.end(), [&](const PairResult& r) {
    return r.status == PairStatus::skipped && r.reason == per_rank.front().reason;
  });
  if (same_skip)
    return merged;
  merged.status = per_rank[worst].status;
  const bool alike = std::all_of(per_rank.begin(), per_rank.end(), [&](const PairResult& r) {
    return r.status == merged.status && r.reason == per_rank.front().reason;
  });
  merged.reason =
      alike && merged.status != PairStatus::passed
          ? fmt::format("{} (on all {} ranks)", per_rank.front().reason, per_rank.size())
      : merged.status == PairStatus::passed ? std::string()
                                            : fmt::format("{}", fmt::join(reasons, "; "));
  for (std::size_t r = 1; r < per_rank.size(); ++r)
    for (const CheckOutcome& check : per_rank[r].verification.checks)
      if (!check.passed) {
        CheckOutcome copy = check;
        copy.detail = fmt::format("rank {}: {}", r, check.detail);
        merged.verification.checks.push_back(std::move(copy));
      }
  merged.verification.passed = std::all_of(
      per_rank.begin(), per_rank.end(), [](const PairResult& r) { return r.verification.passed; });
  if (severity(merged.status) >= severity(PairStatus::failed)) {
    merged.speedup.reset();  // as for any failed pair (worker/worker.cpp)
    if (merged.library)
      merged.library->fraction.reset();
  }
  return merged;
}

}  // namespace aisp
