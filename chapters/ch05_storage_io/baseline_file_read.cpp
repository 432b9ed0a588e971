// Small reads: one thread calls read() for 4 KiB at a time, 65,536 calls for the 256 MiB file:
// the pattern of a naive loader (stdio's fread in 4 KiB pieces makes the same read() calls).
// Each call pays a system call and a page-cache lookup for one page, the device sees only what
// the kernel's readahead prefetches for one sequential reader (a window bounded by the device's
// read_ahead_kb, 128 KiB by default), and one core copies every byte out of the page cache.
//
// Bytes: the file size, 256 MiB. Ceiling: none (no measured storage ceiling yet).
#include <algorithm>

#include "file_read_common.hpp"

namespace aisp::ch05 {

struct FileReadSmallChunks : FileReadProblem {
  static constexpr std::size_t kChunk = 4096;

  void run(Context& /*ctx*/) override {
    drop_page_cache();
    if (::lseek(fd(), 0, SEEK_SET) != 0) {
      throw_io_error("lseek", errno, path(), "Unexpected on a regular file; check the mount.");
    }
    std::uint8_t* dst = out();
    std::size_t done = 0;
    while (done < file_bytes()) {
      const std::size_t want = std::min(kChunk, file_bytes() - done);
      const ssize_t got = ::read(fd(), dst + done, want);
      if (got < 0) {
        if (errno == EINTR)
          continue;
        throw_io_error("read", errno, path(), "Check the storage device (dmesg).");
      }
      if (got == 0) {
        throw_io_error("read", EIO, path(), "The file ended early: something truncated it.");
      }
      done += static_cast<std::size_t>(got);
    }
  }
};

}  // namespace aisp::ch05

AISP_VARIANT(aisp::ch05::FileReadSmallChunks)
