# job_leftovers PREFIX N OUT (sourced by test scripts): the job whose N ranks
# printed "rank R pid P" in OUT left no process and no POSIX segment of
# Remora's (/dev/shm/remora-<pid>-<serial>, src/runtime/segment.c) behind.
# Waits up to 5 s for the processes to go; what is left is killed and
# removed.  Says what is wrong, each line after PREFIX, and returns 1; else 0.
# Only this job's pids are looked at: jobs running beside it are not touched.
job_leftovers() {
  local prefix=$1 n=$2 out=$3 pids alive left p bad=0
  pids=$(sed -n 's/^rank [0-9]* pid \([0-9]*\)$/\1/p' <<<"$out" | sort -u)
  [[ $(wc -w <<<"$pids") == "$n" ]] || { echo "$prefix $(wc -w <<<"$pids") of $n ranks told their pid"; bad=1; }
  for _ in $(seq 50); do
    alive=""
    for p in $pids; do [[ -e /proc/$p ]] && alive+=" $p"; done
    [[ -n $alive ]] || break
    sleep 0.1
  done
  if [[ -n $alive ]]; then
    echo "$prefix processes of the job left:$alive"; bad=1
    for p in $alive; do kill -9 "$p" 2>/dev/null; done
  fi
  left=""
  for p in $pids; do left+=$(cd /dev/shm && ls -d "remora-$p-"* 2>/dev/null | tr '\n' ' '); done
  [[ -z $left ]] || { echo "$prefix left in /dev/shm: $left"; bad=1; (cd /dev/shm && rm -f $left); }
  return $bad
}
