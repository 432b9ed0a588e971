#include "run/worker_channel.hpp"

#include <unistd.h>

#include <cerrno>
#include <nlohmann/json.hpp>

#include "report/results_json.hpp"

namespace aisp {

void WorkerChannel::phase(const std::string& name) const {
  write_line(nlohmann::json{{"type", "phase"}, {"phase", name}}.dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void WorkerChannel::result(const PairResult& result) const {
  // Replace invalid UTF-8 (a reason quoting a crash log) instead of throwing.
  write_line(nlohmann::json{{"type", "result"}, {"result", to_json(result)}}.dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace));
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
