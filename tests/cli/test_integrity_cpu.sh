#!/usr/bin/env bash
# Every CPU cheat in tests/integrity/ch92_integrity_cpu is refused by the check named for it, and
# the honest CPU pairs still pass (no false positive). Three steps:
#   1. `bench verify`: the cheats verification refuses; the cheats only timing can catch must
#      pass it (they look honest when verified: that is their point).
#   2. `bench peak --figures host_memory_bandwidth`: the host's ceiling, without a GPU.
#   3. `bench run` of the timing cheats and the honest pairs against that ceiling.
# Arguments: <aisp> <aisp_test_suite> <work dir>
set -u
aisp="$1"; suite="$2"; work="$3"
rm -rf "$work" && mkdir -p "$work"
failures=0

"$suite" bench verify -t ch92 -t ch90:affine --json --artifacts-dir "$work/a" >"$work/verify.json" \
  2>"$work/verify-err.txt"
code=$?
[ "$code" -eq 1 ] || { echo "FAIL: bench verify exit $code, expected 1"; cat "$work/verify-err.txt"; failures=$((failures + 1)); }
python3 - "$work/verify.json" <<'PY' || failures=$((failures + 1))
import json, sys
pairs = {p["target"]: p for p in json.load(open(sys.argv[1]))["pairs"]}
refused = {
    "ch92:thread_escape": "no_work_after_return",
    "ch92:late_thread": "no_work_after_return",
    "ch92:setup_thread": "no_threads_outside_run",
    "ch92:scratch_input": "input_roles_equal",
    "ch92:cached_result": "fresh_inputs_recomputed",
    "ch92:returns_input": "outputs_not_aliasing_inputs",
    "ch92:mutates_input": "inputs_unchanged",
    "ch92:vacuous_tolerance": "tolerance_not_vacuous",
    "ch92:unseeded": "seed_changes_output",
    "ch92:precision_downgrade": "precision_preserved",
    "ch92:known_positions": "precision_preserved",
    "ch92:one_pass_variance": "varied_inputs_agree",
}
# These pass verification: only the checks of timed calls (step 3) can catch them.
timing_only = ["ch92:call_counter", "ch92:poison_detect", "ch92:fingerprint_cache",
               "ch92:overstated_host_workload"]
bad = 0
for target, check in refused.items():
    p = pairs.get(target)
    if p is None:
        print(f"FAIL: {target} missing"); bad += 1; continue
    failed_checks = [c["check"] for c in p["verification"]["checks"] if not c["passed"]]
    if p["status"] != "failed" or check not in failed_checks or check not in p["reason"]:
        print(f"FAIL: {target}: status {p['status']}, reason {p['reason']!r}, failed checks {failed_checks}; expected {check}")
        bad += 1
for target in timing_only + ["ch90:affine"]:
    p = pairs.get(target, {})
    if p.get("status") != "passed":
        print(f"FAIL: {target} should pass verification: {p.get('status')} {p.get('reason')}"); bad += 1
print("test_integrity_cpu verify:", "all cheats refused" if not bad else f"{bad} failure(s)")
sys.exit(1 if bad else 0)
PY

# The host's memory bandwidth, measured here without a GPU, is the ceiling CPU pairs declare.
"$suite" bench peak --figures host_memory_bandwidth --quick --peaks-dir "$work/b/peaks" \
  >"$work/peak.txt" 2>&1 \
  || { echo "FAIL: bench peak --figures host_memory_bandwidth"; cat "$work/peak.txt"; failures=$((failures + 1)); }

"$suite" bench run -t ch92:call_counter -t ch92:poison_detect -t ch92:fingerprint_cache \
  -t ch92:overstated_host_workload -t ch90:affine --min-time 0.05 --max-time 2 --json \
  --artifacts-dir "$work/b" >"$work/run.json" 2>"$work/run-err.txt"
"$aisp" bench run -t ch03:host_transpose --iterations 3 --warmup 1 --json \
  --artifacts-dir "$work/b" >"$work/run-ch03.json" 2>"$work/run-ch03-err.txt"
python3 - "$work/run.json" "$work/run-ch03.json" <<'PY' || failures=$((failures + 1))
import json, sys
pairs = {p["target"]: p for f in sys.argv[1:] for p in json.load(open(f))["pairs"]}
refused = {
    "ch92:call_counter": "timed_calls_checked",
    "ch92:poison_detect": "timed_calls_checked",
    "ch92:fingerprint_cache": "timed_calls_checked",
    "ch92:overstated_host_workload": "within_roofline",
}
bad = 0
for target, check in refused.items():
    p = pairs.get(target)
    if p is None:
        print(f"FAIL: {target} missing"); bad += 1; continue
    failed_checks = [c["check"] for c in p["verification"]["checks"] if not c["passed"]]
    if p["status"] != "failed" or check not in failed_checks or check not in p["reason"] or "speedup" in p:
        print(f"FAIL: {target}: status {p['status']}, reason {p['reason']!r}, failed checks {failed_checks}; expected {check}")
        bad += 1
honest = [t for t in pairs if t == "ch90:affine" or t.startswith("ch03:host_transpose")]
if len(honest) < 3:
    print(f"FAIL: honest pairs missing: {honest}"); bad += 1
for target in honest:
    p = pairs[target]
    checks = {c["check"] for c in p["verification"]["checks"]}
    if p["status"] != "passed" or not {"timed_calls_checked", "timing_methods_equal",
                                       "no_threads_outside_run", "within_roofline"} <= checks:
        print(f"FAIL: honest {target}: {p['status']} {p.get('reason')}; checks {sorted(checks)}"); bad += 1
# ch03 declares bytes only, so with the measured host ceiling it gets a roofline and is checked.
for target in honest:
    if target.startswith("ch03:"):
        roof = [c for c in pairs[target]["verification"]["checks"] if c["check"] == "within_roofline"]
        if not roof or any(c["detail"].startswith("not checked") for c in roof) or "roofline" not in pairs[target]:
            print(f"FAIL: {target}: within_roofline not measured against the host ceiling: {roof}"); bad += 1
print("test_integrity_cpu run:", "all timing cheats refused" if not bad else f"{bad} failure(s)")
sys.exit(1 if bad else 0)
PY

[ "$failures" -eq 0 ] || { echo "test_integrity_cpu: $failures failure(s); outputs in $work"; exit 1; }
echo "test_integrity_cpu: all CPU cheats refused, honest pairs passed"
