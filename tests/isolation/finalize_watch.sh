#!/usr/bin/env bash
# finalize_watch.sh MPIRUN PROGRAM: scripts/mpirun, running PROGRAM
# (finalize_deadlock, built for Debian's MPICH) on 2 simulated nodes, must
# recognise MPICH's finalize deadlock in each of its 3 runs, kill each run
# long before --timeout, and fail the job as a hang (exit 124): the reruns
# that absorb the deadlock's rare races never pass a job that deadlocks every
# time.
set -uo pipefail
mpirun=$1 prog=$2 limit=250
start=$SECONDS
out=$("$mpirun" --mpi mpich --timeout "$limit" --node-size 1 -n 2 -- "$prog" 2>&1)
rc=$?
took=$((SECONDS - start))
echo "$out"
found=$(grep -c "MPI_Finalize deadlocked" <<<"$out")
again=$(grep -c "running the job again" <<<"$out")
echo "finalize_watch: exit $rc after ${took} s, $found deadlocks recognised, $again runs again"
[[ $rc == 124 && $found == 3 && $again == 2 && $took -lt $limit ]] || { echo "finalize_watch: FAIL (wanted exit 124, 3 deadlocks recognised, 2 runs again, under ${limit} s)"; exit 1; }
echo "finalize_watch: ok"
