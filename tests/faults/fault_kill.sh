#!/usr/bin/env bash
# fault_kill.sh MPIRUN CASE LIMIT VICTIM [mpirun options...] -n N
# A rank of a job across simulated nodes dies by SIGKILL in the middle of
# synchronisation (fault_kill.c, --case CASE).  The survivors must not hang:
# the job ends within LIMIT seconds of the death, with a non-zero status
# (the launcher ends it, or a survivor gets an MPI error); afterwards no
# process of the job is left: no rank and no simulated node (each node's
# namespaces, its /dev/shm with Remora's segments among them, live only as
# long as its processes).  The job's processes are those that carry its
# FAULT_KILL_JOB token in their environment, so jobs beside this one are
# neither counted nor touched.  Prints one line:
#   case CASE: <outcome> <seconds> s after the kill
set -uo pipefail
mpirun=$1 case=$2 limit=$3 victim=$4; shift 4
token=$$-$RANDOM-$(date +%s%N) # in the job's environment only, not in this script's
job_pids() { grep -lsz "^FAULT_KILL_JOB=$token\$" /proc/[0-9]*/environ | cut -d/ -f3; }
out=$(FAULT_KILL_JOB=$token "$mpirun" --timeout $((limit + 60)) "$@" -- "$victim" --case "$case" 2>&1)
rc=$?
end=$(date +%s%N)
fail=0
# anywhere in a line: MPICH's launcher may put another rank's unfinished
# line before it ("heap ready, case quietkilling at ...")
killed=$(sed -n 's/.*killing at \([0-9][0-9]*\).*/\1/p' <<<"$out" | head -1)
if [[ -z $killed ]]; then
  echo "case $case: the job did not get to the kill (rc $rc):"; echo "$out" | tail -20; exit 1
fi
secs=$(awk -v a="$killed" -v b="$end" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
if [[ $rc == 124 ]]; then outcome="HUNG (killed by the timeout)"; fail=1
elif [[ $rc == 0 ]]; then outcome="exited 0 although a rank died"; fail=1
elif [[ $rc == 65 ]]; then outcome="NOT SERVED BY REMORA (scripts/mpirun's exit 65)"; fail=1
elif grep -q "returned error class" <<<"$out"; then outcome="survivors got MPI errors, job ended (rc $rc)"
else outcome="the launcher ended the job (rc $rc)"
fi
awk -v s="$secs" -v l="$limit" 'BEGIN { exit !(s > l) }' && { outcome="$outcome, later than $limit s"; fail=1; }
echo "case $case: $outcome, $secs s after the kill"
grep "returned error class\|past the victim" <<<"$out" | head -5
for _ in $(seq 50); do [[ -z $(job_pids) ]] && break; sleep 0.1; done
left=$(job_pids | tr '\n' ' ')
if [[ -n $left ]]; then
  echo "processes of the job left: $left"; fail=1
  for p in $left; do kill -9 "$p" 2>/dev/null; done
fi
((fail)) && { echo "$out" | tail -20; }
exit $fail
