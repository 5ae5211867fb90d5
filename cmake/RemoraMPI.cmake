# The host MPI libraries Remora is built for.  Each "flavour" is one host MPI
# with its own ABI; the engine, the tools and the tests are built once per
# flavour.  Open MPI is the default flavour: its artefacts carry no suffix,
# the others carry "-<flavour>" (libremora-mpich.so, rmamt-mpich, ...).
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(Python3 COMPONENTS Interpreter REQUIRED)

pkg_check_modules(REMORA_UCX REQUIRED IMPORTED_TARGET ucx)

set(REMORA_FLAVOURS "")
pkg_check_modules(REMORA_OMPI IMPORTED_TARGET ompi-c)
if(REMORA_OMPI_FOUND)
  list(APPEND REMORA_FLAVOURS openmpi)
  set(REMORA_MPI_TARGET_openmpi PkgConfig::REMORA_OMPI)
  set(REMORA_SUFFIX_openmpi "")
  find_program(REMORA_MPIEXEC_openmpi NAMES mpiexec.openmpi REQUIRED)
endif()
pkg_check_modules(REMORA_MPICH IMPORTED_TARGET mpich)
if(REMORA_MPICH_FOUND)
  list(APPEND REMORA_FLAVOURS mpich)
  set(REMORA_MPI_TARGET_mpich PkgConfig::REMORA_MPICH)
  set(REMORA_SUFFIX_mpich "-mpich")
  find_program(REMORA_MPIEXEC_mpich NAMES mpiexec.mpich REQUIRED)
endif()
if(NOT REMORA_FLAVOURS)
  message(FATAL_ERROR "no host MPI found (pkg-config ompi-c or mpich); run scripts/setup")
endif()
message(STATUS "Remora host MPI flavours: ${REMORA_FLAVOURS}")
# Open MPI 5, MPICH 5 and Intel MPI, for a subset of the tests.
include(RemoraExtraHosts)

# remora_mpi_executable(<name> SOURCES ... [LIBS ...] [INCLUDES ...] [INSTALL] [EXTRA_HOSTS])
# builds <name><suffix> for every flavour; the target of flavour F is <name><suffix_F>.
# EXTRA_HOSTS: also for every build of the extra hosts (cmake/RemoraExtraHosts.cmake),
# <name>-<build> (not installed).
function(remora_mpi_executable name)
  cmake_parse_arguments(A "INSTALL;EXTRA_HOSTS" "" "SOURCES;LIBS;INCLUDES" ${ARGN})
  foreach(f ${REMORA_FLAVOURS})
    set(t ${name}${REMORA_SUFFIX_${f}})
    add_executable(${t} ${A_SOURCES})
    target_link_libraries(${t} PRIVATE ${REMORA_MPI_TARGET_${f}} Threads::Threads m ${A_LIBS})
    target_include_directories(${t} PRIVATE ${A_INCLUDES})
    if(A_INSTALL)
      install(TARGETS ${t} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
    endif()
  endforeach()
  if(A_EXTRA_HOSTS)
    foreach(b ${REMORA_EXTRA_BUILDS})
      add_executable(${name}-${b} ${A_SOURCES})
      target_link_libraries(${name}-${b} PRIVATE remora-host-${b} Threads::Threads m ${A_LIBS})
      target_include_directories(${name}-${b} PRIVATE ${A_INCLUDES})
    endforeach()
  endif()
endfunction()
