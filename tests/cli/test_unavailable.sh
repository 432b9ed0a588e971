#!/usr/bin/env bash
# A skip discovered at run time: ch88:unavailable throws aisp::Unavailable from setup(), and the
# harness records it as skipped with the message as the reason (never failed, exit 0), in
# bench verify and bench run (results.json and the terminal). (The profile pass of a GPU
# variant records the same skip; a CPU pair is never profiled.)
# Arguments: $1 the aisp binary, $2 the aisp_test_suite binary, $3 a scratch directory.
set -u
suite=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
failures=0
source "$(dirname "$0")/../support/cli_expect.sh"
reason="test: libaisp_missing_test.so could not be loaded (dlopen: no such file); install it to run ch88:unavailable"

expect "bench verify skips it with the reason" 0 stdout "SKIP ch88:unavailable  $reason" \
  "$suite" bench verify -t ch88:unavailable --artifacts-dir "$work/verify"
expect "bench run skips it with the reason" 0 stdout "SKIP ch88:unavailable  $reason" \
  "$suite" bench run -t ch88:unavailable --min-time 0.05 --artifacts-dir "$work/run"
python3 - "$(run_dir_in "$work/run")" "$reason" <<'PY' || fail "results.json of the skipped pair"
import json, sys
pair = json.load(open(f"{sys.argv[1]}/results.json"))["pairs"][0]
ok = pair["status"] == "skipped" and pair["reason"] == sys.argv[2] and "speedup" not in pair
if not ok:
    print("FAIL:", pair["status"], repr(pair["reason"]))
sys.exit(0 if ok else 1)
PY
grep -qF "1 pair: 0 passed, 0 failed, 1 skipped" "$work/stdout" || fail "the counts do not say skipped"

if [[ $failures -gt 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
