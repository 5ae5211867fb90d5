# The engine's MPI tests: how they are registered, shared by the directories
# that hold them (included once by tests/CMakeLists.txt):
#   tests/windows     window creation, properties, many windows, MPI_Alloc_mem, cleanliness
#   tests/rma         put/get with derived datatypes, request-based operations
#   tests/sync        every synchronization mode, threads
#   tests/accumulate  accumulates and atomics, and the host MPI bugs they show
#   tests/dynamic     dynamic windows
#   tests/errors      erroneous calls and their error classes
#   tests/handlers    error handler references: get, set, free, create in any order
#
# Plain MPI programs (harness: tests/common/mtest.h, compiled into each
# program: MTEST_COMMON), each run over the host MPI alone (mode host: proves
# the test right), through Remora (remora), through Remora with every rank an
# isolated simulated node (remora-ucx: UCX over TCP), and at 4 ranks through
# Remora with two isolated simulated nodes of two ranks (remora-nodes2: mixed
# windows, shared memory and UCX at once).  Simulated nodes share nothing but
# the network (scripts/mpirun, scripts/simnode).  Every run takes a few seconds with 8
# oversubscribed ranks on 2 cores.
#
# Two ways to register them, from the two issues that brought the tests (the
# label engine or mpi3 on each test still tells which):
#  - engine_test(): every mode of one test in one call, label engine;
#  - mtest_program() + mtest_remora() + mtest_host(): the program, its Remora
#    modes and each host run (with the one-sided component it needs) apart,
#    label mpi3.
#
# Window kinds: the programs that take --win run every kind (allocate, create
# on malloc memory, create on MPI_Alloc_mem memory, dynamic) by default, and so
# do their remora tests.  Over a host alone each kind runs where the host can:
# the host bugs that decide it are listed in tests/accumulate/CMakeLists.txt,
# each with a command that shows it (run from the source tree after building
# into build/).

# mtest_program(<name> [EXTRA_HOSTS]): <name>.c and the harness, built for
# every flavour (and with EXTRA_HOSTS for every build of the extra hosts).
function(mtest_program name)
  remora_mpi_executable(${name} SOURCES ${name}.c ${MTEST_COMMON} INCLUDES ${MTEST_INCLUDE} ${ARGN})
endfunction()

# engine_test(<test> [EXE <program>] NP ... [UCX_NP ...] [MPICH_NP ...] [ARGS ...]
#             [HOST_ENV VAR=value ...] [HOST_ARGS ...] [NO_NODES]
#             [EXTRA_HOSTS_NP ...] [EXTRA_HOST_ARGS_FOR <host> <args>...])
# Without EXE, builds <test>.c as the program <test>.  Registers Open MPI
# host and remora at NP, remora-ucx at UCX_NP, remora-nodes2 at 4 ranks
# unless NO_NODES, and MPICH remora and host at MPICH_NP; HOST_ENV and
# HOST_ARGS go to the host runs only (they name Debian's hosts' components
# and bugs: not given to the extra hosts).
# EXTRA_HOSTS_NP (without EXE): the program is also built for the extra
# hosts (cmake/RemoraExtraHosts.cmake), and every extra host runs it at
# those rank counts alone (host), through Remora (remora) and, where it runs
# across simulated nodes, through Remora with every rank a node (remora-ucx);
# labels extra-hosts and the host's name; EXTRA_HOST_ARGS_FOR: see
# mtest_extra_hosts' HOST_ARGS_FOR.
function(engine_test name)
  cmake_parse_arguments(A "NO_NODES" "EXE" "NP;UCX_NP;MPICH_NP;ARGS;HOST_ENV;HOST_ARGS;EXTRA_HOSTS_NP;EXTRA_HOST_ARGS_FOR" ${ARGN})
  if(A_EXE)
    set(exe ${A_EXE})
  elseif(A_EXTRA_HOSTS_NP)
    set(exe ${name})
    mtest_program(${name} EXTRA_HOSTS)
  else()
    set(exe ${name})
    mtest_program(${name})
  endif()
  if(A_EXTRA_HOSTS_NP)
    mtest_extra_hosts(${name} EXE ${exe} NP ${A_EXTRA_HOSTS_NP} ARGS ${A_ARGS} LABELS engine
      HOST_ARGS_FOR ${A_EXTRA_HOST_ARGS_FOR})
  endif()
  remora_mpi_test(${name} TARGET ${exe} FLAVOURS openmpi MODES host NP ${A_NP} ARGS ${A_ARGS} ${A_HOST_ARGS}
    LABELS engine ENV ${A_HOST_ENV})
  remora_mpi_test(${name} TARGET ${exe} FLAVOURS openmpi MODES remora NP ${A_NP} ARGS ${A_ARGS}
    LABELS engine)
  if(A_UCX_NP)
    remora_mpi_test(${name} TARGET ${exe} FLAVOURS openmpi MODES remora-ucx NP ${A_UCX_NP} ARGS ${A_ARGS}
      LABELS engine)
  endif()
  if(NOT A_NO_NODES)
    remora_mpi_test(${name} TARGET ${exe} FLAVOURS openmpi MODES remora-nodes2 NP 4 ARGS ${A_ARGS}
      LABELS engine)
  endif()
  if(A_MPICH_NP)
    remora_mpi_test(${name} TARGET ${exe} FLAVOURS mpich MODES remora NP ${A_MPICH_NP} ARGS ${A_ARGS}
      LABELS engine)
    remora_mpi_test(${name} TARGET ${exe} FLAVOURS mpich MODES host NP ${A_MPICH_NP}
      ARGS ${A_ARGS} ${A_HOST_ARGS} LABELS engine)
  endif()
endfunction()

# mtest_remora(<test> EXE <program> [OMPI_NP ...] [MPICH_NP ...] [ARGS ...] [UCX_ARGS ...])
# UCX_ARGS go first to the runs over UCX (remora-ucx, remora-nodes2), where
# every atomic is emulated over TCP: e.g. fewer iterations (an mtest option
# takes its first occurrence).
# Also registers, with Open MPI at 4 ranks, the remora-nodes2 mode (two
# simulated nodes of two ranks: mixed windows), and the remora-ucx mode
# (every peer off-node, UCX over TCP loopback) at the smallest two of those rank counts that are >= 2, one for
# MPICH: its ranks spin in MPICH's own waits without yielding, so with more
# ranks than cores a target's progress thread waits for the spinner's whole
# time slice and each software-emulated atomic takes milliseconds (the op x
# type matrix at 4 ranks takes minutes).
# The UCX modes' limit is 300 s (it detects hangs, not slowness): with every
# atomic emulated over TCP, and every multi-element accumulate taking its
# stripe lock, a batch and the unlock (3-4 round trips), acc_tear --threads 4
# at 4 ranks with 30 iterations takes 134 s alone on isolated nodes of 2 (60-65
# s before accumulates were atomic as whole calls) and near 300 s beside its
# twins under ctest -j2; MPICH's 2-rank run, 33 s alone, passed 300 s there.
# Hence UCX_ARGS with fewer iterations for the accumulate stress tests.
function(mtest_remora name)
  cmake_parse_arguments(A "" "EXE" "OMPI_NP;MPICH_NP;ARGS;UCX_ARGS" ${ARGN})
  foreach(f openmpi mpich)
    if(f STREQUAL "openmpi")
      set(nps ${A_OMPI_NP})
    else()
      set(nps ${A_MPICH_NP})
    endif()
    if(NOT nps)
      continue()
    endif()
    remora_mpi_test(${name} TARGET ${A_EXE} FLAVOURS ${f} MODES remora NP ${nps}
      ARGS ${A_ARGS} LABELS mpi3)
    set(ucx_nps "")
    foreach(np ${nps})
      list(LENGTH ucx_nps n)
      set(most 2)
      if(f STREQUAL "mpich")
        set(most 1)
      endif()
      if(np GREATER 1 AND n LESS most)
        list(APPEND ucx_nps ${np})
      endif()
    endforeach()
    if(ucx_nps)
      remora_mpi_test(${name} TARGET ${A_EXE} FLAVOURS ${f} MODES remora-ucx NP ${ucx_nps}
        ARGS ${A_UCX_ARGS} ${A_ARGS} LABELS mpi3)
    endif()
    if(f STREQUAL "openmpi" AND 4 IN_LIST nps)
      remora_mpi_test(${name} TARGET ${A_EXE} FLAVOURS ${f} MODES remora-nodes2 NP 4
        ARGS ${A_UCX_ARGS} ${A_ARGS} LABELS mpi3)
    endif()
  endforeach()
endfunction()

# mtest_extra_hosts(<test> EXE <program> NP ... [ARGS ...] [LABELS ...]
#                   [HOST_ARGS_FOR <host> <args>...])
# Every extra host (cmake/RemoraExtraHosts.cmake) runs <program> (built with
# mtest_program(<program> EXTRA_HOSTS)) at NP ranks alone (host), through
# Remora (remora) and, where the host runs across simulated nodes, through
# Remora with every rank a node of its own (remora-ucx).  Labels extra-hosts
# and the host's name (ctest -L extra-hosts, ctest -L openmpi5).
# HOST_ARGS_FOR: the runs alone of the hosts whose names match the regular
# expression <host> (whole names) get <args> after ARGS (a host bug the test
# must step around, said where it is used).
function(mtest_extra_hosts name)
  cmake_parse_arguments(A "" "EXE" "NP;ARGS;LABELS;HOST_ARGS_FOR" ${ARGN})
  set(for "")
  set(for_args "")
  if(A_HOST_ARGS_FOR)
    list(POP_FRONT A_HOST_ARGS_FOR for)
    set(for_args ${A_HOST_ARGS_FOR})
  endif()
  foreach(h ${REMORA_EXTRA_HOSTS})
    set(host_args "")
    if(for AND h MATCHES "^(${for})$")
      set(host_args ${for_args})
    endif()
    remora_mpi_test(${name} TARGET ${A_EXE} FLAVOURS ${h} MODES host NP ${A_NP} ARGS ${A_ARGS} ${host_args}
      LABELS ${A_LABELS})
    remora_mpi_test(${name} TARGET ${A_EXE} FLAVOURS ${h} MODES remora remora-ucx NP ${A_NP} ARGS ${A_ARGS}
      LABELS ${A_LABELS})
  endforeach()
endfunction()

# mtest_host(<test> EXE <program> FLAVOUR openmpi|mpich [OSC component] NP ... [ARGS ...])
function(mtest_host name)
  cmake_parse_arguments(A "" "EXE;FLAVOUR;OSC" "NP;ARGS" ${ARGN})
  set(env "")
  if(A_OSC)
    set(env OMPI_MCA_osc=${A_OSC})
  endif()
  remora_mpi_test(${name} TARGET ${A_EXE} FLAVOURS ${A_FLAVOUR} MODES host NP ${A_NP}
    ARGS ${A_ARGS} ENV ${env} LABELS mpi3)
endfunction()

# --win for the Open MPI host runs on the windows osc/sm cannot serve.
set(NON_ALLOCATE --win create,alloc_mem,dynamic)
