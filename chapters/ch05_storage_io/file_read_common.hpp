// The file_read problem, shared by its variants: read a 256 MiB file of random bytes from
// ctx.scratch_dir() into a host buffer. setup writes the file, flushes it to storage
// (fdatasync) and asks the kernel to drop its pages from the page cache; every run() starts
// with the same drop (drop_page_cache), so each timed read starts cold.
//
// The drop is inside the timed region (run() is the only per-sample hook). It frees clean
// pages, no I/O, but it walks every cached page of the file: on a 2-vCPU development VM it cost
// about 1 ms after a baseline read and about 10-20 ms after an optimized one (README.md). Paid
// in the optimized variant's samples, it pulls the measured speedup towards 1, never beyond.
//
// Where the kernel cannot drop the pages (tmpfs, ramfs: the page cache *is* the file; some
// overlay and FUSE mounts ignore the advice) every read is a memory copy, not storage I/O. setup
// detects this by counting the file's resident pages after the drop (mincore) and states it in
// the signature: page_cache=dropped, or page_cache=not-droppable(<filesystem>). Both variants
// probe the same way, so their signatures stay equal.
//
// Bytes: the file size (read once from storage, written once into the buffer). FLOPs: none.
// Ceiling: none yet. The suite has no measured storage-bandwidth ceiling, so no roofline
// fraction is claimed for this pair.
#pragma once

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <exception>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "aisp/benchmark.hpp"

namespace aisp::ch05 {

// A failed system call: which call, on which file, why (errno), and what to do about it.
[[noreturn]] inline void throw_io_error(const char* call, int error,
                                        const std::filesystem::path& path, const char* advice) {
  throw std::runtime_error(std::string("file_read: ") + call + " on " + path.string() +
                           " failed: " + std::system_category().message(error) + ". " + advice);
}

class FileReadProblem : public Benchmark {
 public:
  static constexpr std::size_t kFileBytes = std::size_t{256} << 20;

  FileReadProblem() = default;
  FileReadProblem(const FileReadProblem&) = delete;
  FileReadProblem& operator=(const FileReadProblem&) = delete;
  ~FileReadProblem() override { close_file(); }

  // page_cache is known only after setup has probed the scratch filesystem.
  Signature signature() const override {
    return Signature()
        .set("file_bytes", file_bytes_)
        .set("dtype", DType::u8)
        .set("page_cache", page_cache_);
  }

  Requirements requirements() const override { return Requirements::cpu(); }

  void setup(Context& ctx) override {
    close_file();
    // Named like this in both variants, so both get the same bytes for a given seed.
    Tensor contents =
        ctx.alloc("file_contents", DType::u8, file_bytes_, Role::scratch, Memory::host);
    ctx.fill_uniform_int(contents, 0, 255);
    create_file(ctx.scratch_dir(), contents);
    out_ = ctx.alloc("out", DType::u8, file_bytes_, Role::output, Memory::host);
    drop_page_cache();
    page_cache_ = probe_page_cache();
  }

  std::vector<Tensor> outputs() const override { return {out_}; }

  std::optional<Tolerance> tolerance() const override {
    return Tolerance{0.0, 0.0, "a file read returns the bytes written, bit for bit"};
  }

  Workload workload() const override {
    Workload w;
    w.bytes = static_cast<double>(file_bytes_);
    w.flops = 0;
    w.memory_ceiling = Ceiling::none;  // no measured storage ceiling yet
    w.compute_ceiling = Ceiling::none;
    return w;
  }

  // Host work: time each call of run() on its own; there is nothing to capture in a graph.
  TimingMode timing_mode() const override { return TimingMode::direct; }

  void teardown(Context& /*ctx*/) override {
    const int fd = fd_;
    fd_ = -1;
    const int close_error = (fd >= 0 && ::close(fd) != 0) ? errno : 0;
    std::error_code ignored;  // the harness removes the scratch directory anyway
    std::filesystem::remove(path_, ignored);
    if (close_error != 0) {
      throw_io_error("close", close_error, path_,
                     "The file was only read; check the scratch filesystem.");
    }
  }

 protected:
  // Drops the file's clean pages from the page cache, so the next read comes from storage.
  // Both variants call this first in run().
  void drop_page_cache() const {
    const int error = ::posix_fadvise(fd_, 0, 0, POSIX_FADV_DONTNEED);
    if (error != 0) {  // posix_fadvise returns the error; it does not set errno
      throw_io_error("posix_fadvise(POSIX_FADV_DONTNEED)", error, path_,
                     error == EBADF ? "The file is not open: run() needs setup() and no teardown()."
                                    : "The filesystem rejects the advice; point the scratch "
                                      "directory at a local disk.");
    }
  }

  // A second descriptor on the same file that bypasses the page cache (O_DIRECT): reads go from
  // the device by DMA straight into the caller's buffer. Needs 4 KiB-aligned buffers, offsets and
  // lengths (the harness's host tensors are page-aligned; the file is whole pages). Throws with
  // Unavailable (a skip) where the filesystem refuses O_DIRECT (tmpfs, some overlay and FUSE mounts).
  int open_direct() const {
    const int fd = ::open(path_.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
    if (fd < 0 && errno == EINVAL) {  // the filesystem does not do direct I/O: not this pair's fault
      throw Unavailable("file_read: the scratch filesystem (" + filesystem_name() + ") at " +
                        path_.parent_path().string() +
                        " refuses O_DIRECT; point the scratch root (TMPDIR) at a disk "
                        "filesystem such as ext4 or xfs to run this variant");
    }
    if (fd < 0)
      throw_io_error("open(O_DIRECT)", errno, path_, "Check the scratch directory.");
    return fd;
  }

  // Reads the whole file through `fd` into out(): the file is cut into `threads` contiguous
  // bands of whole `request`-byte pieces, one std::thread each, and every thread pread()s its
  // band front to back straight into its place in the buffer (a sequential stream to the
  // kernel; handing out pieces round-robin from a shared counter measured markedly slower).
  // Used by the optimized variants; the baseline reads with one thread.
  void read_in_bands(int fd, std::size_t threads, std::size_t request) const {
    const std::size_t pieces = (file_bytes() + request - 1) / request;
    threads = std::clamp<std::size_t>(threads, 1, std::max<std::size_t>(pieces, 1));
    std::vector<std::exception_ptr> errors(threads);
    {
      // jthread joins on destruction: no thread outlives this block, even if starting one throws.
      std::vector<std::jthread> workers;
      workers.reserve(threads);
      for (std::size_t t = 0; t < threads; ++t) {
        const std::size_t first = pieces * t / threads;
        const std::size_t last = pieces * (t + 1) / threads;
        workers.emplace_back([this, fd, request, first, last, error = &errors[t]] {
          try {
            for (std::size_t p = first; p < last; ++p)
              read_piece(fd, p * request, std::min((p + 1) * request, file_bytes()));
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

  int fd() const { return fd_; }
  std::uint8_t* out() const { return out_.as<std::uint8_t>(); }
  std::size_t file_bytes() const { return file_bytes_; }
  const std::filesystem::path& path() const { return path_; }

  // Protected so a test can try sizes that are not whole pages or chunks.
  std::size_t file_bytes_ = kFileBytes;

 private:
  // A fresh file of the tensor's bytes, flushed to storage and kept open read-write in fd_.
  // A unique name, so variants set up side by side in one scratch directory never share a file.
  void create_file(const std::filesystem::path& dir, const Tensor& contents) {
    std::string name = (dir / "file_read_XXXXXX").string();
    fd_ = ::mkostemp(name.data(), O_CLOEXEC);
    path_ = name;
    if (fd_ < 0) {
      throw_io_error("mkostemp", errno, path_,
                     "Check that the scratch directory exists and is writable.");
    }
    const auto* src = contents.as<const std::uint8_t>();
    std::size_t done = 0;
    while (done < file_bytes_) {
      const ssize_t wrote = ::write(fd_, src + done, file_bytes_ - done);
      if (wrote < 0) {
        if (errno == EINTR)
          continue;
        throw_io_error("write", errno, path_,
                       "The scratch filesystem needs 256 MiB free per variant; free space or "
                       "point the scratch directory elsewhere.");
      }
      done += static_cast<std::size_t>(wrote);
    }
    // Dirty pages cannot be dropped: write them to storage first.
    if (::fdatasync(fd_) != 0) {
      throw_io_error("fdatasync", errno, path_, "The data did not reach storage; check the disk.");
    }
  }

  // "dropped" when at most half of the file's pages are still resident after a drop, else
  // "not-droppable(<filesystem>)": the timed reads are then page-cache copies.
  std::string probe_page_cache() const {
    void* map = ::mmap(nullptr, file_bytes_, PROT_READ, MAP_SHARED, fd_, 0);
    if (map == MAP_FAILED) {
      throw_io_error("mmap", errno, path_, "Needed to count resident pages; check memory limits.");
    }
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    std::vector<unsigned char> resident((file_bytes_ + page - 1) / page);
    const int rc = ::mincore(map, file_bytes_, resident.data());
    const int mincore_error = errno;
    if (::munmap(map, file_bytes_) != 0) {
      throw_io_error("munmap", errno, path_, "Unexpected; report it with the kernel version.");
    }
    if (rc != 0) {
      throw_io_error("mincore", mincore_error, path_,
                     "Unexpected; report it with the kernel version.");
    }
    std::size_t resident_pages = 0;
    for (const unsigned char flags : resident)
      resident_pages += flags & 1u;
    if (2 * resident_pages <= resident.size())
      return "dropped";
    return "not-droppable(" + filesystem_name() + ")";
  }

  std::string filesystem_name() const {
    struct statfs fs {};
    if (::fstatfs(fd_, &fs) != 0) {
      throw_io_error("fstatfs", errno, path_, "Unexpected; report it with the kernel version.");
    }
    switch (static_cast<unsigned long>(fs.f_type)) {
    case TMPFS_MAGIC: return "tmpfs";
    case RAMFS_MAGIC: return "ramfs";
    case OVERLAYFS_SUPER_MAGIC: return "overlay";
    case FUSE_SUPER_MAGIC: return "fuse";
    case NFS_SUPER_MAGIC: return "nfs";
    default: {
      char hex[32];
      std::snprintf(hex, sizeof hex, "fs-0x%lx", static_cast<unsigned long>(fs.f_type));
      return hex;
    }
    }
  }

  // Bytes [offset, end) of the file into the same range of out(). pread may return less than
  // asked; loop until the piece is complete.
  void read_piece(int fd, std::size_t offset, std::size_t end) const {
    while (offset < end) {
      const ssize_t got = ::pread(fd, out() + offset, end - offset, static_cast<off_t>(offset));
      if (got < 0) {
        if (errno == EINTR)
          continue;
        throw_io_error("pread", errno, path_, "Check the storage device (dmesg).");
      }
      if (got == 0) {
        throw_io_error("pread", EIO, path_, "The file ended early: something truncated it.");
      }
      offset += static_cast<std::size_t>(got);
    }
  }

  void close_file() noexcept {
    if (fd_ >= 0)
      ::close(fd_);
    fd_ = -1;
  }

  std::filesystem::path path_;
  int fd_ = -1;
  Tensor out_;
  std::string page_cache_ = "not-probed";  // set by setup
};

}  // namespace aisp::ch05
