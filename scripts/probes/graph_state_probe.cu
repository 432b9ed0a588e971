// Probe (not part of the build): the per-node cost of a replayed CUDA graph of empty kernels, and
// the SM clock right after it, across what a process did before (thousands of plain launches,
// heavy kernels, idle pauses). `bench peak` read 0.68-0.74 us per node after its launch loops and
// 0.51 us in a fresh process on the same H200; this finds what moves it. docs/peaks.md has the
// findings. Build and run on the GPU machine:
//   nvcc -O2 -std=c++17 -arch=sm_90a scripts/probes/graph_state_probe.cu -o /tmp/g && /tmp/g
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime.h>

#include "probe_check.hpp"

using Clock = std::chrono::steady_clock;

__global__ void empty_kernel() {}

// Spins ~2 ms on the global timer and reports SM cycles per microsecond (MHz).
__global__ void clock_rate(double* mhz) {
  unsigned long long t0, t1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  const long long c0 = clock64();
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  } while (t1 - t0 < 2000000ull);
  const long long c1 = clock64();
  *mhz = double(c1 - c0) / (double(t1 - t0) / 1000.0);
}

__global__ void fma_burn(float* out, int iterations) {
  float a = threadIdx.x * 1e-3f, b = 1.0001f, c = 0.9999f, d = blockIdx.x * 1e-4f;
  for (int i = 0; i < iterations; ++i) {
    a = fmaf(a, b, c);
    d = fmaf(d, c, b);
  }
  if (a + d == 12345.0f) *out = a;
}

double* g_mhz;

double sm_mhz() {
  clock_rate<<<1, 1>>>(g_mhz);
  CHECK(cudaGetLastError());
  double mhz = 0;
  CHECK(cudaMemcpy(&mhz, g_mhz, sizeof(double), cudaMemcpyDeviceToHost));
  return mhz;
}

struct Graph {
  cudaStream_t stream;
  cudaGraphExec_t exec;
  explicit Graph(int nodes) {
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < nodes; ++i) empty_kernel<<<1, 1, 0, stream>>>();
    cudaGraph_t graph;
    CHECK(cudaStreamEndCapture(stream, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaGraphUpload(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
  }
  double per_node_us(int nodes, int reps) {
    std::vector<double> us;
    for (int r = 0; r < reps + 5; ++r) {
      const auto b = Clock::now();
      CHECK(cudaGraphLaunch(exec, stream));
      CHECK(cudaStreamSynchronize(stream));
      if (r >= 5) us.push_back(std::chrono::duration<double>(Clock::now() - b).count() * 1e6 / nodes);
    }
    std::sort(us.begin(), us.end());
    return us[us.size() / 2];
  }
};

void report(const char* label, Graph& graph) {
  const double per_node = graph.per_node_us(1000, 30);
  std::printf("%-52s graph %.4f us/node, SM clock after %.0f MHz\n", label, per_node, sm_mhz());
}

__global__ void empty_wide_kernel() {}

// Each mode runs in a fresh process: what, done once before, moves the graph's per-node cost.
int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "sequence";
  CHECK(cudaSetDevice(0));
  CHECK(cudaMalloc(&g_mhz, sizeof(double)));
  float* sink;
  CHECK(cudaMalloc(&sink, sizeof(float)));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  Graph graph(1000);
  if (mode != "sequence") {
    report(("[" + mode + "] before").c_str(), graph);
    if (mode == "wide_empty_once") {
      empty_wide_kernel<<<132 * 8, 256, 0, stream>>>();
    } else if (mode == "wide_empty_1024_threads_once") {
      empty_wide_kernel<<<132, 1024, 0, stream>>>();
    } else if (mode == "blocks_132_threads_1_once") {
      empty_wide_kernel<<<132, 1, 0, stream>>>();
    } else if (mode == "narrow_long") {
      fma_burn<<<1, 1, 0, stream>>>(sink, 20000000);
    } else if (mode == "wide_short_once") {
      fma_burn<<<132 * 8, 256, 0, stream>>>(sink, 1);
    } else if (mode == "wide_long_then_10s") {
      const auto b = Clock::now();
      while (Clock::now() - b < std::chrono::seconds(1)) {
        fma_burn<<<132 * 8, 256, 0, stream>>>(sink, 20000);
        CHECK(cudaStreamSynchronize(stream));
      }
      report("[wide_long_then_10s] after 1 s of FMA", graph);
      std::this_thread::sleep_for(std::chrono::seconds(10));
    }
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(stream));
    report(("[" + mode + "] after").c_str(), graph);
    Graph fresh(1000);
    report(("[" + mode + "] a graph instantiated after").c_str(), fresh);
    return 0;
  }

  std::printf("SM clock at start %.0f MHz\n", sm_mhz());
  report("fresh process", graph);
  report("again", graph);
  for (int i = 0; i < 20000; ++i) {
    empty_kernel<<<1, 1, 0, stream>>>();
    CHECK(cudaStreamSynchronize(stream));
  }
  report("after 20000 launches, sync after each", graph);
  report("again", graph);
  std::this_thread::sleep_for(std::chrono::seconds(2));
  report("after a 2 s pause", graph);
  for (int i = 0; i < 20000; ++i) empty_kernel<<<1, 1, 0, stream>>>();
  CHECK(cudaStreamSynchronize(stream));
  report("after 20000 launches back to back", graph);
  {
    Graph fresh(1000);
    report("a new graph on a new stream", fresh);
  }
  const auto b = Clock::now();
  while (Clock::now() - b < std::chrono::seconds(1)) {
    fma_burn<<<132 * 8, 256, 0, stream>>>(sink, 20000);
    CHECK(cudaStreamSynchronize(stream));
  }
  report("after 1 s of FMA-heavy kernels", graph);
  std::this_thread::sleep_for(std::chrono::seconds(2));
  report("after a 2 s pause", graph);
  // Clock held up: a spinning kernel on another stream while the graph replays.
  report("again", graph);
  return 0;
}
