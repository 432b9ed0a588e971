// Direct reads. Changed from optimized_file_read: the same bands of 8 MiB requests, read through
// a descriptor opened with O_DIRECT, so the page cache is bypassed: the device writes each
// request by DMA straight into the output buffer. Why it is faster than buffered reads:
//   - no copy out of the page cache: each byte crosses host memory once (device -> buffer), not
//     twice (device -> page cache -> buffer);
//   - no page-cache pages to allocate, insert, and later drop: the drop each run() starts with
//     finds nothing of this variant's to free (after a buffered read by many threads the drop is
//     the costliest part of a sample on some hosts; README.md, "Results");
//   - the kernel does no readahead: the request size and the thread count alone set how much I/O
//     is in flight, which is what O_DIRECT users tune.
// What it needs: 4 KiB-aligned buffer, offsets and lengths (the harness's host tensors are
// page-aligned; 8 MiB pieces of a file of whole pages), and a filesystem that supports O_DIRECT
// (not tmpfs): where it is refused, setup fails with the filesystem's name. This is how loaders
// that feed GPUs read (the next step, not taken here, is reading straight into pinned memory).
//
// Bytes: the file size, 256 MiB. Ceiling: none (no measured storage ceiling yet).
#include "file_read_common.hpp"

namespace aisp::ch05 {

struct FileReadDirect : FileReadProblem {
  static constexpr std::size_t kRequest = std::size_t{8} << 20;

  void setup(Context& ctx) override {
    FileReadProblem::setup(ctx);
    close_direct();
    direct_fd_ = open_direct();
  }

  void run(Context& ctx) override {
    drop_page_cache();  // as every variant does; nothing of this variant's is cached
    read_in_bands(direct_fd_, static_cast<std::size_t>(std::max(ctx.host_threads(), 1)),
                  kRequest);
  }

  void teardown(Context& ctx) override {
    close_direct();
    FileReadProblem::teardown(ctx);
  }

  ~FileReadDirect() override { close_direct(); }

 private:
  void close_direct() noexcept {
    if (direct_fd_ >= 0)
      ::close(direct_fd_);
    direct_fd_ = -1;
  }

  int direct_fd_ = -1;
};

}  // namespace aisp::ch05

AISP_VARIANT(aisp::ch05::FileReadDirect)
