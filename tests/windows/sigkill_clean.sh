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
  pids=$(sed -n 's/^rank [0-9]* pid \([0-9]*\)$/\1/p' <<<"$out" | sort -u)
  n=$(wc -w <<<"$pids")
  [[ $n == 4 ]] || { echo "$shm: $n of 4 ranks told their pid"; fail=1; }
  for _ in $(seq 50); do
    alive=""
    for p in $pids; do [[ -e /proc/$p ]] && alive+=" $p"; done
    [[ -n $alive ]] || break
    sleep 0.1
  done
  if [[ -n $alive ]]; then
    echo "$shm: processes of the job left:$alive"; fail=1
    for p in $alive; do kill -9 "$p" 2>/dev/null; done
  fi
  left=""
  for p in $pids; do left+=$(cd /dev/shm && ls -d "remora-$p-"* 2>/dev/null | tr '\n' ' '); done
  [[ -z $left ]] || { echo "$shm: left in /dev/shm: $left"; fail=1; (cd /dev/shm && rm -f $left); }
done
[[ $fail == 0 ]] && echo "clean after SIGKILL (memfd and posix segments)"
exit $fail
