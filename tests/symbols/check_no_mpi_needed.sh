#!/usr/bin/env bash
# check_no_mpi_needed.sh READELF LIBRARY...: none of the libraries names an MPI
# library among its DT_NEEDED (libremora serves any MPI of its ABI: the
# program's own MPI resolves PMPI_* and the predefined objects; see
# src/CMakeLists.txt).  Prints each library's MPI entries.
set -euo pipefail
readelf=$1
shift
bad=0
for lib in "$@"; do
  needed=$("$readelf" -d "$lib") || { echo "$lib: readelf failed"; exit 1; }
  mpi=$(grep -oE 'Shared library: \[(libmpi[^]]*|libmpich[^]]*|libmpi_abi[^]]*|libopen-(pal|rte)[^]]*)\]' <<<"$needed" || true)
  if [[ -n "$mpi" ]]; then
    echo "$lib: needs $mpi"
    bad=1
  else
    echo "$lib: no MPI library needed"
  fi
done
exit $bad
