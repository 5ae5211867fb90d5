# milc (apps/milc/main.c): both modes' CG on a 4D SU(3) lattice against rank
# 0's serial CG of the whole lattice (--verify: same iteration count, every
# rank's block of the solution within a relative 1e-10, the residual
# decreased).  Blocks of 2x2x2x4 sites: from 1 to 16 ranks every face is
# exchanged with oneself (1 rank in a dimension), with one rank across both
# faces (2 ranks) or with distinct ranks.  --mass 1 and --tolerance 1e-4
# stop CG after 13 iterations (26 Dslashes: the RMA mode's two buffers are
# each reused many times, and the stop must come at the serial CG's
# iteration); --repeat 2 solves again on the same window.  MPICH's ranks
# spin: at 16 ranks on 2 cores this size still takes only a few seconds.
# Open MPI's host runs use osc/sm or osc/pt2pt (osc/rdma, its default here,
# crashes: tests/accumulate/CMakeLists.txt).
set(milc_args --verify --local 2,2,2,4 --mass 1 --iterations 100 --tolerance 1e-4 --repeat 2)
set(milc_env OMPI_MCA_osc=sm,pt2pt)
# host MPI alone and through Remora, from 1 to 16 ranks
remora_mpi_test(milc TARGET milc FLAVOURS openmpi NP 1 2 4 16 MODES host remora ARGS ${milc_args}
  LABELS apps ENV ${milc_env})
remora_mpi_test(milc TARGET milc FLAVOURS mpich NP 1 2 4 16 MODES host remora ARGS ${milc_args}
  LABELS apps ENV ${milc_env})
# isolated simulated nodes (every rank, or every 2 ranks, a network namespace
# of its own; UCX over TCP between them)
remora_mpi_test(milc TARGET milc FLAVOURS openmpi NP 4 MODES remora-ucx remora-nodes2 ARGS ${milc_args}
  LABELS apps ENV ${milc_env})
# Not MPICH across simulated nodes: MPICH 4.0.2's MPI_Finalize deadlocks there
# (cmake/RemoraTesting.cmake) in about 3 runs of 10 of any program on a loaded
# machine, with or without Remora.
