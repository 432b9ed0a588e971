// The worker's way to the other ranks of an `mpirun` job (core/rank_exchange.hpp): an exchange
// line to its orchestrator on the protocol descriptor, which all-gathers it with the other
// orchestrators over MPI and writes the answer back on the reply descriptor. Only orchestrators
// call MPI; a worker stays a plain child process.
#pragma once

#include <string>
#include <vector>

#include "core/rank_exchange.hpp"
#include "worker/worker_channel.hpp"

namespace aisp {

class WorkerRankExchange final : public RankExchange {
 public:
  // `shared_fd`: the memory file shared with the orchestrator (kWorkerSharedMemoryFd), for
  // all_reduce_sum.
  WorkerRankExchange(const WorkerChannel& channel, int reply_fd, int rank, int size,
                     int shared_fd = -1)
      : channel_(channel), reply_fd_(reply_fd), shared_fd_(shared_fd), rank_(rank), size_(size) {}
  ~WorkerRankExchange() override;
  WorkerRankExchange(const WorkerRankExchange&) = delete;
  WorkerRankExchange& operator=(const WorkerRankExchange&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  // Throws RankExchangeError when the orchestrator answers with an error (a peer left the pair)
  // or closes the reply descriptor.
  std::vector<std::string> all_gather(const std::string& mine) override;
  // The floats go through the shared memory (grown and mapped on first use, kept mapped), the
  // request and its answer through the pipes; the orchestrator sums over MPI in place.
  void all_reduce_sum(float* data, std::size_t count) override;

 private:
  std::string read_reply_line();

  const WorkerChannel& channel_;
  int reply_fd_;
  int shared_fd_;
  void* shared_ = nullptr;
  std::size_t shared_bytes_ = 0;
  int rank_, size_;
  std::string buffer_;
};

}  // namespace aisp
