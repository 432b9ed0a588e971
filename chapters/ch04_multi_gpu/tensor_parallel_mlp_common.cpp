// TensorParallelMlpProblem (tensor_parallel_mlp_common.hpp): every GPU's tensors, its two
// cuBLASLt plans, and the chunked collectives and GEMMs the tensor_parallel_mlp variants are
// built from. Host code only.
#include "tensor_parallel_mlp_common.hpp"

#include "per_gpu_tensor.hpp"
#include "tensor_parallel_mlp_reference.hpp"

#include <aisp/nccl.hpp>

#include <cuda_bf16.h>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

namespace aisp::ch04 {
namespace {

using bf16 = __nv_bfloat16;

}  // namespace

TensorParallelMlpProblem::~TensorParallelMlpProblem() { release(); }

aisp::Signature TensorParallelMlpProblem::signature() const {
  aisp::Signature s;
  s.set("tokens", kTokens).set("hidden", kHidden).set("ffn", kFfn);
  s.set("activation", "gelu_tanh").set("parallelism", "tensor+sequence");
  s.set("dtype", aisp::DType::bf16).set("accumulate", aisp::DType::f32);
  if (gpus_ > 0)
    s.set("gpus", gpus_);  // known once setup has seen the run's GPUs
  return s;
}

aisp::Requirements TensorParallelMlpProblem::requirements() const {
  aisp::Requirements r;
  r.min_gpus = 2;
  r.needs_one_process = "its float64 reference reads every GPU's tokens and weight slices";
  return r;
}

std::size_t TensorParallelMlpProblem::chunk_tokens() const {
  return static_cast<std::size_t>(kTokens) / (static_cast<std::size_t>(gpus_) * chunks_);
}

void TensorParallelMlpProblem::setup(aisp::Context& ctx) {
  release();
  gpus_ = ctx.device_count();
  // The shapes must split evenly into GPUs and chunks, and every ffn slice keep whole 16-byte
  // rows (cuBLASLt's alignment): true for any power-of-two G up to 128 at the chunks used here.
  if (gpus_ < 2 || chunks_ < 1 || kTokens % (gpus_ * chunks_) != 0 || kFfn % gpus_ != 0 ||
      (kFfn / gpus_) % 8 != 0)
    throw aisp::Unavailable("tensor_parallel_mlp: " + std::to_string(gpus_) + " GPUs and " +
                            std::to_string(chunks_) + " chunks do not split " +
                            std::to_string(kTokens) + " tokens and an ffn of " +
                            std::to_string(kFfn) +
                            " evenly: run it on a power-of-two GPU count "
                            "(--gpus 2, 4 or 8)");
  // First, so a machine without NCCL skips the pair (aisp::Unavailable) before filling.
  for (int d = 0; d < gpus_; ++d)
    comms_.push_back(ctx.nccl(d));
  const std::size_t g = static_cast<std::size_t>(gpus_);
  const std::size_t ffn_slice = kFfn / g;
  const std::size_t local_tokens = kTokens / g;
  // Uniform weights of variance 1/fan_in (bound sqrt(3/fan_in)) keep h and y at unit scale.
  const double up_bound = std::sqrt(3.0 / kHidden);
  const double down_bound = std::sqrt(3.0 / kFfn);
  for (int d = 0; d < gpus_; ++d) {
    streams_.push_back(ctx.stream(d));
    tokens_.push_back(per_gpu_tensor(ctx, "tokens", d, local_tokens * kHidden, aisp::Role::input));
    w_up_.push_back(per_gpu_tensor(ctx, "w_up", d, ffn_slice * kHidden, aisp::Role::input));
    w_down_.push_back(per_gpu_tensor(ctx, "w_down", d, kHidden * ffn_slice, aisp::Role::input));
    gathered_.push_back(per_gpu_tensor(ctx, "gathered_tokens", d, std::size_t{kTokens} * kHidden,
                                       aisp::Role::scratch));
    hidden_.push_back(
        per_gpu_tensor(ctx, "hidden", d, std::size_t{kTokens} * ffn_slice, aisp::Role::scratch));
    partial_.push_back(per_gpu_tensor(ctx, "partial_output", d, std::size_t{kTokens} * kHidden,
                                      aisp::Role::scratch));
    out_.push_back(per_gpu_tensor(ctx, "output", d, local_tokens * kHidden, aisp::Role::output));
    workspaces_.push_back(per_gpu_tensor(ctx, "cublaslt_workspace", d, kCublasLtWorkspaceBytes,
                                         aisp::Role::scratch, aisp::DType::u8));
    ctx.fill_uniform(tokens_.back());
    ctx.fill_uniform(w_up_.back(), -up_bound, up_bound);
    ctx.fill_uniform(w_down_.back(), -down_bound, down_bound);
  }
  // Per GPU, created there (the heuristic asks the current device): row-major TN GEMMs,
  //   up:   h (rows × F/G)    = gelu(x_rows · W_upᵀ),  W_up slice F/G × kHidden
  //   down: p (rows × hidden) = h · W_downᵀ,           W_down slice kHidden × F/G
  // rows = kTokens / chunks. The epilogue attribute goes in before the algorithm is chosen.
  const std::uint64_t rows = static_cast<std::uint64_t>(kTokens) / chunks_;
  for (int d = 0; d < gpus_; ++d) {
    const aisp::ScopedDevice on(d);
    auto up = aisp::common::CublasLtMatmulPlan::row_major_tn(rows, ffn_slice, kHidden, CUDA_R_16BF,
                                                             CUDA_R_16BF, CUDA_R_16BF);
    up.set_operation_attribute(CUBLASLT_MATMUL_DESC_EPILOGUE, CUBLASLT_EPILOGUE_GELU);
    up.choose_algorithm(kCublasLtWorkspaceBytes);
    up_plans_.push_back(std::make_unique<aisp::common::CublasLtMatmulPlan>(std::move(up)));
    auto down = aisp::common::CublasLtMatmulPlan::row_major_tn(
        rows, kHidden, ffn_slice, CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF);
    down.choose_algorithm(kCublasLtWorkspaceBytes);
    down_plans_.push_back(std::make_unique<aisp::common::CublasLtMatmulPlan>(std::move(down)));
  }
}

void TensorParallelMlpProblem::teardown(aisp::Context&) { release(); }

void TensorParallelMlpProblem::release() noexcept {
  // Each GPU's plans are destroyed on that GPU, where they were created.
  for (std::size_t d = 0; d < up_plans_.size(); ++d) {
    try {
      const aisp::ScopedDevice on(static_cast<int>(d));
      up_plans_[d].reset();
      if (d < down_plans_.size())
        down_plans_[d].reset();
    } catch (...) {  // a destructor path: nothing to report to
    }
  }
  up_plans_.clear();
  down_plans_.clear();
  comms_.clear();  // the harness owns the communicators
  streams_.clear();
  tokens_.clear();
  w_up_.clear();
  w_down_.clear();
  gathered_.clear();
  hidden_.clear();
  partial_.clear();
  out_.clear();
  workspaces_.clear();
}

std::vector<aisp::Tensor> TensorParallelMlpProblem::outputs() const { return out_; }

// The variants run the same GEMMs on row blocks of different heights (kTokens rows against
// kTokens / chunks), and cuBLASLt may choose other kernels for them: fp32 sums in another order,
// so a bf16 h or p element may round one ulp apart (2^-8 to 2^-7 relative). An h one ulp apart
// moves p by one term's share of 8192, far below p's ulp. An output is the sum of G partial p's,
// each within one of its ulps, rounded once to bf16: where the p's cancel, the difference is
// G ulps of a p, whatever the output's size. |p| < 2 at this unit scale (its standard deviation
// is about 0.25), so a p's ulp is at most 2^-7: atol G · 2^-7; rtol 2^-6 for the same-sign
// case (G ulps of the p's plus one of the sum). On more than 2 GPUs the reduce-scatter may also
// add the G terms in another order per chunk size: G-2 more roundings of partial sums (|sum| <
// 2G), counted in the atol below.
std::optional<aisp::Tolerance> TensorParallelMlpProblem::tolerance() const {
  const int g = gpus_ < 2 ? 2 : gpus_;
  const double p_ulp = 1.0 / 128.0;
  const double atol = g * p_ulp + (g - 2) * 2.0 * g * p_ulp;
  return aisp::Tolerance{
      1.0 / 64.0, atol,
      "the variants run the same GEMMs on row blocks of kTokens and kTokens/chunks rows, for "
      "which cuBLASLt may choose other kernels (fp32 sums in another order), so each GPU's "
      "partial output p may round one bf16 ulp apart; an output sums G of them, so where they "
      "cancel it differs by G ulps of a p (|p| < 2, ulp <= 2^-7: atol G·2^-7), and by G ulps of "
      "the p's plus one of the sum where they do not (rtol 2^-6); beyond 2 GPUs the "
      "reduce-scatter may order the G terms differently per chunk size, G-2 more roundings of "
      "partial sums below 2G"};
}

std::optional<aisp::InputDomain> TensorParallelMlpProblem::input_domain() const {
  aisp::InputDomain domain;
  domain.offset = true;
  domain.wide_range = false;
  domain.justification =
      "the tolerance bounds the difference where the G GPUs' partial outputs cancel by ulps of "
      "a partial at unit scale (atol G·2^-7); with magnitudes spread over 2^±12 the partials "
      "reach 2^24 times that, so two correct variants whose GEMMs round in another order (a "
      "different cuBLASLt kernel for a chunk's row count) differ by more than any absolute "
      "bound where they cancel. Offset inputs (all positive, no cancellation) stay on";
  return domain;
}

aisp::Workload TensorParallelMlpProblem::workload() const {
  constexpr double kGpus = 2;  // min_gpus: workload() is read before setup knows G
  aisp::Workload w;
  const double activation_bytes = static_cast<double>(kTokens) * kHidden * sizeof(bf16);
  w.bytes = 2.0 * (kGpus - 1) / kGpus * activation_bytes;  // all-gather in + reduce-scatter out
  w.flops = 4.0 * kTokens * static_cast<double>(kHidden) * kFfn / kGpus;
  w.memory_ceiling = aisp::Ceiling::nvlink_peer;
  w.compute_ceiling = aisp::Ceiling::bf16_tensor;
  w.counters.push_back({"tokens", static_cast<double>(kTokens), "tokens"});
  return w;
}

aisp::Benchmark::ReferenceFunction TensorParallelMlpProblem::reference() const {
  auto block = std::make_shared<TensorParallelMlpReference>(kTokens, kHidden, kFfn);
  return [block](const aisp::HostInputs& in, std::size_t output, std::size_t index) {
    return (*block)(in, output, index);
  };
}

void TensorParallelMlpProblem::all_gather_chunk(int chunk,
                                                const std::vector<cudaStream_t>& streams) const {
  if (chunk < 0 || chunk >= chunks_ || streams.size() != static_cast<std::size_t>(gpus_))
    throw std::logic_error("all_gather_chunk: chunk " + std::to_string(chunk) + " of " +
                           std::to_string(chunks_) + ", " + std::to_string(streams.size()) +
                           " streams for " + std::to_string(gpus_) + " GPUs");
#if AISP_HAVE_NCCL
  const aisp::NcclFunctions& nccl = aisp::nccl_functions();
  const std::size_t send_count = chunk_tokens() * kHidden;
  const std::size_t source_offset = static_cast<std::size_t>(chunk) * send_count;
  const std::size_t destination_offset = source_offset * static_cast<std::size_t>(gpus_);
  AISP_NCCL_CHECK(nccl.GroupStart());
  for (int d = 0; d < gpus_; ++d) {
    const auto i = static_cast<std::size_t>(d);
    AISP_NCCL_CHECK(nccl.AllGather(tokens_[i].as<const bf16>() + source_offset,
                                   gathered_[i].as<bf16>() + destination_offset, send_count,
                                   ncclBfloat16, comms_[i], streams[i]));
  }
  AISP_NCCL_CHECK(nccl.GroupEnd());
#else
  throw std::logic_error("all_gather_chunk without NCCL: setup() should have thrown "
                         "aisp::Unavailable");
#endif
}

void TensorParallelMlpProblem::reduce_scatter_chunk(
    int chunk, const std::vector<cudaStream_t>& streams) const {
  if (chunk < 0 || chunk >= chunks_ || streams.size() != static_cast<std::size_t>(gpus_))
    throw std::logic_error("reduce_scatter_chunk: chunk " + std::to_string(chunk) + " of " +
                           std::to_string(chunks_) + ", " + std::to_string(streams.size()) +
                           " streams for " + std::to_string(gpus_) + " GPUs");
#if AISP_HAVE_NCCL
  const aisp::NcclFunctions& nccl = aisp::nccl_functions();
  const std::size_t receive_count = chunk_tokens() * kHidden;
  const std::size_t destination_offset = static_cast<std::size_t>(chunk) * receive_count;
  const std::size_t source_offset = destination_offset * static_cast<std::size_t>(gpus_);
  AISP_NCCL_CHECK(nccl.GroupStart());
  for (int d = 0; d < gpus_; ++d) {
    const auto i = static_cast<std::size_t>(d);
    AISP_NCCL_CHECK(nccl.ReduceScatter(partial_[i].as<const bf16>() + source_offset,
                                       out_[i].as<bf16>() + destination_offset, receive_count,
                                       ncclBfloat16, ncclSum, comms_[i], streams[i]));
  }
  AISP_NCCL_CHECK(nccl.GroupEnd());
#else
  throw std::logic_error("reduce_scatter_chunk without NCCL: setup() should have thrown "
                         "aisp::Unavailable");
#endif
}

void TensorParallelMlpProblem::enqueue_chunk_gemms(int gpu, int chunk) const {
  const auto i = static_cast<std::size_t>(gpu);
  const std::size_t rows = static_cast<std::size_t>(kTokens) / chunks_;
  const std::size_t ffn_slice = kFfn / static_cast<std::size_t>(gpus_);
  const std::size_t first_row = static_cast<std::size_t>(chunk) * rows;
  const bf16* x = gathered_[i].as<const bf16>() + first_row * kHidden;
  bf16* h = hidden_[i].as<bf16>() + first_row * ffn_slice;
  bf16* p = partial_[i].as<bf16>() + first_row * kHidden;
  const float one = 1.0f, zero = 0.0f;
  const aisp::Tensor& workspace = workspaces_[i];
  const aisp::ScopedDevice on(gpu);
  AISP_CUBLAS_CHECK(up_plans_[i]->run(&one, x, w_up_[i].data(), &zero, h, h, workspace.data(),
                                      workspace.bytes(), streams_[i]));
  AISP_CUBLAS_CHECK(down_plans_[i]->run(&one, h, w_down_[i].data(), &zero, p, p, workspace.data(),
                                        workspace.bytes(), streams_[i]));
}

void TensorParallelMlpProblem::warm_up(aisp::Context& ctx) {
  run(ctx);
  for (int d = 0; d < gpus_; ++d) {
    const aisp::ScopedDevice on(d);
    AISP_CUDA_CHECK(cudaStreamSynchronize(streams_[static_cast<std::size_t>(d)]));
  }
}

}  // namespace aisp::ch04
