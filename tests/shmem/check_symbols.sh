#!/usr/bin/env bash
# check_symbols.sh LIBRARY SYMBOL-LIST [NM]
#
# Does the OpenSHMEM library define every C routine of OpenSHMEM 1.6, and
# the pshmem_ profiling twin of each?  SYMBOL-LIST is api-1.6-symbols.txt:
# every routine name of the spec's (non-deprecated) synopses with the typed
# and sized variants expanded from the spec's type tables, one per line,
# 1,684 names (made for the project from the OpenSHMEM 1.6 text; the same
# list as the team's shared openshmem/api-1.6-symbols.txt).  Prints the
# missing names and their counts; exits 1 when any is missing.
set -euo pipefail
lib=$1 list=$2 nm=${3:-nm}
[[ -r "$lib" && -r "$list" ]] || { echo "usage: check_symbols.sh LIBRARY SYMBOL-LIST [NM]" >&2; exit 2; }

defined=$(mktemp)
trap 'rm -f "$defined"' EXIT
# T: text, W/V: weak (every shmem_X is a weak alias of pshmem_X)
"$nm" -D --defined-only "$lib" | awk '$2 ~ /^[TWV]$/ {print $3}' | sort -u > "$defined"

names=$(grep -v '^[[:space:]]*$' "$list" | sort -u)
total=$(wc -l <<< "$names")
missing=$(comm -23 <(echo "$names") "$defined")
missing_p=$(comm -23 <(sed 's/^/p/' <<< "$names" | sort -u) "$defined")
count() { [[ -z "$1" ]] && echo 0 || wc -l <<< "$1"; }
n_missing=$(count "$missing") n_missing_p=$(count "$missing_p")

echo "$(basename "$lib"): $((total - n_missing)) of $total OpenSHMEM 1.6 routines defined," \
     "$((total - n_missing_p)) of $total pshmem_ twins"
if [[ $n_missing -gt 0 ]]; then
  echo "missing routines ($n_missing):"
  sed 's/^/  /' <<< "$missing"
fi
if [[ $n_missing_p -gt 0 ]]; then
  echo "missing pshmem_ twins ($n_missing_p):"
  sed 's/^/  /' <<< "$missing_p"
fi
[[ $n_missing -eq 0 && $n_missing_p -eq 0 ]]
