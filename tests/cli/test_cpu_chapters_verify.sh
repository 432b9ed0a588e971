#!/usr/bin/env bash
# Every CPU-only chapter pair verifies on a machine without a GPU: no false positives from the
# integrity checks on honest host pairs (ch05's u8 file contents hold the integer poison byte in
# 1 of 256 elements, which a single-pattern unwritten check once flagged).
# Arguments: <aisp> <aisp_test_suite> <work dir>
set -u
aisp="$1"; work="$3"
rm -rf "$work" && mkdir -p "$work"
"$aisp" bench verify -t ch03 -t ch05 --json --artifacts-dir "$work/a" >"$work/out.json" 2>"$work/err.txt"
code=$?
python3 - "$work/out.json" "$code" <<'PY'
import json, sys
pairs = json.load(open(sys.argv[1]))["pairs"]
bad = [f"{p['target']}: {p['status']} {p.get('reason', '')}" for p in pairs if p["status"] != "passed"]
if len(pairs) < 3 or bad or sys.argv[2] != "0":
    print("FAIL:", f"exit {sys.argv[2]},", f"{len(pairs)} pairs;", "; ".join(bad)); sys.exit(1)
print(f"test_cpu_chapters_verify: {len(pairs)} CPU pairs verified")
PY
