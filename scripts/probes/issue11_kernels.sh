#!/usr/bin/env bash
# Probe run for the issue-11 kernels: the ping-pong GEMM and the fused bias + GELU GEMMs
# (chapter 10), and the grouped GEMM (chapters/common, chapter 14's grouped_gemm). Builds the two
# probes for sm_90a and runs each case under a timeout (a broken mbarrier protocol hangs rather
# than fails), every element checked against cuBLAS(Lt) before it is timed and again after.
# Each case's real exit status is recorded (124: killed by the timeout; the probe names the
# kernel it was running on stderr, so the log's last line says which). Also saved: ptxas's
# resource report and the SASS of the ping-pong and tile_transpose kernels. Logs go to $OUT
# (or /tmp). Then, optionally, the harness on the new pairs:
#   scripts/probes/issue11_kernels.sh                 # probes only (~3-4 minutes on an H200)
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
# Resources and SASS (no GPU needed): registers, spills, barriers; the instructions themselves.
for kernel in ch10_tensor_cores/gemm_bf16_pingpong_kernel ch10_tensor_cores/tile_transpose_tma_kernel; do
  name="$(basename "$kernel")"
  nvcc "${flags[@]}" -Xptxas -v -cubin "chapters/$kernel.cu" -o "/tmp/$name.cubin" \
    >"$out/$name.ptxas.txt" 2>&1 &&
    cuobjdump -sass "/tmp/$name.cubin" >"$out/$name.sass.txt" 2>&1
done
wait
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee "$out/gpu.txt"
run() {  # name, command...
  local name="$1"
  shift
  echo "== $name" | tee -a "$out/issue11_probes.txt"
  timeout 120 "$@" >"$out/$name.log" 2>&1
  local status=$?
  cat "$out/$name.log" >>"$out/issue11_probes.txt"
  if [ "$status" -eq 124 ]; then
    echo "exit 124 (TIMED OUT: hung in the kernel named last above)" | tee -a "$out/issue11_probes.txt"
  else
    echo "exit $status" | tee -a "$out/issue11_probes.txt"
  fi
}
# Ping-pong, plain: the ladder's shapes, then small shapes whose blocks hold 1 to 3 tiles and
# whose k loops are shorter than the 6-slot ring (5 k-steps) or not a multiple of it (7).
run pingpong_8192 /tmp/epilogue_probe 8192 8192 8192 plain
run pingpong_4096 /tmp/epilogue_probe 4096 4096 4096 plain
run pingpong_2304x2304x320 /tmp/epilogue_probe 2304 2304 320 plain
run pingpong_1152x1280x448 /tmp/epilogue_probe 1152 1280 448 plain
# Fused bias + GELU: the pair's shape, and a small one.
run epilogue_fused /tmp/epilogue_probe 8192 14336 4096 fused
run epilogue_fused_2304x2304x448 /tmp/epilogue_probe 2304 2304 448 fused
run grouped_moe /tmp/grouped_probe 2048 7168
run grouped_random /tmp/grouped_probe 4096 4096 random 16
cat "$out/issue11_probes.txt"
if [ -n "${AISP:-}" ]; then
  "$AISP" bench run -t ch10:gemm_bias_gelu -t ch10:tile_transpose -t ch14:grouped_gemm \
    -t ch09:gemm_fp32 -t ch09:gemm_relu 2>&1 | tee "$out/issue11_bench.txt"
fi
