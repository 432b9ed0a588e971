// What the orchestrators of an `mpirun` job say to each other around each pair (docs/multi-gpu.md,
// "Several hosts"). Every message is one all-gather over the job (core/rank_exchange.hpp, MPI
// underneath), so every rank must make the same number of them; the protocol keeps it so even
// when one rank's worker crashes, skips or hangs:
//   begin  before each pair: every rank names it (they must agree) and whether it was interrupted;
//   x      a worker's exchange (measure in lockstep): answered with every rank's payload, or, when
//          a rank has already finished the pair, with an error that ends this rank's worker too;
//   r      a worker's host all-reduce of N floats (aisp/host_collective.hpp): when every rank
//          asks for the same N, the job sums them in place; otherwise an error, as for x;
//   done   after the worker ended, with its result; repeated while another rank still exchanges,
//          until every rank is done. The last round carries every rank's result;
//   end    rank 0 has finished the run (after the last pair, or before the first when it refuses
//          to measure), with its exit code, which every rank then exits with.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "aisp/result.hpp"
#include "core/rank_exchange.hpp"

namespace aisp {

// The ranks disagree on what they run (another target list, another binary): the run stops.
class RankMismatch : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RankSteps {
 public:
  explicit RankSteps(RankExchange& job) : job_(job) {}

  // Before pair `target`: go on, stop (a rank was interrupted: every rank stops, then ends the
  // job), or the job has ended (rank 0 sent `end` instead: exit with `exit_code`, no end_job).
  // Throws RankMismatch when the ranks name different pairs.
  struct Begin {
    enum class Kind { go, stop, job_ended } kind = Kind::go;
    int exit_code = 0;
  };
  Begin begin_pair(const std::string& target, bool interrupted);
  // The last step of a run: rank 0 gives its exit code, the others anything; returns rank 0's.
  int end_job(int exit_code);
  // A worker's exchange payload; returns the reply line for it (worker/worker_protocol.hpp).
  std::string exchange(const std::string& payload);
  // A worker's host all-reduce of `count` floats at `data` (its shared memory); returns the reply
  // line.
  std::string host_all_reduce(float* data, std::size_t count);
  // The worker has ended with `result` (results JSON text); returns every rank's, in rank order.
  std::vector<std::string> finish_pair(const std::string& result);

 private:
  RankExchange& job_;
};

// Rank 0's record of a pair from every rank's result (index = rank). A one-GPU pair ran on rank
// 0 alone: its result is rank 0's. A multi-GPU pair ran on every rank: the samples, speedup and
// roofline are rank 0's (every rank recorded the same samples, each the slowest rank's); the
// status is the worst rank's (failed, crashed or timed out before quarantined, skipped, passed),
// the reason names each rank that did not pass, and every other rank's failed checks are added
// to the verification, their detail prefixed "rank r: ".
PairResult merge_rank_results(const std::vector<PairResult>& per_rank);

}  // namespace aisp
