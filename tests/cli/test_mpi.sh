#!/usr/bin/env bash
# The mpirun path without a GPU (docs/multi-gpu.md, "Several hosts"). Without mpirun: launcher
# variables that contradict each other, and an MPI module that cannot be loaded, are refused with
# what to do (exit 2, nothing measured); so is bench peak under a launcher of several ranks. With mpirun (Open MPI; skipped with the reason when it
# is absent): `mpirun -np 1` runs like a plain start; `mpirun -np 2` over ch02 and ch04 ends
# cleanly with one run directory, written by rank 0, every pair in it once with its reason, and
# rank 1's worker logs beside rank 0's; a one-GPU (CPU) pair runs on rank 0 and passes; with
# AISP_MPI_EVERY_RANK=1 a CPU pair runs on both ranks in lockstep (the exchanges a multi-GPU pair
# makes on GPUs) and a wrong one fails on both; ranks that select different pairs stop
# before measuring.
# Arguments: $1 the aisp binary, $2 the aisp_test_suite binary, $3 a scratch directory.
set -u
aisp=$1
suite=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
failures=0
source "$(dirname "$0")/../support/cli_expect.sh"

# A launcher's variables without the launcher: the checks before MPI starts.
expect "a rank beyond the job's size is refused" 2 stderr "contradict each other" \
  env OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=2 OMPI_COMM_WORLD_LOCAL_RANK=0 \
  "$aisp" bench run -t ch04 --artifacts-dir "$work/refused"
expect "an MPI module that cannot be loaded names what to install" 2 stderr \
  "install an MPI runtime (Debian/Ubuntu: apt install openmpi-bin libopenmpi3" \
  env OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_LOCAL_RANK=0 \
  AISP_MPI_MODULE="$work/absent/libaisp_mpi.so" \
  "$aisp" bench run -t ch04 --artifacts-dir "$work/refused"
grep -qF "Nothing was measured." "$work/stderr" || fail "the refusal does not say nothing was measured"
expect "bench peak under a launcher with several ranks is refused" 2 stderr \
  "bench peak under mpirun (several ranks)" \
  env OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_LOCAL_RANK=1 \
  "$aisp" bench peak --quick --peaks-dir "$work/refused/peaks"
[[ -d $work/refused/runs ]] && fail "a refused launch still started a run"

mpirun_bin=$(command -v mpirun || true)
if [[ -z $mpirun_bin ]]; then
  echo "ok   (mpirun cases skipped: no mpirun on PATH; install openmpi-bin to run them)"
  exit $((failures > 0))
fi
if [[ ! -e "$(dirname "$aisp")/libaisp_mpi.so" && -z ${AISP_MPI_MODULE:-} ]]; then
  echo "ok   (mpirun cases skipped: this build has no MPI module; reconfigure with libopenmpi-dev)"
  exit $((failures > 0))
fi
launch=("$mpirun_bin" --oversubscribe)
[[ $(id -u) -eq 0 ]] && launch+=(--allow-run-as-root)
# Open MPI in a container: no ptrace-based single copy between processes; and without ssh or
# rsh (a CI image installs none) mpirun refuses to start even for local ranks unless its remote
# agent names something that exists ('false' is never called for ranks on this host).
export OMPI_MCA_btl_vader_single_copy_mechanism=none
command -v ssh >/dev/null || command -v rsh >/dev/null || export OMPI_MCA_plm_rsh_agent=false

check="$(dirname "$suite")/aisp_mpi_job_check"
if [[ -x $check ]]; then
  expect "the MPI job: all-gathers small, empty and of 4 MiB, and the host all-reduce" 0 stdout \
    "mpi job check: ok (2 ranks)" "${launch[@]}" -np 2 "$check"
else
  fail "no $check: build target aisp_mpi_job_check"
fi

expect "mpirun -np 1 runs like a plain start" 0 stdout "1 pair: 1 passed" \
  "${launch[@]}" -np 1 "$suite" bench verify -t ch90:affine --artifacts-dir "$work/one"
grep -qF "rank 0 of" "$work/stdout" && fail "mpirun -np 1 announced ranks"

expect "mpirun -np 2 over ch02 and ch04 ends cleanly" 0 stdout "aisp: rank 0 of 2" \
  "${launch[@]}" -np 2 "$aisp" bench run -t ch02 -t ch04 --min-time 0.05 --max-time 1 \
  --artifacts-dir "$work/job"
runs=$(find "$work/job/runs" -mindepth 1 -maxdepth 1 -type d | wc -l)
[[ $runs -eq 1 ]] || fail "mpirun -np 2 made $runs run directories, not 1"
python3 - "$(run_dir_in "$work/job")" <<'PY' || fail "the job's results, manifest and logs"
import collections, json, pathlib, sys
run = pathlib.Path(sys.argv[1])
problems = []
results = json.load(open(run / "results.json"))
targets = [p["target"] for p in results["pairs"]]
lines = [json.loads(l) for l in open(run / "results.jsonl") if l.strip()]
if len(lines) != len(targets):
    problems.append(f"results.jsonl has {len(lines)} lines for {len(targets)} pairs")
twice = [t for t, n in collections.Counter(targets).items() if n > 1]
if twice:
    problems.append(f"pairs recorded more than once: {twice}")
if not any(t.startswith("ch02:") for t in targets) or not any(t.startswith("ch04:") for t in targets):
    problems.append(f"ch02 or ch04 missing: {targets}")
for p in results["pairs"]:
    if p["status"] != "skipped" or not p.get("reason"):
        problems.append(f"{p['target']}: {p['status']} {p.get('reason')!r}, wanted skipped with a reason")
one_process = [p for p in results["pairs"] if "from one process" in p.get("reason", "")]
if not any(p["target"].startswith("ch02:peer_copy") for p in one_process):
    problems.append("ch02's peer copies are not skipped as one-process pairs")
manifest = json.load(open(run / "manifest.json"))
if manifest.get("mpi", {}).get("ranks") != 2:
    problems.append(f"manifest's mpi: {manifest.get('mpi')}")
if not any((run / "logs" / "rank1").glob("*.log")):
    problems.append("no worker logs of rank 1 under logs/rank1/")
for problem in problems:
    print("FAIL:", problem)
sys.exit(1 if problems else 0)
PY

expect "a one-GPU (CPU) pair runs on rank 0 alone and passes" 0 stdout "1 pair: 1 passed" \
  "${launch[@]}" -np 2 "$suite" bench run -t ch90:affine --min-time 0.05 --max-time 1 \
  --artifacts-dir "$work/cpu"
grep -qF "a one-GPU pair runs on rank 0 alone" "$(run_dir_in "$work/cpu")"/logs/rank1/*.log \
  || fail "rank 1's log does not say the pair ran on rank 0"

# AISP_MPI_EVERY_RANK=1: the CPU pair on both ranks, in lockstep through the orchestrators' MPI
# exchanges (the path a multi-GPU pair takes on GPUs): verified on each rank, one merged record.
expect "AISP_MPI_EVERY_RANK=1 runs a CPU pair on both ranks in lockstep" 0 stdout "1 pair: 1 passed" \
  "${launch[@]}" -np 2 -x AISP_MPI_EVERY_RANK=1 "$suite" bench run -t ch90:affine \
  --min-time 0.05 --max-time 1 --artifacts-dir "$work/every"
python3 - "$(run_dir_in "$work/every")" <<'PY' || fail "the lockstep pair's record and logs"
import json, pathlib, sys
run = pathlib.Path(sys.argv[1])
pair = json.load(open(run / "results.json"))["pairs"][0]
problems = []
if pair.get("ranks") != 2 or "gpus" in pair:
    problems.append(f"ranks {pair.get('ranks')!r}, gpus {pair.get('gpus')!r}: wanted ranks 2, no gpus")
if pair["status"] != "passed" or not pair["verification"]["passed"]:
    problems.append(f"{pair['status']}: {pair.get('reason')!r}")
for who in ("baseline", "optimized"):
    if pair[who]["stats"]["count"] < 10:
        problems.append(f"{who}: {pair[who]['stats']['count']} samples")
logs = list((run / "logs" / "rank1").glob("*.log"))
text = logs[0].read_text() if logs else ""
for wanted in ("runs the pair in lockstep with the other ranks", "result: passed"):
    if wanted not in text:
        problems.append(f"rank 1's log lacks {wanted!r}")
for problem in problems:
    print("FAIL:", problem)
sys.exit(1 if problems else 0)
PY
expect "a wrong CPU pair on both ranks fails, said once for both" 1 stdout "(on all 2 ranks)" \
  "${launch[@]}" -np 2 -x AISP_MPI_EVERY_RANK=1 "$suite" bench verify -t ch90:wrong \
  --artifacts-dir "$work/every_wrong"

cat >"$work/per_rank_targets.sh" <<SH
#!/usr/bin/env bash
[[ \$OMPI_COMM_WORLD_RANK == 0 ]] && target=ch02 || target=ch04
exec "$aisp" bench run -t "\$target" --artifacts-dir "$work/mismatch"
SH
chmod +x "$work/per_rank_targets.sh"
expect "ranks that select different pairs stop before measuring" 2 stderr \
  "every rank must run the same aisp with the same targets" \
  "${launch[@]}" -np 2 "$work/per_rank_targets.sh"
[[ -d $work/mismatch/runs ]] && fail "mismatched ranks still started a run"

exit $((failures > 0))
