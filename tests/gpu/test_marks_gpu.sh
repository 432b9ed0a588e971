#!/usr/bin/env bash
# On the GPU machine: ctx.mark on a stream. ch95:gpu_marked runs a prefill kernel over 16M floats,
# marks "first_token", then 64 decode steps (64 launches in the baseline, 1 in the optimized
# variant). The harness must time both call by call (a marking variant is never graph-replayed),
# and report the mark after the prefill and before the end of the run, at about the same place in
# both variants (the same prefill).
# Arguments: <aisp> <aisp_test_suite> <work dir>
set -u
suite="$2"; work="$3"
rm -rf "$work" && mkdir -p "$work"
"$suite" bench run -t ch95:gpu_marked --min-time 0.2 --artifacts-dir "$work/art" >"$work/out" 2>&1
code=$?
cat "$work/out"
[[ $code -eq 0 ]] || { echo "FAIL: bench run -t ch95:gpu_marked exited $code"; exit 1; }
run=$(find "$work/art/runs" -mindepth 1 -maxdepth 1 -type d | head -n 1)
python3 - "$run/results.json" <<'PY'
import json, sys
pair = json.load(open(sys.argv[1]))["pairs"][0]
problems = []
marks = {}
for role in ("baseline", "optimized"):
    variant = pair[role]
    if variant["method"] != "cuda_events":
        problems.append(f"{role}: timed by {variant['method']}, wanted cuda_events (call by call)")
    names = [m["name"] for m in variant.get("marks", [])]
    if names != ["first_token"]:
        problems.append(f"{role}: marks {names}")
        continue
    mark = variant["marks"][0]["stats"]["median"]
    whole = variant["stats"]["median"]
    marks[role] = mark
    print(f"{role}: first_token {mark * 1e3:.1f} us of {whole * 1e3:.1f} us")
    if not 0 < mark < whole:
        problems.append(f"{role}: first_token at {mark} ms, outside the run (0, {whole}) ms")
if len(marks) == 2 and abs(marks["baseline"] - marks["optimized"]) > 0.5 * max(marks.values()):
    problems.append(f"the same prefill marked at {marks['baseline']} and {marks['optimized']} ms")
for problem in problems:
    print("FAIL:", problem)
sys.exit(1 if problems else 0)
PY
status=$?
[[ $status -eq 0 ]] && echo "test_marks_gpu: passed"
exit $status
