#!/usr/bin/env bash
# Builds aisp and runs the default suite (every pair; GPU pairs are skipped with a reason on a
# machine without a GPU). Extra arguments go to `aisp bench run`, e.g. -t ch07.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
exec build/aisp bench run "$@"
