#!/usr/bin/env bash
# Configures and builds aisp into build/ (Release, Ninja, all cores). Extra arguments go to the
# CMake configure step, e.g. -DCMAKE_CUDA_ARCHITECTURES=native.
#
# scripts/bench.sh and scripts/test.sh both build through here with the same configuration, so
# whichever runs second finds everything built: warnings are errors in both (as in CI). On a
# compiler that warns where CI's does not, AISP_WARNINGS_AS_ERRORS=OFF bash scripts/bench.sh builds
# anyway (and the next build with the default compiles the tree again).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DAISP_WARNINGS_AS_ERRORS="${AISP_WARNINGS_AS_ERRORS:-ON}" "$@"
cmake --build build -j "$(nproc)"
