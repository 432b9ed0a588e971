#include "run/run_console.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace aisp {

RunConsole::RunConsole(int fd) : fd_(fd), terminal_(isatty(fd) != 0) {}

int RunConsole::width() const {
  if (!terminal_)
    return 0;
  winsize size{};
  if (ioctl(fd_, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
    return size.ws_col;
  return 80;
}

void RunConsole::print(std::string_view text) {
  if (closed_)
    return;
  std::fflush(fd_ == STDERR_FILENO ? stderr : stdout);
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd_, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      // EPIPE (the pipe's reader exited), EIO (the terminal hung up), ENOSPC (a full disk behind
      // a redirect): nothing more reaches the reader. /dev/null takes the descriptor's place so
      // that stdio and iostreams writing to it later (at exit) fail as quietly.
      closed_ = true;
      const int null_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
      if (null_fd >= 0) {
        ::dup2(null_fd, fd_);
        ::close(null_fd);
      }
      return;
    }
    written += static_cast<std::size_t>(n);
  }
}

}  // namespace aisp
