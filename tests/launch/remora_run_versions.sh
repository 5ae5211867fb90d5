#!/usr/bin/env bash
# remora_run_versions.sh REMORA_RUN CC
# Which MPI versions remora-run serves and which it refuses, told from the
# library's own MPI_Get_library_version: stand-in MPI libraries (built here
# with CC, named as the real ones, returning a real version string) are
# named with REMORA_MPI_LIB, and remora-run --info must give the expected
# family, Remora library or refusal.
set -euo pipefail
run=$1 cc=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset REMORA_MPI REMORA_MPI_LIB OMPI_COMM_WORLD_SIZE PMI_SIZE PMI_RANK PMI_FD
libdir=$(cd "$(dirname "$run")/../lib" && pwd)
bad=0
# case NAME SONAME VERSION EXPECT: EXPECT is "served <family> <library>" or "refused <text>"
case_() {
  local name=$1 soname=$2 version=$3 expect=$4 dir=$tmp/$1
  mkdir -p "$dir"
  printf '#include <string.h>\nint MPI_Get_library_version(char *s, int *n)\n{ strcpy(s, "%s\\nmore\\n"); *n = (int)strlen(s); return 0; }\n' \
    "$version" > "$dir/v.c"
  "$cc" -shared -fPIC -o "$dir/$soname" "$dir/v.c"
  local out
  out=$(REMORA_MPI_LIB=$dir/$soname "$run" --info /bin/true 2>&1) || true
  local got_mpi got_lib got_verdict
  got_mpi=$(sed -n 's/^MPI: *//p' <<<"$out")
  got_lib=$(sed -n 's/^library: *\([^ ]*\).*/\1/p' <<<"$out")
  got_verdict=$(sed -n 's/^verdict: *//p' <<<"$out")
  local ok=1
  case $expect in
    served\ *)
      read -r _ fam lib <<<"$expect"
      [[ $got_verdict == "served by Remora" && $got_mpi == "${fam//_/ }"* && $got_lib == */$lib ]] || ok=0 ;;
    refused\ *)
      [[ $got_verdict != "served by Remora" && $got_verdict == *"${expect#refused }"* ]] || ok=0 ;;
  esac
  if ((ok)); then
    echo "ok    $name: $got_mpi | $got_verdict"
  else
    echo "WRONG $name (expected $expect):"; sed 's/^/    /' <<<"$out"; bad=1
  fi
}
case_ ompi41  libmpi.so.40   "Open MPI v4.1.6, package: Open MPI, ident: 4.1.6"  "served Open_MPI_4.1.6 libremora.so"
case_ ompi50  libmpi.so.40   "Open MPI v5.0.3, package: Open MPI, ident: 5.0.3"  "served Open_MPI_5.0.3 libremora.so"
case_ ompi40  libmpi.so.40   "Open MPI v4.0.7, package: Open MPI, ident: 4.0.7"  "refused Open MPI 4.0.7"
case_ ompi51  libmpi.so.40   "Open MPI v5.1.0, package: Open MPI, ident: 5.1.0"  "refused Open MPI 5.1.0"
case_ mpich41 libmpich.so.12 "MPICH Version:      4.1.2"                         "served MPICH_4.1.2 libremora-mpich.so"
case_ mpich34 libmpi.so.12   "MPICH Version:	3.4.3"                           "refused MPICH 3.4.3"
case_ impi21  libmpi.so.12   "Intel(R) MPI Library 2021.13 for Linux* OS"        "served Intel_MPI_2021.13 libremora-mpich.so"
case_ impi19  libmpi.so.12   "Intel(R) MPI Library 2019 Update 9 for Linux* OS"  "refused Intel MPI 2019 Update 9"
case_ other12 libmpi.so.12   "Some MPI 1.0"                                      "refused unknown MPI (Some MPI 1.0)"
case_ foreign libfoompi.so.3 "Open MPI v4.1.6"                                   "refused an MPI library Remora does not know"
if [[ -e $libdir/libremora-abi.so ]]; then
  case_ abi   libmpi_abi.so.1 "MPICH Version:      5.0.2"                        "served MPICH_5.0.2 libremora-abi.so"
else
  case_ abi   libmpi_abi.so.1 "MPICH Version:      5.0.2"                        "refused libremora-abi.so, which is not in"
fi
exit $bad
