#!/usr/bin/env bash
# On the GPU machine: every GPU cheat in tests/integrity/ch93_integrity_gpu is refused by the
# check named for it, while the honest GPU pairs pass (ch90:needs_gpu; ch93:fork_join, which
# forks half its work onto a second stream and joins it back, traced by CUPTI).
# Arguments: <aisp> <aisp_test_suite> <work dir>
set -u
suite="$2"; work="$3"
rm -rf "$work" && mkdir -p "$work"
"$suite" bench run -t ch93 -t ch90:needs_gpu --min-time 0.05 --max-time 3 --json \
  --artifacts-dir "$work/a" >"$work/out.json" 2>"$work/err.txt"
python3 - "$work/out.json" <<'PY'
import json, sys
pairs = {p["target"]: p for p in json.load(open(sys.argv[1]))["pairs"]}
# target -> the check that must be among its failed checks (and its speedup withheld)
expect = {
    "ch93:side_stream": "work_inside_stream",
    "ch93:slack_stream": "traced_work_inside_stream",
    "ch93:persisting_l2": "no_persisting_l2_state",
    "ch93:alloc_in_run": "no_allocation_in_run",
    "ch93:math_mode": "policies_unchanged",
    "ch93:overstated_workload": "within_roofline",
    "ch93:precision_downgrade": "precision_preserved",
    "ch93:call_counter": "timed_calls_checked",
    "ch93:graph_asymmetry": "timing_methods_equal",
}
bad = 0
def failed_checks(p):
    return [c["check"] for c in p["verification"]["checks"] if not c["passed"]]
for target, check in expect.items():
    p = pairs.get(target)
    if p is None:
        print(f"FAIL: {target} missing"); bad += 1; continue
    if p["status"] != "failed" or check not in failed_checks(p) or "speedup" in p:
        print(f"FAIL: {target}: status {p['status']}, reason {p['reason']!r}, failed {failed_checks(p)}; expected {check}")
        bad += 1
    else:
        print(f"ok: {target} refused by {check}")
# A launch failure is not a check: the pair fails with the CUDA error.
p = pairs.get("ch93:launch_failure", {})
if p.get("status") != "failed" or "cudaGetLastError" not in p.get("reason", ""):
    print(f"FAIL: ch93:launch_failure: {p.get('status')} {p.get('reason')!r}"); bad += 1
else:
    print("ok: ch93:launch_failure refused by cudaGetLastError")
# The slack cheat must stay under the host-vs-event allowance: the trace's structure is what
# catches it (its timeline does not: under CUPTI the side work ends before the end marker).
p = pairs.get("ch93:slack_stream")
if p:
    for c in p["verification"]["checks"]:
        if c["check"] == "traced_work_inside_stream":
            print(f"  slack_stream trace: {c['detail'][:400]}")
if p and "work_inside_stream" in failed_checks(p):
    print("NOTE: ch93:slack_stream also exceeded the host-vs-event allowance (its side work was "
          "larger than designed on this GPU)")
for target in ("ch90:needs_gpu", "ch93:fork_join"):
    p = pairs.get(target, {})
    checks = {c["check"]: c for c in p.get("verification", {}).get("checks", [])}
    traced = checks.get("traced_work_inside_stream", {})
    if p.get("status") != "passed":
        print(f"FAIL: honest {target}: {p.get('status')} {p.get('reason')}"); bad += 1
    elif "timed_calls_checked" not in checks or not traced:
        print(f"FAIL: honest {target}: the timing-phase checks are missing"); bad += 1
    elif "not traced" in traced.get("detail", ""):
        print(f"FAIL: honest {target} was not traced: {traced['detail']}"); bad += 1
    elif "joins not checked" in traced.get("detail", ""):
        print(f"FAIL: honest {target}: the structural join check did not run: {traced['detail']}")
        bad += 1
    else:
        print(f"ok: honest {target} passed; {traced['detail'][:300]}")
print("test_integrity_gpu:", "all cheats refused" if not bad else f"{bad} failure(s)")
sys.exit(1 if bad else 0)
PY
