# The OpenSHMEM user tools, per host MPI flavour (no suffix for Open MPI,
# "-mpich" for MPICH, as the libraries):
#   oshcc, oshc++   the host MPI's compiler wrapper with Remora's shmem.h and
#                   libremora-shmem (scripts/oshcc.in)
#   oshrun          scripts/mpirun for that MPI (scripts/oshrun.in)
#   remora-shmem.pc pkg-config (cmake/remora-shmem.pc.in)
# Each wrapper is made twice: in build/bin, pointing into the build tree, and
# for the installation, pointing to its directories relative to itself (the
# installed tree can be moved).  The names are those users know; they live in
# build/bin and <prefix>/bin, and installing refuses to replace a wrapper that
# is not Remora's (Debian's /usr/bin/oshcc is Open MPI's OSHMEM).
# Included after src/ (the libraries) and the test set-up; it also adds the
# OpenSHMEM benchmark (bench/shmem), which uses the tools.
set(REMORA_SHMEM_TOOLS_STAGE ${PROJECT_BINARY_DIR}/shmem-tools) # the installed versions

# <pshmem.h> and <pshmemx.h>, the profiling interface's headers, next to
# shmem.h (the wrappers put that directory first, so Remora's win over the
# pshmem.h and pshmemx.h of Open MPI's OSHMEM in its include directory)
foreach(h pshmem.h pshmemx.h)
  configure_file(${PROJECT_SOURCE_DIR}/src/shmem/gen/${h} ${PROJECT_BINARY_DIR}/include/${h} COPYONLY)
  install(FILES ${PROJECT_BINARY_DIR}/include/${h} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()
set(REMORA_SHMEM_TOOLS_LIBEXEC ${CMAKE_INSTALL_LIBEXECDIR}/remora) # scripts/mpirun and its simnode
set(REMORA_SHMEM_WRAPPER_openmpi_C mpicc.openmpi)
set(REMORA_SHMEM_WRAPPER_openmpi_CXX mpicxx.openmpi)
set(REMORA_SHMEM_WRAPPER_mpich_C mpicc.mpich)
set(REMORA_SHMEM_WRAPPER_mpich_CXX mpicxx.mpich)
set(REMORA_SHMEM_PC_REQUIRES_openmpi ompi-c)
set(REMORA_SHMEM_PC_REQUIRES_mpich mpich)

# "$here/<path from the installed bin directory to dir>" for the installed wrappers
function(remora_shmem_from_bindir out dir)
  file(RELATIVE_PATH rel ${CMAKE_INSTALL_FULL_BINDIR} ${dir})
  set(${out} "\$here/${rel}" PARENT_SCOPE)
endfunction()

# remora_shmem_tool(<template> <name> [BUILD_ONLY]): build/bin/<name> and its
# installed twin (BUILD_ONLY: none), from the OSH_* variables of the caller
# (the *_BUILD / *_INSTALL pairs).
function(remora_shmem_tool template name)
  set(OSH_NAME ${name})
  set(wheres BUILD INSTALL)
  if(ARGN STREQUAL "BUILD_ONLY")
    set(wheres BUILD)
  endif()
  foreach(where ${wheres})
    foreach(v INCDIR LIBDIR LAUNCHER)
      set(OSH_${v} "${OSH_${v}_${where}}")
    endforeach()
    if(where STREQUAL BUILD)
      set(out ${PROJECT_BINARY_DIR}/bin/${name})
    else()
      set(out ${REMORA_SHMEM_TOOLS_STAGE}/${name})
    endif()
    configure_file(${PROJECT_SOURCE_DIR}/scripts/${template} ${out} @ONLY
      FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  endforeach()
  if(ARGN STREQUAL "BUILD_ONLY")
    return()
  endif()
  # the prefix as of the install (cmake --install --prefix P), not of the configure
  set(dest "\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/${name}")
  if(IS_ABSOLUTE ${CMAKE_INSTALL_BINDIR})
    set(dest ${CMAKE_INSTALL_BINDIR}/${name})
  endif()
  install(CODE "
    set(d \"\$ENV{DESTDIR}${dest}\")
    if(EXISTS \"\${d}\" OR IS_SYMLINK \"\${d}\")
      file(STRINGS \"\${d}\" ours REGEX \"\\\\(Remora\\\\)\")
      if(IS_SYMLINK \"\${d}\" OR NOT ours)
        message(FATAL_ERROR \"installing would replace \${d}, which is not Remora's (another OpenSHMEM's \"
                            \"wrapper?): choose another CMAKE_INSTALL_PREFIX\")
      endif()
    endif()")
  install(PROGRAMS ${REMORA_SHMEM_TOOLS_STAGE}/${name} DESTINATION ${CMAKE_INSTALL_BINDIR})
endfunction()

remora_shmem_from_bindir(inc_install ${CMAKE_INSTALL_FULL_INCLUDEDIR})
remora_shmem_from_bindir(lib_install ${CMAKE_INSTALL_FULL_LIBDIR})
remora_shmem_from_bindir(libexec_install ${CMAKE_INSTALL_FULL_LIBEXECDIR}/remora)
set(REMORA_SHMEM_TOOLS "")
foreach(f ${REMORA_FLAVOURS})
  set(s ${REMORA_SUFFIX_${f}})
  set(OSH_FLAVOUR ${f})
  set(OSH_LIB remora-shmem${s})
  set(OSH_SANITIZE "")
  if(REMORA_SANITIZE)
    set(OSH_SANITIZE -fsanitize=${REMORA_SANITIZE})
  endif()
  set(OSH_INCDIR_BUILD ${PROJECT_BINARY_DIR}/include)
  set(OSH_LIBDIR_BUILD ${CMAKE_LIBRARY_OUTPUT_DIRECTORY})
  set(OSH_LAUNCHER_BUILD ${PROJECT_SOURCE_DIR}/scripts/mpirun)
  set(OSH_INCDIR_INSTALL ${inc_install})
  set(OSH_LIBDIR_INSTALL ${lib_install})
  set(OSH_LAUNCHER_INSTALL ${libexec_install}/mpirun)
  foreach(lang C CXX)
    find_program(REMORA_SHMEM_WRAPPER_PATH_${f}_${lang} NAMES ${REMORA_SHMEM_WRAPPER_${f}_${lang}})
    set(OSH_MPI_WRAPPER ${REMORA_SHMEM_WRAPPER_PATH_${f}_${lang}})
    if(lang STREQUAL C)
      set(name oshcc${s})
      set(OSH_LANG C)
      set(OSH_DEFAULT_STD -std=gnu11)
    else()
      set(name oshc++${s})
      set(OSH_LANG C++)
      set(OSH_DEFAULT_STD "")
    endif()
    if(NOT OSH_MPI_WRAPPER)
      message(STATUS "no ${REMORA_SHMEM_WRAPPER_${f}_${lang}}: ${name} is not made")
      continue()
    endif()
    remora_shmem_tool(oshcc.in ${name})
    list(APPEND REMORA_SHMEM_TOOLS ${name})
  endforeach()
  set(OSH_CC_NAME oshcc${s})
  remora_shmem_tool(oshrun.in oshrun${s})

  set(REMORA_SHMEM_PC_NAME remora-shmem${s})
  set(REMORA_SHMEM_PC_SPEC 1.6)
  set(REMORA_SHMEM_PC_MPI ${f})
  set(REMORA_SHMEM_PC_REQUIRES ${REMORA_SHMEM_PC_REQUIRES_${f}})
  configure_file(${PROJECT_SOURCE_DIR}/cmake/remora-shmem.pc.in ${PROJECT_BINARY_DIR}/remora-shmem${s}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/remora-shmem${s}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/mpirun ${PROJECT_SOURCE_DIR}/scripts/simnode
  DESTINATION ${REMORA_SHMEM_TOOLS_LIBEXEC})

# The extra hosts (cmake/RemoraExtraHosts.cmake), in build/bin only (they
# live in the build tree): oshcc-<build> is that MPI's own compiler wrapper
# (mpicc; mpicc_abi for the MPI-5 ABI) with Remora's shmem.h and the
# libremora-shmem of its ABI (which links no MPI and no UCX: the program's
# MPI library and the UCX it loads serve it); oshrun-<host> is scripts/mpirun
# --mpi <host>.  E.g. oshcc-openmpi5 prog.c -o prog; oshrun-openmpi5 -n 4 ./prog.
foreach(b ${REMORA_EXTRA_BUILDS})
  remora_extra_oshcc(f OSH_MPI_WRAPPER ${b})
  if(NOT f)
    continue()
  endif()
  set(OSH_FLAVOUR "${f} (the ${b} extra host)")
  set(OSH_LIB remora-shmem${REMORA_SUFFIX_${f}})
  set(OSH_SANITIZE "")
  set(OSH_INCDIR_BUILD ${PROJECT_BINARY_DIR}/include)
  set(OSH_LIBDIR_BUILD ${CMAKE_LIBRARY_OUTPUT_DIRECTORY})
  set(OSH_LANG C)
  set(OSH_DEFAULT_STD -std=gnu11)
  remora_shmem_tool(oshcc.in oshcc-${b} BUILD_ONLY)
endforeach()
foreach(h ${REMORA_EXTRA_HOSTS})
  string(REGEX REPLACE "^-" "" b ${REMORA_SUFFIX_${h}})
  remora_extra_oshcc(f w ${b})
  if(NOT f)
    continue()
  endif()
  set(OSH_FLAVOUR ${h})
  set(OSH_CC_NAME oshcc-${b})
  set(OSH_LAUNCHER_BUILD ${PROJECT_SOURCE_DIR}/scripts/mpirun)
  remora_shmem_tool(oshrun.in oshrun-${h} BUILD_ONLY)
endforeach()

add_subdirectory(${PROJECT_SOURCE_DIR}/bench/shmem ${PROJECT_BINARY_DIR}/bench/shmem)
