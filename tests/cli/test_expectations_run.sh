#!/usr/bin/env bash
# `bench run` against expectations, end to end with honest CPU test pairs: the verdicts in
# results.json, results.jsonl, results.csv and at the end of a run (a regression made to order by
# an expectation far above what ch91:slowed reaches),
# --fail-on-regression, and the provenance rules of --update-expectations (mixed provenance and a
# dirty tree refused with exit 2, accepted with their override; only passed pairs recorded).
# Every expectations file lives under the scratch directory (--chapters-dir), never in the source
# tree. The commit is set through AISP_GIT_COMMIT / AISP_GIT_DIRTY, so the test does not depend on
# the state of the checkout it runs in.
# Arguments: $1 the aisp binary, $2 the aisp_test_suite binary, $3 a scratch directory.
set -u

aisp=$1
suite=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
failures=0

source "$(dirname "$0")/../support/cli_expect.sh"

# json_value FILE PYTHON_EXPRESSION: prints the expression over the parsed file `d`.
json_value() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

key=$("$suite" system info --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["hardware_key"])')
gpu=$("$suite" system info --json |
  python3 -c 'import json,sys; g=json.load(sys.stdin)["gpus"]; print(g[0]["name"] if g else "none")')
[[ -n $key ]] || { echo "FAIL cannot read the hardware key from system info"; exit 1; }
echo "note: hardware key $key, GPU $gpu"
clean=(env AISP_GIT_COMMIT=1234567abcdef0123456789abcdef0123456789 AISP_GIT_DIRTY=0)
quick=(--min-time 0.05)

# write_expectations FILE TARGET SPEEDUP LOW HIGH GPU COMMIT [TARGET2 ...]: an expectations file
# with one entry per (target, speedup, low, high, gpu, commit) group.
write_expectations() {
  local file=$1
  shift
  mkdir -p "$(dirname "$file")"
  python3 - "$file" "$key" "$@" <<'PY'
import json, sys
file, key, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
entries = {}
for i in range(0, len(rest), 6):
    target, speedup, low, high, gpu, commit = rest[i:i + 6]
    entries[target] = {"baseline_ms": 3.1, "optimized_ms": 1.1, "speedup": float(speedup),
                       "speedup_ci_low": float(low), "speedup_ci_high": float(high),
                       "roofline_fraction": None, "ceiling": None, "gpu": gpu,
                       "git_commit": commit, "date": "2026-11-22", "run_id": "recorded-run"}
json.dump({"schema_version": 1, "hardware_key": key, "entries": entries}, open(file, "w"),
          indent=2, sort_keys=True)
PY
}

# --- verdicts at the end of a run -----------------------------------------------------------
# ch91:slowed reaches about 3x (3 ms against 1 ms of sleep); 50x is far out of reach.
chapters=$work/chapters
slowed_file=$chapters/ch91_report_tests/expectations/$key.json
write_expectations "$slowed_file" ch91:slowed 50 49 51 "$gpu" 1234567abcdef
expect "a run below its expectation reports a regression" 0 stdout "REGRESSION ch91:slowed" \
  "$suite" bench run -t ch91:slowed "${quick[@]}" --chapters-dir "$chapters" \
  --artifacts-dir "$work/regression"
grep -qF "Expectations: compared with the expectations for $key (5% threshold): 1 regression" \
  "$work/stdout" || fail "the end-of-run summary lacks the verdict counts"
run=$(run_dir_in "$work/regression")
verdict=$(json_value "$run/results.json" 'd["pairs"][0]["expectation"]["verdict"]')
[[ $verdict == regression ]] || fail "results.json holds verdict '$verdict', wanted regression"
expected=$(json_value "$run/results.json" 'd["pairs"][0]["expectation"]["expected_speedup"]')
[[ $expected == 50.0 ]] || fail "results.json holds expected_speedup '$expected', wanted 50.0"
line_verdict=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["expectation"]["verdict"])' \
  "$run/results.jsonl" 2>&1)
[[ $line_verdict == regression ]] || fail "results.jsonl holds verdict '$line_verdict', wanted regression"
csv_verdict=$(python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); print(r[0]["expectation_verdict"], r[0]["expected_speedup"])' \
  "$run/results.csv" 2>&1)
[[ $csv_verdict == "regression 50" ]] || fail "results.csv holds '$csv_verdict', wanted 'regression 50'"
grep -qF "## Expectations" "$run/summary.md" && grep -qF "**ch91:slowed** regression" "$run/summary.md" ||
  fail "summary.md lacks the regression"
expect "bench report marks the regression" 0 stdout "report.html" "$aisp" bench report "$run"
grep -qF "below expectation ($key)" "$run/report.html" || fail "report.html does not mark the regression"

expect "--fail-on-regression turns a regression into exit 1" 1 stderr \
  "1 pair(s) regressed against the expectations for '$key'; exit 1 (--fail-on-regression)" \
  "$suite" bench run -t ch91:slowed "${quick[@]}" --chapters-dir "$chapters" \
  --artifacts-dir "$work/fail_on_regression" --fail-on-regression

write_expectations "$slowed_file" ch91:slowed 0.5 0.49 0.51 "$gpu" 1234567abcdef
expect "a run above its expectation reports an improvement" 0 stdout "IMPROVEMENT ch91:slowed" \
  "$suite" bench run -t ch91:slowed "${quick[@]}" --chapters-dir "$chapters" \
  --artifacts-dir "$work/improvement" --fail-on-regression

write_expectations "$slowed_file" ch91:other 50 49 51 "$gpu" 1234567abcdef
expect "a target without an entry has no expectation" 0 stdout "1 no expectation" \
  "$suite" bench run -t ch91:slowed "${quick[@]}" --chapters-dir "$chapters" \
  --artifacts-dir "$work/no_expectation" --fail-on-regression

mkdir -p "$work/no_files"
expect "without an expectations file nothing is compared" 0 stdout "1 pair: 1 passed" \
  "$suite" bench run -t ch91:slowed "${quick[@]}" --chapters-dir "$work/no_files" \
  --artifacts-dir "$work/none"
grep -qF "Expectations:" "$work/stdout" && fail "a run without expectations files printed verdicts"
run=$(run_dir_in "$work/none")
has=$(json_value "$run/results.json" '"expectation" in d["pairs"][0]')
[[ $has == False ]] || fail "results.json of a run without expectations holds a verdict"

# --- flags that cannot work -----------------------------------------------------------------
expect "--allow-dirty without --update-expectations" 2 stderr \
  "--allow-dirty applies only with --update-expectations" \
  "$suite" bench run -t ch91:slowed --allow-dirty
expect "--expectation-threshold -1" 2 stderr "--expectation-threshold -1: must be a percentage" \
  "$suite" bench run -t ch91:slowed --expectation-threshold -1
expect "--chapters-dir that does not exist" 2 stderr "--chapters-dir $work/nowhere: not a directory" \
  "$suite" bench run -t ch91:slowed --chapters-dir "$work/nowhere"
expect "bench verify takes no expectation flags" 2 stderr "does not take" \
  "$suite" bench verify -t ch91:slowed --fail-on-regression

# --- provenance of --update-expectations ----------------------------------------------------
# A file whose other entry comes from another GPU and commit: updating ch91:slowed alone would mix.
mixed=$work/mixed
mixed_file=$mixed/ch91_report_tests/expectations/$key.json
write_expectations "$mixed_file" ch91:slowed 3 2.9 3.1 "NVIDIA H100 80GB HBM3" 0123456789abcdef \
  ch91:gone 2 1.9 2.1 "NVIDIA H100 80GB HBM3" 0123456789abcdef
cp "$mixed_file" "$work/mixed_before.json"
expect "an update that would mix provenance is refused before measuring" 2 stderr \
  "would mix provenance" \
  "${clean[@]}" "$suite" bench run -t ch91:slowed "${quick[@]}" --update-expectations \
  --chapters-dir "$mixed" --artifacts-dir "$work/mixed_runs"
for text in "1 entry this run does not re-record (ch91:gone) was recorded on NVIDIA H100 80GB HBM3 at commit 0123456789ab" \
  "--allow-mixed-provenance" "-t ch91" "Nothing was measured."; do
  grep -qF -- "$text" "$work/stderr" || fail "the mixed-provenance refusal lacks \"$text\""
done
[[ -d $work/mixed_runs ]] && fail "a refused update still made a run directory"
cmp -s "$mixed_file" "$work/mixed_before.json" || fail "a refused update changed the file"

expect "--allow-mixed-provenance records beside the older entries" 0 stdout \
  "expectations: 1 entry written for hardware '$key'" \
  "${clean[@]}" "$suite" bench run -t ch91:slowed "${quick[@]}" --update-expectations \
  --allow-mixed-provenance --chapters-dir "$mixed" --artifacts-dir "$work/mixed_runs"
run_id=$(basename "$(run_dir_in "$work/mixed_runs")")
[[ $(json_value "$mixed_file" 'd["entries"]["ch91:slowed"]["run_id"]') == "$run_id" ]] ||
  fail "ch91:slowed was not recorded from run $run_id"
[[ $(json_value "$mixed_file" 'd["entries"]["ch91:slowed"]["git_commit"]') == 1234567abcdef0123456789abcdef0123456789 ]] ||
  fail "ch91:slowed was not recorded with the run's commit"
[[ $(json_value "$mixed_file" 'd["entries"]["ch91:gone"]["gpu"]') == "NVIDIA H100 80GB HBM3" ]] ||
  fail "the older entry was not kept"
expect "bench expectations lists the provenance of each entry" 0 stdout "NVIDIA H100 80GB HBM3" \
  "$aisp" bench expectations --hardware "$key" --chapters-dir "$mixed"
grep -qF "$run_id" "$work/stdout" || fail "bench expectations does not name run $run_id"

# Re-recording every entry of a file is never mixed: a file of ch91:slowed alone, another commit.
whole=$work/whole
write_expectations "$whole/ch91_report_tests/expectations/$key.json" ch91:slowed 3 2.9 3.1 \
  "NVIDIA H100 80GB HBM3" 0123456789abcdef
expect "re-recording the whole file from another GPU and commit is allowed" 0 stdout \
  "expectations: 1 entry written" \
  "${clean[@]}" "$suite" bench run -t ch91:slowed "${quick[@]}" --update-expectations \
  --chapters-dir "$whole" --artifacts-dir "$work/whole_runs"

# A dirty tree: refused, then recorded as <commit>-dirty when allowed.
dirty=(env AISP_GIT_COMMIT=89abcdef01234567 AISP_GIT_DIRTY=1)
mkdir -p "$work/dirty"
expect "an update from a dirty tree is refused" 2 stderr "has uncommitted changes" \
  "${dirty[@]}" "$suite" bench run -t ch91:slowed "${quick[@]}" --update-expectations \
  --chapters-dir "$work/dirty" --artifacts-dir "$work/dirty_runs"
grep -qF -- "--allow-dirty" "$work/stderr" || fail "the dirty-tree refusal does not name --allow-dirty"
[[ -e $work/dirty/ch91_report_tests ]] && fail "a refused update from a dirty tree wrote a file"
expect "--allow-dirty records the commit as dirty" 0 stdout "expectations: 1 entry written" \
  "${dirty[@]}" "$suite" bench run -t ch91:slowed "${quick[@]}" --update-expectations \
  --allow-dirty --chapters-dir "$work/dirty" --artifacts-dir "$work/dirty_runs"
[[ $(json_value "$work/dirty/ch91_report_tests/expectations/$key.json" \
  'd["entries"]["ch91:slowed"]["git_commit"]') == 89abcdef01234567-dirty ]] ||
  fail "the commit of a dirty tree was not recorded as <commit>-dirty"

# Only pairs that passed with verified outputs are recorded: ch90:wrong fails verification.
mkdir -p "$work/only_passed"
expect "a run with a failing pair records only the passed one" 1 stdout "expectations: 1 entry written" \
  "${clean[@]}" "$suite" bench run -t ch90:affine,ch90:wrong "${quick[@]}" --update-expectations \
  --chapters-dir "$work/only_passed" --artifacts-dir "$work/only_passed_runs"
targets=$(json_value "$work/only_passed/ch90_harness_faults/expectations/$key.json" \
  '",".join(sorted(d["entries"]))')
[[ $targets == ch90:affine ]] || fail "recorded '$targets', wanted only ch90:affine"

if [[ $failures -gt 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
