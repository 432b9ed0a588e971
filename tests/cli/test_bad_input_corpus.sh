#!/usr/bin/env bash
# The bad input a first-time user meets (issue 15), each case with the exit code it must give and
# the words that name the problem: unusable artifacts directories, numbers beyond double range in
# every file a run is read back from, a schema version in quotes, empty items in a target list, a
# flag value that is not a number, many unknown targets, the no-GPU skips, and selecting exactly
# one target. "This is a bug in aisp" (exit 3) must never appear. The inputs are the files under
# tests/bad_input/ and copies of the real run in tests/data/run_h200_ch01 with one value changed.
# Arguments: <aisp> <aisp_test_suite> <work dir>
set -u
aisp=$1
suite=$2
work=$3
here=$(cd "$(dirname "$0")" && pwd)
corpus=$here/../bad_input
real_run=$here/../data/run_h200_ch01
rm -rf "$work" && mkdir -p "$work"
failures=0
source "$here/../support/cli_expect.sh"

# expect_not NAME STREAM TEXT: the last command's STREAM lacks TEXT.
expect_not() {
  if grep -qF -- "$3" "$work/$2"; then fail "$1: $2 holds \"$3\""; else echo "ok   $1"; fi
}

fast=(--max-time 1 --min-time 0.05)
key=$("$aisp" system info --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["hardware_key"])')

# --- the artifacts directory: a file, not writable, full. Exit 1 naming the path; no "bug".
touch "$work/a_file"
expect "artifacts dir is a file" 1 stderr "cannot create the run directory $work/a_file/runs/" \
  "$suite" bench run -t ch90:affine "${fast[@]}" --artifacts-dir "$work/a_file"
expect_not "artifacts dir is a file: not called a bug" stderr "bug"
if [[ $(id -u) -ne 0 ]]; then
  mkdir -p "$work/read_only" && chmod 555 "$work/read_only"
  expect "artifacts dir read-only" 1 stderr "Permission denied" \
    "$suite" bench run -t ch90:affine "${fast[@]}" --artifacts-dir "$work/read_only"
  chmod 755 "$work/read_only"
else
  # root writes through permissions; /proc refuses new directories to everyone.
  expect "artifacts dir not creatable" 1 stderr "cannot create the run directory /proc/" \
    "$suite" bench run -t ch90:affine "${fast[@]}" --artifacts-dir /proc/aisp-artifacts
fi
expect_not "artifacts dir not writable: not called a bug" stderr "bug"
# A full disk: a file size limit makes the writes fail as a full disk would (EFBIG); the limit
# lets the manifest through and stops the results after the first pair.
expect "artifacts dir full" 1 stderr "File too large" \
  bash -c 'ulimit -f 8; trap "" XFSZ; exec "$@"' _ \
  "$suite" bench run -t ch90:affine -t ch90:wrong "${fast[@]}" --artifacts-dir "$work/full"
expect_not "artifacts dir full: not called a bug" stderr "bug"
grep -qE "cannot write .*/(results\.json|results\.jsonl|summary\.md|results\.csv|quarantine\.json)" \
  "$work/stderr" && echo "ok   artifacts dir full: names the file" \
  || fail "artifacts dir full: names no file"

# --- numbers beyond double range, a schema version in quotes: every reader names the file.
python3 - "$real_run" "$work" <<'PY'
import json, os, re, shutil, sys
real, work = sys.argv[1], sys.argv[2]
def copy_run(name):
    d = os.path.join(work, name)
    shutil.copytree(real, d)
    return d
def sub(path, pattern, replacement):
    text = open(path).read()
    new = re.sub(pattern, replacement, text, count=1)
    assert new != text, (path, pattern)
    open(path, "w").write(new)
d = copy_run("results_overflow")
sub(os.path.join(d, "results.json"), r'"wall_seconds": [0-9.e+-]+', '"wall_seconds": 1e400')
d = copy_run("results_version_string")
sub(os.path.join(d, "results.json"), r'"schema_version": [0-9]+', '"schema_version": "2"')
d = copy_run("manifest_overflow")
sub(os.path.join(d, "manifest.json"), r'"seed": [0-9]+', '"seed": 1e400')
d = copy_run("jsonl_overflow")
pairs = json.load(open(os.path.join(d, "results.json")))["pairs"]
os.remove(os.path.join(d, "results.json"))
lines = [json.dumps(dict(p, schema_version=2)) for p in pairs]
lines[1] = re.sub(r'"wall_seconds": [0-9.e+-]+', '"wall_seconds": 1e400', lines[1], count=1)
open(os.path.join(d, "results.jsonl"), "w").write("\n".join(lines) + "\n")
PY
expect "results.json with 1e400" 1 stderr "results_overflow/results.json: not valid JSON (number overflow parsing '1e400'" \
  "$aisp" bench report "$work/results_overflow"
expect "results.jsonl with 1e400" 1 stderr "jsonl_overflow/results.jsonl:2: not valid JSON (number overflow parsing '1e400'" \
  "$aisp" bench report "$work/jsonl_overflow"
expect "compare-runs with 1e400" 1 stderr "results_overflow/results.json" \
  "$aisp" bench compare-runs --baseline "$real_run" --candidate "$work/results_overflow"
expect "manifest.json with 1e400 is a warning" 0 stderr "manifest_overflow/manifest.json: not valid JSON (number overflow parsing '1e400'" \
  "$aisp" bench report "$work/manifest_overflow" --output "$work/manifest_overflow.html"
expect "schema_version \"2\"" 1 stderr 'schema_version: expected the integer 3 (this build reads versions 1 to 3), got a string "2"' \
  "$aisp" bench report "$work/results_version_string"
expect "quarantine.json with 1e400" 1 stderr "quarantine_number_overflow/quarantine.json: not valid JSON (number overflow parsing '1e400'" \
  "$aisp" bench quarantine-report "$corpus/quarantine_number_overflow/quarantine.json"
expect "quarantine schema_version \"1\"" 1 stderr 'schema_version: expected the integer 1 (this build reads version 1), got a string "1"' \
  "$aisp" bench quarantine-report "$corpus/quarantine_schema_version_string/quarantine.json"

# Expectations files are named after the hardware key they hold: copies for this machine's key
# (bench run) and for h200 (bench expectations).
for case in expectations_number_overflow expectations_type_error; do
  for k in "$key" h200; do
    dir=$work/$case/ch90_harness_faults/expectations
    mkdir -p "$dir"
    sed "s/HARDWARE_KEY/$k/" "$corpus/$case/ch90_harness_faults/expectations/HARDWARE_KEY.json" \
      >"$dir/$k.json"
  done
done
expect "bench expectations with 1e400" 1 stderr "ch90_harness_faults/expectations/h200.json: not valid JSON (number overflow parsing '1e400'" \
  "$aisp" bench expectations --hardware h200 --chapters-dir "$work/expectations_number_overflow"
expect "bench run, expectations with 1e400: a warning, the run goes on" 0 stderr \
  "warning: not compared with expectations: $work/expectations_number_overflow/ch90_harness_faults/expectations/$key.json: not valid JSON (number overflow" \
  "$suite" bench run -t ch90:affine "${fast[@]}" --artifacts-dir "$work/runs" \
  --chapters-dir "$work/expectations_number_overflow"
expect "bench run, expectations with a type error: the same warning" 0 stderr \
  "warning: not compared with expectations: $work/expectations_type_error/ch90_harness_faults/expectations/$key.json: entries[\"ch90:affine\"].baseline_ms: expected a number" \
  "$suite" bench run -t ch90:affine "${fast[@]}" --artifacts-dir "$work/runs" \
  --chapters-dir "$work/expectations_type_error"

# --- small inconsistencies (issue 15, item 11)
expect "-t ," 2 stderr "malformed target list ',': an empty target" "$suite" bench run -t ,
expect "-t ch90,,ch91" 2 stderr "malformed target list 'ch90,,ch91'" "$suite" bench run -t ch90,,ch91
expect "-t ch90, (verify)" 2 stderr "malformed target list 'ch90,'" "$suite" bench verify -t ch90,
expect "--threshold abc" 2 stderr "--threshold abc: must be a percentage in [0, 1000)" \
  "$aisp" bench compare-runs --baseline "$real_run" --candidate "$real_run" --threshold abc
expect "--expectation-threshold abc" 2 stderr "--expectation-threshold abc: must be a percentage" \
  "$suite" bench run -t ch90:affine --expectation-threshold abc
expect "--min-speedup abc" 2 stderr "--min-speedup abc: must be a finite number" \
  "$aisp" bench expectations --hardware h200 --min-speedup abc
targets=$(printf 'ch99:nothing_%d,' $(seq 1 25))
expect "25 unknown targets: all counted" 2 stderr "... and 15 more wrong targets (25 in all)" \
  "$suite" bench run -t "${targets%,}"
[[ $(grep -c "unknown target 'ch99:nothing_" "$work/stderr") -eq 10 ]] \
  && echo "ok   25 unknown targets: the first ten named" \
  || fail "25 unknown targets: $(grep -c "unknown target" "$work/stderr") named, wanted 10"

# --- selecting exactly one target: every target list-targets prints, alone.
"$aisp" bench list-targets --json >"$work/targets.json"
python3 - "$aisp" "$work/targets.json" <<'PY' && echo "ok   =<target> selects each target alone" || fail "=<target> selection"
import json, subprocess, sys
aisp, listed = sys.argv[1], json.load(open(sys.argv[2]))
targets = [t["target"] for t in listed]
pairs = {}
for t in listed:
    pairs.setdefault((t["chapter"], t["pair"]), []).append(t["target"])
bad = 0
# Each "=" form alone (in one audit call per target would take a minute: ask for all at once,
# then check the ambiguous ones one by one).
ambiguous = [t for t in targets if t.split(":", 1)[1] in {p for (c, p) in pairs if c == t.split(":", 1)[0]}
             and len(pairs[(t.split(":", 1)[0], t.split(":", 1)[1])]) > 1]
for target in ambiguous:
    out = subprocess.run([aisp, "bench", "audit", "-t", "=" + target, "--json"], capture_output=True, text=True)
    got = [p["target"] for p in json.loads(out.stdout)["pairs"]]
    plain = subprocess.run([aisp, "bench", "audit", "-t", target, "--json"], capture_output=True, text=True)
    whole = [p["target"] for p in json.loads(plain.stdout)["pairs"]]
    if got != [target] or len(whole) < 2 or "-t =" + target not in plain.stderr:
        print(f"FAIL {target}: = selects {got}; plain selects {whole}; note: {plain.stderr.strip()}")
        bad += 1
out = subprocess.run([aisp, "bench", "audit", "-t", ",".join("=" + t for t in targets), "--json"],
                     capture_output=True, text=True)
got = [p["target"] for p in json.loads(out.stdout)["pairs"]]
if got != targets:
    print("FAIL the = forms of all targets select", len(got), "of", len(targets)); bad += 1
print(f"     {len(ambiguous)} targets share their pair's name: {', '.join(ambiguous)}")
sys.exit(1 if bad else 0)
PY

# --- no GPU: the skips say so plainly, once per reason in the table (only without a GPU).
if [[ $key == cpu_only ]]; then
  # Without a GPU, bench peak measures the host's figures alone (host_memory_bandwidth, the ceiling
  # of CPU pairs: docs/integrity.md class 7) and says so.
  expect "bench peak without a GPU" 0 stderr "bench peak: no GPU (no NVIDIA driver or GPU found" \
    "$aisp" bench peak --quick --figures host_memory_bandwidth --peaks-dir "$work/peaks_no_gpu"
  expect_not "bench peak without a GPU: no word of CPU pairs" stderr "CPU-only pairs still run"
  expect "no GPU: GPU pairs skipped" 0 stdout "SKIP ch90:needs_gpu  needs a GPU: no NVIDIA" \
    "$suite" bench run -t ch90:needs_gpu -t ch93 -t ch90:affine "${fast[@]}" --artifacts-dir "$work/no_gpu"
  python3 - "$work/stdout" <<'PY' && echo "ok   no GPU: one table row for the skips, short lines after the first" || fail "no GPU: skip lines"
import re, sys
text = open(sys.argv[1]).read()
table = text[text.index("Status  Target"):]
rows = [l for l in table.splitlines() if l.startswith("SKIP")]
progress = [l for l in text[:text.index("Status  Target")].splitlines() if " SKIP " in l]
ok = (len(rows) == 1 and re.match(r"SKIP +\d+ pairs +—", rows[0]) and "needs a GPU: no NVIDIA" in rows[0]
      and len(progress) > 1 and all(l.endswith("needs a GPU (as above)") for l in progress[1:]))
if not ok:
    print(text)
sys.exit(0 if ok else 1)
PY
else
  echo "skip no-GPU cases: this machine has a GPU ($key)"
fi

if [[ $failures -ne 0 ]]; then
  echo "test_bad_input_corpus: $failures failure(s); outputs in $work"
  exit 1
fi
echo "test_bad_input_corpus: all checks passed"
