#!/usr/bin/env bash
# Installs what aisp builds with, from Debian/Ubuntu packages, on a fresh machine. Idempotent:
# packages already present are left alone, and nothing is installed when everything is there
# (the GPU machine has no network and needs no installs).
# The CUDA 13 toolkit is not a Debian package: it is expected at /usr/local/cuda (NVIDIA's
# cuda-toolkit-13-0 package or runfile installs it there); this script says so if it is missing.
set -euo pipefail

# libopenmpi-dev and openmpi-bin: the optional MPI module (docs/multi-gpu.md, "Several hosts") is
# built and tests/cli/test_mpi.sh runs `mpirun -np 2` on the CPU.
packages=(cmake ninja-build g++ git python3 libcli11-dev nlohmann-json3-dev libfmt-dev
          libgtest-dev libopenmpi-dev openmpi-bin)
if [ "${AISP_WITH_BROWSER:-0}" = 1 ]; then packages+=(chromium); fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}"
else
  echo "install-deps: all packages present"
fi

nvcc=${CUDACXX:-/usr/local/cuda/bin/nvcc}
if ! [ -x "$nvcc" ] && ! command -v nvcc >/dev/null 2>&1; then
  cat >&2 <<'MSG'
install-deps: no CUDA toolkit found (looked for /usr/local/cuda/bin/nvcc and nvcc on PATH).
  aisp needs CUDA 12.8 or newer (13.0 recommended). Install NVIDIA's cuda-toolkit-13-0 package
  from NVIDIA's apt repository, or set CUDACXX to your nvcc, then run this again.
MSG
  exit 1
fi
echo "install-deps: CUDA toolkit: $("${nvcc}" --version | tail -n 1)"
