// MoeAllToAllProblem (moe_all_to_all_common.hpp): the tensors, the routing and packing both
// moe_all_to_all variants run before their exchange, and the float64 reference. Host code only.
#include "moe_all_to_all_common.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "../common/moe_routing.cuh"
#include "moe_all_to_all_kernels.cuh"
#include "per_gpu_tensor.hpp"

namespace aisp::ch04 {
namespace {

constexpr double kZipfExponent = 1.0;

common::MoeShape shape(common::MoeRouting routing) {
  return common::MoeShape{MoeAllToAllProblem::kTokens,
                          MoeAllToAllProblem::kHidden,
                          1,
                          MoeAllToAllProblem::kExperts,
                          MoeAllToAllProblem::kTopK,
                          routing,
                          kZipfExponent};
}

}  // namespace

aisp::Signature MoeAllToAllProblem::signature() const {
  aisp::Signature s;
  s.set("tokens_per_gpu", kTokens).set("hidden", kHidden).set("dtype", aisp::DType::bf16);
  s.set("experts", kExperts).set("top_k", kTopK).set("routing", shape(routing_).routing_name());
  if (gpus_ > 0)
    s.set("gpus", gpus_);  // known once setup has seen the run's GPUs
  return s;
}

aisp::Requirements MoeAllToAllProblem::requirements() const {
  aisp::Requirements r;
  r.min_gpus = 2;
  r.needs_one_process = "the send/recv baseline pairs every GPU's sends and receives from all "
                        "GPUs' routing counts read on the host, and the float64 reference reads "
                        "every GPU's tokens and logits";
  return r;
}

std::size_t MoeAllToAllProblem::capacity_rows() const {
  return static_cast<std::size_t>(gpus_) * kRowsPerGpu;
}

void MoeAllToAllProblem::setup(aisp::Context& ctx) {
  using aisp::DType, aisp::Role;
  gpus_ = ctx.device_count();
  if (gpus_ < 1 || kExperts % gpus_ != 0)
    throw aisp::Unavailable("moe_all_to_all splits 8 experts evenly over the GPUs: the GPU count "
                            "must divide 8; this run has " +
                            std::to_string(gpus_) + ": give --gpus 2, 4 or 8");
  comms_.clear();
  for (int d = 0; d < gpus_; ++d)
    comms_.push_back(ctx.nccl(d));  // Unavailable without NCCL
  for (auto* list :
       {&x_, &logits_, &recv_, &recv_counts_, &topk_ids_, &topk_weights_, &expert_counts_, &iota_,
        &sorted_experts_, &sorted_rows_, &expert_offsets_, &sort_temp_, &send_, &send_counts_})
    list->clear();
  sort_temp_bytes_ = common::moe_sort_temp_bytes(kRowsPerGpu, kExperts);
  const std::size_t rows = kRowsPerGpu;
  const std::size_t g = static_cast<std::size_t>(gpus_);
  for (int d = 0; d < gpus_; ++d) {
    const auto on_gpu = [&](const std::string& name, DType dtype, std::size_t count, Role role) {
      return per_gpu_tensor(ctx, name, d, count, role, dtype);
    };
    x_.push_back(on_gpu("x", DType::bf16, std::size_t{kTokens} * kHidden, Role::input));
    logits_.push_back(on_gpu("logits", DType::f32, std::size_t{kTokens} * kExperts, Role::input));
    recv_.push_back(on_gpu("recv", DType::bf16, capacity_rows() * kHidden, Role::output));
    recv_counts_.push_back(on_gpu("recv_counts", DType::i32, g, Role::output));
    topk_ids_.push_back(on_gpu("topk_ids", DType::i32, rows, Role::scratch));
    topk_weights_.push_back(on_gpu("topk_weights", DType::f32, rows, Role::scratch));
    expert_counts_.push_back(on_gpu("expert_counts", DType::i32, kExperts, Role::scratch));
    iota_.push_back(on_gpu("iota", DType::i32, rows, Role::scratch));
    sorted_experts_.push_back(on_gpu("sorted_experts", DType::i32, rows, Role::scratch));
    sorted_rows_.push_back(on_gpu("sorted_rows", DType::i32, rows, Role::scratch));
    expert_offsets_.push_back(on_gpu("expert_offsets", DType::i32, kExperts + 1, Role::scratch));
    sort_temp_.push_back(
        on_gpu("sort_temp", DType::u8, std::max<std::size_t>(sort_temp_bytes_, 1), Role::scratch));
    send_.push_back(on_gpu("send", DType::bf16, rows * kHidden, Role::scratch));
    send_counts_.push_back(on_gpu("send_counts", DType::i32, g, Role::scratch));
    ctx.fill_uniform(x_.back());
    // Uniform in [1e-6, 1 - 1e-6), then -log(-log u) plus the log-prior (moe_routing.cuh).
    ctx.fill_uniform(logits_.back(), 1e-6, 1.0 - 1e-6);
    const aisp::ScopedDevice on(d);
    AISP_CUDA_CHECK(common::launch_moe_logits_from_uniform(
        logits_.back().as<float>(), kTokens, kExperts, routing_, kZipfExponent, ctx.stream(d)));
    AISP_CUDA_CHECK(common::launch_moe_iota(iota_.back().as<int>(), kRowsPerGpu, ctx.stream(d)));
  }
  synchronize_all(ctx);
}

std::vector<aisp::Tensor> MoeAllToAllProblem::outputs() const {
  std::vector<aisp::Tensor> out;
  for (int d = 0; d < gpus_; ++d) {
    out.push_back(recv(d));
    out.push_back(recv_counts(d));
  }
  return out;
}

std::optional<aisp::InputDomain> MoeAllToAllProblem::input_domain() const {
  return common::moe_logits_input_domain();
}

aisp::Workload MoeAllToAllProblem::workload() const {
  aisp::Workload w;
  constexpr int kMinGpus = 2;
  w.bytes = static_cast<double>(kRowsPerGpu) * static_cast<double>(row_bytes()) * (kMinGpus - 1) /
            kMinGpus;
  w.flops = 0;
  w.memory_ceiling = aisp::Ceiling::nvlink_peer;
  return w;
}

void MoeAllToAllProblem::route_and_pack(aisp::Context& ctx) const {
  for (int d = 0; d < gpus_; ++d) {
    const aisp::ScopedDevice on(d);
    const cudaStream_t stream = ctx.stream(d);
    AISP_CUDA_CHECK(common::launch_moe_route_fused(
        at(logits_, d).as<const float>(), kTokens, kExperts, kTopK, at(topk_ids_, d).as<int>(),
        at(topk_weights_, d).as<float>(), at(expert_counts_, d).as<int>(), stream));
    AISP_CUDA_CHECK(common::launch_moe_sort_by_expert(
        at(topk_ids_, d).as<const int>(), at(iota_, d).as<const int>(), kRowsPerGpu, kExperts,
        at(sort_temp_, d).data(), sort_temp_bytes_, at(sorted_experts_, d).as<int>(),
        at(sorted_rows_, d).as<int>(), stream));
    AISP_CUDA_CHECK(common::launch_moe_expert_offsets(
        at(expert_counts_, d).as<const int>(), kExperts, at(expert_offsets_, d).as<int>(), stream));
    launch_moe_pack_by_destination(at(x_, d).as<const __nv_bfloat16>(),
                                   at(sorted_rows_, d).as<const int>(), kRowsPerGpu, kTopK, kHidden,
                                   at(expert_offsets_, d).as<const int>(), kExperts, gpus_,
                                   send(d).as<__nv_bfloat16>(), send_counts(d).as<int>(), stream);
  }
}

void MoeAllToAllProblem::zero_tail(aisp::Context& ctx, int d, std::size_t first_row) const {
  if (first_row >= capacity_rows())
    return;
  const aisp::ScopedDevice on(d);
  AISP_CUDA_CHECK(cudaMemsetAsync(recv(d).as<unsigned char>() + first_row * row_bytes(), 0,
                                  (capacity_rows() - first_row) * row_bytes(), ctx.stream(d)));
}

void MoeAllToAllProblem::synchronize_all(aisp::Context& ctx) const {
  for (int d = 0; d < gpus_; ++d) {
    const aisp::ScopedDevice on(d);
    AISP_CUDA_CHECK(cudaStreamSynchronize(ctx.stream(d)));
  }
}

// The dispatch recomputed on the host from the logits as setup left them: each source's top-2
// experts per token (ties to the lower index, as the GPU router), its token-expert pairs stably
// sorted by expert, and for destination d the rows of every source in rank order. Cached per
// output (a row of recv is one token's hidden vector: reference_row_length). recv_counts: the
// number of those rows per source.
aisp::Benchmark::ReferenceFunction MoeAllToAllProblem::reference() const {
  struct Dispatch {
    std::size_t output = static_cast<std::size_t>(-1);
    const aisp::HostInputs* inputs = nullptr;
    std::vector<float> fingerprint;  // GPU 0's first logits: another HostInputs at the same address
    std::vector<std::pair<int, int>> rows;  // (source GPU, token) per received row
    std::vector<int> counts;                // per source
  };
  const int gpus = gpus_;
  auto cache = std::make_shared<Dispatch>();
  return [gpus, cache](const aisp::HostInputs& in, std::size_t output, std::size_t index) {
    const int d = static_cast<int>(output / 2);
    const auto first_logits = in.f32("logits_0").first(kExperts);
    const std::vector<float> fingerprint(first_logits.begin(), first_logits.end());
    if (cache->output != output || cache->inputs != &in || cache->fingerprint != fingerprint) {
      const int experts_per_gpu = kExperts / gpus;
      cache->rows.clear();
      cache->counts.assign(static_cast<std::size_t>(gpus), 0);
      for (int s = 0; s < gpus; ++s) {
        const auto logits = in.f32("logits_" + std::to_string(s));
        std::vector<std::pair<int, int>> pairs;  // (expert, token) of the pairs routed to d
        for (int t = 0; t < kTokens; ++t) {
          const float* row = logits.data() + static_cast<std::size_t>(t) * kExperts;
          std::vector<int> order(kExperts);
          for (int e = 0; e < kExperts; ++e)
            order[static_cast<std::size_t>(e)] = e;
          std::stable_sort(order.begin(), order.end(),
                           [&](int a, int b) { return row[a] > row[b]; });
          for (int j = 0; j < kTopK; ++j) {
            const int e = order[static_cast<std::size_t>(j)];
            if (e / experts_per_gpu == d)
              pairs.emplace_back(e, t);
          }
        }
        std::stable_sort(pairs.begin(), pairs.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        for (const auto& [e, t] : pairs)
          cache->rows.emplace_back(s, t);
        cache->counts[static_cast<std::size_t>(s)] = static_cast<int>(pairs.size());
      }
      cache->output = output;
      cache->inputs = &in;
      cache->fingerprint = fingerprint;
    }
    if (output % 2 == 1)
      return static_cast<double>(cache->counts[index]);
    const std::size_t row = index / kHidden;
    if (row >= cache->rows.size())
      return 0.0;
    const auto [s, t] = cache->rows[row];
    return in.element("x_" + std::to_string(s),
                      static_cast<std::size_t>(t) * kHidden + index % kHidden);
  };
}

}  // namespace aisp::ch04
