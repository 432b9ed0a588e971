#!/usr/bin/env bash
# `bench run --profile` where no profile can be taken (no GPU here; docs/profiling.md): a missing
# Nsight Compute, a CPU pair and a pair that was never timed each record the profile as skipped
# with the reason, and the run exits exactly as it would without --profile. Bad values are usage
# errors. Arguments: <aisp> <aisp_test_suite> <work dir>
set -u
suite="$2"
work="$3"
rm -rf "$work" && mkdir -p "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
quick=(--timeout 30 --max-time 2 --min-time 0.05)

# run NAME [ENV=VALUE...] -- ARGS...: runs the suite, output under $work/NAME.{out,err}; sets code.
run() {
  local name=$1
  shift
  local environment=()
  while [[ $1 != -- ]]; do environment+=("$1"); shift; done
  shift
  env "${environment[@]}" "$suite" "$@" >"$work/$name.out" 2>"$work/$name.err"
  code=$?
}

# check_run NAME SCRIPT: runs the python SCRIPT with the run directory of NAME as argv[1].
check_run() {
  local results
  results=$(ls "$work/$1"/runs/*/results.json 2>/dev/null | head -n 1)
  if [[ -z $results ]]; then
    fail "$1: no results.json"; sed 's/^/     /' "$work/$1.err" | tail -5; return
  fi
  python3 - "$(dirname "$results")" "$work/$1.out" || fail "$1: see above"
}

# 1. ncu missing (AISP_NCU names nothing): every pair's profile is skipped with that reason, and
#    the exit code is the run's own (1: ch90:wrong fails its verification, as without --profile).
run missing AISP_NCU=/nonexistent/ncu -- bench run -t ch90:affine -t ch90:wrong --profile ncu \
  "${quick[@]}" --artifacts-dir "$work/missing"
[[ $code -eq 1 ]] || fail "ncu missing: exit $code, expected 1 (ch90:wrong fails without --profile too)"
check_run missing <<'PY'
import json, sys, pathlib
run = pathlib.Path(sys.argv[1])
pairs = {p["target"]: p for p in json.load(open(run / "results.json"))["pairs"]}
bad = []
for target, status in {"ch90:affine": "passed", "ch90:wrong": "failed"}.items():
    p = pairs.get(target, {})
    if p.get("status") != status:
        bad.append(f"{target}: status {p.get('status')}, expected {status} (--profile must not change it)")
    prof = p.get("profile")
    if not prof or prof["status"] != "skipped" or "AISP_NCU=/nonexistent/ncu" not in prof["reason"]:
        bad.append(f"{target}: profile {prof}, expected skipped naming AISP_NCU")
    elif prof["tool"] != "ncu" or prof["set"] != "minimal" or prof["variants"] != {}:
        bad.append(f"{target}: profile {prof}")
if "speedup" not in pairs.get("ch90:affine", {}):
    bad.append("ch90:affine lost its speedup")
manifest = json.load(open(run / "manifest.json"))
if manifest.get("profile") != "ncu":
    bad.append(f"manifest profile {manifest.get('profile')!r}, expected 'ncu'")
summary = (run / "summary.md").read_text()
if "## Profiles (Nsight Compute, set minimal)" not in summary or "**ch90:affine** profile skipped: AISP_NCU=" not in summary:
    bad.append("summary.md lacks the profile section or the skip:\n" + summary)
lines = [json.loads(l) for l in (run / "results.jsonl").read_text().splitlines()]
if not all(l.get("profile", {}).get("status") == "skipped" for l in lines):
    bad.append("results.jsonl lacks the profiles")
out = pathlib.Path(sys.argv[2]).read_text()
if "profile (ncu minimal) skipped: AISP_NCU=/nonexistent/ncu" not in out or "every pair's profile will be skipped" not in out:
    bad.append("the terminal output does not say the profile was skipped:\n" + out)
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY

# 2. An ncu that exists (/bin/false stands in; it is never run for these pairs): a CPU pair is
#    skipped as one, a pair that failed before timing as not timed.
run cpu AISP_NCU=/bin/false -- bench run -t ch90:affine -t ch90:wrong --profile deep \
  "${quick[@]}" --artifacts-dir "$work/cpu"
[[ $code -eq 1 ]] || fail "cpu pairs: exit $code, expected 1"
check_run cpu <<'PY'
import json, sys, pathlib
pairs = {p["target"]: p for p in json.load(open(pathlib.Path(sys.argv[1]) / "results.json"))["pairs"]}
bad = []
affine = pairs["ch90:affine"].get("profile", {})
if affine.get("status") != "skipped" or not affine.get("reason", "").startswith("CPU pair") or affine.get("set") != "deep":
    bad.append(f"ch90:affine profile {affine}, expected skipped as a CPU pair, set deep")
wrong = pairs["ch90:wrong"].get("profile", {})
if wrong.get("status") != "skipped" or "not timed" not in wrong.get("reason", ""):
    bad.append(f"ch90:wrong profile {wrong}, expected skipped as not timed")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY

# 3. Without --profile (or with none): no profile in the results; the manifest says none.
run none -- bench run -t ch90:affine --profile none "${quick[@]}" --artifacts-dir "$work/none"
[[ $code -eq 0 ]] || fail "--profile none: exit $code, expected 0"
check_run none <<'PY'
import json, sys, pathlib
run = pathlib.Path(sys.argv[1])
pair = json.load(open(run / "results.json"))["pairs"][0]
manifest = json.load(open(run / "manifest.json"))
bad = []
if "profile" in pair:
    bad.append(f"a profile without --profile: {pair['profile']}")
if manifest.get("profile") != "none":
    bad.append(f"manifest profile {manifest.get('profile')!r}, expected 'none'")
if "## Profiles" in (run / "summary.md").read_text():
    bad.append("summary.md has a profile section without --profile")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY

# 4. Bad values are usage errors (exit 2) that say what is allowed; nothing runs.
expect_usage() {
  local name=$1 text=$2
  shift 2
  "$@" >"$work/usage.out" 2>"$work/usage.err"
  local exit_code=$?
  if [[ $exit_code -ne 2 ]] || ! grep -qF -- "$text" "$work/usage.err"; then
    fail "$name: exit $exit_code, stderr: $(head -3 "$work/usage.err")"
  fi
}
expect_usage "--profile bogus" "--profile bogus: must be one of none, ncu, deep" \
  "$suite" bench run -t ch90:affine --profile bogus --artifacts-dir "$work/bogus"
[[ -d $work/bogus ]] && fail "--profile bogus created a run directory"
expect_usage "--profile without a value" "--profile" "$suite" bench run --profile
expect_usage "--profile on verify" "does not take" "$suite" bench verify --profile ncu
expect_usage "worker: bad profile variant" "--profile-variant sideways: must be baseline or optimized" \
  "$suite" __worker --target ch90:affine --settings-json '{}' --out-fd 1 --profile-variant sideways

# 5. The worker ncu runs (__worker --profile-variant) skips a CPU variant with the reason.
"$suite" __worker --target ch90:affine --out-fd 1 --profile-variant baseline \
  --settings-json '{"warmup_runs": 1, "fixed_samples": 3, "graph_below_us": 0}' \
  >"$work/worker.out" 2>"$work/worker.err"
code=$?
[[ $code -eq 0 ]] || fail "profile worker: exit $code"
python3 - "$work/worker.out" <<'PY' || fail "profile worker: see above"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
results = [l["result"] for l in lines if l.get("type") == "result"]
if len(results) != 1 or results[0]["status"] != "skipped" or "CPU-only variant" not in results[0]["reason"]:
    print("FAIL: profile worker result:", results)
    sys.exit(1)
PY

if [[ $failures -ne 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all profile checks passed"
