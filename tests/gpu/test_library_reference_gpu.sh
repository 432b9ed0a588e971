#!/usr/bin/env bash
# On the GPU machine: a GPU target alone (-t ch86:gpu_scale_per_element) times its pair's cuBLAS
# reference with CUDA events in the same worker, interleaved, and reports its fraction of it;
# the reference's own target reports its speedup and no fraction; both report their error
# against the float64 reference (y = 2x is exact in f32: 0).
# Arguments: <aisp> <aisp_test_suite> <work dir>
set -u
suite="$2"; work="$3"
rm -rf "$work" && mkdir -p "$work"
"$suite" bench run -t ch86:gpu_scale --min-time 0.2 --max-time 3 --json \
  --artifacts-dir "$work/a" >"$work/out.json" 2>"$work/err.txt" ||
  { echo "FAIL: bench run -t ch86:gpu_scale"; cat "$work/err.txt"; exit 1; }
python3 - "$work/out.json" <<'PY'
import json, statistics, sys
pairs = {p["target"]: p for p in json.load(open(sys.argv[1]))["pairs"]}
bad = 0
def fail(message):
    global bad
    print("FAIL:", message); bad += 1
kernel, library = pairs.get("ch86:gpu_scale_per_element"), pairs.get("ch86:gpu_scale_cublas")
if not kernel or kernel["status"] != "passed" or not library or library["status"] != "passed":
    fail(f"statuses: {kernel and kernel['status']} {library and library['status']}")
    sys.exit(1)
lib = kernel.get("library", {})
frac, ref = lib.get("fraction"), lib.get("reference")
if lib.get("role") != "timed" or not frac or not ref:
    fail(f"no timed fraction: {json.dumps(lib)[:600]}")
else:
    if ref["method"] not in ("cuda_events", "graph_replay") or len(ref["event_ms"]) < 2:
        fail(f"reference timed by {ref['method']} with {len(ref['event_ms'])} samples")
    ratio = statistics.median(ref["event_ms"]) / statistics.median(kernel["optimized"]["event_ms"])
    if abs(ratio - frac["value"]) > 1e-9 * ratio:
        fail(f"fraction {frac['value']} != reference median / optimized median {ratio}")
    # cuBLAS moves twice the bytes (a copy, then an in-place scale): well above 100% is expected,
    # and anything outside (0.5, 10) means the timing of one of them is wrong.
    if not 0.5 < frac["value"] < 10:
        fail(f"fraction {frac['value']} outside (0.5, 10)")
    print(f"ok: ch86:gpu_scale_per_element at {100 * frac['value']:.1f}% of cuBLAS "
          f"[{100 * frac['ci_low']:.1f}%, {100 * frac['ci_high']:.1f}%]")
if library.get("library", {}).get("role") != "reference" or "fraction" in library.get("library", {}):
    fail(f"the reference target: {library.get('library')}")
for target in ("ch86:gpu_scale_per_element", "ch86:gpu_scale_cublas"):
    out = pairs[target].get("precision", {}).get("optimized", {}).get("outputs", [{}])[0]
    if out.get("relative_rms") != 0 or out.get("sampled", 0) < 1900:
        fail(f"{target}: error against the float64 reference {out}")
sys.exit(1 if bad else 0)
PY
