#!/usr/bin/env bash
# The library reference end to end with the sleep-dominated CPU pairs of
# tests/pairs/ch86_library_reference (docs/contract.md, "Library reference"):
# - a target alone (-t ch86:sleep_kernel) times its pair's reference as a third interleaved
#   participant and reports its fraction of it (about 50%: 2 ms against 1 ms of sleep), equal to
#   the reference's median over its own, with an interval, in the terminal, results.json,
#   results.jsonl, results.csv, summary.md and report.html;
# - the reference's own target reports its speedup as usual and no fraction;
# - a baseline that is the reference makes the fraction the speedup;
# - a reference that throws aisp::Unavailable is skipped with the reason, and its sibling is
#   measured without a fraction and says why;
# - bench audit shows the declaration; an expectation holding the fraction judges it, and
#   --update-expectations records it.
# Arguments: $1 the aisp binary, $2 the aisp_test_suite binary, $3 a scratch directory.
set -u
aisp=$1
suite=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
failures=0
source "$(dirname "$0")/../support/cli_expect.sh"
quick=(--min-time 0.2)

expect "a target alone prints its fraction of the library" 0 stdout "of TestLib" \
  "$suite" bench run -t ch86:sleep_kernel "${quick[@]}" --artifacts-dir "$work/kernel"
run=$(run_dir_in "$work/kernel")
python3 - "$run" <<'PY' || fail "the fraction in the result files"
import csv, json, statistics, sys
run = sys.argv[1]
pair = json.load(open(f"{run}/results.json"))["pairs"][0]
problems = []
lib = pair.get("library")
if not lib:
    print("FAIL: no library in", json.dumps(pair)[:2000]); sys.exit(1)
frac, ref = lib.get("fraction"), lib.get("reference")
if lib["name"] != "TestLib" or lib["role"] != "timed" or lib["reference_variant"] != "optimized_sleep_library":
    problems.append(f"library {lib['name']} {lib['role']} {lib['reference_variant']}")
if not frac or not ref:
    problems.append(f"no fraction or no reference samples: {lib}")
else:
    if not 0.35 <= frac["value"] <= 0.7:
        problems.append(f"fraction {frac['value']}, wanted about 0.5 (1 ms / 2 ms of sleep)")
    ratio = statistics.median(ref["host_ms"]) / statistics.median(pair["optimized"]["host_ms"])
    if abs(ratio - frac["value"]) > 1e-9 * ratio:
        problems.append(f"fraction {frac['value']} != reference median / optimized median {ratio}")
    if not frac["ci_low"] <= frac["value"] <= frac["ci_high"]:
        problems.append(f"interval [{frac['ci_low']}, {frac['ci_high']}] misses {frac['value']}")
    if len(ref["host_ms"]) < 2 or ref["variant"] != "optimized_sleep_library":
        problems.append(f"reference samples: {len(ref['host_ms'])} of {ref['variant']}")
    if frac["verdict"] != "slower":
        problems.append(f"verdict {frac['verdict']}, wanted slower (than the library)")
line = json.loads(open(f"{run}/results.jsonl").readline())
if line.get("library", {}).get("fraction", {}).get("value") != (frac or {}).get("value"):
    problems.append("results.jsonl lacks the fraction")
if line.get("schema_version") != 3:
    problems.append(f"results.jsonl schema_version {line.get('schema_version')}, wanted 3")
row = next(csv.DictReader(open(f"{run}/results.csv")))
if row["library"] != "TestLib" or row["library_role"] != "timed" or not row["library_fraction"]:
    problems.append(f"results.csv: {row['library']!r} {row['library_role']!r} {row['library_fraction']!r}")
for problem in problems:
    print("FAIL:", problem)
sys.exit(1 if problems else 0)
PY
grep -qF "Of library [95% CI]" "$run/summary.md" && grep -qF "## Library references" "$run/summary.md" &&
  grep -qE "^- \*\*ch86:sleep_kernel\*\* [0-9.]+% \[[0-9.]+%, [0-9.]+%\] of TestLib: \`optimized_sleep_library\`" \
    "$run/summary.md" || fail "summary.md lacks the fraction"
expect "bench report shows the fraction" 0 stdout "report.html" "$aisp" bench report "$run"
grep -qF "<span class=\"small\">of TestLib</span>" "$run/report.html" ||
  fail "report.html lacks the fraction in its summary table"

expect "the reference's own target reports its speedup, no fraction" 0 stdout "the TestLib reference" \
  "$suite" bench run -t ch86:sleep_library "${quick[@]}" --artifacts-dir "$work/library"
python3 - "$(run_dir_in "$work/library")" <<'PY' || fail "the reference target's result"
import json, sys
pair = json.load(open(f"{sys.argv[1]}/results.json"))["pairs"][0]
lib = pair.get("library", {})
ok = (lib.get("role") == "reference" and "fraction" not in lib and "speedup" in pair
      and pair["speedup"]["value"] > 1.5)
if not ok:
    print("FAIL:", json.dumps({"library": lib, "speedup": pair.get("speedup")}))
sys.exit(0 if ok else 1)
PY

expect "a baseline that is the reference: the fraction is the speedup" 0 stdout "of TestLib" \
  "$suite" bench run -t ch86:libbase_kernel "${quick[@]}" --artifacts-dir "$work/libbase"
python3 - "$(run_dir_in "$work/libbase")" <<'PY' || fail "the baseline-reference result"
import json, sys
pair = json.load(open(f"{sys.argv[1]}/results.json"))["pairs"][0]
lib = pair.get("library", {})
ok = (lib.get("role") == "baseline" and lib.get("fraction") == pair.get("speedup")
      and "reference" not in lib)
if not ok:
    print("FAIL:", json.dumps({"library": lib, "speedup": pair.get("speedup")}))
sys.exit(0 if ok else 1)
PY

expect "an unavailable reference: skipped, and its sibling measured without a fraction" 0 stdout \
  "no fraction of AbsentLib: the AbsentLib reference (optimized_absent_library) is unavailable here" \
  "$suite" bench run -t ch86:absent "${quick[@]}" --artifacts-dir "$work/absent"
python3 - "$(run_dir_in "$work/absent")" <<'PY' || fail "the unavailable reference's results"
import json, sys
pairs = {p["target"]: p for p in json.load(open(f"{sys.argv[1]}/results.json"))["pairs"]}
library, kernel = pairs["ch86:absent_library"], pairs["ch86:absent_kernel"]
problems = []
if library["status"] != "skipped" or "AbsentLib (libaisp_absent_test.so) is not installed" not in library["reason"]:
    problems.append(f"absent_library: {library['status']} {library['reason']!r}")
lib = kernel.get("library", {})
if kernel["status"] != "passed" or "fraction" in lib or "not installed" not in lib.get("reason", ""):
    problems.append(f"absent_kernel: {kernel['status']} {lib}")
for problem in problems:
    print("FAIL:", problem)
sys.exit(1 if problems else 0)
PY

expect "bench audit shows the library references" 0 stdout \
  "ch86:sleep_kernel  library reference: TestLib: reports its fraction of optimized_sleep_library" \
  "$suite" bench audit -t ch86
grep -qF "ch86:libbase_kernel  library reference: TestLib: the baseline baseline_libbase is the reference" \
  "$work/stdout" || fail "bench audit does not say the baseline is the reference"

# Expectations: a recorded fraction far above what the target reaches is a regression even
# though its speedup is as expected; --update-expectations records the fraction.
key=$("$suite" system info --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["hardware_key"])')
gpu=$("$suite" system info --json |
  python3 -c 'import json,sys; g=json.load(sys.stdin)["gpus"]; print(g[0]["name"] if g else "none")')
chapters=$work/chapters
file=$chapters/ch86_library_reference/expectations/$key.json
mkdir -p "$(dirname "$file")"
python3 - "$file" "$key" "$gpu" <<'PY'
import json, sys
file, key, gpu = sys.argv[1:]
entry = {"baseline_ms": 3.1, "optimized_ms": 2.1, "speedup": 1.5, "speedup_ci_low": 0.5,
         "speedup_ci_high": 5.0, "roofline_fraction": None, "ceiling": None, "gpu": gpu,
         "git_commit": "1234567abcdef", "date": "2026-11-22", "run_id": "recorded-run",
         "library": "TestLib", "library_fraction": 5.0, "library_fraction_ci_low": 4.9,
         "library_fraction_ci_high": 5.1}
json.dump({"schema_version": 1, "hardware_key": key, "entries": {"ch86:sleep_kernel": entry}},
          open(file, "w"), indent=2, sort_keys=True)
PY
expect "a fraction below its expectation is a regression" 0 stdout "REGRESSION ch86:sleep_kernel" \
  "$suite" bench run -t ch86:sleep_kernel "${quick[@]}" --chapters-dir "$chapters" \
  --artifacts-dir "$work/expected"
grep -qF "fraction of the library regressed" "$work/stdout" ||
  fail "the regression does not say the fraction regressed"
expect "--update-expectations records the fraction" 0 stdout "written" \
  env AISP_GIT_COMMIT=1234567abcdef0123456789abcdef0123456789 AISP_GIT_DIRTY=0 \
  "$suite" bench run -t ch86:sleep_kernel "${quick[@]}" --chapters-dir "$chapters" \
  --artifacts-dir "$work/record" --update-expectations --allow-mixed-provenance
python3 - "$file" <<'PY' || fail "the recorded entry lacks the fraction"
import json, sys
entry = json.load(open(sys.argv[1]))["entries"]["ch86:sleep_kernel"]
ok = entry.get("library") == "TestLib" and 0.35 <= entry.get("library_fraction", 0) <= 0.7
if not ok:
    print("FAIL:", entry)
sys.exit(0 if ok else 1)
PY

if [[ $failures -gt 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
