#!/usr/bin/env bash
# Precision as a result, end to end with the CPU pairs of tests/pairs/ch87_precision
# (docs/contract.md, "Lower precision"): every pair whose baseline gives a float64 reference
# reports each variant's error against it (relative RMS, max absolute, max relative) in the
# terminal, results.json/jsonl, results.csv, summary.md and report.html; a variant that declares
# lower precision is held to its own bound (precision_declared) and marked in every report; one
# beyond its bound fails precision_declared, an undeclared one fails precision_preserved; a
# declaration without a reference fails the audit and verification.
# Arguments: $1 the aisp binary, $2 the aisp_test_suite binary, $3 a scratch directory.
set -u
aisp=$1
suite=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
failures=0
source "$(dirname "$0")/../support/cli_expect.sh"
quick=(--min-time 0.05 --max-time 1)

expect "declared lower precision within its bound passes, marked" 0 stdout \
  "optimized is LOWER PRECISION (bf16 output (7 stored mantissa bits, round to nearest), held to rel. RMS <= 0.005)" \
  "$suite" bench run -t ch87:precision_bf16 -t ch87:precision_exact "${quick[@]}" \
  --artifacts-dir "$work/within"
grep -qE "^\[[0-9]+/[0-9]+\] PASS ch87:precision_bf16 .*LOWER PRECISION \(bf16 output" "$work/stdout" ||
  fail "the pair line does not mark the lower-precision variant"
run=$(run_dir_in "$work/within")
python3 - "$run" <<'PY' || fail "the errors in the result files"
import csv, json, sys
run = sys.argv[1]
pairs = {p["target"]: p for p in json.load(open(f"{run}/results.json"))["pairs"]}
problems = []
bf16, exact = pairs["ch87:precision_bf16"], pairs["ch87:precision_exact"]
checks = {c["check"]: c for c in bf16["verification"]["checks"]}
if not checks.get("precision_declared", {}).get("passed") or "precision_preserved" in checks:
    problems.append(f"bf16 checks: {sorted(checks)}")
p = bf16.get("precision", {})
out = p.get("optimized", {}).get("outputs", [{}])[0]
# bf16 keeps 8 significant bits: at most 2^-8 relative error per element, ~1.7e-3 RMS here.
if not (1e-3 < out.get("relative_rms", 0) < 2.5e-3 and out.get("max_abs", 0) > 0
        and 2 ** -9 < out.get("max_relative", 0) <= 2 ** -8 * 1.0001
        and 1900 <= out.get("sampled", 0) <= 2048):
    problems.append(f"bf16 optimized error: {out}")
if p.get("optimized", {}).get("lower_precision", {}).get("max_relative_rms") != 5e-3:
    problems.append(f"bf16 declaration: {p.get('optimized', {}).get('lower_precision')}")
base = p.get("baseline", {}).get("outputs", [{}])[0]
if not base.get("relative_rms", 1) < 1e-6 or p.get("baseline", {}).get("variant") != "baseline_precision":
    problems.append(f"baseline error: {p.get('baseline')}")
echecks = {c["check"]: c for c in exact["verification"]["checks"]}
eout = exact.get("precision", {}).get("optimized", {}).get("outputs", [{}])[0]
if not echecks.get("precision_preserved", {}).get("passed") or not eout.get("relative_rms", 1) < 1e-6:
    problems.append(f"exact: {sorted(echecks)} {eout}")
rows = {r["target"]: r for r in csv.DictReader(open(f"{run}/results.csv"))}
r = rows["ch87:precision_bf16"]
if r["lower_precision"] != "true" or not r["optimized_error_relative_rms"] or r["lower_precision_max_relative_rms"] != "0.005":
    problems.append(f"results.csv: {r['lower_precision']!r} {r['optimized_error_relative_rms']!r} {r['lower_precision_max_relative_rms']!r}")
line = [json.loads(l) for l in open(f"{run}/results.jsonl")]
if not all("precision" in l for l in line):
    problems.append("results.jsonl lacks precision")
for problem in problems:
    print("FAIL:", problem)
sys.exit(1 if problems else 0)
PY
grep -qF "## Precision against the float64 reference" "$run/summary.md" &&
  grep -qE "^\| ch87:precision_bf16 \| optimized_precision_bf16 \| y \| 0\.00[0-9]+ \| .* \*\*lower precision\*\*: bf16 output" \
    "$run/summary.md" || fail "summary.md lacks the precision section"
grep -qF "Error (rel. RMS)" "$run/summary.md" || fail "summary.md lacks the error column"
expect "bench report shows the errors and the mark" 0 stdout "report.html" "$aisp" bench report "$run"
grep -qF "<span class=\"badge lower\" title=\"bf16 output (7 stored mantissa bits, round to nearest)\">lower precision</span>" \
  "$run/report.html" && grep -qF "Precision against the float64 reference" "$run/report.html" ||
  fail "report.html lacks the precision table or the lower-precision badge"

expect "beyond its declared bound: precision_declared fails" 1 stdout \
  "precision_declared: optimized y: declared lower precision" \
  "$suite" bench verify -t ch87:precision_bf16_overclaimed --artifacts-dir "$work/beyond"
grep -qF "beyond the bound it declared" "$work/stdout" || fail "the failure does not name the bound"
expect "undeclared lower precision: precision_preserved fails" 1 stdout "precision_preserved" \
  "$suite" bench verify -t ch87:precision_bf16_silent --artifacts-dir "$work/silent"
grep -qF "declare it if on purpose (Benchmark::lower_precision)" "$work/stdout" ||
  fail "precision_preserved does not point at the declaration"
expect "a declaration without a reference fails verification" 1 stdout \
  "the baseline gives no float64 reference(): nothing to hold it to" \
  "$suite" bench verify -t ch87:noref_bf16 --artifacts-dir "$work/noref"
expect "a declaration without a reference fails the audit" 1 stdout \
  "FAIL lower_precision: optimized_noref_bf16 declares lower precision (bf16 output" \
  "$suite" bench audit -t ch87:noref_bf16
expect "bench audit shows a declaration" 0 stdout \
  "ch87:precision_bf16  lower precision: optimized_precision_bf16 computes in bf16 output" \
  "$suite" bench audit -t ch87:precision_bf16

if [[ $failures -gt 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
