#!/usr/bin/env bash
# On the GPU machine: `bench run --profile ncu` attaches Nsight Compute's metrics to both variants
# of ch07:copy_coalesced (docs/profiling.md): per kernel its duration, SM and memory throughput
# and achieved occupancy, a per-run device time close to the harness's own median, and the
# .ncu-rep report in the run directory. Exit 77 (a skip) where there is no ncu.
# Arguments: <aisp> <aisp_test_suite> <work dir>
set -u
aisp="$1"; work="$3"
rm -rf "$work" && mkdir -p "$work"
if [ -z "${AISP_NCU:-}" ] && ! command -v ncu >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/ncu ]; then
  echo "SKIP: no Nsight Compute (ncu) in PATH or /usr/local/cuda/bin"
  exit 77
fi
"$aisp" bench run -t ch07:copy_coalesced --profile ncu --min-time 0.05 --max-time 3 --timeout 300 \
  --json --artifacts-dir "$work/a" >"$work/out.json" 2>"$work/err.txt"
code=$?
[ "$code" -eq 0 ] || { echo "FAIL: exit $code"; tail -20 "$work/err.txt"; exit 1; }
run_dir=$(dirname "$(ls "$work"/a/runs/*/results.json | head -n 1)")
python3 - "$work/out.json" "$run_dir" <<'PY'
import json, pathlib, sys
pair = json.load(open(sys.argv[1]))["pairs"][0]
run = pathlib.Path(sys.argv[2])
profile = pair.get("profile")
bad = []
if not profile or profile["status"] != "collected":
    print(f"FAIL: profile {json.dumps(profile, indent=1)}"); sys.exit(1)
for role in ("baseline", "optimized"):
    v = profile["variants"].get(role, {})
    if v.get("status") != "collected" or not v.get("kernels"):
        bad.append(f"{role}: {v.get('status')} {v.get('reason')!r}, kernels {v.get('kernels')}"); continue
    if not (run / v["report"]).is_file():
        bad.append(f"{role}: report {v['report']} missing")
    kernel = max(v["kernels"], key=lambda k: k["launches"])
    metrics = {m["name"]: m["median"] for m in kernel["metrics"]}
    for name in ("gpu__time_duration.sum", "sm__throughput.avg.pct_of_peak_sustained_elapsed",
                 "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
                 "sm__warps_active.avg.pct_of_peak_sustained_active"):
        if not metrics.get(name, 0) > 0:
            bad.append(f"{role}: {kernel['name']} lacks {name}: {metrics}")
    harness = pair[role]["stats"]["median"]
    ncu = v["duration_ms_per_run"]
    print(f"{role}: {kernel['name']} x{kernel['launches']}, ncu {ncu} ms per run vs harness median "
          f"{harness:.4f} ms; SM {metrics.get('sm__throughput.avg.pct_of_peak_sustained_elapsed')}%, "
          f"memory {metrics.get('gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed')}%, "
          f"occupancy {metrics.get('sm__warps_active.avg.pct_of_peak_sustained_active')}%")
    if ncu is None or not (0.7 * harness <= ncu <= 1.3 * harness):
        bad.append(f"{role}: ncu's {ncu} ms per run is not within 30% of the harness's {harness} ms")
    if "--clock-control none" not in v["command"]:
        bad.append(f"{role}: command does not leave clocks alone: {v['command']}")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
