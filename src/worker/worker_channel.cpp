#include "worker/worker_channel.hpp"

#include <unistd.h>

#include <cerrno>

#include "worker/worker_log.hpp"
#include "worker/worker_protocol.hpp"

namespace aisp {

void WorkerChannel::phase(const std::string& name) const {
  worker_log::phase(name);
  write_line(worker_phase_line(name));
}

void WorkerChannel::progress(const std::string& detail) const {
  write_line(worker_progress_line(detail));
}

void WorkerChannel::result(const PairResult& result) const {
  write_line(worker_result_line(result));
}

void WorkerChannel::exchange(const std::string& payload) const {
  write_line(worker_exchange_line(payload));
}

void WorkerChannel::host_all_reduce(std::size_t count) const {
  write_line(worker_host_all_reduce_line(count));
}

void WorkerChannel::write_line(const std::string& line) const {
  const std::string framed = line + '\n';
  std::size_t written = 0;
  while (written < framed.size()) {
    const ssize_t n = ::write(fd_, framed.data() + written, framed.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the orchestrator is gone; nothing useful left to do with the line
    written += static_cast<std::size_t>(n);
  }
}

}  // namespace aisp
