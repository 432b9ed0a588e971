// Large parallel reads. Changed from the baseline: the file is cut into ctx.host_threads()
// contiguous bands, one std::thread each, and every thread pread()s its band in 8 MiB requests
// straight into its place in the output buffer (FileReadProblem::read_in_bands). Why it can be
// faster:
//   - 32 calls instead of 65,536: the per-call cost (system call, page-cache lookup, readahead
//     bookkeeping) is paid per 8 MiB, not per 4 KiB;
//   - for a request larger than the readahead window the kernel reads ahead in steps of the
//     device's largest I/O (max_sectors_kb) instead of read_ahead_kb, and several threads keep
//     several such streams in flight: the queue depth an NVMe drive needs to reach its
//     bandwidth, where one small-read stream gets one readahead window;
//   - the copy out of the page cache, one core's work in the baseline, is spread over cores.
// What it still pays: every byte lands in the page cache first and is copied from there, and the
// next run()'s drop of those pages (timed; see file_read_common.hpp) costs more after a read by
// many threads (README.md, "Results"). optimized_file_read_direct removes both.
// Band and request boundaries are multiples of 8 MiB, so every request covers whole pages and no
// page-cache page is shared by two threads. The reads are still buffered (through the page cache)
// as in the baseline; only the size and concurrency of the requests changed.
//
// Bytes: the file size, 256 MiB. Ceiling: none (no measured storage ceiling yet).
#include "file_read_common.hpp"

namespace aisp::ch05 {

struct FileReadLargeParallel : FileReadProblem {
  static constexpr std::size_t kRequest = std::size_t{8} << 20;

  void run(Context& ctx) override {
    drop_page_cache();
    read_in_bands(fd(), static_cast<std::size_t>(std::max(ctx.host_threads(), 1)), kRequest);
  }
};

}  // namespace aisp::ch05

AISP_VARIANT(aisp::ch05::FileReadLargeParallel)
