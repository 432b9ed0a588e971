// How the processes of an `mpirun` job agree while they measure one pair (docs/multi-gpu.md,
// "Several hosts"). Each rank's worker runs the same pair on its own GPU; its NCCL collectives
// need every rank to call run() the same number of times, so every decision that could differ
// between processes (stop sampling or go on, the secret seed of the timed-call checks, whether
// verification passed) is taken once and shared, and each sample is the slowest rank's.
//
// The one primitive is all_gather: every rank contributes a string and gets every rank's, in rank
// order. Workers reach it through their orchestrator (worker/worker_rank_exchange.hpp), which
// calls MPI; tests through threads. A rank whose peers have left the pair (a crash, a skip)
// gets RankExchangeError, and the pair ends there.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace aisp {

class RankExchangeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RankExchange {
 public:
  virtual ~RankExchange() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Every rank's `mine`, indexed by rank. Blocks until every rank has called it.
  virtual std::vector<std::string> all_gather(const std::string& mine) = 0;
  // `data` replaced by its elementwise sum over every rank (each rank gives `count` floats): the
  // host collective of a host-staged all-reduce. This default moves every rank's bytes through
  // all_gather; the orchestrator's MPI job and the worker's relay do it in place.
  virtual void all_reduce_sum(float* data, std::size_t count);
};

// The helpers below work on a null exchange too (one process): they return the local value.

// The largest of every rank's value; elementwise for a vector (one exchange for all of them).
double ranks_max(RankExchange* exchange, double mine);
std::vector<double> ranks_max(RankExchange* exchange, const std::vector<double>& mine);
// Whether every rank's value is true.
bool ranks_all(RankExchange* exchange, bool mine);
// Rank 0's value, on every rank.
std::uint64_t ranks_root_value(RankExchange* exchange, std::uint64_t mine);
std::vector<bool> ranks_root_value(RankExchange* exchange, const std::vector<bool>& mine);
std::string ranks_root_value(RankExchange* exchange, const std::string& mine);
// Every rank's text (one element per rank; just `mine` without an exchange).
std::vector<std::string> ranks_gather(RankExchange* exchange, const std::string& mine);

}  // namespace aisp
