// Probe (not part of the build): why ch05:file_read's optimized variant (16 threads, 8 MiB
// pread bands) was slower than its baseline (one thread, 4 KiB read) on the H200 host, and what
// wins there. For each way of reading, it times the page-cache drop and the read separately, so
// the drop's share of a timed run() is visible. Build and run on the machine to study:
//   g++ -O2 -std=c++20 -pthread scripts/probes/file_read_probe.cpp -o /tmp/frp && /tmp/frp [dir]
// dir defaults to $TMPDIR or /tmp (the harness's scratch root).
#include <fcntl.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr std::size_t kFile = std::size_t{256} << 20;

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void die(const char* what) {
  std::perror(what);
  std::exit(1);
}

void drop(int fd) {
  if (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0) die("posix_fadvise");
}

// Reads [first, last) in `request`-byte preads into buf.
void read_band(int fd, unsigned char* buf, std::size_t first, std::size_t last,
               std::size_t request) {
  for (std::size_t off = first; off < last;) {
    const std::size_t want = std::min(request, last - off);
    const ssize_t got = pread(fd, buf + off, want, static_cast<off_t>(off));
    if (got <= 0) die("pread");
    off += static_cast<std::size_t>(got);
  }
}

// Sequential read() of `request` bytes at a time (the baseline's pattern when request = 4 KiB).
void read_sequential(int fd, unsigned char* buf, std::size_t request) {
  if (lseek(fd, 0, SEEK_SET) != 0) die("lseek");
  for (std::size_t off = 0; off < kFile;) {
    const ssize_t got = read(fd, buf + off, std::min(request, kFile - off));
    if (got <= 0) die("read");
    off += static_cast<std::size_t>(got);
  }
}

void read_parallel(int fd, unsigned char* buf, int threads, std::size_t request) {
  std::vector<std::jthread> workers;
  for (int t = 0; t < threads; ++t) {
    // Bands aligned to the request size, as in the chapter.
    const std::size_t units = kFile / request;
    const std::size_t first = units * t / threads * request;
    const std::size_t last = units * (t + 1) / threads * request;
    workers.emplace_back([=] { read_band(fd, buf, first, last, request); });
  }
}

struct Timing {
  double drop_ms, read_ms;
};

template <class Read>
Timing measure(int fd, Read&& read_once, int reps) {
  std::vector<double> drops, reads;
  for (int r = 0; r < reps; ++r) {
    const double t0 = now_ms();
    drop(fd);
    const double t1 = now_ms();
    read_once();
    const double t2 = now_ms();
    drops.push_back(t1 - t0);
    reads.push_back(t2 - t1);
  }
  std::sort(drops.begin(), drops.end());
  std::sort(reads.begin(), reads.end());
  return {drops[drops.size() / 2], reads[reads.size() / 2]};
}

void report(const char* name, Timing t) {
  const double gbs = kFile / 1e6 / t.read_ms;
  std::printf("%-34s read %8.2f ms (%6.2f GB/s)  drop before it %7.2f ms  drop+read %8.2f ms\n",
              name, t.read_ms, gbs, t.drop_ms, t.drop_ms + t.read_ms);
}

}  // namespace

int main(int argc, char** argv) {
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = argc > 1 ? argv[1] : (tmp != nullptr ? tmp : "/tmp");
  std::string path = dir + "/file_read_probe_XXXXXX";
  const int fd = mkostemp(path.data(), O_CLOEXEC);
  if (fd < 0) die("mkostemp");
  std::vector<unsigned char> data(kFile);
  std::mt19937_64 rng(42);
  for (std::size_t i = 0; i < kFile; i += 8) {
    const auto v = rng();
    std::memcpy(&data[i], &v, 8);
  }
  if (write(fd, data.data(), kFile) != static_cast<ssize_t>(kFile)) die("write");
  if (fdatasync(fd) != 0) die("fdatasync");
  struct statfs fs {};
  fstatfs(fd, &fs);
  std::printf("file %s, 256 MiB, fs magic 0x%lx, %u hardware threads\n", path.c_str(),
              static_cast<unsigned long>(fs.f_type), std::thread::hardware_concurrency());

  void* aligned = nullptr;
  if (posix_memalign(&aligned, 4096, kFile) != 0) die("posix_memalign");
  auto* buf = static_cast<unsigned char*>(aligned);
  std::memset(buf, 1, kFile);  // first-touch the buffer outside the timings
  const int reps = 7;

  report("read 4 KiB x1 thread (baseline)", measure(fd, [&] { read_sequential(fd, buf, 4096); }, reps));
  report("read 128 KiB x1", measure(fd, [&] { read_sequential(fd, buf, 128 << 10); }, reps));
  report("read 1 MiB x1", measure(fd, [&] { read_sequential(fd, buf, 1 << 20); }, reps));
  report("read 8 MiB x1", measure(fd, [&] { read_sequential(fd, buf, 8 << 20); }, reps));
  for (int threads : {2, 4, 8, 16}) {
    for (std::size_t req : {std::size_t{1} << 20, std::size_t{8} << 20}) {
      char name[64];
      std::snprintf(name, sizeof name, "pread %zu MiB x%d threads", req >> 20, threads);
      report(name, measure(fd, [&] { read_parallel(fd, buf, threads, req); }, reps));
    }
  }
  // O_DIRECT: no page cache, no drop needed (the drop still runs; it finds nothing to free).
  const int dfd = open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (dfd < 0) {
    std::perror("open O_DIRECT (skipping direct reads)");
  } else {
    for (int threads : {1, 2, 4, 8, 16}) {
      for (std::size_t req : {std::size_t{1} << 20, std::size_t{8} << 20}) {
        char name[64];
        std::snprintf(name, sizeof name, "O_DIRECT %zu MiB x%d threads", req >> 20, threads);
        report(name, measure(dfd, [&] { read_parallel(dfd, buf, threads, req); }, reps));
      }
    }
    close(dfd);
  }
  std::printf("page cache hit (no drop): ");
  read_parallel(fd, buf, 1, 8 << 20);
  const double t0 = now_ms();
  read_parallel(fd, buf, 1, 8 << 20);
  std::printf("%.2f ms for 256 MiB with 1 thread\n", now_ms() - t0);
  close(fd);
  unlink(path.c_str());
  std::free(aligned);
  return 0;
}
