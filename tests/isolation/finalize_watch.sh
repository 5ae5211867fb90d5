#!/usr/bin/env bash
# finalize_watch.sh MPIRUN PROGRAM host|REMORA-RUN: PROGRAM (finalize_deadlock,
# built for Debian's MPICH) on 2 simulated nodes, through scripts/mpirun.
#   host        MPICH alone deadlocks in its MPI_Finalize every time: the
#               launcher must recognise it in each of its 3 runs, kill each
#               long before --timeout, and fail the job as a hang (exit 124),
#               so that its reruns, which absorb the deadlock's rare races,
#               never pass a job that deadlocks every time
#               (scripts/mpich-finalize-watch)
#   REMORA-RUN  through Remora the job must end by itself, in its first run,
#               with exit 0 (src/mpi/host_finalize.c)
set -uo pipefail
mpirun=$1 prog=$2 how=$3 limit=250
served=() && [[ $how == host ]] || served=(--remora "$how")
start=$SECONDS
out=$("$mpirun" --mpi mpich "${served[@]}" --timeout "$limit" --node-size 1 -n 2 -- "$prog" 2>&1)
rc=$?
took=$((SECONDS - start))
echo "$out"
found=$(grep -c "MPI_Finalize deadlocked" <<<"$out")
again=$(grep -c "running the job again" <<<"$out")
echo "finalize_watch: exit $rc after ${took} s, $found deadlocks recognised, $again runs again"
if [[ $how == host ]]; then
  [[ $rc == 124 && $found == 3 && $again == 2 && $took -lt $limit ]] ||
    { echo "finalize_watch: FAIL (wanted exit 124, 3 deadlocks recognised, 2 runs again, under ${limit} s)"; exit 1; }
else
  [[ $rc == 0 && $found == 0 ]] || { echo "finalize_watch: FAIL (wanted exit 0 and no deadlock)"; exit 1; }
fi
echo "finalize_watch: ok"
