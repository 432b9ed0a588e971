#!/usr/bin/env bash
# Every CPU cheat in tests/integrity/ch92_integrity_cpu is refused by the check named for it,
# and the honest CPU pair still passes (no false positive).
# Arguments: <aisp> <aisp_test_suite> <work dir>
set -u
suite="$2"; work="$3"
rm -rf "$work" && mkdir -p "$work"
"$suite" bench verify -t ch92 -t ch90:affine --json --artifacts-dir "$work/a" >"$work/out.json" 2>"$work/err.txt"
code=$?
[ "$code" -eq 1 ] || { echo "FAIL: exit $code, expected 1"; cat "$work/err.txt"; exit 1; }
python3 - "$work/out.json" <<'PY'
import json, sys
pairs = {p["target"]: p for p in json.load(open(sys.argv[1]))["pairs"]}
expect = {
    "ch92:thread_escape": "no_work_after_return",
    "ch92:cached_result": "fresh_inputs_recomputed",
    "ch92:returns_input": "outputs_not_aliasing_inputs",
    "ch92:mutates_input": "inputs_unchanged",
    "ch92:vacuous_tolerance": "tolerance_not_vacuous",
    "ch92:unseeded": "seed_changes_output",
    "ch92:precision_downgrade": "precision_preserved",
}
bad = 0
for target, check in expect.items():
    p = pairs.get(target)
    if p is None:
        print(f"FAIL: {target} missing"); bad += 1; continue
    failed_checks = [c["check"] for c in p["verification"]["checks"] if not c["passed"]]
    if p["status"] != "failed" or check not in failed_checks or check not in p["reason"]:
        print(f"FAIL: {target}: status {p['status']}, reason {p['reason']!r}, failed checks {failed_checks}; expected {check}")
        bad += 1
honest = pairs.get("ch90:affine", {})
if honest.get("status") != "passed":
    print(f"FAIL: honest pair ch90:affine: {honest.get('status')} {honest.get('reason')}"); bad += 1
print("test_integrity_cpu:", "all cheats refused" if not bad else f"{bad} failure(s)")
sys.exit(1 if bad else 0)
PY
