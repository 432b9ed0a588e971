#include "worker/worker_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <utility>

#include "results/results_json.hpp"
#include "worker/worker_protocol.hpp"
#include "worker/worker_request.hpp"

namespace aisp {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void exec_worker(const WorkerLaunch& launch, int log_fd) {
  setpgid(0, 0);
  dup2(log_fd, STDOUT_FILENO);
  dup2(log_fd, STDERR_FILENO);
  // The protocol descriptor number is passed on the command line (--out-fd), already in argv.
  for (const auto& [key, value] : launch.environment)
    setenv(key.c_str(), value.c_str(), 1);
  // The orchestrator ignores a SIGPIPE its own writes raise; the worker starts with the default.
  signal(SIGPIPE, SIG_DFL);
  std::vector<char*> args;
  for (const auto& a : launch.argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execv(args[0], args.data());
  const std::string message =
      fmt::format("aisp: cannot start the worker {}: {}\n", launch.argv[0], std::strerror(errno));
  (void)!write(STDERR_FILENO, message.data(), message.size());
  _exit(127);
}

// Writes a whole line to the worker's reply descriptor; false when the worker is gone.
bool write_reply(int fd, const std::string& line) {
  const std::string framed = line + '\n';
  std::size_t written = 0;
  while (written < framed.size()) {
    const ssize_t n = write(fd, framed.data() + written, framed.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    written += static_cast<std::size_t>(n);
  }
  return true;
}

// The orchestrator's view of the memory file it shares with the worker (under mpirun): mapped
// on the first host collective, again when the worker has grown it.
class SharedMemory {
 public:
  explicit SharedMemory(int fd) : fd_(fd) {}
  ~SharedMemory() {
    if (data_ != nullptr) munmap(data_, size_);
    if (fd_ >= 0) close(fd_);
  }
  SharedMemory(const SharedMemory&) = delete;
  SharedMemory& operator=(const SharedMemory&) = delete;

  // The first `bytes` of the file, or null (with `error`) when the worker has not made it that
  // large.
  float* map(std::size_t bytes, std::string& error) {
    struct stat info {};
    if (fd_ < 0 || fstat(fd_, &info) != 0) {
      error = "no shared memory with the worker";
      return nullptr;
    }
    const auto size = static_cast<std::size_t>(info.st_size);
    if (size < bytes) {
      error = fmt::format("the worker's shared memory holds {} bytes, {} asked", size, bytes);
      return nullptr;
    }
    if (data_ == nullptr || size_ < bytes) {
      if (data_ != nullptr) munmap(data_, size_);
      data_ = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
      size_ = size;
      if (data_ == MAP_FAILED) {
        data_ = nullptr;
        error = fmt::format("mmap of the worker's shared memory: {}", std::strerror(errno));
        return nullptr;
      }
    }
    return static_cast<float*>(data_);
  }

 private:
  int fd_;
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

void handle_line(const std::string& line, WorkerOutcome& outcome, const WorkerEvents& events,
                 int reply_fd, SharedMemory* shared) {
  WorkerMessage message = read_worker_line(line);
  switch (message.kind) {
  case WorkerMessage::Kind::exchange:
    if (reply_fd >= 0 && events.on_exchange)
      write_reply(reply_fd, events.on_exchange(message.payload));
    break;
  case WorkerMessage::Kind::host_all_reduce:
    if (reply_fd >= 0 && shared != nullptr && events.on_host_all_reduce) {
      std::string error;
      float* data = shared->map(message.count * sizeof(float), error);
      write_reply(reply_fd, data != nullptr ? events.on_host_all_reduce(data, message.count)
                                            : exchange_error_line(error));
    }
    break;
  case WorkerMessage::Kind::phase:
    outcome.last_phase = std::move(message.phase);
    outcome.last_progress.clear();
    if (events.on_phase)
      events.on_phase(outcome.last_phase);
    break;
  case WorkerMessage::Kind::progress:
    outcome.last_progress = std::move(message.detail);
    if (events.on_progress)
      events.on_progress(outcome.last_progress);
    break;
  case WorkerMessage::Kind::result:
    outcome.result = std::move(message.result);
    outcome.has_result = true;
    break;
  case WorkerMessage::Kind::other:
    break;
  }
}

// The worker's private temporary directory: made before it starts, removed after it ended.
class PrivateTempDir {
 public:
  PrivateTempDir() {
    std::error_code error;
    const fs::path parent = fs::temp_directory_path(error);
    if (error) {
      note_ = fmt::format("no private temporary directory ({}); the worker uses the system's",
                          error.message());
      return;
    }
    std::string pattern = (parent / "aisp-worker-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      note_ = fmt::format("no private temporary directory (cannot create one in {}: {}); the "
                          "worker uses {}",
                          parent.string(), std::strerror(errno), parent.string());
      return;
    }
    path_ = pattern;
  }
  ~PrivateTempDir() { remove(); }
  PrivateTempDir(const PrivateTempDir&) = delete;
  PrivateTempDir& operator=(const PrivateTempDir&) = delete;

  const std::optional<fs::path>& path() const { return path_; }

  // Removes the directory and everything in it; returns what happened, for the pair's log.
  std::string remove() {
    if (!path_)
      return note_;
    std::uintmax_t bytes = 0;
    std::error_code error;
    for (auto it = fs::recursive_directory_iterator(*path_, error);
         !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
      std::error_code size_error;
      if (it->is_regular_file(size_error)) {
        const std::uintmax_t size = it->file_size(size_error);
        if (!size_error)
          bytes += size;
      }
    }
    error.clear();
    fs::remove_all(*path_, error);
    const std::string removed_path = path_->string();
    path_.reset();
    if (error)
      return note_ = fmt::format("could not remove the worker's temporary directory {}: {}",
                                 removed_path, error.message());
    return note_ = bytes == 0 ? fmt::format("removed the worker's temporary directory {} (empty)",
                                            removed_path)
                              : fmt::format("removed the worker's temporary directory {} ({:.1f} "
                                            "MiB left in it)",
                                            removed_path, static_cast<double>(bytes) / (1 << 20));
  }

 private:
  std::optional<fs::path> path_;
  std::string note_;
};

}  // namespace

WorkerOutcome run_worker_process(const WorkerLaunch& launch, const std::atomic<bool>& interrupt,
                                 const std::function<void(const std::string&)>& on_phase) {
  WorkerEvents events;
  events.on_phase = on_phase;
  return run_worker_process(launch, interrupt, events);
}

WorkerOutcome run_worker_process(const WorkerLaunch& launch, const std::atomic<bool>& interrupt,
                                 const WorkerEvents& events) {
  WorkerOutcome outcome;
  const auto started = std::chrono::steady_clock::now();
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0)
    throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  const int log_fd = open(launch.log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    const int error = errno;
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    throw FileWriteError(fmt::format("cannot open the worker log {}: {}", launch.log_file.string(),
                                     std::strerror(error)));
  }

  // The reply pipe (under mpirun): the worker reads [0] as kWorkerReplyFd, we write [1]; and the
  // memory file for host collectives, the worker's kWorkerSharedMemoryFd.
  int reply_fds[2] = {-1, -1};
  int shared_fd = -1;
  // Before the worker exists: close what was opened so far and say which call failed (errno).
  const auto fail_before_fork = [&](const char* call) {
    const int error = errno;
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    close(log_fd);
    for (const int fd : reply_fds)
      if (fd >= 0) close(fd);
    throw std::runtime_error(fmt::format("{}: {}", call, std::strerror(error)));
  };
  if (launch.reply_channel &&
      (pipe2(reply_fds, O_CLOEXEC) != 0 ||
       (shared_fd = memfd_create("aisp-worker-shared", MFD_CLOEXEC)) < 0))
    fail_before_fork("pipe or memfd_create");
  SharedMemory shared(shared_fd);

  PrivateTempDir temp_dir;
  WorkerLaunch with_temp_dir = launch;
  if (temp_dir.path())
    with_temp_dir.environment.emplace_back("TMPDIR", temp_dir.path()->string());

  // The worker writes protocol lines to a fixed descriptor number, named in its argv
  // (worker_argv: --out-fd kWorkerProtocolFd).
  const pid_t pid = fork();
  if (pid < 0)
    fail_before_fork("fork");
  if (pid == 0) {
    // Out of the way of the fixed numbers first, so no dup2 below overwrites another's source
    // (the log too: it may hold 4 or 5). F_DUPFD_CLOEXEC: the copies themselves are not inherited.
    const int log_copy = fcntl(log_fd, F_DUPFD_CLOEXEC, kWorkerSharedMemoryFd + 1);
    const int reply_read =
        reply_fds[0] >= 0 ? fcntl(reply_fds[0], F_DUPFD_CLOEXEC, kWorkerSharedMemoryFd + 1) : -1;
    const int shared_copy =
        shared_fd >= 0 ? fcntl(shared_fd, F_DUPFD_CLOEXEC, kWorkerSharedMemoryFd + 1) : -1;
    dup2(pipe_fds[1], kWorkerProtocolFd);  // dup2 clears FD_CLOEXEC on the new descriptor
    if (reply_read >= 0) dup2(reply_read, kWorkerReplyFd);
    if (shared_copy >= 0) dup2(shared_copy, kWorkerSharedMemoryFd);
    exec_worker(with_temp_dir, log_copy >= 0 ? log_copy : log_fd);
  }
  setpgid(pid, pid);
  close(pipe_fds[1]);
  close(log_fd);
  if (reply_fds[0] >= 0) close(reply_fds[0]);

  const auto deadline =
      started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(launch.timeout);
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
    if (events.on_wait)
      events.on_wait();
    if (ready < 0 && errno != EINTR)
      break;
    if (ready <= 0)
      continue;
    char chunk[65536];
    const ssize_t n = read(pipe_fds[0], chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      open_pipe = false;
      break;
    }
    buffer.append(chunk, static_cast<std::size_t>(n));
    for (std::size_t newline; (newline = buffer.find('\n')) != std::string::npos;) {
      handle_line(buffer.substr(0, newline), outcome, events, reply_fds[1],
                  launch.reply_channel ? &shared : nullptr);
      buffer.erase(0, newline + 1);
    }
  }
  close(pipe_fds[0]);
  if (reply_fds[1] >= 0) close(reply_fds[1]);
  if (outcome.timed_out || outcome.interrupted)
    kill(-pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status))
    outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status))
    outcome.signal = WTERMSIG(status);
  outcome.temp_dir_note = temp_dir.remove();
  outcome.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return outcome;
}

}  // namespace aisp
