#!/usr/bin/env bash
# On the GPU machine: `bench peak --quick --json` measures every figure it can (exit 0), prints
# JSON with the figures, and stores the ceilings in <peaks-dir>/<hardware key>.json (the host's
# memory bandwidth in <peaks-dir>/<host key>.json), in the form the rooflines read; --figures measures only the named figures and keeps the others stored.
# Arguments: <aisp> <aisp_test_suite> <work dir>
set -u
aisp="$1"; work="$3"
rm -rf "$work" && mkdir -p "$work"
failures=0

"$aisp" bench peak --quick --peaks-dir "$work/peaks" --json >"$work/peak.json" 2>"$work/peak.err"
exit_code=$?
if [[ $exit_code -ne 0 ]]; then
  echo "FAIL: bench peak --quick exited $exit_code"
  cat "$work/peak.err"
  failures=1
fi
python3 - "$work/peak.json" "$work/peaks" <<'PY' || failures=1
import json, os, sys
report = json.load(open(sys.argv[1]))
key = report["hardware_key"]
path = os.path.join(sys.argv[2], key + ".json")
problems = []
if not os.path.isfile(path):
    problems.append(f"no ceilings file {path}")
else:
    stored = json.load(open(path))
    ceilings = stored.get("ceilings", {})
    for name in ("hbm_bandwidth", "l2_bandwidth", "fp32_simt", "tf32_tensor", "bf16_tensor",
                 "fp16_tensor", "host_to_device_pinned", "device_to_host_pinned",
                 "host_to_device_pageable", "graph_node_launch"):
        entry = ceilings.get(name)
        if not entry or not entry.get("value", 0) > 0 or not entry.get("source"):
            problems.append(f"{path}: {name} missing or not positive: {entry}")
    host_file = os.path.join(sys.argv[2], report["host_key"] + ".json")
    host = json.load(open(host_file))["ceilings"].get("host_memory_bandwidth") if os.path.isfile(host_file) else None
    if not host or not host.get("value", 0) > 0:
        problems.append(f"{host_file}: host_memory_bandwidth missing or not positive: {host}")
    cc = report["gpu"]["compute_capability"]
    if tuple(map(int, cc.split("."))) >= (8, 9) and "fp8_tensor" not in ceilings:
        problems.append(f"{path}: fp8_tensor missing on a compute capability {cc} GPU")
for figure in report["figures"]:
    print(f'{figure["status"]:8} {figure["name"]:24} '
          f'{figure.get("value", figure.get("reason", ""))} {figure["unit"]}')
    if figure["status"] == "failed":
        problems.append(f'{figure["name"]} failed: {figure["reason"]}')
for problem in problems:
    print("FAIL:", problem)
sys.exit(1 if problems else 0)
PY
# --figures: only the named figures are measured and reported; the stored file keeps the others.
"$aisp" bench peak --quick --figures graph_node_launch,l2_read --peaks-dir "$work/peaks" --json \
  >"$work/some.json" 2>"$work/some.err" || { echo "FAIL: bench peak --figures exited $?"; cat "$work/some.err"; failures=1; }
python3 - "$work/some.json" "$work/peaks" <<'PY' || failures=1
import json, os, sys
report = json.load(open(sys.argv[1]))
names = sorted(f["name"] for f in report["figures"])
stored = json.load(open(os.path.join(sys.argv[2], report["hardware_key"] + ".json")))["ceilings"]
problems = []
if names != ["graph_node_launch", "l2_read"]:
    problems.append(f"--figures graph_node_launch,l2_read reported {names}")
if "bf16_tensor" not in stored:
    problems.append("--figures dropped the other stored ceilings")
for problem in problems:
    print("FAIL:", problem)
sys.exit(1 if problems else 0)
PY
[ "$failures" -eq 0 ] && echo "test_bench_peak: passed"
exit "$failures"
