#!/usr/bin/env bash
# sigkill_clean.sh MPIRUN REMORA_RUN VICTIM [mpirun options...]
# A rank of a Remora job is killed with SIGKILL while windows of every
# flavour hold node-shared memory (sigkill_victim.c); afterwards no process
# of the job and nothing Remora made for it may be left.  Run with both ways
# of making shared memory: memfd (nothing named ever exists) and
# REMORA_SHM=posix (names exist only while a window is being created).
# Only this job is looked at: its ranks print their pids, and Remora's POSIX
# segments are /dev/shm/remora-<pid of the creator>-<serial>
# (src/runtime/segment.c), so other jobs running beside this one (their
# processes, their segments) can neither fail nor be touched by it.
set -uo pipefail
mpirun=$1 remora_run=$2 victim=$3; shift 3
source "$(dirname "${BASH_SOURCE[0]}")/../common/job_leftovers.sh"
fail=0
for shm in memfd posix; do
  out=$(REMORA_SHM=$shm "$mpirun" "$@" --timeout 120 --remora "$remora_run" -n 4 -- "$victim" 2>&1)
  rc=$?
  grep -q "windows ready" <<<"$out" || { echo "$shm: the job did not get to the kill (rc $rc):"; echo "$out" | head -20; fail=1; }
  ! grep -q "^FAIL" <<<"$out" || { echo "$shm: the windows did not work before the kill:"; grep "^FAIL" <<<"$out" | head; fail=1; }
  [[ $rc != 0 ]] || { echo "$shm: a job with a killed rank exited 0"; fail=1; }
  # scripts/mpirun's exit 65: some rank ran over the host MPI alone
  [[ $rc != 65 ]] || { echo "$shm: not served by Remora:"; grep "NOT SERVED" <<<"$out"; fail=1; }
  [[ $rc != 124 ]] || { echo "$shm: the job hung after the kill (launcher timeout)"; fail=1; }
  job_leftovers "$shm:" 4 "$out" || fail=1
done
[[ $fail == 0 ]] && echo "clean after SIGKILL (memfd and posix segments)"
exit $fail
