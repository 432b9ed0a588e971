#!/usr/bin/env bash
# Builds aisp and runs its tests: unit, CLI and containment tests everywhere; the GPU-labelled
# tests too when a GPU is visible. Then installs the library, builds the out-of-tree example
# against the installed package and audits its pair. Exit code 0 only when everything passed.
# The build is scripts/build.sh's, the same configuration scripts/bench.sh uses: run after it,
# nothing compiles again.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
labels=(-LE gpu)
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  labels=()
  echo "test: a GPU is visible; GPU-labelled tests run too"
fi
ctest --test-dir build "${labels[@]}" --output-on-failure -j "$(nproc)"

rm -rf build/install build/external
cmake --install build --prefix build/install >/dev/null
cmake -S examples/external_project -B build/external -G Ninja \
  -DCMAKE_PREFIX_PATH="$PWD/build/install"
cmake --build build/external -j "$(nproc)"
build/external/my_bench bench list-targets
build/external/my_bench bench audit
echo "test: external project built against the installed package; its pair passes bench audit"
