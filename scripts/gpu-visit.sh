#!/usr/bin/env bash
# One GPU visit (docs/gpu-visit.md): build, tests (GPU ones included), the chapter runs with
# expectations, and an independent timing cross-check with Nsight Compute. Everything lands in
# $OUT/visit.tgz, a short table on stdout. Never changes clocks, power or compute mode.
#   AISP_GIT_COMMIT=<sha> OUT=<dir> [AISP_VISIT_CHAPTERS="ch07 ch01"] \
#     bash scripts/gpu-visit.sh [build|test|peak|bench|crosscheck|probes|diagnose|all]...
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/visit-out}
work=${AISP_VISIT_WORK:-$PWD/visit-work}  # the device tool keeps only what lands under $OUT
mkdir -p "$OUT" "$work"
stages=("${@:-all}")
want() { for s in "${stages[@]}"; do [ "$s" = all ] || [ "$s" = "$1" ] && return 0; done; return 1; }
export PATH=/usr/local/cuda/bin:$PATH
# AISP_VISIT_BIN_DIR: a directory holding aisp and aisp_test_suite built elsewhere (a binary built
# on the build machine runs there with the CUDA libraries on LD_LIBRARY_PATH; GPU.md): the build
# stage is then skipped, and the test stage runs the GPU tests' scripts directly (ctest needs
# the build tree). Saves the device the build's minutes.
bin=${AISP_VISIT_BIN_DIR:-build-gpu}
[ -n "${AISP_VISIT_BIN_DIR:-}" ] && export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
# AISP_VISIT_DEADLINE_S: seconds after which the chapter runs stop (the one running is cut off at
# the deadline, the rest are skipped), so the tarball is still written inside the device tool's
# per-call limit. Default: no deadline.
visit_start=$(date +%s)
seconds_left() { echo $(( ${AISP_VISIT_DEADLINE_S:-1000000} - ($(date +%s) - visit_start) )); }

if want build && [ -z "${AISP_VISIT_BIN_DIR:-}" ]; then
  nvidia-smi >"$work/nvidia-smi.txt" 2>&1
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a \
    >"$work/configure.log" 2>&1 || { tail -30 "$work/configure.log"; exit 1; }
  /usr/bin/time -f "build: %e s" cmake --build build-gpu -j 16 >"$work/build.log" 2>&1 \
    || { grep -E "error|FAILED" "$work/build.log" | head -30; exit 1; }
  tail -1 "$work/build.log"
fi

if want test && [ -n "${AISP_VISIT_BIN_DIR:-}" ]; then
  # The GPU-labelled tests, one at a time, as ctest would run them (tests/CMakeLists.txt).
  : >"$work/ctest.log"
  for script in tests/gpu/test_*.sh; do
    name=$(basename "$script" .sh)
    case " ${AISP_VISIT_SKIP_TESTS:-test_gpu_pairs_verify} " in *" $name "*) continue ;; esac
    start=$(date +%s)
    timeout 600 bash "$script" "$bin/aisp" "$bin/aisp_test_suite" "$work/gpu_work/$name" \
      >"$work/test-$name.log" 2>&1
    code=$?
    verdict=passed; [ $code = 77 ] && verdict=skipped; [ $code != 0 ] && [ $code != 77 ] && verdict="FAILED ($code)"
    echo "gpu test $name: $verdict, $(( $(date +%s) - start )) s" | tee -a "$work/ctest.log"
    [ "$verdict" = passed ] || tail -15 "$work/test-$name.log"
  done
elif want test; then
  # gpu.test_gpu_pairs_verify repeats what the bench stage's runs verify; skipped here to save
  # device time (run it alone with: ctest -R test_gpu_pairs_verify).
  ctest --test-dir build-gpu --output-on-failure -j 4 -E "test_gpu_pairs_verify|test_report_renders" \
    >"$work/ctest.log" 2>&1
  echo "ctest exit $?"; grep -E "tests passed|tests failed|Failed|\*\*\*" "$work/ctest.log" | head -20
fi

if want peak; then
  # Into its own directory: the chapter runs keep using the ceilings table until these figures
  # have been reviewed.
  # cuBLASLt's own errors and hints (mask 1 + 8) explain a GEMM it refuses.
  # AISP_VISIT_PEAK_RUNS full runs (default 1), each with the SM clock and power sampled every
  # 100 ms beside it (peak-N-clocks.csv): the GEMM power cap and the clocks under the launch
  # figures show there.
  for run in $(seq 1 "${AISP_VISIT_PEAK_RUNS:-1}"); do
    nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
      --format=csv -lms 100 >"$work/peak-$run-clocks.csv" 2>&1 &
    sampler=$!
    CUBLASLT_LOG_MASK=9 CUBLASLT_LOG_FILE="$work/cublaslt.log" \
      "$bin/aisp" bench peak --peaks-dir "$work/peaks" --json-file "$work/peak-$run.json" \
      >"$work/peak-$run.log" 2>&1
    echo "bench peak run $run: exit $?"
    kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null
    tail -32 "$work/peak-$run.log"
  done
fi

if want bench; then
  # --chapters-dir: the expectations go to this checkout's chapters, not to the folders the
  # binary's sources were compiled from (a binary built elsewhere, AISP_VISIT_BIN_DIR).
  "$bin/aisp" system info >"$work/system-info.txt" 2>&1
  for chapter in ${AISP_VISIT_CHAPTERS:-ch07 ch01}; do
    left=$(seconds_left)
    if [ "$left" -le 20 ]; then echo "run -t $chapter: skipped, the visit's deadline is reached"; continue; fi
    start=$(date +%s%N)
    # AISP_VISIT_RUN_FLAGS: extra flags for every chapter run (e.g. "--max-time 6" when a visit
    # must fit many chapters into its device time).
    # AISP_VISIT_UPDATE_EXPECTATIONS=0: a gate run that only compares with the expectations.
    update=--update-expectations; [ "${AISP_VISIT_UPDATE_EXPECTATIONS:-1}" = 0 ] && update=
    timeout --signal=INT --kill-after=10 "$left" \
      "$bin/aisp" bench run -t "$chapter" --artifacts-dir "$work/art" $update \
      --chapters-dir "$PWD/chapters" \
      --timeout 120 ${AISP_VISIT_RUN_FLAGS:-} >"$work/run-$chapter.log" 2>&1
    code=$?
    echo "run -t $chapter: exit $code, $(( ($(date +%s%N) - start) / 1000000 )) ms wall"
  done
  grep -hE "^(PASS|FAIL|SKIP|CRASH|TIME)" "$work"/run-*.log | cut -c1-160
  [ "${AISP_VISIT_PROFILE:-1}" = 1 ] || exit_profile=skip
  # Nsight Compute's metrics for the same chapters (docs/profiling.md): a run of its own, into its
  # own directory, so the timed runs above stay unprofiled and the crosscheck reads only them.
  [ -n "${exit_profile:-}" ] || { start=$(date +%s%N)
  "$bin/aisp" bench run ${AISP_PROFILE_TARGETS:--t ch01 -t ch07} --profile ncu --artifacts-dir "$work/art-profile" \
    --min-time 0.1 --max-time 3 --timeout 300 >"$work/run-profile.log" 2>&1
  code=$?
  echo "run -t ch01 -t ch07 --profile ncu: exit $code, $(( ($(date +%s%N) - start) / 1000000 )) ms wall"
  grep -hE "^ +[^ ]+ profile \(" "$work/run-profile.log" | cut -c1-200; }
fi

if want crosscheck; then
  # Independent timing: Nsight Compute's gpu__time_duration of the same kernel, caches flushed
  # by ncu, clocks left alone, compared with the harness's median for that variant.
  settings='{"fixed_samples":40,"warmup_runs":2}'
  for spec in "ch07:copy_vectorized copy_float4" "ch07:transpose_padded transpose_padded"; do
    set -- $spec
    ncu --clock-control none --cache-control all --metrics gpu__time_duration.sum --csv \
      -k "regex:^$2" --launch-skip 4 --launch-count 30 \
      "$bin/aisp" __worker --target "$1" --settings-json "$settings" --out-fd 3 \
      3>"$work/ncu-${2}.jsonl" >"$work/ncu-${2}.csv" 2>"$work/ncu-${2}.err"
    echo "ncu $1 exit $?"
  done
  python3 scripts/crosscheck.py "$work" || true
fi

if want probes; then
  # The dev probes of the wave-2 kernels (scripts/probes/wave2_probes.sh): element checks and
  # timings outside the harness, each under a timeout; PROBES selects among them.
  OUT="$work/probes" bash scripts/probes/wave2_probes.sh >"$work/probes.log" 2>&1
  echo "probes: exit $?"; cat "$work/probes/probes.txt" 2>/dev/null
fi

if want diagnose; then
  # Why a pair wins little: ncu's speed-of-light, memory, warp-state and occupancy sections for
  # one settled launch of each named kernel (clocks left alone). Text reports into the tarball.
  settings='{"fixed_samples":2,"warmup_runs":1}'
  for spec in ${AISP_DIAGNOSE:-"ch07:matmul_tiled:matmul_naive" "ch07:matmul_tiled:matmul_smem_tiled" \
      "ch07:tma_bulk_copy:filter2d_staged_sync" "ch07:tma_bulk_copy:filter2d_staged_tma"}; do
    target=${spec%:*}; kernel=${spec##*:}
    ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis \
      --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy \
      --section LaunchStats -k "regex:^$kernel" --launch-skip 3 --launch-count 1 \
      "$bin/aisp" __worker --target "$target" --settings-json "$settings" --out-fd 3 \
      3>/dev/null >"$work/diagnose-$kernel.txt" 2>&1
    echo "ncu diagnose $kernel: exit $?"
  done
fi

# One tarball: the work directory (logs, run directories, peaks, profiles) and the chapters'
# expectations files (the bench stage may have re-recorded them). The device tool returns at most
# 8 files from $OUT, so a work directory inside $OUT is removed once it is in the tarball.
expectations=$(find chapters -path '*/expectations/*.json' 2>/dev/null)
tar czf "$OUT/visit.tgz" --exclude='gpu_work' -C "$(dirname "$work")" "$(basename "$work")" \
  -C "$PWD" $expectations 2>/dev/null || echo "warning: the tarball is incomplete"
case "$work" in "$OUT"/*) rm -rf "$work" ;; esac
ls -la "$OUT"
