// The problem every all_reduce variant solves: each GPU of the run holds a gradient of kBytes
// (f32, its own values: `grad_<r>` on the GPU of rank r) and must end with the elementwise sum
// over every GPU, `reduced_<r>` there (out of place, so the inputs stay unchanged; verification
// compares every GPU's result). The run's GPUs: 2 (min_gpus), or `bench run --gpus N`; in one
// process rank r is GPU r, under mpirun each process holds its rank's GPU (docs/multi-gpu.md).
// Bytes: kBytes, the size of one GPU's gradient (NCCL's "algorithm bytes"). A ring all-reduce
// moves 2(G-1)/G of it over each GPU's link each way (NCCL's "bus bytes"): exactly kBytes on 2
// GPUs, more on more, so kBytes against the link is a floor that never overstates. 0 FLOPs
// counted (G-1 adds per element, negligible). Ceiling: nvlink_peer, the one-direction peer copy
// `aisp bench peak` measures on the same machine.
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace aisp::ch04 {

template <std::size_t kBytesPerGpu>
class AllReduceProblem : public aisp::Benchmark {
 public:
  static constexpr std::size_t kBytes = kBytesPerGpu;
  static constexpr std::size_t kCount = kBytes / sizeof(float);
  static_assert(kBytes % sizeof(float) == 0, "whole floats");

  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("bytes_per_gpu", kBytes).set("elements", kCount).set("dtype", aisp::DType::f32);
    s.set("op", "sum");
    if (ranks_ > 0) s.set("gpus", ranks_);  // known once setup has seen the run's GPUs
    return s;
  }

  aisp::Requirements requirements() const override {
    aisp::Requirements r;
    r.min_gpus = 2;
    return r;
  }

  void setup(aisp::Context& ctx) override {
    gpus_ = ctx.device_count();  // this process's GPUs
    ranks_ = ctx.rank_count();   // every GPU of the all-reduce
    grads_.clear();
    reduced_.clear();
    for (int d = 0; d < gpus_; ++d) {
      const std::string rank = std::to_string(ctx.rank(d));
      grads_.push_back(ctx.alloc("grad_" + rank, aisp::DType::f32, kCount, aisp::Role::input,
                                 aisp::Memory::device, d));
      reduced_.push_back(ctx.alloc("reduced_" + rank, aisp::DType::f32, kCount,
                                   aisp::Role::output, aisp::Memory::device, d));
      ctx.fill_uniform(grads_.back());
    }
  }

  std::vector<aisp::Tensor> outputs() const override { return reduced_; }

  // Two GPUs: a + b is one rounding whatever the order, so host and NCCL agree exactly. More
  // GPUs: NCCL's ring or tree adds in another order than the host's device order, and partial
  // sums round differently; up to G-1 roundings of the largest partial sum, which verification's
  // wide-range inputs (magnitudes up to 2^12) make about G * 2^12 * 2^-24 in absolute terms.
  std::optional<aisp::Tolerance> tolerance() const override {
    if (ranks_ <= 2) return std::nullopt;
    return aisp::Tolerance{1e-5, ranks_ * 4096.0 / 16777216.0,
                           "more than 2 GPUs: NCCL's reduction order differs from the host's, "
                           "up to G-1 float roundings of partial sums of magnitude up to 2^12 "
                           "(verification's wide-range inputs)"};
  }

  aisp::Workload workload() const override {
    aisp::Workload w;
    w.bytes = static_cast<double>(kBytes);
    w.flops = 0;
    w.memory_ceiling = aisp::Ceiling::nvlink_peer;
    return w;
  }

 protected:
  int gpus() const { return gpus_; }    // this process's
  int ranks() const { return ranks_; }  // all of the all-reduce's
  const aisp::Tensor& grad(int d) const { return grads_[static_cast<std::size_t>(d)]; }
  const aisp::Tensor& reduced(int d) const { return reduced_[static_cast<std::size_t>(d)]; }

 private:
  int gpus_ = 0;
  int ranks_ = 0;
  std::vector<aisp::Tensor> grads_, reduced_;
};

inline constexpr std::size_t k64KiB = std::size_t{64} << 10;
inline constexpr std::size_t kOneMiB = std::size_t{1} << 20;
inline constexpr std::size_t k16MiB = std::size_t{16} << 20;
inline constexpr std::size_t k256MiB = std::size_t{256} << 20;
inline constexpr std::size_t kOneGiB = std::size_t{1} << 30;

}  // namespace aisp::ch04
