#!/usr/bin/env bash
# `bench audit` checks contracts without running a kernel: the complete test pair passes (exit
# 0), the incomplete one is named with what it lacks (exit 1), the JSON is machine-readable, a
# bad target or -t with --all is a usage error (exit 2), the whole test suite can be audited on a
# machine without a GPU, and every chapter pair's contract is complete.
# Arguments: <aisp> <aisp_test_suite> <work dir>
set -u
aisp="$1"
suite="$2"
work="$3"
rm -rf "$work" && mkdir -p "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok   $*"; }

# audit ARGS...: runs `$suite bench audit ARGS`; sets $code.
audit() { "$suite" bench audit "$@" >"$work/out" 2>"$work/err"; code=$?; }

audit -t ch94:complete
[ "$code" -eq 0 ] && grep -qE "^ch94:complete +complete" "$work/out" && grep -q "1 complete, 0 incomplete" "$work/out" \
  && ok "a complete pair passes (exit 0)" || { fail "complete pair: exit $code"; cat "$work/out" "$work/err"; }

audit -t ch94
[ "$code" -eq 1 ] && grep -qE "^ch94:incomplete +INCOMPLETE" "$work/out" \
  && grep -q "FAIL workload_declared: 0 bytes and 0 FLOPs" "$work/out" \
  && grep -q "FAIL tolerance_justified: rtol=0.01 atol=0.001 is looser than the f32 default" "$work/out" \
  && ok "an incomplete pair is named with what it lacks (exit 1)" \
  || { fail "incomplete pair: exit $code"; cat "$work/out" "$work/err"; }

audit -t ch94 --json
python3 - "$work/out" <<'PY' && [ "$code" -eq 1 ] && ok "--json" || fail "--json (exit $code)"
import json, sys
data = json.load(open(sys.argv[1]))
pairs = {p["target"]: p for p in data["pairs"]}
outcome = lambda t, c: next(x["outcome"] for x in pairs[t]["checks"] if x["check"] == c)
ok = (data["complete"] is False and data["counts"] == {"pairs": 2, "complete": 1, "incomplete": 1}
      and pairs["ch94:complete"]["complete"] and not pairs["ch94:incomplete"]["complete"]
      and outcome("ch94:incomplete", "workload_declared") == "fail"
      and outcome("ch94:incomplete", "tolerance_justified") == "fail"
      and outcome("ch94:incomplete", "requirements_consistent") == "pass"
      and outcome("ch94:complete", "outputs_declared") == "deferred"
      and outcome("ch94:complete", "chapter_readme") == "pass"
      and outcome("ch94:complete", "file_names") == "pass")
if not ok:
    print(json.dumps(data, indent=1))
sys.exit(0 if ok else 1)
PY

audit -t ch94:complete --all
[ "$code" -eq 2 ] && grep -q "exclude each other" "$work/err" && ok "-t with --all: exit 2" \
  || fail "-t with --all: exit $code"
audit -t ch94:nothing_like_this
[ "$code" -eq 2 ] && grep -q "unknown target" "$work/err" && ok "unknown target: exit 2" \
  || fail "unknown target: exit $code"

# The whole test suite: ch94:incomplete (and the fault folders without a README) make it
# incomplete; every pair gets a row, and no constructor needs a GPU.
audit --all --json
python3 - "$work/out" "$suite" <<'PY' && [ "$code" -eq 1 ] && ok "--all on the test suite (exit 1)" \
  || fail "--all on the test suite (exit $code)"
import json, subprocess, sys
data = json.load(open(sys.argv[1]))
listed = json.loads(subprocess.run([sys.argv[2], "bench", "list-targets", "--json"],
                                   capture_output=True, text=True).stdout)
audited = {p["target"] for p in data["pairs"]}
missing = {t["target"] for t in listed} - audited
unconstructed = [p["target"] for p in data["pairs"]
                 for c in p["checks"] if c["check"] == "constructible" and c["outcome"] != "pass"]
if missing or unconstructed:
    print("missing:", missing, "not constructible:", unconstructed)
sys.exit(0 if not missing and not unconstructed and data["complete"] is False else 1)
PY

# The chapters: audited without a GPU, and every chapter pair's contract is complete (like
# test_list_targets.sh for pairing, this fails when a chapter pair lacks what the contract asks).
"$aisp" bench audit >"$work/chapters.txt" 2>&1
code=$?
"$aisp" bench audit --json >"$work/chapters.json" 2>/dev/null
python3 - "$work/chapters.json" <<'PY' && [ "$code" -eq 0 ] && ok "every chapter pair's contract is complete" \
  || { fail "chapters audit (exit $code)"; grep -vE " complete " "$work/chapters.txt"; }
import json, sys
data = json.load(open(sys.argv[1]))
sys.exit(0 if data["pairs"] and data["complete"] and data["counts"]["incomplete"] == 0 else 1)
PY

if [ "$failures" -ne 0 ]; then
  echo "test_audit: $failures failure(s); outputs in $work"
  exit 1
fi
echo "test_audit: all checks passed"
