#!/usr/bin/env bash
# On the GPU machine: every GPU pair of the suite passes verification (no false positives), and
# the test suite's GPU pair is run, not skipped.
# Arguments: <aisp> <aisp_test_suite> <work dir>
set -u
aisp="$1"; suite="$2"; work="$3"
rm -rf "$work" && mkdir -p "$work"
failures=0
"$aisp" bench verify -t ch01 -t ch07 --artifacts-dir "$work/a" >"$work/verify.out" 2>&1 \
  || { echo "FAIL: bench verify -t ch01 -t ch07 exited $?"; cat "$work/verify.out"; failures=1; }
"$suite" bench run -t ch90:needs_gpu --min-time 0.05 --artifacts-dir "$work/b" >"$work/gpu.out" 2>&1 \
  || { echo "FAIL: ch90:needs_gpu did not pass on the GPU"; cat "$work/gpu.out"; failures=1; }
grep -q "PASS ch90:needs_gpu" "$work/gpu.out" || { echo "FAIL: ch90:needs_gpu not PASS"; failures=1; }
[ "$failures" -eq 0 ] && echo "test_gpu_pairs_verify: passed"
exit "$failures"
