#!/usr/bin/env bash
# Configures and builds aisp into build/ (Release, Ninja, all cores). Extra arguments go to the
# CMake configure step, e.g. -DCMAKE_CUDA_ARCHITECTURES=native.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build -j "$(nproc)"
