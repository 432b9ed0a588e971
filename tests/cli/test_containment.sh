#!/usr/bin/env bash
# A fault in one pair never loses another's results: a segfault, an abort, a hang (killed at the
# per-pair timeout), a throwing setup, wrong answers, unwritten outputs and NaN each fail their own
# pair with a reason; the honest pair passes with a speedup and interval; a GPU pair on a machine
# without a GPU is skipped with a reason. Ctrl-C leaves a valid partial run.
# Arguments: <aisp> <aisp_test_suite> <work dir>
set -u
suite="$2"
work="$3"
rm -rf "$work" && mkdir -p "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$suite" bench run -t ch90 --timeout 8 --max-time 2 --min-time 0.05 --artifacts-dir "$work/a" \
  >"$work/run.out" 2>"$work/run.err"
code=$?
[ "$code" -eq 1 ] || fail "exit code $code, expected 1 (some pairs fail)"
results=$(ls "$work"/a/runs/*/results.json 2>/dev/null | head -n 1)
[ -n "$results" ] || { fail "no results.json"; cat "$work/run.out" "$work/run.err"; exit 1; }
run_dir=$(dirname "$results")
for f in results.jsonl summary.md results.csv manifest.json; do
  [ -s "$run_dir/$f" ] || fail "missing $f"
done

python3 - "$results" <<'PY' || failures=$((failures + 1))
import json, sys
data = json.load(open(sys.argv[1]))
by = {p["target"]: p for p in data["pairs"]}
expect = {
    "ch90:crash": ("crashed", "signal 11"),
    "ch90:abort": ("crashed", "signal 6"),
    "ch90:hang": ("timed_out", "no result after"),
    "ch90:throws": ("failed", "setup could not prepare"),
    "ch90:wrong": ("failed", "within_tolerance"),
    "ch90:unwritten": ("failed", "outputs_written"),
    "ch90:nan": ("failed", "outputs_finite"),
    "ch90:affine": ("passed", ""),
}
bad = 0
for target, (status, needle) in expect.items():
    p = by.get(target)
    if p is None:
        print(f"FAIL: {target} missing from results"); bad += 1; continue
    if p["status"] != status or needle not in p.get("reason", ""):
        print(f"FAIL: {target}: status {p['status']!r} reason {p.get('reason')!r}; expected {status!r} with {needle!r}")
        bad += 1
    if status != "passed" and "speedup" in p:
        print(f"FAIL: {target} failed but reports a speedup"); bad += 1
honest = by.get("ch90:affine", {})
s = honest.get("speedup")
if not s or not (s["ci_low"] <= s["value"] <= s["ci_high"]):
    print(f"FAIL: honest pair has no speedup with an interval: {s}"); bad += 1
needs_gpu = by.get("ch90:needs_gpu", {})
if needs_gpu.get("status") not in ("skipped", "passed"):
    print(f"FAIL: ch90:needs_gpu: {needs_gpu.get('status')} {needs_gpu.get('reason')}"); bad += 1
if needs_gpu.get("status") == "skipped" and "needs a GPU" not in needs_gpu.get("reason", ""):
    print(f"FAIL: skip reason does not say a GPU is needed: {needs_gpu.get('reason')}"); bad += 1
sys.exit(1 if bad else 0)
PY

# Ctrl-C during a hanging pair: exit 130, a valid results.json marked incomplete.
"$suite" bench run -t ch90:affine -t ch90:hang --timeout 60 --max-time 1 --min-time 0.05 \
  --artifacts-dir "$work/b" >"$work/int.out" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  grep -q "ch90:affine" "$work"/b/runs/*/results.jsonl 2>/dev/null && break
  sleep 0.2
done
sleep 1
kill -INT "$pid"
wait "$pid"
code=$?
[ "$code" -eq 130 ] || fail "interrupted run exited $code, expected 130"
partial=$(ls "$work"/b/runs/*/results.json 2>/dev/null | head -n 1)
python3 - "$partial" <<'PY' || failures=$((failures + 1))
import json, sys
data = json.load(open(sys.argv[1]))
statuses = {p["target"]: p["status"] for p in data["pairs"]}
ok = data["complete"] is False and statuses.get("ch90:affine") == "passed"
if not ok:
    print(f"FAIL: partial run: complete={data['complete']} statuses={statuses}")
sys.exit(0 if ok else 1)
PY

if [ "$failures" -ne 0 ]; then
  echo "test_containment: $failures failure(s); outputs in $work"
  exit 1
fi
echo "test_containment: all checks passed"
