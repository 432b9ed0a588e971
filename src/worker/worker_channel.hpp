// The worker's end of the protocol (worker/worker_protocol.hpp): writes each line whole to the
// descriptor the orchestrator passed down (--out-fd). Phases also go to the pair's log
// (worker/worker_log.hpp).
#pragma once

#include <string>

#include "aisp/result.hpp"

namespace aisp {

class WorkerChannel {
 public:
  explicit WorkerChannel(int fd) : fd_(fd) {}
  void phase(const std::string& name) const;
  void progress(const std::string& detail) const;
  void result(const PairResult& result) const;
  // This rank's part of an exchange across the job's ranks (worker/worker_rank_exchange.hpp).
  void exchange(const std::string& payload) const;
  void host_all_reduce(std::size_t count) const;

 private:
  void write_line(const std::string& line) const;
  int fd_;
};

}  // namespace aisp
