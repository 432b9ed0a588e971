#include "worker/worker_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "worker/worker_protocol.hpp"
#include "worker/worker_request.hpp"

namespace aisp {
namespace {

[[noreturn]] void exec_worker(const WorkerLaunch& launch, int log_fd, int protocol_fd) {
  setpgid(0, 0);
  dup2(log_fd, STDOUT_FILENO);
  dup2(log_fd, STDERR_FILENO);
  // The protocol descriptor number is passed on the command line (--out-fd), already in argv.
  (void)protocol_fd;
  for (const auto& [key, value] : launch.environment) setenv(key.c_str(), value.c_str(), 1);
  std::vector<char*> args;
  for (const auto& a : launch.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execv(args[0], args.data());
  const std::string message = fmt::format("aisp: cannot start the worker {}: {}\n", launch.argv[0],
                                          std::strerror(errno));
  (void)!write(STDERR_FILENO, message.data(), message.size());
  _exit(127);
}

void handle_line(const std::string& line, WorkerOutcome& outcome,
                 const std::function<void(const std::string&)>& on_phase) {
  WorkerMessage message = read_worker_line(line);
  switch (message.kind) {
  case WorkerMessage::Kind::phase:
    outcome.last_phase = std::move(message.phase);
    if (on_phase) on_phase(outcome.last_phase);
    break;
  case WorkerMessage::Kind::result:
    outcome.result = std::move(message.result);
    outcome.has_result = true;
    break;
  case WorkerMessage::Kind::other:
    break;
  }
}

}  // namespace

WorkerOutcome run_worker_process(const WorkerLaunch& launch, const std::atomic<bool>& interrupt,
                                 const std::function<void(const std::string&)>& on_phase) {
  WorkerOutcome outcome;
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0)
    throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  const int log_fd = open(launch.log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0)
    throw std::runtime_error(
        fmt::format("cannot open the worker log {}: {}", launch.log_file.string(), std::strerror(errno)));

  // The worker writes protocol lines to a fixed descriptor number, named in its argv
  // (worker_argv: --out-fd kWorkerProtocolFd).
  WorkerLaunch with_fd = launch;
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    dup2(pipe_fds[1], kWorkerProtocolFd);  // dup2 clears FD_CLOEXEC on the new descriptor
    exec_worker(with_fd, log_fd, kWorkerProtocolFd);
  }
  setpgid(pid, pid);
  close(pipe_fds[1]);
  close(log_fd);

  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(launch.timeout);
  std::string buffer;
  bool open_pipe = true;
  while (open_pipe) {
    if (interrupt.load()) {
      outcome.interrupted = true;
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      outcome.timed_out = true;
      break;
    }
    pollfd fd{pipe_fds[0], POLLIN, 0};
    const int ready = poll(&fd, 1, 100);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    char chunk[65536];
    const ssize_t n = read(pipe_fds[0], chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      open_pipe = false;
      break;
    }
    buffer.append(chunk, static_cast<std::size_t>(n));
    for (std::size_t newline; (newline = buffer.find('\n')) != std::string::npos;) {
      handle_line(buffer.substr(0, newline), outcome, on_phase);
      buffer.erase(0, newline + 1);
    }
  }
  close(pipe_fds[0]);
  if (outcome.timed_out || outcome.interrupted) kill(-pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  return outcome;
}

}  // namespace aisp
