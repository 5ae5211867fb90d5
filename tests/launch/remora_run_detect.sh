#!/usr/bin/env bash
# remora_run_detect.sh REMORA_RUN OMPI_PROGRAM MPICH_PROGRAM [LAUNCHES]
# remora-run picks the library of the program's MPI on every launch, also
# when many launch at once: LAUNCHES (default 1000) detections per program,
# 8 at a time, each must name the right library.  (A pipeline `ldd | grep -q`
# under pipefail picked Open MPI's for an MPICH program about 1 launch in 10.)
set -euo pipefail
run=$1 ompi=$2 mpich=$3 n=${4:-1000}
unset REMORA_MPI
check() { # program, expected library name
  local bad
  bad=$(seq "$n" | xargs -P 8 -I{} "$run" --info "$1" | grep '^library:' | grep -vc "/$2 " || true)
  echo "$1: $n launches, $bad misdetections"
  [[ $bad == 0 ]]
}
check "$ompi" libremora.so
check "$mpich" libremora-mpich.so
