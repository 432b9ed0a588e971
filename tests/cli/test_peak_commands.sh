#!/usr/bin/env bash
# `bench theoretical-peak`: list, one GPU as JSON, an unknown name (exit 2 with suggestions);
# `bench peak` without a GPU measures the host's memory bandwidth alone and says the GPU figures
# were skipped (on a GPU machine that case is skipped: tests/gpu/test_bench_peak.sh runs it
# there).
# Arguments: $1 the aisp binary, $2 the aisp_test_suite binary, $3 a scratch directory.
set -u

aisp=$1
work=$3
mkdir -p "$work"
failures=0

fail() {
  echo "FAIL $*"
  failures=$((failures + 1))
}

# expect NAME WANTED_EXIT TEXT STREAM COMMAND...: passes when COMMAND exits WANTED_EXIT and
# STREAM (stdout or stderr) contains TEXT.
expect() {
  local name=$1 wanted_exit=$2 text=$3 stream=$4
  shift 4
  "$@" >"$work/stdout" 2>"$work/stderr"
  local exit_code=$?
  if [[ $exit_code -ne $wanted_exit ]]; then
    fail "$name: exit $exit_code, wanted $wanted_exit: $*"
  elif [[ -n $text ]] && ! grep -qF -- "$text" "$work/$stream"; then
    fail "$name: $stream lacks \"$text\": $*"
  else
    echo "ok   $name"
    return 0
  fi
  sed 's/^/     stdout: /' "$work/stdout" | head -10
  sed 's/^/     stderr: /' "$work/stderr" | head -10
}

expect "theoretical-peak list" 0 "h100_pcie" stdout "$aisp" bench theoretical-peak --gpu list
for key in h100_sxm h100_pcie h200 b200 b300 gb200 a100_sxm l40s; do
  grep -q "^$key " "$work/stdout" || fail "theoretical-peak list lacks a row for $key"
done

expect "theoretical-peak --gpu h200" 0 "4800 GB/s" stdout "$aisp" bench theoretical-peak --gpu h200
expect "theoretical-peak alias" 0 "key h100_sxm" stdout \
  "$aisp" bench theoretical-peak --gpu "NVIDIA H100 80GB HBM3"

if "$aisp" bench theoretical-peak --gpu h200 --json >"$work/h200.json" 2>"$work/stderr" &&
  python3 - "$work/h200.json" <<'PY'
import json, sys
row = json.load(open(sys.argv[1]))
assert row["key"] == "h200", row["key"]
assert row["memory_bandwidth_gbps"] == 4800, row
assert row["bf16_tflops"] == 989.5 and row["fp8_tflops"] == 1979, row
for field in ("fp32_tflops", "tf32_tflops", "fp16_tflops", "nvlink_gbps", "memory_gb",
              "sm_count", "l2_mib", "tdp_w", "source"):
    assert row[field], field
PY
then
  echo "ok   theoretical-peak --gpu h200 --json parses"
else
  fail "theoretical-peak --gpu h200 --json: not the expected JSON"
fi

if "$aisp" bench theoretical-peak --gpu list --json >"$work/list.json" 2>/dev/null &&
  python3 -c 'import json,sys; rows=json.load(open(sys.argv[1])); assert len(rows) >= 8' \
    "$work/list.json"; then
  echo "ok   theoretical-peak --gpu list --json parses"
else
  fail "theoretical-peak --gpu list --json: not a JSON array of at least 8 rows"
fi

expect "unknown GPU exits 2" 2 "unknown GPU 'nonsense'" stderr \
  "$aisp" bench theoretical-peak --gpu nonsense
grep -qF "h200" "$work/stderr" || fail "unknown GPU: the message does not list the known GPUs"
expect "misspelled GPU gets a suggestion" 2 "did you mean: h200" stderr \
  "$aisp" bench theoretical-peak --gpu h201
expect "--gpu is required" 2 "--gpu" stderr "$aisp" bench theoretical-peak

expect "an unknown --figures name exits 2 before measuring" 2 "--figures: unknown figure 'graph_nodes'" \
  stderr "$aisp" bench peak --figures graph_node_launch,graph_nodes --peaks-dir "$work/figures"
grep -qF "graph_node_launch" "$work/stderr" || fail "--figures: the message does not list the figures"
[[ -e $work/figures ]] && fail "bench peak with a bad --figures wrote $work/figures"

if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "skip bench peak without a GPU: this machine has one"
else
  # Without a GPU: the host's memory bandwidth alone, stored under the host's key; every GPU
  # figure skipped with the reason.
  expect "bench peak without a GPU measures the host" 0 "bench peak: no GPU (" stderr \
    "$aisp" bench peak --quick --peaks-dir "$work/peaks"
  grep -qF "host memory copy" "$work/stdout" || fail "bench peak without a GPU: no host figure row"
  expect "bench peak --json without a GPU" 0 "bench peak: no GPU (" stderr \
    "$aisp" bench peak --json --quick --peaks-dir "$work/peaks"
  if python3 - "$work/stdout" "$work/peaks" <<'PY'
import json, os, sys
report = json.load(open(sys.argv[1]))
figures = {f["name"]: f for f in report["figures"]}
host = figures["host_memory_bandwidth"]
assert host["status"] == "measured" and host["value"] > 0 and host["stored"], host
assert report["no_gpu"], report["no_gpu"]
skipped = [f for f in figures.values() if f["name"] != "host_memory_bandwidth"]
assert skipped and all(f["status"] == "skipped" and f["reason"].startswith("no GPU") for f in skipped)
stored = json.load(open(os.path.join(sys.argv[2], report["host_key"] + ".json")))["ceilings"]
assert stored["host_memory_bandwidth"]["value"] == host["value"], stored
assert report["host_key"].startswith("host_"), report["host_key"]
PY
  then
    echo "ok   bench peak without a GPU stores the host's memory bandwidth under its host key"
  else
    fail "bench peak --json without a GPU: not the host figure stored under the host key"
  fi
fi

if [[ $failures -ne 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
