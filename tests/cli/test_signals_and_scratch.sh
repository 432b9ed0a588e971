#!/usr/bin/env bash
# How a run ends when something outside it ends it, and what it leaves behind:
# - a worker that crashes, hangs past --timeout, or is killed by Ctrl-C leaves no scratch in TMPDIR
#   (the orchestrator removes each worker's private temporary directory), and its log says what
#   happened, from the worker's side and the orchestrator's;
# - SIGINT, SIGTERM, SIGHUP and a SIGPIPE sent by another process stop the run like Ctrl-C: a valid
#   results.json with `complete: false`, the running pair `interrupted` and naming the signal, exit
#   128 + the signal's number;
# - a closed stdout (`| head -1`, `>&-`) does not stop the run: every pair is still measured.
# Nothing here depends on timing: the test waits for files, not for seconds.
# Arguments: <aisp> <aisp_test_suite> <work dir>
set -u
suite=$2
work=$3
rm -rf "$work" && mkdir -p "$work"
failures=0
source "$(dirname "$0")/../support/cli_expect.sh"

# Each run gets its own TMPDIR, so "nothing left" is checkable.
fresh_tmp() { rm -rf "$work/tmp" && mkdir -p "$work/tmp"; }
tmp_is_empty() {
  local left
  left=$(find "$work/tmp" -mindepth 1 | head -5)
  if [[ -n $left ]]; then
    fail "$1: left in TMPDIR: $left"
    return 1
  fi
  echo "ok   $1: TMPDIR empty"
}

# json_check NAME RESULTS_JSON PYTHON_EXPRESSION: the expression over `data` must be true.
json_check() {
  if python3 - "$2" "$3" <<'PY'; then echo "ok   $1"; else fail "$1 ($3)"; fi
import json, sys
data = json.load(open(sys.argv[1]))
by = {p["target"]: p for p in data["pairs"]}
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}

log_has() {  # NAME LOG TEXT
  if grep -qF -- "$3" "$2" 2>/dev/null; then echo "ok   $1"; else fail "$1: $2 lacks \"$3\""; fi
}

# Waits (up to 60 s; normally well under one) for a worker to have written its scratch file.
wait_for_scratch() {
  for _ in $(seq 1 600); do
    compgen -G "$work/tmp/aisp-worker-*/aisp-scratch-*/*" >/dev/null && return 0
    sleep 0.1
  done
  fail "no scratch file appeared under $work/tmp"
  return 1
}

fast=(--max-time 1 --min-time 0.05)

# --- a crash after writing scratch
fresh_tmp
TMPDIR=$work/tmp "$suite" bench run -t ch96:scratch_crash --timeout 60 "${fast[@]}" \
  --artifacts-dir "$work/crash" >"$work/stdout" 2>"$work/stderr"
code=$?
[[ $code -eq 1 ]] && echo "ok   crash: exit 1" || fail "crash: exit $code, wanted 1"
tmp_is_empty "crash"
run=$(run_dir_in "$work/crash")
json_check "crash: recorded as crashed" "$run/results.json" \
  'by["ch96:scratch_crash"]["status"] == "crashed"'
log=$run/logs/ch96_scratch_crash.log
log_has "crash: the worker's log names the signal and phase" "$log" \
  "fatal signal 11 (SIGSEGV, a segmentation fault) in phase 'verify'"
log_has "crash: the worker's log has its settings" "$log" "settings: {"
log_has "crash: the orchestrator's note" "$log" "--- orchestrator, after"
log_has "crash: the scratch removal is logged" "$log" "removed the worker's temporary directory"

# --- a hang past --timeout after writing scratch
fresh_tmp
TMPDIR=$work/tmp "$suite" bench run -t ch96:scratch_hang --timeout 3 "${fast[@]}" \
  --artifacts-dir "$work/hang" >"$work/stdout" 2>"$work/stderr"
code=$?
[[ $code -eq 1 ]] && echo "ok   timeout: exit 1" || fail "timeout: exit $code, wanted 1"
tmp_is_empty "timeout"
run=$(run_dir_in "$work/hang")
json_check "timeout: recorded as timed_out" "$run/results.json" \
  'by["ch96:scratch_hang"]["status"] == "timed_out"'
log_has "timeout: the log says the worker was killed at the limit" \
  "$run/logs/ch96_scratch_hang.log" "no result after 3 s (--timeout): the worker's process group was killed"

# --- signals to the orchestrator while a worker holds scratch: SIGINT, SIGTERM, SIGHUP and a
# SIGPIPE from another process all leave a valid partial run and no scratch.
for signal in INT TERM HUP PIPE; do
  fresh_tmp
  TMPDIR=$work/tmp "$suite" bench run -t ch90:affine -t ch96:scratch_hang --timeout 120 \
    "${fast[@]}" --artifacts-dir "$work/sig_$signal" >"$work/sig_$signal.out" 2>&1 &
  pid=$!
  wait_for_scratch
  kill -"$signal" "$pid"
  wait "$pid"
  code=$?
  want=$((128 + $(kill -l "$signal")))
  [[ $code -eq $want ]] && echo "ok   SIG$signal: exit $want" \
    || { fail "SIG$signal: exit $code, wanted $want"; sed 's/^/     /' "$work/sig_$signal.out"; }
  tmp_is_empty "SIG$signal"
  run=$(run_dir_in "$work/sig_$signal")
  json_check "SIG$signal: a valid partial run" "$run/results.json" \
    "data['complete'] is False and by['ch90:affine']['status'] == 'passed' and by['ch96:scratch_hang']['status'] == 'interrupted' and 'SIG$signal' in by['ch96:scratch_hang']['reason']"
  log_has "SIG$signal: the log says the run was interrupted" "$run/logs/ch96_scratch_hang.log" \
    "the run was interrupted (SIG$signal)"
done

# --- a reader that goes away: `| head -1` takes the first line and exits; the run goes on and
# records both pairs (ch90:wrong fails, so the exit code is 1, not 141 from SIGPIPE).
fresh_tmp
{ TMPDIR=$work/tmp "$suite" bench run -t ch90:affine -t ch90:wrong "${fast[@]}" \
    --artifacts-dir "$work/head" 2>"$work/head.err"; echo $? >"$work/head.code"; } | head -1 \
  >"$work/head.out"
code=$(cat "$work/head.code")
[[ $code -eq 1 ]] && echo "ok   | head -1: exit 1" || fail "| head -1: exit $code, wanted 1"
grep -q "^aisp: 2 pair(s)" "$work/head.out" && echo "ok   | head -1: got the first line" \
  || fail "| head -1: first line was: $(cat "$work/head.out")"
run=$(run_dir_in "$work/head")
json_check "| head -1: every pair was measured" "$run/results.json" \
  'data["complete"] is True and by["ch90:affine"]["status"] == "passed" and by["ch90:wrong"]["status"] == "failed"'

# --- stdout closed from the start
TMPDIR=$work/tmp "$suite" bench run -t ch90:affine "${fast[@]}" --artifacts-dir "$work/closed" \
  >&- 2>"$work/closed.err"
code=$?
[[ $code -eq 0 ]] && echo "ok   closed stdout: exit 0" || fail "closed stdout: exit $code, wanted 0"
run=$(run_dir_in "$work/closed")
json_check "closed stdout: the pair was measured" "$run/results.json" \
  'data["complete"] is True and by["ch90:affine"]["status"] == "passed"'
log=$run/logs/ch90_affine.log
for text in "phase: verify" "phase: timing" "check ok   within_tolerance" "stopped: " "result: passed"; do
  log_has "a passed pair's log has '$text'" "$log" "$text"
done

if [[ $failures -ne 0 ]]; then
  echo "test_signals_and_scratch: $failures failure(s); outputs in $work"
  exit 1
fi
echo "test_signals_and_scratch: all checks passed"
