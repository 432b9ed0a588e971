#!/usr/bin/env bash
# On the GPU machine: two runs of unchanged chapter pairs must compare as "no significant change"
# under compare-runs' default 2% threshold. The pairs are honest GPU work timed by CUDA events:
# a memory-bound elementwise kernel (ch06:vector_add), a tiled transpose (ch07:transpose_tiled)
# and compute-bound tiled matmuls (ch07:matmul_tiled, a baseline's name: both of its optimized
# variants), four targets. A difference that comes and goes between two runs seconds apart does
# not persist over three attempts; a real one would, so the test passes when one attempt calls
# every target unchanged. Seen on an H200: every time change within 0.4%.
# Arguments: <aisp> <aisp_test_suite> <work dir>
set -u
aisp="$1"; work="$3"
rm -rf "$work" && mkdir -p "$work"
targets=(ch06:vector_add ch07:transpose_tiled ch07:matmul_tiled)
target_flags=()
for target in "${targets[@]}"; do target_flags+=(-t "$target"); done

run_dir_in() { find "$1/runs" -mindepth 1 -maxdepth 1 -type d | head -n 1; }

for attempt in 1 2 3; do
  rm -rf "$work/a" "$work/b"
  for side in a b; do
    if ! "$aisp" bench run "${target_flags[@]}" --min-time 0.3 --artifacts-dir "$work/$side" \
      >"$work/run_$side.out" 2>&1; then
      cat "$work/run_$side.out"
      echo "FAIL: bench run ${target_flags[*]} (run $side) failed"
      exit 1
    fi
  done
  "$aisp" bench compare-runs --baseline "$(run_dir_in "$work/a")" \
    --candidate "$(run_dir_in "$work/b")" --fail-on-regression >"$work/compare.out" 2>&1
  code=$?
  cat "$work/compare.out"
  # The last line counts the verdicts: "4 targets: 4 no significant change."
  counts=$(tail -n 1 "$work/compare.out")
  if [[ $code -eq 0 && $counts =~ ^([0-9]+)\ targets:\ ([0-9]+)\ no\ significant\ change\.$ &&
        ${BASH_REMATCH[1]} -ge 4 && ${BASH_REMATCH[1]} == "${BASH_REMATCH[2]}" ]]; then
    echo "test_compare_runs_gpu: passed (attempt $attempt, 2% threshold): $counts"
    exit 0
  fi
  echo "note: attempt $attempt: $counts (exit $code)"
done
echo "FAIL: two runs of unchanged GPU pairs were called a change in three attempts (2% threshold)"
exit 1
