#!/usr/bin/env bash
# sigkill_clean.sh MPIRUN REMORA_RUN VICTIM [mpirun options...]
# A rank of a Remora job is killed with SIGKILL while windows of every
# flavour hold node-shared memory (sigkill_victim.c); afterwards no process
# of the job and nothing Remora made (/dev/shm/remora-*) may be left.  Run
# with both ways of making shared memory: memfd (nothing named ever exists)
# and REMORA_SHM=posix (names exist only while a window is being created).
set -uo pipefail
mpirun=$1 remora_run=$2 victim=$3; shift 3
name=$(basename "$victim" | cut -c1-15) # the kernel's process name (pgrep -f would match this script)
fail=0
for shm in memfd posix; do
  out=$(REMORA_SHM=$shm "$mpirun" "$@" --timeout 120 --remora "$remora_run" -n 4 -- "$victim" 2>&1)
  rc=$?
  grep -q "windows ready" <<<"$out" || { echo "$shm: the job did not get to the kill (rc $rc):"; echo "$out" | head -20; fail=1; }
  [[ $rc != 0 ]] || { echo "$shm: a job with a killed rank exited 0"; fail=1; }
  [[ $rc != 124 ]] || { echo "$shm: the job hung after the kill (launcher timeout)"; fail=1; }
  for _ in $(seq 50); do pgrep -x "$name" >/dev/null || break; sleep 0.1; done
  if pgrep -x "$name" >/dev/null; then echo "$shm: processes left: $(pgrep -ax "$name")"; fail=1; pkill -9 -x "$name"; fi
  left=$(ls /dev/shm | grep '^remora-' || true)
  [[ -z $left ]] || { echo "$shm: left in /dev/shm: $left"; fail=1; }
done
[[ $fail == 0 ]] && echo "clean after SIGKILL (memfd and posix segments)"
exit $fail
