#!/usr/bin/env bash
# The layers of src/ are enforced by the build: a file that includes a header of a layer above its
# own does not compile (docs/architecture.md). Usage: test_upward_include.sh CMAKE BUILD_DIR SOURCE_DIR
set -u
cmake=$1 build=$2 source=$3
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

if ! output=$("$cmake" --build "$build" --target aisp_layer_probe_downward 2>&1); then
  fail "a measure-layer file including its own and lower layers' headers did not compile:"
  echo "$output" | tail -20
else
  echo "ok   a measure-layer file may include measure/, system/ and core/ headers"
fi

if output=$("$cmake" --build "$build" --target aisp_layer_probe_upward 2>&1); then
  fail "a measure-layer file including run/suite_runner.hpp compiled: the layers are not enforced"
elif ! grep -q 'run/suite_runner.hpp: No such file or directory' <<<"$output"; then
  fail "the upward probe failed, but not on its include:"
  echo "$output" | tail -20
else
  echo "ok   a measure-layer file including run/suite_runner.hpp is refused:"
  grep -m1 'run/suite_runner.hpp' <<<"$output" | sed 's/^/       /'
fi

# A relative include would walk around the include roots ("../run/x.hpp" from src/measure/).
if relative=$(grep -rn --include='*.cpp' --include='*.hpp' --include='*.cu' --include='*.cuh' \
                '#include "\.\./' "$source/src"); then
  fail "relative includes reach across layers:"
  echo "$relative"
else
  echo "ok   no relative include in src/"
fi

if ((failures > 0)); then
  echo "test_upward_include: $failures failure(s)"
  exit 1
fi
