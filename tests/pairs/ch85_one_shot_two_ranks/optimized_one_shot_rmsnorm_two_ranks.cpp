// Test-only: ch04's one-shot kernel as two ranks on GPU 0, rank 0 on the run's stream and rank 1
// on a second stream forked from it and joined back (the two kernels must run at once: each waits
// for the other's flags). Every mailbox, flag and counter is on GPU 0; "peer" pointers are plain
// device pointers.
#include "one_shot_rmsnorm_two_ranks_problem.hpp"

namespace aisp::test_pairs {

struct OneShotTwoRanksOneGpu : OneShotRmsNormTwoRanks {
  ~OneShotTwoRanksOneGpu() override { release(); }

  void setup(Context& ctx) override {
    OneShotRmsNormTwoRanks::setup(ctx);
    release();
    for (int r = 0; r < kRanks; ++r) {
      const std::string rank = std::to_string(r);
      mailbox[r] = ctx.alloc("mailbox_" + rank, DType::bf16, 2 * kRanks * kElements, Role::scratch);
      flags[r] = ctx.alloc("flags_" + rank, DType::u64, kRanks * kRows, Role::scratch);
      calls[r] = ctx.alloc("calls_" + rank, DType::u64, kRows, Role::scratch);
      AISP_CUDA_CHECK(cudaMemsetAsync(flags[r].data(), 0, flags[r].bytes(), ctx.stream()));
      AISP_CUDA_CHECK(cudaMemsetAsync(calls[r].data(), 0, calls[r].bytes(), ctx.stream()));
    }
    AISP_CUDA_CHECK(cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking));
    AISP_CUDA_CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    AISP_CUDA_CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    AISP_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
  }

  void run(Context& ctx) override {
    AISP_CUDA_CHECK(cudaEventRecord(fork, ctx.stream()));
    AISP_CUDA_CHECK(cudaStreamWaitEvent(second, fork, 0));
    for (int r = 0; r < kRanks; ++r) {
      ch04::OneShotOperands x;
      x.gpus = kRanks;
      x.rank = r;
      for (int g = 0; g < kRanks; ++g) {
        x.mailbox[g] = mailbox[g].as<__nv_bfloat16>();
        x.flags[g] = flags[g].as<std::uint64_t>();
      }
      x.partial = partial[r].as<const __nv_bfloat16>();
      x.norm = norm_operands(r);
      x.calls = calls[r].as<std::uint64_t>();
      ch04::launch_one_shot_all_reduce_rmsnorm(x, r == 0 ? ctx.stream() : second);
    }
    AISP_CUDA_CHECK(cudaEventRecord(join, second));
    AISP_CUDA_CHECK(cudaStreamWaitEvent(ctx.stream(), join, 0));
  }

  void teardown(Context&) override { release(); }

  void release() {
    if (second != nullptr)
      static_cast<void>(cudaStreamDestroy(second));
    if (fork != nullptr)
      static_cast<void>(cudaEventDestroy(fork));
    if (join != nullptr)
      static_cast<void>(cudaEventDestroy(join));
    second = nullptr;
    fork = join = nullptr;
  }

  Tensor mailbox[kRanks], flags[kRanks], calls[kRanks];
  cudaStream_t second = nullptr;
  cudaEvent_t fork = nullptr, join = nullptr;
};

}  // namespace aisp::test_pairs

AISP_VARIANT(aisp::test_pairs::OneShotTwoRanksOneGpu)
