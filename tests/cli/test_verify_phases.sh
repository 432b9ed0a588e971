#!/usr/bin/env bash
# --verify-phase gate|quarantine|detect on a CPU cheat (ch92:cached_result fails
# fresh_inputs_recomputed) next to an honest pair (ch90:affine), quarantine.json and
# `bench quarantine-report`:
#   - a bad phase is a usage error listing the phases (exit 2), before anything runs;
#   - gate: the cheat fails, no speedup, exit 1, listed in quarantine.json;
#   - quarantine: the cheat is timed but quarantined: no speedup in summary.md, results.csv or
#     the terminal, listed in quarantine.json with the failed check, exit 1;
#   - detect: the cheat passes with a warning naming the check, nothing quarantined, exit 0;
#     `bench verify` prints every check with its outcome;
#   - quarantine-report: the latest run by default, a run by directory or id, --json, "no
#     quarantined pairs", exit 2 for a missing run, exit 1 for a corrupt file.
# Arguments: <aisp> <aisp_test_suite> <work dir>
set -u
suite="$2"
work="$3"
rm -rf "$work" && mkdir -p "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok   $*"; }
fast=(--min-time 0.05 --max-time 2 --timeout 60)

# --- a bad phase: exit 2, the allowed values named, nothing run
"$suite" bench run -t ch90:affine --verify-phase strict --artifacts-dir "$work/bad" \
  >"$work/bad.out" 2>"$work/bad.err"
code=$?
if [ "$code" -eq 2 ] && grep -qF -- "--verify-phase strict: must be one of detect, quarantine, gate" "$work/bad.err" \
  && [ ! -d "$work/bad" ]; then
  ok "bad --verify-phase: exit 2 with the allowed values"
else
  fail "bad --verify-phase: exit $code (wanted 2)"; cat "$work/bad.err"
fi
"$suite" bench verify -t ch90:affine --verify-phase=Gate >/dev/null 2>"$work/bad2.err"
code=$?
[ "$code" -eq 2 ] && grep -qF "must be one of detect, quarantine, gate" "$work/bad2.err" \
  && ok "bench verify --verify-phase=Gate: exit 2 (names are case-sensitive)" \
  || { fail "bench verify --verify-phase=Gate: exit $code"; cat "$work/bad2.err"; }
"$suite" bench run -t ch90:affine --verify-phase detect --update-expectations \
  --artifacts-dir "$work/bad3" >/dev/null 2>"$work/bad3.err"
code=$?
[ "$code" -eq 2 ] && grep -qF "detect does not enforce" "$work/bad3.err" \
  && ok "--update-expectations with detect: exit 2" \
  || { fail "--update-expectations with detect: exit $code"; cat "$work/bad3.err"; }

# run PHASE: bench run of the cheat and the honest pair into $work/<phase>; sets $code, $run_dir.
run() {
  "$suite" bench run -t ch92:cached_result -t ch90:affine --verify-phase "$1" "${fast[@]}" \
    --artifacts-dir "$work/$1" >"$work/$1.out" 2>"$work/$1.err"
  code=$?
  run_dir=$(dirname "$(ls "$work/$1"/runs/*/results.json 2>/dev/null | head -n 1)")
}

# check_run PHASE: the run directory's files against what the phase promises.
check_run() {
  python3 - "$1" "$run_dir" <<'PY'
import csv, json, sys
phase, run_dir = sys.argv[1], sys.argv[2]
results = json.load(open(f"{run_dir}/results.json"))
quarantine = json.load(open(f"{run_dir}/quarantine.json"))
summary = open(f"{run_dir}/summary.md").read()
rows = {r["target"]: r for r in csv.DictReader(open(f"{run_dir}/results.csv"))}
manifest = json.load(open(f"{run_dir}/manifest.json"))
pairs = {p["target"]: p for p in results["pairs"]}
cheat, honest = pairs["ch92:cached_result"], pairs["ch90:affine"]
bad = []
def expect(cond, what):
    if not cond:
        bad.append(what)
expect(results["schema_version"] == 3, f"schema_version {results['schema_version']}")
expect(results["verify_phase"] == phase, f"results verify_phase {results.get('verify_phase')}")
expect(manifest["settings"]["verify_phase"] == phase, "manifest settings.verify_phase")
expect(quarantine["verify_phase"] == phase and quarantine["run_id"] == results["run_id"],
       f"quarantine.json header {quarantine}")
expect(honest["status"] == "passed" and "speedup" in honest, f"honest pair: {honest['status']}")
failed = [c["check"] for c in cheat["verification"]["checks"] if not c["passed"]]
expect("fresh_inputs_recomputed" in failed, f"failed checks {failed}")
expect(rows["ch92:cached_result"]["speedup"] == "", "results.csv shows the cheat's speedup")
cheat_row = next(l for l in summary.splitlines() if l.startswith("| ch92:cached_result "))
expect("×" not in cheat_row, f"summary.md shows the cheat's speedup: {cheat_row}")
entries = {e["target"]: e for e in quarantine["entries"]}
if phase == "detect":
    expect(cheat["status"] == "passed" and not cheat["verification"]["passed"],
           f"detect: cheat {cheat['status']}")
    expect(not entries, f"detect quarantined {list(entries)}")
    expect("Verification phase: detect" in summary, "summary.md does not name the detect phase")
else:
    want = "failed" if phase == "gate" else "quarantined"
    expect(cheat["status"] == want, f"cheat status {cheat['status']}, wanted {want}")
    expect(list(entries) == ["ch92:cached_result"], f"quarantine entries {list(entries)}")
    e = entries.get("ch92:cached_result", {})
    expect(e.get("phase") == phase and e.get("status") == want, f"entry {e}")
    expect(any(c["check"] == "fresh_inputs_recomputed" and c["detail"]
               for c in e.get("failed_checks", [])), f"entry checks {e.get('failed_checks')}")
    expect(e.get("run_id") == results["run_id"] and e.get("git_commit") and e.get("date"),
           f"entry provenance {e}")
    if phase == "gate":
        expect("speedup" not in cheat and "optimized" not in cheat, "gate: the cheat was timed")
    else:
        expect("optimized" in cheat and cheat["optimized"]["stats"]["count"] > 0,
               "quarantine: the cheat was not timed")
        expect("quarantined" in cheat["reason"], f"reason {cheat['reason']!r}")
        expect("Verification phase: quarantine" in summary, "summary.md does not name the phase")
for b in bad:
    print(f"FAIL {phase}: {b}")
sys.exit(1 if bad else 0)
PY
}

for phase in gate quarantine detect; do
  run "$phase"
  want=1
  [ "$phase" = detect ] && want=0
  [ "$code" -eq "$want" ] && ok "$phase: exit $code" \
    || { fail "$phase: exit $code, wanted $want"; cat "$work/$phase.err"; }
  if [ -z "$run_dir" ] || [ ! -f "$run_dir/quarantine.json" ]; then
    fail "$phase: no results.json or quarantine.json"; cat "$work/$phase.out" "$work/$phase.err"
    continue
  fi
  check_run "$phase" && ok "$phase: results, quarantine.json, summary.md, results.csv" \
    || failures=$((failures + 1))
  # The terminal never shows the cheat's speedup as a result.
  line=$(grep -E "(PASS|FAIL|QUAR) ch92:cached_result" "$work/$phase.out")
  case "$line" in
    *×*) fail "$phase: the terminal shows the cheat's speedup: $line" ;;
    *) ok "$phase: terminal line $(echo "$line" | cut -c1-60)" ;;
  esac
done
grep -q "QUAR ch92:cached_result" "$work/quarantine.out" || fail "quarantine: no QUAR line"
grep -q "warning: 1 check failed, not enforced (--verify-phase detect): fresh_inputs_recomputed" \
  "$work/detect.out" && ok "detect: warning line names the check" \
  || { fail "detect: no warning line"; cat "$work/detect.out"; }

# --- bench verify --verify-phase detect: every check printed with its outcome; exit 0
"$suite" bench verify -t ch92:cached_result --verify-phase detect --artifacts-dir "$work/verify" \
  >"$work/verify.out" 2>"$work/verify.err"
code=$?
[ "$code" -eq 0 ] || fail "bench verify detect: exit $code"
grep -qE "^    FAIL fresh_inputs_recomputed: " "$work/verify.out" \
  && grep -qE "^    ok   signatures_equal: " "$work/verify.out" \
  && ok "bench verify prints every check with its outcome" \
  || { fail "bench verify does not list the checks"; cat "$work/verify.out"; }
# The same in gate: exit 1, and --json carries every check.
"$suite" bench verify -t ch92:cached_result --json --artifacts-dir "$work/verify_gate" \
  >"$work/verify.json" 2>/dev/null
code=$?
python3 - "$work/verify.json" <<'PY' && [ "$code" -eq 1 ] && ok "bench verify --json lists every check; gate exit 1" \
  || fail "bench verify --json (exit $code)"
import json, sys
p = json.load(open(sys.argv[1]))["pairs"][0]
checks = {c["check"]: c["passed"] for c in p["verification"]["checks"]}
sys.exit(0 if p["status"] == "failed" and checks.get("fresh_inputs_recomputed") is False
         and checks.get("signatures_equal") is True and len(checks) >= 10 else 1)
PY

# --- quarantine-report
report() { "$suite" bench quarantine-report "$@" >"$work/report.out" 2>"$work/report.err"; code=$?; }
quarantine_dir=$(dirname "$(ls "$work"/quarantine/runs/*/quarantine.json | head -n 1)")
report "$quarantine_dir"
[ "$code" -eq 0 ] && grep -q "1 quarantined pair" "$work/report.out" \
  && grep -q "^ch92:cached_result  quarantined under --verify-phase quarantine" "$work/report.out" \
  && grep -q "FAIL fresh_inputs_recomputed: " "$work/report.out" \
  && ok "quarantine-report RUN_DIR" || { fail "quarantine-report RUN_DIR: exit $code"; cat "$work/report.out" "$work/report.err"; }
report --artifacts-dir "$work/quarantine"
[ "$code" -eq 0 ] && grep -q "ch92:cached_result" "$work/report.out" \
  && ok "quarantine-report: the latest run by default" || fail "quarantine-report latest: exit $code"
report "$(basename "$quarantine_dir")" --artifacts-dir "$work/quarantine" --json
[ "$code" -eq 0 ] && python3 -c '
import json, sys
q = json.load(open(sys.argv[1]))
sys.exit(0 if q["schema_version"] == 1 and q["entries"][0]["target"] == "ch92:cached_result" else 1)' \
  "$work/report.out" && ok "quarantine-report RUN_ID --json" || fail "quarantine-report --json: exit $code"
report --artifacts-dir "$work/detect"
[ "$code" -eq 0 ] && grep -q "no quarantined pairs" "$work/report.out" \
  && ok "quarantine-report: no quarantined pairs, exit 0" || fail "quarantine-report empty: exit $code"
report "$work/no-such-run"
[ "$code" -eq 2 ] && grep -q "no run" "$work/report.err" \
  && ok "quarantine-report: a missing run is exit 2" || { fail "missing run: exit $code"; cat "$work/report.err"; }
report --artifacts-dir "$work/empty-artifacts"
[ "$code" -eq 2 ] && grep -q "no runs under" "$work/report.err" \
  && ok "quarantine-report: no runs at all is exit 2" || fail "no runs: exit $code"
mkdir -p "$work/corrupt" && cp -r "$quarantine_dir" "$work/corrupt/run"
echo '{"schema_version": 1, "run_id": "x", "verify_phase": "sometimes", "entries": []}' \
  >"$work/corrupt/run/quarantine.json"
report "$work/corrupt/run"
[ "$code" -eq 1 ] && grep -q "verify_phase" "$work/report.err" \
  && ok "quarantine-report: a corrupt file is exit 1 naming the field" \
  || { fail "corrupt file: exit $code"; cat "$work/report.err"; }

if [ "$failures" -ne 0 ]; then
  echo "test_verify_phases: $failures failure(s); outputs in $work"
  exit 1
fi
echo "test_verify_phases: all checks passed"
