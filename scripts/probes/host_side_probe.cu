// Probe (not part of the build): how pageable host<->device bandwidth and the CUDA-graph per-node
// cost depend on where the host buffer's pages live (NUMA node, first touch, huge pages) and
// where the calling thread runs. Used to decide how `aisp bench peak` measures them; the findings
// are in docs/peaks.md. Build and run on the GPU machine:
//   nvcc -O2 -std=c++17 -arch=sm_90a scripts/probes/host_side_probe.cu -o /tmp/probe && /tmp/probe
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime.h>

#include "probe_check.hpp"

using Clock = std::chrono::steady_clock;
constexpr std::size_t kBytes = std::size_t{1} << 30;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  std::string t = s.str();
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  return t;
}

std::vector<int> parse_cpulist(const std::string& list) {
  std::vector<int> cpus;
  std::stringstream s(list);
  std::string part;
  while (std::getline(s, part, ',')) {
    if (part.empty()) continue;
    const auto dash = part.find('-');
    int lo = std::stoi(part.substr(0, dash));
    int hi = dash == std::string::npos ? lo : std::stoi(part.substr(dash + 1));
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  return cpus;
}

void pin_to(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0) std::perror("sched_setaffinity");
}

void unpin() {
  std::vector<int> all;
  for (int c = 0; c < CPU_SETSIZE && c < 4096; ++c) all.push_back(c);
  cpu_set_t set;
  CPU_ZERO(&set);
  const long n = sysconf(_SC_NPROCESSORS_CONF);
  for (long c = 0; c < n; ++c) CPU_SET(c, &set);
  sched_setaffinity(0, sizeof(set), &set);
}

void fill(float* p, std::size_t count, int threads) {
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([=] {
      const std::size_t begin = count * t / threads, end = count * (t + 1) / threads;
      std::uint32_t x = 2463534242u + t;
      for (std::size_t i = begin; i < end; ++i) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = static_cast<float>(x) * 2.3283064e-10f - 0.5f;
      }
    });
  }
  for (auto& th : pool) th.join();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Rates {
  double h2d, d2h;
};

Rates copy_rates(void* host, void* device, int reps) {
  auto time_one = [&](bool to_device) {
    const auto b = Clock::now();
    if (to_device)
      CHECK(cudaMemcpy(device, host, kBytes, cudaMemcpyHostToDevice));
    else
      CHECK(cudaMemcpy(host, device, kBytes, cudaMemcpyDeviceToHost));
    return kBytes / 1e9 / std::chrono::duration<double>(Clock::now() - b).count();
  };
  std::vector<double> h2d, d2h;
  time_one(true);
  for (int r = 0; r < reps; ++r) h2d.push_back(time_one(true));
  time_one(false);
  for (int r = 0; r < reps; ++r) d2h.push_back(time_one(false));
  return {median(h2d), median(d2h)};
}

__global__ void empty_kernel() {}

void graph_node_cost(const char* label, int nodes, int reps) {
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < nodes; ++i) empty_kernel<<<1, 1, 0, stream>>>();
  cudaGraph_t graph;
  CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphUpload(exec, stream));
  CHECK(cudaStreamSynchronize(stream));
  std::vector<double> us;
  for (int r = 0; r < reps + 10; ++r) {
    const auto b = Clock::now();
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    if (r >= 10) us.push_back(std::chrono::duration<double>(Clock::now() - b).count() * 1e6 / nodes);
  }
  // Device-side: events around the replay.
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  std::vector<double> dev;
  for (int r = 0; r < reps; ++r) {
    CHECK(cudaEventRecord(e0, stream));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaEventRecord(e1, stream));
    CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    dev.push_back(ms * 1e3 / nodes);
  }
  std::sort(us.begin(), us.end());
  std::printf("graph %-28s nodes %5d: host median %.4f min %.4f p90 %.4f us/node; events median %.4f\n",
              label, nodes, us[us.size() / 2], us.front(), us[us.size() * 9 / 10], median(dev));
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

int main() {
  int device = 0;
  CHECK(cudaSetDevice(device));
  CHECK(cudaFree(nullptr));
  char bus[32];
  CHECK(cudaDeviceGetPCIBusId(bus, sizeof(bus), device));
  std::string bus_id = bus;
  for (auto& c : bus_id) c = static_cast<char>(std::tolower(c));
  const std::string pci = "/sys/bus/pci/devices/" + bus_id;
  const std::string gpu_node_text = read_text(pci + "/numa_node");
  const int gpu_node = gpu_node_text.empty() ? -1 : std::stoi(gpu_node_text);
  std::printf("GPU %s numa_node=%s local_cpulist=%s\n", bus_id.c_str(), gpu_node_text.c_str(),
              read_text(pci + "/local_cpulist").c_str());
  std::printf("THP enabled: %s; defrag: %s\n",
              read_text("/sys/kernel/mm/transparent_hugepage/enabled").c_str(),
              read_text("/sys/kernel/mm/transparent_hugepage/defrag").c_str());
  std::vector<int> nodes;
  for (int n = 0; n < 16; ++n) {
    const std::string list = read_text("/sys/devices/system/node/node" + std::to_string(n) + "/cpulist");
    if (list.empty()) continue;
    nodes.push_back(n);
    std::printf("node %d cpus %s\n", n, list.c_str());
  }
  cpu_set_t mine;
  sched_getaffinity(0, sizeof(mine), &mine);
  std::printf("process affinity: %d cpus allowed of %ld\n", CPU_COUNT(&mine), sysconf(_SC_NPROCESSORS_CONF));

  void* device_buffer = nullptr;
  CHECK(cudaMalloc(&device_buffer, kBytes));
  CHECK(cudaMemset(device_buffer, 0x3c, kBytes));
  const std::size_t count = kBytes / sizeof(float);
  const int reps = 10;
  const int hw = static_cast<int>(std::thread::hardware_concurrency());

  auto report = [](const char* label, Rates r) {
    std::printf("pageable %-52s H2D %6.2f  D2H %6.2f GB/s\n", label, r.h2d, r.d2h);
  };

  graph_node_cost("first, unpinned", 1000, 200);

  {
    std::vector<float> v(count);  // value-initialised by one thread: first touch here
    fill(v.data(), count, hw);
    report("std::vector, zeroed by 1 thread, filled by all", copy_rates(v.data(), device_buffer, reps));
  }
  {
    float* p = static_cast<float*>(std::malloc(kBytes));
    fill(p, count, hw);
    report("malloc, first touch by all threads (aisp today)", copy_rates(p, device_buffer, reps));
    std::free(p);
  }
  {
    float* p = static_cast<float*>(std::malloc(kBytes));
    fill(p, count, 1);
    report("malloc, first touch by 1 thread", copy_rates(p, device_buffer, reps));
    std::free(p);
  }
  if (!nodes.empty()) {
    for (int memory_node : nodes) {
      for (int thread_node : nodes) {
        const std::vector<int> mem_cpus = parse_cpulist(
            read_text("/sys/devices/system/node/node" + std::to_string(memory_node) + "/cpulist"));
        const std::vector<int> thr_cpus = parse_cpulist(
            read_text("/sys/devices/system/node/node" + std::to_string(thread_node) + "/cpulist"));
        pin_to(mem_cpus);
        float* p = static_cast<float*>(std::malloc(kBytes));
        fill(p, count, 1);
        pin_to(thr_cpus);
        char label[96];
        std::snprintf(label, sizeof(label), "memory node %d, thread node %d%s", memory_node,
                      thread_node, memory_node == gpu_node ? " (memory GPU-local)" : "");
        report(label, copy_rates(p, device_buffer, reps));
        std::free(p);
      }
    }
    unpin();
  }
  {
    void* raw = nullptr;
    if (posix_memalign(&raw, 2 << 20, kBytes) == 0) {
      madvise(raw, kBytes, MADV_HUGEPAGE);
      fill(static_cast<float*>(raw), count, 1);
      report("2 MiB aligned + MADV_HUGEPAGE, 1 thread", copy_rates(raw, device_buffer, reps));
      std::free(raw);
    }
  }
  {
    // Fresh, untouched allocation per copy: the first copy pays the page faults.
    std::vector<double> h2d, d2h;
    for (int r = 0; r < 5; ++r) {
      float* p = static_cast<float*>(std::malloc(kBytes));
      auto b = Clock::now();
      CHECK(cudaMemcpy(p, device_buffer, kBytes, cudaMemcpyDeviceToHost));
      d2h.push_back(kBytes / 1e9 / std::chrono::duration<double>(Clock::now() - b).count());
      std::free(p);
      p = static_cast<float*>(std::malloc(kBytes));
      std::memset(p, 1, kBytes);
      b = Clock::now();
      CHECK(cudaMemcpy(device_buffer, p, kBytes, cudaMemcpyHostToDevice));
      h2d.push_back(kBytes / 1e9 / std::chrono::duration<double>(Clock::now() - b).count());
      std::free(p);
    }
    report("fresh malloc each copy, first copy only (D2H untouched)", {median(h2d), median(d2h)});
  }
  graph_node_cost("after copies, unpinned", 1000, 200);
  graph_node_cost("200 nodes", 200, 200);
  graph_node_cost("10000 nodes", 10000, 50);
  if (gpu_node >= 0) {
    pin_to(parse_cpulist(read_text(pci + "/local_cpulist")));
    graph_node_cost("thread on GPU-local cpus", 1000, 200);
    unpin();
  }
  for (int i = 0; i < 3; ++i) graph_node_cost("repeat", 1000, 200);
  CHECK(cudaFree(device_buffer));
  return 0;
}
