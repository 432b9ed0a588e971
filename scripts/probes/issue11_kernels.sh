#!/usr/bin/env bash
# Probe run for the issue-11 kernels that no GPU has run yet: the ping-pong GEMM and the fused
# bias + GELU GEMMs (chapter 10), and the grouped GEMM (chapters/common, chapter 14's
# grouped_gemm). Builds the two probes for sm_90a and runs each case under a timeout (a broken
# mbarrier protocol hangs rather than fails), every element checked against cuBLAS(Lt) before it
# is timed. Logs go to $OUT (or /tmp). Then, optionally, the harness on the new pairs:
#   scripts/probes/issue11_kernels.sh                 # probes only (~2 minutes on an H200)
#   AISP=build/aisp scripts/probes/issue11_kernels.sh # + aisp bench run on the new pairs
set -u
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp}"
flags=(-O3 -std=c++20 -gencode arch=compute_90a,code=sm_90a -Ichapters)
nvcc "${flags[@]}" scripts/probes/gemm_epilogue_probe.cu \
  chapters/ch10_tensor_cores/gemm_bf16_persistent_kernel.cu \
  chapters/ch10_tensor_cores/gemm_bf16_pingpong_kernel.cu \
  chapters/ch10_tensor_cores/gemm_bias_gelu_persistent_kernel.cu \
  chapters/ch10_tensor_cores/gemm_bias_gelu_elementwise.cu -lcublasLt -o /tmp/epilogue_probe &
nvcc "${flags[@]}" scripts/probes/grouped_gemm_probe.cu chapters/common/grouped_gemm_bf16.cu \
  -lcublas -o /tmp/grouped_probe &
wait
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee "$out/gpu.txt"
run() {  # name, command...
  local name="$1"
  shift
  echo "== $name" | tee -a "$out/issue11_probes.txt"
  timeout 120 "$@" 2>&1 | tee "$out/$name.log" | tee -a "$out/issue11_probes.txt" >/dev/null
  echo "exit $?" | tee -a "$out/issue11_probes.txt"
}
run epilogue_fused /tmp/epilogue_probe 8192 14336 4096 fused
run pingpong_8192 /tmp/epilogue_probe 8192 8192 8192 plain
run pingpong_4096 /tmp/epilogue_probe 4096 4096 4096 plain
run grouped_moe /tmp/grouped_probe 2048 7168
run grouped_random /tmp/grouped_probe 4096 4096 random 16
cat "$out/issue11_probes.txt"
if [ -n "${AISP:-}" ]; then
  "$AISP" bench run -t ch10:gemm_bias_gelu -t ch10:tile_transpose -t ch14:grouped_gemm \
    -t ch09:gemm_fp32 -t ch09:gemm_relu 2>&1 | tee "$out/issue11_bench.txt"
fi
