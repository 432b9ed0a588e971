#!/usr/bin/env bash
# The wave-2 dev probes in one go, for a GPU visit (docs/gpu-visit.md, stage `probes`): each
# kernel family checked element by element against its library or a float64 reference and timed
# outside the harness, each run under a timeout (a broken mbarrier protocol hangs instead of
# failing; 124 in the summary means it was killed). Probes are not part of the build; this script
# compiles them for sm_90a, several at once. Outputs and logs go to $OUT (or /tmp), a summary of
# exit codes to $OUT/probes.txt. Select with PROBES="attention moe issue11 fp8 file_read"; add
# fp8_energy (not in the default set: it holds the GPU at its power cap for ~30 s).
set -u
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp}"
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
probes=${PROBES:-attention moe issue11 fp8 file_read}
want() { case " $probes " in *" $1 "*) return 0 ;; esac; return 1; }
flags=(-O3 -std=c++20 -gencode arch=compute_90a,code=sm_90a -Iinclude -Ichapters)
bin=/tmp/wave2-probes
mkdir -p "$bin"

if want attention; then
  nvcc "${flags[@]}" -DAISP_ATTENTION_PROBE_SWEEP scripts/probes/attention_probe.cu \
    chapters/ch18_attention/{row_softmax,flash_attention_fa2,flash_attention_fa2_tma,flash_attention_fa3,decode_attention}.cu \
    chapters/ch19_low_precision/decode_attention_fp8_kv_kernel.cu \
    chapters/common/attention_kv_cache.cu chapters/common/attention_kv_fp8.cu \
    chapters/common/attention_cudnn_sdpa.cpp -lcublas -ldl -o "$bin/attention" \
    >"$out/build-attention.log" 2>&1 &
fi
if want moe; then
  nvcc "${flags[@]}" scripts/probes/moe_probe.cu chapters/common/moe_routing.cu \
    chapters/common/fp8_quantize.cu chapters/ch17_moe/moe_token_loop_kernels.cu \
    chapters/ch17_moe/moe_dispatch_kernels.cu chapters/ch17_moe/moe_router_kernels.cu \
    chapters/ch17_moe/moe_grouped_bf16_kernel.cu chapters/ch17_moe/moe_grouped_fp8_kernel.cu \
    -lcublas -o "$bin/moe" >"$out/build-moe.log" 2>&1 &
fi
if want file_read; then
  g++ -O2 -std=c++20 -pthread scripts/probes/file_read_probe.cpp -o "$bin/file_read" \
    >"$out/build-file_read.log" 2>&1 &
fi
wait
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader >"$out/gpu.txt" 2>&1

run() {  # name, seconds, command...
  local name="$1" seconds="$2"
  shift 2
  local start=$SECONDS
  timeout "$seconds" "$@" >"$out/$name.log" 2>&1
  echo "$name: exit $? in $((SECONDS - start)) s" | tee -a "$out/probes.txt"
}
: >"$out/probes.txt"
want file_read && run file_read 120 "$bin/file_read"
want attention && run attention-decode 150 "$bin/attention" decode
want attention && run attention-forward 240 "$bin/attention" forward
want moe && run moe-check 120 "$bin/moe" check
want moe && run moe-time 300 "$bin/moe" time
want issue11 && { OUT="$out" timeout 420 bash scripts/probes/issue11_kernels.sh >/dev/null 2>&1
  echo "issue11: exit $?" | tee -a "$out/probes.txt"; }
want fp8 && { nvcc "${flags[@]}" scripts/probes/fp8_probe.cu chapters/common/fp8_quantize.cu \
    chapters/ch19_low_precision/gemm_fp8_block_scaled_kernel.cu -lcublasLt -o "$bin/fp8" \
    >"$out/build-fp8.log" 2>&1 && run fp8 240 "$bin/fp8"; }
want fp8_energy && { nvcc "${flags[@]}" scripts/probes/fp8_energy_probe.cu chapters/common/fp8_quantize.cu \
    chapters/ch19_low_precision/gemm_fp8_block_scaled_kernel.cu -lcublasLt -lcuda -ldl \
    -o "$bin/fp8_energy" >"$out/build-fp8_energy.log" 2>&1 && run fp8_energy 120 "$bin/fp8_energy" 3; }
cat "$out/probes.txt"
