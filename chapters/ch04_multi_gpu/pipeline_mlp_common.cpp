// PipelineMlpProblem (pipeline_mlp_common.hpp): both stages' tensors, the GEMMs and GELU passes of
// a micro-batch's forward and backward on a stage, the boundary copies, and the 1F1B schedule
// both pipeline_1f1b variants run (the baseline with one micro-batch). Host code only.
#include "pipeline_mlp_common.hpp"

#include "pipeline_gelu.cuh"

#include <cublas_v2.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace aisp::ch04 {
namespace {

using bf16 = __nv_bfloat16;

std::string stage_name(const char* what, int stage) {
  return std::string(what) + "_stage" + std::to_string(stage);
}

cudaEvent_t make_event(int device) {
  const aisp::ScopedDevice on(device);
  cudaEvent_t event = nullptr;
  AISP_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  return event;
}

}  // namespace

PipelineMlpProblem::~PipelineMlpProblem() { release(); }

aisp::Signature PipelineMlpProblem::signature() const {
  aisp::Signature s;
  s.set("stages", kStages).set("layers_per_stage", kLayersPerStage).set("d_model", kDim);
  s.set("batch_tokens", kBatch).set("activation", "gelu_erf");
  s.set("dtype", aisp::DType::bf16).set("accumulate", aisp::DType::f32);
  s.set("weight_grad_dtype", aisp::DType::f32);
  return s;
}

aisp::Requirements PipelineMlpProblem::requirements() const {
  aisp::Requirements r;
  r.min_gpus = kStages;
  r.needs_one_process = "the stages hand activations and gradients over by peer copies and wait "
                        "on each other's CUDA events";
  return r;
}

void PipelineMlpProblem::setup(aisp::Context& ctx) {
  release();
  if (ctx.device_count() < kStages)
    throw aisp::Unavailable("pipeline_1f1b: " + std::to_string(ctx.device_count()) +
                            " GPUs in the run; its two stages need two (--gpus 2)");
  // He initialization (uniform in ±sqrt(6/d), variance 2/d): GELU roughly halves a layer's
  // second moment, so the activations and gradients keep their scale through the 4 layers.
  const double weight_bound = std::sqrt(6.0 / kDim);
  const std::size_t layer_activations = kActivationElements * (kLayersPerStage - 1);
  for (int s = 0; s < kStages; ++s) {
    StageTensors& t = stage_[static_cast<std::size_t>(s)];
    auto alloc = [&](const std::string& name, std::size_t count, aisp::Role role,
                     aisp::DType dtype = aisp::DType::bf16) {
      return ctx.alloc(name, dtype, count, role, aisp::Memory::device, s);
    };
    t.input = s == 0 ? alloc("tokens", kActivationElements, aisp::Role::input)
                     : alloc("received_activation", kActivationElements, aisp::Role::scratch);
    t.weights =
        alloc(stage_name("weights", s), kWeightElements * kLayersPerStage, aisp::Role::input);
    t.pre = alloc(stage_name("pre_activation", s), kActivationElements * kLayersPerStage,
                  aisp::Role::scratch);
    t.act = alloc(stage_name("activation", s), layer_activations, aisp::Role::scratch);
    t.last_act = s == 0 ? alloc("boundary_activation", kActivationElements, aisp::Role::scratch)
                        : alloc("output", kActivationElements, aisp::Role::output);
    t.top_grad = s == 0 ? alloc("received_grad", kActivationElements, aisp::Role::scratch)
                        : alloc("output_grad", kActivationElements, aisp::Role::input);
    t.dz = alloc(stage_name("pre_activation_grad", s), kActivationElements, aisp::Role::scratch);
    t.inner_grad = alloc(stage_name("activation_grad", s), layer_activations, aisp::Role::scratch);
    t.bottom_grad = s == 0 ? alloc("input_grad", kActivationElements, aisp::Role::output)
                           : alloc("boundary_grad", kActivationElements, aisp::Role::scratch);
    t.weight_grad = alloc(stage_name("weight_grad", s), kWeightElements * kLayersPerStage,
                          aisp::Role::output, aisp::DType::f32);
    t.workspace = alloc(stage_name("cublas_workspace", s), kCublasWorkspaceBytes,
                        aisp::Role::scratch, aisp::DType::u8);
    if (s == 0)
      ctx.fill_uniform(t.input);
    else
      ctx.fill_uniform(t.top_grad);
    ctx.fill_uniform(t.weights, -weight_bound, weight_bound);
  }
  for (int s = 0; s < kStages; ++s) {
    const auto i = static_cast<std::size_t>(s);
    const aisp::ScopedDevice on(s);
    streams_[i] = ctx.stream(s);
    AISP_CUDA_CHECK(cudaStreamCreateWithFlags(&copy_streams_[i], cudaStreamNonBlocking));
    // cuBLAS with the harness's math policy (default math: no reduced-precision reductions beyond
    // what bf16 operands with CUBLAS_COMPUTE_32F ask for) and an explicit workspace, so run()
    // allocates nothing.
    AISP_CUBLAS_CHECK(cublasCreate(&blas_[i]));
    AISP_CUBLAS_CHECK(cublasSetStream(blas_[i], streams_[i]));
    AISP_CUBLAS_CHECK(cublasSetMathMode(blas_[i], CUBLAS_DEFAULT_MATH));
    AISP_CUBLAS_CHECK(
        cublasSetWorkspace(blas_[i], stage_[i].workspace.data(), stage_[i].workspace.bytes()));
    run_start_[i] = make_event(s);
    copies_done_[i] = make_event(s);
    for (int m = 0; m < micro_batches_; ++m) {
      boundary_ready_[i].push_back(make_event(s));
      boundary_sent_[i].push_back(make_event(s));
    }
  }
  queue_order_ = one_f_one_b_host_order(kStages, micro_batches_);
}

void PipelineMlpProblem::teardown(aisp::Context&) { release(); }

void PipelineMlpProblem::release() noexcept {
  for (int s = 0; s < kStages; ++s) {
    const auto i = static_cast<std::size_t>(s);
    const bool created = blas_[i] || copy_streams_[i] || run_start_[i] || copies_done_[i] ||
                         !boundary_ready_[i].empty() || !boundary_sent_[i].empty();
    // Nothing of a stage never set up is released: no CUDA call (the audit builds variants on
    // machines without a GPU).
    if (created) {
      try {
        const aisp::ScopedDevice on(s);
        if (blas_[i])
          cublasDestroy(blas_[i]);
        for (cudaEvent_t event : boundary_ready_[i])
          cudaEventDestroy(event);
        for (cudaEvent_t event : boundary_sent_[i])
          cudaEventDestroy(event);
        if (run_start_[i])
          cudaEventDestroy(run_start_[i]);
        if (copies_done_[i])
          cudaEventDestroy(copies_done_[i]);
        if (copy_streams_[i])
          cudaStreamDestroy(copy_streams_[i]);
      } catch (...) {  // a destructor path: nothing to report to
      }
    }
    blas_[i] = nullptr;
    boundary_ready_[i].clear();
    boundary_sent_[i].clear();
    run_start_[i] = copies_done_[i] = nullptr;
    copy_streams_[i] = nullptr;
    streams_[i] = nullptr;
  }
}

std::vector<aisp::Tensor> PipelineMlpProblem::outputs() const {
  return {stage_[1].last_act, stage_[0].bottom_grad, stage_[0].weight_grad, stage_[1].weight_grad};
}

// The variants run the same GEMMs on row blocks of different heights (kBatch rows against
// kBatch / 8), and cuBLAS may choose other kernels for them: fp32 sums in another order, so a
// bf16 activation or gradient element may round one ulp (2^-8 relative) apart. Such a difference
// in a GEMM's input moves each of its outputs by about 2^-8 · |w| · |x| (one term of the 2048), far
// below the output's own ulp, so the bf16 outputs stay within about two of their ulps: rtol 2^-6.
// The fp32 weight gradients are sums over the 16384 tokens, scaled by 1/128, of products of unit
// scale: inputs one ulp apart at random tokens change such a sum by at most 2^-8 · 16384 / 128 /
// sqrt(16384) ≈ 2^-8 of the product scale in RMS; atol 2^-7 covers elements near zero, where no
// relative bound holds (it is 2^-7 of the unit scale the outputs are held at).
std::optional<aisp::Tolerance> PipelineMlpProblem::tolerance() const {
  return aisp::Tolerance{
      1.0 / 64.0, 1.0 / 128.0,
      "the variants run the same GEMMs on row blocks of kBatch and kBatch/8 rows, for which "
      "cuBLAS may choose other kernels (fp32 sums in another order): a bf16 activation or "
      "gradient may round one ulp (2^-8) apart, which moves a layer's outputs by one term's "
      "share, so bf16 outputs stay within two ulps (rtol 2^-6); the fp32 weight gradients "
      "(sums over 16384 tokens scaled by 1/128, unit scale) move by about 2^-8 of a product in "
      "RMS, hence atol 2^-7 for elements near zero"};
}

std::optional<aisp::InputDomain> PipelineMlpProblem::input_domain() const {
  aisp::InputDomain domain;
  domain.offset = false;
  domain.wide_range = false;
  domain.justification =
      "a 4-layer MLP is defined on weights scaled to keep the activations' magnitude (He "
      "initialization, uniform in ±sqrt(6/d)): weights moved off zero (all positive, 8x the "
      "bound) multiply the activations by ~10^3 per layer, and magnitudes spread over 2^±12 by "
      "up to 2^12 per layer, so the outputs leave the unit scale the tolerance is set for; the "
      "problem is a training step at its usual scale";
  return domain;
}

aisp::Workload PipelineMlpProblem::workload() const {
  aisp::Workload w;
  w.bytes = 2.0 * static_cast<double>(kActivationElements) * sizeof(bf16);
  w.flops = 6.0 * kBatch * static_cast<double>(kWeightElements) * kLayersPerStage;
  w.memory_ceiling = aisp::Ceiling::nvlink_peer;
  w.compute_ceiling = aisp::Ceiling::bf16_tensor;
  w.counters.push_back({"tokens", static_cast<double>(kBatch), "tokens"});
  return w;
}

// Row-major matrices seen by column-major cuBLAS as their transposes (ld = kDim for all):
//   z  (rows × out) = a · Wᵀ      <=> zᵀ = Wᵀᶜ · aᵀᶜ:  gemm(T, N, out, rows, in)
//   dW (out × in)  += s · dzᵀ · a <=> dWᵀ = aᵀᶜ · dz:  gemm(N, T, in, out, rows), fp32 C
//   da (rows × in)  = dz · W      <=> daᵀ = Wᶜ · dzᵀᶜ: gemm(N, N, in, rows, out)
// where Xᶜ is row-major X read column-major (its transpose), as ddp_backward_common.cpp does.
void PipelineMlpProblem::enqueue_forward(int stage, int micro_batch) {
  const auto s = static_cast<std::size_t>(stage);
  StageTensors& t = stage_[s];
  const int rows = kBatch / micro_batches_;
  const std::size_t offset = static_cast<std::size_t>(micro_batch) * rows * kDim;
  const float one = 1.0f, zero = 0.0f;
  const aisp::ScopedDevice on(stage);
  for (int l = 0; l < kLayersPerStage; ++l) {
    const auto layer = static_cast<std::size_t>(l);
    const bf16* in = l == 0 ? t.input.as<const bf16>() + offset
                            : t.act.as<const bf16>() + (layer - 1) * kActivationElements + offset;
    const bf16* w = t.weights.as<const bf16>() + layer * kWeightElements;
    bf16* z = t.pre.as<bf16>() + layer * kActivationElements + offset;
    bf16* a = l == kLayersPerStage - 1 ? t.last_act.as<bf16>() + offset
                                       : t.act.as<bf16>() + layer * kActivationElements + offset;
    AISP_CUBLAS_CHECK(cublasGemmEx(blas_[s], CUBLAS_OP_T, CUBLAS_OP_N, kDim, rows, kDim, &one, w,
                                   CUDA_R_16BF, kDim, in, CUDA_R_16BF, kDim, &zero, z, CUDA_R_16BF,
                                   kDim, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    launch_gelu_forward(z, a, static_cast<std::size_t>(rows) * kDim, streams_[s]);
  }
}

void PipelineMlpProblem::enqueue_backward(int stage, int micro_batch) {
  const auto s = static_cast<std::size_t>(stage);
  StageTensors& t = stage_[s];
  const int rows = kBatch / micro_batches_;
  const std::size_t offset = static_cast<std::size_t>(micro_batch) * rows * kDim;
  const std::size_t count = static_cast<std::size_t>(rows) * kDim;
  const float one = 1.0f, zero = 0.0f;
  const float scale = kWeightGradScale;
  // The first micro-batch writes the weight gradients, the others add to them (fp32).
  const float accumulate = micro_batch == 0 ? 0.0f : 1.0f;
  const aisp::ScopedDevice on(stage);
  for (int l = kLayersPerStage - 1; l >= 0; --l) {
    const auto layer = static_cast<std::size_t>(l);
    const bf16* da = l == kLayersPerStage - 1
                         ? t.top_grad.as<const bf16>() + offset
                         : t.inner_grad.as<const bf16>() + layer * kActivationElements + offset;
    const bf16* z = t.pre.as<const bf16>() + layer * kActivationElements + offset;
    bf16* dz = t.dz.as<bf16>() + offset;
    launch_gelu_backward(z, da, dz, count, streams_[s]);
    const bf16* in = l == 0 ? t.input.as<const bf16>() + offset
                            : t.act.as<const bf16>() + (layer - 1) * kActivationElements + offset;
    float* dw = t.weight_grad.as<float>() + layer * kWeightElements;
    AISP_CUBLAS_CHECK(cublasGemmEx(blas_[s], CUBLAS_OP_N, CUBLAS_OP_T, kDim, kDim, rows, &scale, in,
                                   CUDA_R_16BF, kDim, dz, CUDA_R_16BF, kDim, &accumulate, dw,
                                   CUDA_R_32F, kDim, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    const bf16* w = t.weights.as<const bf16>() + layer * kWeightElements;
    bf16* da_below = l == 0 ? t.bottom_grad.as<bf16>() + offset
                            : t.inner_grad.as<bf16>() + (layer - 1) * kActivationElements + offset;
    AISP_CUBLAS_CHECK(cublasGemmEx(blas_[s], CUBLAS_OP_N, CUBLAS_OP_N, kDim, rows, kDim, &one, w,
                                   CUDA_R_16BF, kDim, dz, CUDA_R_16BF, kDim, &zero, da_below,
                                   CUDA_R_16BF, kDim, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
}

// A pass of one micro-batch on one stage, with its boundary traffic: stage 1's forward and stage
// 0's backward first wait for their micro-batch's boundary tensor to have arrived; stage 0's
// forward and stage 1's backward end by sending theirs, on the sender's copy stream, which waits
// for the pass (event) so the sender's next pass starts at once. The host queues in an order
// where every event is recorded before it is waited on (run_schedule).
// Mark "first_gradient_arrived" (GPU 0's stream, where stage 0's first backward may start): the
// pipeline's fill, the whole stage 1 step and both copies for the baseline, one micro-batch's for
// 1F1B.
void PipelineMlpProblem::enqueue_pass(aisp::Context& ctx, int stage, Pass pass, int micro_batch) {
  const auto s = static_cast<std::size_t>(stage);
  const auto m = static_cast<std::size_t>(micro_batch);
  const bool receives = (stage == 1) == (pass == Pass::forward);
  if (receives) {
    const std::size_t sender = 1 - s;
    const aisp::ScopedDevice on(stage);
    AISP_CUDA_CHECK(cudaStreamWaitEvent(streams_[s], boundary_sent_[sender][m], 0));
    if (stage == 0 && micro_batch == 0)
      ctx.mark("first_gradient_arrived");  // ctx.stream() is GPU 0's, current here
  }
  if (pass == Pass::forward)
    enqueue_forward(stage, micro_batch);
  else
    enqueue_backward(stage, micro_batch);
  if (receives)
    return;
  const int receiver = 1 - stage;
  const auto r = static_cast<std::size_t>(receiver);
  const std::size_t rows = kBatch / static_cast<std::size_t>(micro_batches_);
  const std::size_t offset = m * rows * kDim;
  const bf16* source = pass == Pass::forward ? stage_[s].last_act.as<const bf16>() + offset
                                             : stage_[s].bottom_grad.as<const bf16>() + offset;
  bf16* destination = pass == Pass::forward ? stage_[r].input.as<bf16>() + offset
                                            : stage_[r].top_grad.as<bf16>() + offset;
  const aisp::ScopedDevice on(stage);
  AISP_CUDA_CHECK(cudaEventRecord(boundary_ready_[s][m], streams_[s]));
  AISP_CUDA_CHECK(cudaStreamWaitEvent(copy_streams_[s], boundary_ready_[s][m], 0));
  AISP_CUDA_CHECK(cudaMemcpyPeerAsync(destination, receiver, source, stage,
                                      rows * kDim * sizeof(bf16), copy_streams_[s]));
  AISP_CUDA_CHECK(cudaEventRecord(boundary_sent_[s][m], copy_streams_[s]));
}

// The passes in the host order of pipeline_schedule.hpp (computed in setup), each stage's in the
// 1F1B order on its GPU's stream:
//   stage 0: F0, then F(i+1) B(i) for i = 0 .. M-2, then B(M-1)   (one warm-up forward)
//   stage 1: F(i) B(i) for i = 0 .. M-1
// With M = 1 it is the baseline's sequence: stage 0 forward, stage 1 forward and backward,
// stage 0 backward. Every pass is queued after the pass it waits on, so every
// cudaStreamWaitEvent finds its event recorded.
void PipelineMlpProblem::run_schedule(aisp::Context& ctx) {
  // Each copy stream writes into the other GPU's buffers, which that GPU's previous run() may
  // still read: it starts after the receiving GPU's stream reaches this run().
  for (int s = 0; s < kStages; ++s) {
    const auto i = static_cast<std::size_t>(s);
    const aisp::ScopedDevice on(s);
    AISP_CUDA_CHECK(cudaEventRecord(run_start_[i], streams_[i]));
  }
  for (int s = 0; s < kStages; ++s) {
    const auto i = static_cast<std::size_t>(s);
    const aisp::ScopedDevice on(s);
    AISP_CUDA_CHECK(cudaStreamWaitEvent(copy_streams_[i], run_start_[1 - i], 0));
  }
  for (const PipelinePass& pass : queue_order_)
    enqueue_pass(ctx, pass.stage, pass.forward ? Pass::forward : Pass::backward, pass.micro_batch);
  // Join: each GPU's stream waits for its copy stream's last copy, so the harness's stop events
  // (and the next run()) come after every transfer.
  for (int s = 0; s < kStages; ++s) {
    const auto i = static_cast<std::size_t>(s);
    const aisp::ScopedDevice on(s);
    AISP_CUDA_CHECK(cudaEventRecord(copies_done_[i], copy_streams_[i]));
    AISP_CUDA_CHECK(cudaStreamWaitEvent(streams_[i], copies_done_[i], 0));
  }
}

void PipelineMlpProblem::warm_up(aisp::Context& ctx) {
  run(ctx);
  for (int s = 0; s < kStages; ++s) {
    const aisp::ScopedDevice on(s);
    AISP_CUDA_CHECK(cudaStreamSynchronize(streams_[static_cast<std::size_t>(s)]));
  }
}

}  // namespace aisp::ch04
