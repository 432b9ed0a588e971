#!/usr/bin/env bash
# On a GPU machine: the multi-GPU paths (docs/multi-gpu.md). NOT YET RUN: written for issue 14
# without a machine of 2 GPUs; the first run on one may need its expectations adjusted.
# With 1 GPU visible: every 2-GPU pair (ch97, ch02, ch04, ch15) is skipped with "needs 2 GPUs, 1
# visible". With 2 or more: ch97:scale_per_gpu passes verification on 2 GPUs (every GPU's output
# read back and compared) and is timed per call with the multi-GPU reason; the cheat that leaves
# GPU 1's output unwritten fails verification; --gpus beyond the visible GPUs is a skip saying so;
# hiding a GPU (CUDA_VISIBLE_DEVICES=0) makes the pairs skip; ch02, ch04 and ch15 pass
# verification.
# Arguments: <aisp> <aisp_test_suite> <work dir>
set -u
aisp="$1"; suite="$2"; work="$3"
rm -rf "$work" && mkdir -p "$work"
failures=0
source "$(dirname "$0")/../support/cli_expect.sh"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[[ ${gpus:-0} -ge 1 ]] || { echo "skip: no GPU"; exit 77; }

one_visible() { CUDA_VISIBLE_DEVICES=0 "$@"; }
expect "1 GPU visible: ch97 is skipped with the reason" 0 stdout "needs 2 GPUs, 1 visible" \
  one_visible "$suite" bench verify -t =ch97:scale_per_gpu --artifacts-dir "$work/one"
expect "1 GPU visible: ch02, ch04 and ch15 are skipped with the reason" 0 stdout \
  "needs 2 GPUs, 1 visible" one_visible "$aisp" bench verify -t ch02 -t ch04 -t ch15 \
  --artifacts-dir "$work/one_chapters"
# ch04's fused one-shot all-reduce + RMSNorm kernel, as two ranks on one GPU (ch85: its barrier,
# indexing and call counting; NVLink is what it cannot show).
expect "1 GPU: ch04's one-shot kernel as two ranks on one GPU passes verification" 0 stdout \
  "PASS" one_visible "$suite" bench verify -t ch85 --artifacts-dir "$work/one_shot"
# ch04's MoE dispatch as one NCCL rank on one GPU (ch84: routing, packing and the NCCL call
# sequences against the float64 reference; traffic between GPUs is what it cannot show).
expect "1 GPU: ch04's MoE dispatch as one rank passes verification" 0 stdout "PASS" \
  one_visible "$suite" bench verify -t ch84 --artifacts-dir "$work/moe_one_rank"

if [[ $gpus -ge 2 ]]; then
  expect "2 GPUs: ch97:scale_per_gpu passes verification" 0 stdout "PASS" \
    "$suite" bench verify -t =ch97:scale_per_gpu --artifacts-dir "$work/verify"
  expect "2 GPUs: leaving GPU 1's output unwritten fails verification" 1 stdout "FAIL" \
    "$suite" bench verify -t =ch97:scale_per_gpu_skips_peer --artifacts-dir "$work/cheat"
  expect "--gpus beyond the visible GPUs is a skip that says so" 0 stdout \
    "--gpus $((gpus + 1)) asks for $((gpus + 1)) GPUs and $gpus are visible" \
    "$suite" bench run -t =ch97:scale_per_gpu --gpus $((gpus + 1)) --artifacts-dir "$work/many"
  expect "2 GPUs: ch97:scale_per_gpu is timed" 0 stdout "" \
    "$suite" bench run -t =ch97:scale_per_gpu --gpus 2 --min-time 0.2 --artifacts-dir "$work/run"
  python3 - "$(run_dir_in "$work/run")/results.json" <<'PY' || fail "the timing of a 2-GPU pair"
import json, sys
pair = json.load(open(sys.argv[1]))["pairs"][0]
problems = [] if pair["status"] == "passed" else [f"status {pair['status']}: {pair.get('reason')}"]
if pair.get("gpus") != 2:
    problems.append(f"gpus is {pair.get('gpus')}, wanted 2")
for role in ("baseline", "optimized"):
    v = pair.get(role) or {}
    if v.get("method") != "cuda_events":
        problems.append(f"{role}: timed by {v.get('method')}, wanted cuda_events")
    if "runs on 2 GPUs" not in v.get("stop_reason", ""):
        problems.append(f"{role}: stop_reason lacks the multi-GPU reason: {v.get('stop_reason')}")
print("\n".join(problems) or "ok   timed per call on 2 GPUs")
sys.exit(1 if problems else 0)
PY
  expect "2 GPUs: ch02, ch04 and ch15 pass verification" 0 stdout "0 failed" \
    "$aisp" bench verify -t ch02 -t ch04 -t ch15 --artifacts-dir "$work/chapters"
else
  echo "ok   (the 2-GPU cases need 2 GPUs: $gpus here)"
fi

if [[ $failures -gt 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
