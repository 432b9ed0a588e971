#!/usr/bin/env bash
# The reader fuzz test (tests/fuzz/reader_fuzz.cpp) under AddressSanitizer and
# UndefinedBehaviorSanitizer: mutated copies of a real run through every reader of a run's files,
# where an out-of-bounds read, a use after free, a leak, a signed overflow or a bad cast stops it.
# Its own build folder (build-sanitize/) holds only the harness library and the fuzz driver, for
# one architecture: no chapters are compiled. CI runs it after scripts/test.sh (.ci/run).
#   bash scripts/fuzz-sanitized.sh [CASES]     (default 600)
set -euo pipefail
cd "$(dirname "$0")/.."
cases=${1:-600}
bash scripts/install-deps.sh
cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug -DAISP_SANITIZE=ON \
  -DAISP_WARNINGS_AS_ERRORS=ON -DCMAKE_CUDA_ARCHITECTURES=90a >/dev/null
cmake --build build-sanitize --target aisp_reader_fuzz -j "$(nproc)"
# protect_shadow_gap=0: the CUDA driver maps memory where ASan's shadow gap would be (only
# matters with a GPU). Any report ends the run with a non-zero exit.
ASAN_OPTIONS=protect_shadow_gap=0:abort_on_error=1:detect_leaks=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  build-sanitize/tests/aisp_reader_fuzz tests/data/run_h200_ch01 build-sanitize/fuzz_work "$cases"
