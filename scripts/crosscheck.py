#!/usr/bin/env python3
"""Compares the harness's median for a variant with Nsight Compute's kernel duration.

Usage: crosscheck.py <visit work dir>. Reads ncu-<kernel>.csv (from scripts/gpu-visit.sh) and the
results.json files of the runs under <work>/art, prints one line per kernel with both medians and
their relative difference. docs/measurement.md records the figures.
"""
import csv
import glob
import json
import statistics
import sys
from pathlib import Path

CHECKS = {"copy_float4": ("ch07:copy_vectorized", "optimized"),
          "transpose_padded": ("ch07:transpose_padded", "optimized")}


def ncu_durations_ms(path):
    rows = []
    lines = [l for l in Path(path).read_text(errors="replace").splitlines() if l.startswith('"')]
    for row in csv.DictReader(lines):
        if row.get("Metric Name") == "gpu__time_duration.sum":
            value = float(row["Metric Value"].replace(",", ""))
            unit = row.get("Metric Unit", "nsecond")
            scale = {"nsecond": 1e-6, "ns": 1e-6, "usecond": 1e-3, "us": 1e-3, "msecond": 1.0, "ms": 1.0, "second": 1e3, "s": 1e3}[unit]
            rows.append(value * scale)
    return rows


def harness_median_ms(work, target, role):
    for results in sorted(glob.glob(f"{work}/art/runs/*/results.json")):
        for pair in json.load(open(results))["pairs"]:
            if pair["target"] == target and pair.get(role):
                return pair[role]["stats"]["median"]
    return None


def main():
    work = sys.argv[1]
    for kernel, (target, role) in CHECKS.items():
        durations = ncu_durations_ms(f"{work}/ncu-{kernel}.csv")
        harness = harness_median_ms(work, target, role)
        if not durations or harness is None:
            print(f"crosscheck {kernel}: missing data (ncu rows {len(durations)}, harness {harness})")
            continue
        ncu = statistics.median(durations)
        print(f"crosscheck {kernel}: harness median {harness:.4f} ms, ncu median {ncu:.4f} ms "
              f"over {len(durations)} launches, difference {100 * (harness - ncu) / ncu:+.2f}%")


if __name__ == "__main__":
    main()
