# remora_mpi_test(<name> [SOURCES ...] [TARGET exe] [NP 1 2 ...] [ARGS ...]
#                 [MODES host remora remora-ucx] [FLAVOURS openmpi mpich <extra host>...]
#                 [TIMEOUT seconds] [LABELS ...] [ENV VAR=value ...])
#
# Registers one ctest per (flavour, mode, rank count), named
#   <name>/<flavour>/<mode>/np<N>
# and run by scripts/mpirun, which sets what Open MPI and MPICH need here
# (root, oversubscription, no binding, btl ^openib) and kills hangs.
# Modes: host = the host MPI alone (proves the test itself is right);
#        remora = through remora-run; remora-ucx = through remora-run with every
#        rank a simulated node of its own (scripts/mpirun --transport ucx: own
#        pid, IPC, mount and network namespaces; UCX over TCP between them);
#        remora-nodes2 = through remora-run with isolated simulated nodes of 2
#        ranks (shared memory inside a node, UCX over TCP between nodes).
#        In the three Remora modes scripts/mpirun --remora fails the test (exit
#        65) unless Remora's engine started in every rank (each leaves a mark
#        in REMORA_SERVED_DIR): no such test can pass over the host alone.
# FLAVOURS may name extra hosts (openmpi5, mpich5, impi, mpich5-abi,
# impi-abi: cmake/RemoraExtraHosts.cmake), whose tests also carry the labels
# extra-hosts and the host's name; their programs are <exe>-<build> (built
# with remora_mpi_executable(... EXTRA_HOSTS)); hosts on one node only skip
# the modes across simulated nodes.
# With SOURCES the executable is built once per flavour (name as target).
# Every test's limit is REMORA_TEST_TIMEOUT seconds unless it asks for more.
# The limit catches hangs; it is not a speed test.  The machines that run the
# suite are loaded (ctest -j2 on 2 cores, where a job whose ranks spin slows
# its neighbour's ranks tenfold and more), so it is generous; ctest prints
# every test's time, which is where slowness shows.
set(REMORA_TEST_TIMEOUT 300 CACHE STRING "seconds before scripts/mpirun kills a test job as hung")
math(EXPR REMORA_TEST_BACKSTOP "${REMORA_TEST_TIMEOUT} + 30")

# remora_mpich_network_alone(<test> <flavour> <mode>): a job of MPICH whose
# ranks talk over UCX/TCP (modes remora-ucx, remora-nodes2, nodes1, nodes2,
# transport-ucx, ucx) runs alone.  MPICH 4.0.2's MPI_Finalize can deadlock
# there: one rank has finished its UCX disconnects and waits in the PMI
# barrier, where it makes no UCX progress, while its peer still waits for a
# disconnect that needs that progress (fixed upstream after 4.0.2 by
# pmodels/mpich#6596).  Remora keeps it from happening in the processes it
# serves (src/mpi/host_finalize.c).  scripts/mpirun recognises the deadlock
# (scripts/mpich-finalize-watch) and kills the job: MPICH alone, it runs the
# job again (3 runs at most); through Remora, the job fails.  Alone, it comes
# less often (beside a spinning 4-rank job about 1 run in 25 hung after the
# program's checks passed).
function(remora_mpich_network_alone t f mode)
  if(f STREQUAL "mpich" AND mode MATCHES "^(remora-ucx|remora-nodes2|nodes1|nodes2|transport-ucx|ucx)$")
    set_tests_properties(${t} PROPERTIES RUN_SERIAL TRUE)
  endif()
endfunction()

# remora_quick_np(<out> HOST|SANITIZE <rank counts...>): the one rank count
# of a list that the quick run (scripts/test without --full) keeps for the
# host-alone runs (HOST: the smallest above 1, else 1) and for the ASan stage
# (SANITIZE: 4 if listed, else 2 if listed, else none).
function(remora_quick_np out which)
  set(nps ${ARGN})
  list(SORT nps COMPARE NATURAL)
  set(pick "")
  foreach(np ${nps})
    if(which STREQUAL "HOST" AND pick STREQUAL "" AND np GREATER 1)
      set(pick ${np})
    elseif(which STREQUAL "SANITIZE" AND np MATCHES "^(2|4)$")
      set(pick ${np})
    endif()
  endforeach()
  if(which STREQUAL "HOST" AND pick STREQUAL "")
    list(GET nps 0 pick)
  endif()
  set(${out} ${pick} PARENT_SCOPE)
endfunction()

# Labels that take a test out of scripts/test's quick run (CI) into
# scripts/test --full:
#   full           the main stage (ctest -LE '^full$')
#   sanitize-full  the ASan+UBSan stage, which runs the label sanitize
function(remora_mpi_test name)
  cmake_parse_arguments(A "" "TARGET;TIMEOUT" "SOURCES;NP;ARGS;MODES;FLAVOURS;LABELS;ENV;LIBS" ${ARGN})
  if(NOT A_NP)
    set(A_NP 1 2 3 4 8)
  endif()
  if(NOT A_MODES)
    set(A_MODES host remora)
  endif()
  if(NOT A_FLAVOURS)
    set(A_FLAVOURS ${REMORA_FLAVOURS})
  endif()
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT ${REMORA_TEST_TIMEOUT})
  endif()
  set(exe ${A_TARGET})
  if(A_SOURCES)
    set(exe ${name})
    remora_mpi_executable(${name} SOURCES ${A_SOURCES} LIBS ${A_LIBS}
      INCLUDES ${PROJECT_SOURCE_DIR}/tests/common)
  endif()
  foreach(f ${A_FLAVOURS})
    set(extra_env "")
    set(extra_labels "")
    if(f IN_LIST REMORA_EXTRA_HOSTS)
      # an extra host (cmake/RemoraExtraHosts.cmake): scripts/mpirun is told its prefix
      remora_extra_host_env(extra_env ${f})
      set(extra_labels extra-hosts)
    elseif(NOT f IN_LIST REMORA_FLAVOURS)
      continue()
    endif()
    foreach(mode ${A_MODES})
      if(extra_labels AND mode MATCHES "^remora-(ucx|nodes2)$" AND NOT REMORA_HOST_NETWORK_${f})
        continue() # a host on one node only (Intel MPI here)
      endif()
      set(run ${PROJECT_SOURCE_DIR}/scripts/mpirun --mpi ${f} --timeout ${A_TIMEOUT})
      if(mode STREQUAL "remora")
        list(APPEND run --remora ${PROJECT_BINARY_DIR}/bin/remora-run)
      elseif(mode STREQUAL "remora-ucx")
        list(APPEND run --remora ${PROJECT_BINARY_DIR}/bin/remora-run --transport ucx)
      elseif(mode STREQUAL "remora-nodes2")
        list(APPEND run --remora ${PROJECT_BINARY_DIR}/bin/remora-run --node-size 2)
      endif()
      remora_quick_np(host_np HOST ${A_NP})
      remora_quick_np(sanitize_np SANITIZE ${A_NP})
      foreach(np ${A_NP})
        set(t ${name}/${f}/${mode}/np${np})
        # a program CMake does not build itself (the Fortran tests) is bin/<exe>
        set(prog ${PROJECT_BINARY_DIR}/bin/${exe}${REMORA_SUFFIX_${f}})
        if(TARGET ${exe}${REMORA_SUFFIX_${f}})
          set(prog $<TARGET_FILE:${exe}${REMORA_SUFFIX_${f}}>)
        endif()
        add_test(NAME ${t} COMMAND ${run} -n ${np} -- ${prog} ${A_ARGS})
        # ctest's own timeout is a backstop: scripts/mpirun kills at A_TIMEOUT first.
        math(EXPR backstop "${A_TIMEOUT} + 30")
        set(labels mpi ${f} ${mode} ${A_LABELS} ${extra_labels})
        # the host alone proves the test right: at one rank count in the quick run
        if(mode STREQUAL "host" AND NOT np EQUAL host_np)
          list(APPEND labels full)
        endif()
        # the sanitizer run (scripts/test): through Remora, Open MPI, at 4
        # ranks, else 2, else 1; every count of 1, 2, 4 with --full
        if(mode STREQUAL "remora" AND f STREQUAL "openmpi")
          if(np EQUAL sanitize_np OR (np EQUAL 1 AND sanitize_np STREQUAL ""))
            list(APPEND labels sanitize)
          elseif(np MATCHES "^(1|2|4)$")
            list(APPEND labels sanitize-full)
          endif()
        endif()
        set_tests_properties(${t} PROPERTIES TIMEOUT ${backstop} LABELS "${labels}" ENVIRONMENT "${A_ENV};${extra_env}")
        remora_mpich_network_alone(${t} ${f} ${mode})
      endforeach()
    endforeach()
  endforeach()
endfunction()
