#!/usr/bin/env bash
# fault_kill.sh MPIRUN CASE LIMIT VICTIM [mpirun options...] -n N
# A rank of a job across simulated nodes dies by SIGKILL in the middle of
# synchronisation (fault_kill.c, --case CASE).  The survivors must not hang:
# the job ends within LIMIT seconds of the death, with a non-zero status
# (the launcher ends it, or a survivor gets an MPI error); afterwards no
# process of the job, no simulated node (scripts/simnode's holders) and
# nothing Remora made in /dev/shm (remora-*) is left.  Prints one line:
#   case CASE: <outcome> <seconds> s after the kill
set -uo pipefail
mpirun=$1 case=$2 limit=$3 victim=$4; shift 4
name=$(basename "$victim" | cut -c1-15) # the kernel's process name
shm_before=$(ls /dev/shm | grep '^remora-' || true)
out=$("$mpirun" --timeout $((limit + 60)) "$@" -- "$victim" --case "$case" 2>&1)
rc=$?
end=$(date +%s%N)
fail=0
killed=$(sed -n 's/^killing at \([0-9]*\)$/\1/p' <<<"$out" | head -1)
if [[ -z $killed ]]; then
  echo "case $case: the job did not get to the kill (rc $rc):"; echo "$out" | tail -20; exit 1
fi
secs=$(awk -v a="$killed" -v b="$end" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
if [[ $rc == 124 ]]; then outcome="HUNG (killed by the timeout)"; fail=1
elif [[ $rc == 0 ]]; then outcome="exited 0 although a rank died"; fail=1
elif grep -q "returned error class" <<<"$out"; then outcome="survivors got MPI errors, job ended (rc $rc)"
else outcome="the launcher ended the job (rc $rc)"
fi
awk -v s="$secs" -v l="$limit" 'BEGIN { exit !(s > l) }' && { outcome="$outcome, later than $limit s"; fail=1; }
echo "case $case: $outcome, $secs s after the kill"
grep "returned error class\|past the victim" <<<"$out" | head -5
for _ in $(seq 50); do pgrep -x "$name" >/dev/null || break; sleep 0.1; done
if pgrep -x "$name" >/dev/null; then echo "processes left: $(pgrep -ax "$name")"; fail=1; pkill -9 -x "$name"; fi
left=$(comm -13 <(echo "$shm_before") <(ls /dev/shm | grep '^remora-' || true))
[[ -z $left ]] || { echo "left in /dev/shm: $left"; fail=1; }
((fail)) && { echo "$out" | tail -20; }
exit $fail
