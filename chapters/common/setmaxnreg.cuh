// setmaxnreg (sm_90a only): a warpgroup gives registers back to the SM's pool, or takes more from
// it, while the kernel runs. A warp-specialized kernel's producer warpgroup (one thread issuing
// TMA copies) needs few registers; its consumer warpgroups hold large accumulator tiles. The
// kernel is compiled for the average (a register cap at entry: __launch_bounds__(threads, 1)),
// then the producer shrinks and the consumers grow:
//
//   if (warpgroup == 0) { setmaxnreg_decrease<40>(); ...produce... }
//   else                { setmaxnreg_increase<232>(); ...consume... }
//
// Counts are multiples of 8 in [24, 256]; what the consumers take must have been released (the
// block's total stays within what it was launched with: 128·40 + 256·232 ≤ 384·168, say). Each
// role must be one branch of a single if/else for the compiler to honour it (it warns, C7508,
// when it cannot). Elsewhere these compile to a trap; guard the kernel and declare
// Feature::wgmma (setmaxnreg ships with the same sm_90a feature set).
#pragma once

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define AISP_SETMAXNREG_AVAILABLE 1
#else
#define AISP_SETMAXNREG_AVAILABLE 0
#endif

namespace aisp::common {

template <int Registers>
__device__ __forceinline__ void setmaxnreg_decrease() {
  static_assert(Registers % 8 == 0 && Registers >= 24 && Registers <= 256,
                "setmaxnreg takes a multiple of 8 in [24, 256]");
#if AISP_SETMAXNREG_AVAILABLE
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Registers));
#else
  __trap();
#endif
}

template <int Registers>
__device__ __forceinline__ void setmaxnreg_increase() {
  static_assert(Registers % 8 == 0 && Registers >= 24 && Registers <= 256,
                "setmaxnreg takes a multiple of 8 in [24, 256]");
#if AISP_SETMAXNREG_AVAILABLE
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Registers));
#else
  __trap();
#endif
}

}  // namespace aisp::common
