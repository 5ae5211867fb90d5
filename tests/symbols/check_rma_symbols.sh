#!/usr/bin/env bash
# check_rma_symbols.sh HOST_LIB REMORA_LIB [NM]
#
# Lists every function of the MPI-4.0 one-sided chapter (chapter 12, "One-Sided
# Communications", plus MPI_Alloc_mem/MPI_Free_mem) that the host MPI library
# HOST_LIB exports, and fails if the Remora library REMORA_LIB does not define
# it too: a program that calls such a function would reach the host directly
# with a Remora window handle, which the host does not know.
#
# The list comes from the host's dynamic symbol table, never from a list
# written here, so a newer host with a new RMA function makes this fail.
#
# And it fails unless every MPI_ function Remora defines is also defined
# under its PMPI_ name: the hosts' Fortran bindings call the PMPI_ names
# (Open MPI's mpif.h, mpi and mpi_f08 layers; MPICH's mpi_f08), and so do
# profiling tools' wrappers.
#
# What counts (the MPI_ names):
#   MPI_Win_*                    every window function, _c forms included
#                                (case-sensitive: see MPI_WIN_* below)
#   MPI_Put, MPI_Rput, MPI_Rget, MPI_Accumulate, MPI_Raccumulate,
#   MPI_Get_accumulate, MPI_Rget_accumulate, MPI_Fetch_and_op,
#   MPI_Compare_and_swap         with any suffix (_c, and whatever a later MPI
#                                adds: no function of another chapter starts so)
#   MPI_Get, MPI_Get_c           only these: MPI_Get_address, _count,
#                                _elements, _version, ... are other chapters
#   MPI_Alloc_mem, MPI_Free_mem
#
# What does not count, and why (checked against nm -D of Open MPI 4.1.4's
# libmpi.so and MPICH 4.0.2's libmpich.so):
#   MPI_WIN_DUP_FN, MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN (Open MPI;
#     MPICH has them as macros): predefined attribute callbacks, not calls on
#     a window.  The user passes them to MPI_Win_create_keyval, which Remora
#     defines, and they never look at the window argument.
#   MPI_Attr_put/get/delete, MPI_Keyval_create/free, MPI_Errhandler_create/
#     get/set (the deprecated MPI-1 names): they take communicators only;
#     MPI-1 had no windows, so no deprecated name takes an MPI_Win.
#   MPI_Errhandler_c2f/f2c: take an MPI_Errhandler, and Remora's window error
#     handlers are host error handlers (Remora serves MPI_Errhandler_free too,
#     to count the references to the ones it made, and passes the others on).
#   MPI_Win_c2f/f2c under MPICH: not exported (macros in mpi.h; a window's
#     Fortran handle is its C handle), so they are not in the list there.
set -uo pipefail
export LC_ALL=C  # one collation for sort and comm
if [ $# -lt 2 ]; then
  echo "usage: $0 HOST_LIB REMORA_LIB [NM]" >&2
  exit 2
fi
host=$1 remora=$2 nm=${3:-nm}

RMA_RE='^MPI_(Win_[A-Za-z0-9_]+|(Put|Rput|Rget|Accumulate|Raccumulate|Get_accumulate|Rget_accumulate|Fetch_and_op|Compare_and_swap)(_[A-Za-z0-9_]+)?|Get(_c)?|Alloc_mem|Free_mem)$'

# Defined, exported function names (T, W, i: ifunc), without symbol versions.
exported() {
  "$nm" -D --defined-only "$1" | awk '$2 ~ /^[TWi]$/ { sub(/@.*/, "", $3); print $3 }' | sort -u
}

for f in "$host" "$remora"; do
  if [ ! -r "$f" ]; then
    echo "FAIL: cannot read $f" >&2
    exit 2
  fi
done
host_all=$(exported "$host") || { echo "FAIL: $nm -D $host failed" >&2; exit 2; }
remora_all=$(exported "$remora") || { echo "FAIL: $nm -D $remora failed" >&2; exit 2; }
rma=$(grep -E "$RMA_RE" <<<"$host_all")

# A pattern or nm that finds nothing would pass vacuously.
for must in MPI_Win_create MPI_Put MPI_Alloc_mem; do
  if ! grep -qx "$must" <<<"$rma"; then
    echo "FAIL: $must not found among the RMA symbols of $host: pattern or nm broken" >&2
    exit 2
  fi
done

missing=$(comm -23 <(printf '%s\n' "$rma") <(printf '%s\n' "$remora_all"))
n_rma=$(wc -l <<<"$rma")
echo "host:   $host ($n_rma RMA-chapter functions)"
echo "remora: $remora"
while read -r s; do
  if grep -qx "$s" <<<"$missing"; then
    echo "  MISSING $s"
  else
    echo "  ok      $s"
  fi
done <<<"$rma"
if [ -n "$missing" ]; then
  echo "FAIL: Remora does not define $(wc -l <<<"$missing") of the host's $n_rma RMA-chapter functions:" $missing
  exit 1
fi
echo "OK: Remora defines all $n_rma RMA-chapter functions of the host"

served=$(grep -E '^MPI_' <<<"$remora_all")
no_pmpi=$(comm -23 <(printf '%s\n' "$served") <(sed -n 's/^P\(MPI_\)/\1/p' <<<"$remora_all"))
if [ -n "$no_pmpi" ]; then
  echo "FAIL: Remora defines these without their PMPI_ names:" $no_pmpi
  exit 1
fi
echo "OK: all $(wc -l <<<"$served") MPI_ functions of Remora are PMPI_ functions too"
