#!/usr/bin/env bash
# On the GPU machine: every GPU cheat in tests/integrity/ch93_integrity_gpu is refused by the
# check named for it, while the honest GPU test pair passes.
# Arguments: <aisp> <aisp_test_suite> <work dir>
set -u
suite="$2"; work="$3"
rm -rf "$work" && mkdir -p "$work"
"$suite" bench run -t ch93 -t ch90:needs_gpu --min-time 0.05 --max-time 3 --json \
  --artifacts-dir "$work/a" >"$work/out.json" 2>"$work/err.txt"
python3 - "$work/out.json" <<'PY'
import json, sys
pairs = {p["target"]: p for p in json.load(open(sys.argv[1]))["pairs"]}
expect = {
    "ch93:side_stream": "work_inside_stream",
    "ch93:persisting_l2": "no_persisting_l2_state",
    "ch93:launch_failure": "cudaGetLastError",
    "ch93:alloc_in_run": "no_allocation_in_run",
    "ch93:math_mode": "policies_unchanged",
    "ch93:overstated_workload": "within_roofline",
    "ch93:precision_downgrade": "precision_preserved",
}
bad = 0
for target, needle in expect.items():
    p = pairs.get(target)
    if p is None:
        print(f"FAIL: {target} missing"); bad += 1; continue
    if p["status"] != "failed" or needle not in p["reason"] or "speedup" in p:
        print(f"FAIL: {target}: status {p['status']}, reason {p['reason']!r}; expected {needle}")
        bad += 1
    else:
        print(f"ok: {target} refused by {needle}")
honest = pairs.get("ch90:needs_gpu", {})
if honest.get("status") != "passed":
    print(f"FAIL: honest GPU pair: {honest.get('status')} {honest.get('reason')}"); bad += 1
sys.exit(1 if bad else 0)
PY
