// Large parallel reads. Changed from the baseline: the file is cut into ctx.host_threads()
// contiguous bands, one std::thread each, and every thread pread()s its band in 8 MiB requests
// straight into its place in the output buffer. Why it is faster:
//   - 32 calls instead of 65,536: the per-call cost (system call, page-cache lookup, readahead
//     bookkeeping) is paid per 8 MiB, not per 4 KiB;
//   - for a request larger than the readahead window the kernel reads ahead in steps of the
//     device's largest I/O (max_sectors_kb) instead of read_ahead_kb, and several threads keep
//     several such streams in flight: the queue depth an NVMe drive needs to reach its
//     bandwidth, where one small-read stream gets one readahead window;
//   - the copy out of the page cache, one core's work in the baseline, is spread over cores.
// Each thread reads one contiguous band front to back, so each is a sequential stream to the
// kernel; handing out 8 MiB chunks round-robin from a shared counter measured markedly slower.
// Band and request boundaries are multiples of 8 MiB, so every request covers whole pages and no
// page-cache page is shared by two threads. The reads are still buffered (through the page cache)
// as in the baseline; only the size and concurrency of the requests changed.
//
// Bytes: the file size, 256 MiB. Ceiling: none (no measured storage ceiling yet).
#include <algorithm>
#include <exception>
#include <thread>

#include "file_read_common.hpp"

namespace aisp::ch05 {

struct FileReadLargeParallel : FileReadProblem {
  static constexpr std::size_t kChunk = std::size_t{8} << 20;

  void run(Context& ctx) override {
    drop_page_cache();
    const std::size_t chunks = (file_bytes() + kChunk - 1) / kChunk;
    const std::size_t threads =
        std::clamp<std::size_t>(static_cast<std::size_t>(std::max(ctx.host_threads(), 1)), 1,
                                std::max<std::size_t>(chunks, 1));
    std::vector<std::exception_ptr> errors(threads);
    {
      // jthread joins on destruction: no thread outlives this block, even if starting one throws.
      std::vector<std::jthread> workers;
      workers.reserve(threads);
      for (std::size_t t = 0; t < threads; ++t) {
        const std::size_t first = chunks * t / threads;
        const std::size_t last = chunks * (t + 1) / threads;
        workers.emplace_back([this, first, last, error = &errors[t]] {
          try {
            for (std::size_t c = first; c < last; ++c)
              read_chunk(c);
          } catch (...) {
            *error = std::current_exception();
          }
        });
      }
    }
    for (const std::exception_ptr& error : errors) {
      if (error)
        std::rethrow_exception(error);
    }
  }

 private:
  // Bytes [chunk·kChunk, (chunk+1)·kChunk) of the file, clipped to its size, into the same range
  // of the output buffer. pread may return less than asked; loop until the chunk is complete.
  void read_chunk(std::size_t chunk) const {
    std::size_t offset = chunk * kChunk;
    const std::size_t end = std::min(offset + kChunk, file_bytes());
    while (offset < end) {
      const ssize_t got = ::pread(fd(), out() + offset, end - offset, static_cast<off_t>(offset));
      if (got < 0) {
        if (errno == EINTR)
          continue;
        throw_io_error("pread", errno, path(), "Check the storage device (dmesg).");
      }
      if (got == 0) {
        throw_io_error("pread", EIO, path(), "The file ended early: something truncated it.");
      }
      offset += static_cast<std::size_t>(got);
    }
  }
};

}  // namespace aisp::ch05

AISP_VARIANT(aisp::ch05::FileReadLargeParallel)
