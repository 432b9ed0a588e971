// The problem every peer_copy variant solves: move 256 MiB of floats from GPU 0's memory to GPU
// 1's, destination[i] = source[i]. The source is an input on GPU 0, the destination an output on
// GPU 1 (verification reads it back from there). Needs 2 GPUs; on fewer the pair is skipped with
// the reason. Bytes: 256 MiB, counted once (the bytes that cross from one GPU to the other); 0
// FLOPs. Ceiling: nvlink_peer, the faster one-direction cudaMemcpyPeerAsync of `aisp bench peak`
// on the same machine (NVLink on an H200 pair; PCIe peer-to-peer where there is no NVLink).
// 256 MiB is ~4x the H200's L2, so neither side is served from cache.
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <vector>

namespace aisp::ch02 {

class PeerCopyProblem : public aisp::Benchmark {
 public:
  static constexpr std::size_t kBytes = std::size_t{256} << 20;
  static constexpr std::size_t kCount = kBytes / sizeof(float);
  static constexpr int kSourceDevice = 0;
  static constexpr int kDestinationDevice = 1;

  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("bytes", kBytes).set("dtype", aisp::DType::f32);
    s.set("from_gpu", kSourceDevice).set("to_gpu", kDestinationDevice);
    return s;
  }

  aisp::Requirements requirements() const override {
    aisp::Requirements r;
    r.min_gpus = 2;
    // Its subject is GPU-to-GPU copying inside one process (peer copies, peer stores, a staging
    // buffer both GPUs reach): nothing to run rank by rank under mpirun.
    r.needs_one_process = "peer copies, peer stores and a host staging buffer both GPUs reach, "
                          "between two GPUs of one process";
    return r;
  }

  void setup(aisp::Context& ctx) override {
    source_ = ctx.alloc("source", aisp::DType::f32, kCount, aisp::Role::input,
                        aisp::Memory::device, kSourceDevice);
    destination_ = ctx.alloc("destination", aisp::DType::f32, kCount, aisp::Role::output,
                             aisp::Memory::device, kDestinationDevice);
    ctx.fill_uniform(source_);
  }

  std::vector<aisp::Tensor> outputs() const override { return {destination_}; }

  aisp::Workload workload() const override {
    aisp::Workload w;
    w.bytes = static_cast<double>(kBytes);  // crossing from GPU 0 to GPU 1, once
    w.flops = 0;
    w.memory_ceiling = aisp::Ceiling::nvlink_peer;
    return w;
  }

 protected:
  const float* source() const { return source_.as<const float>(); }
  float* destination() const { return destination_.as<float>(); }

 private:
  aisp::Tensor source_, destination_;
};

}  // namespace aisp::ch02
