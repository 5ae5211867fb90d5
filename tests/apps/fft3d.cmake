# fft3d (apps/fft3d/main.c): both modes' transforms of a 24x32x16 grid (NY and
# NZ multiples of 16, the three sizes distinct so that a mix-up of axes
# shows) against rank 0's serial FFTW transform, every transform checked
# (--verify); two timed runs of two transforms after the warm-up, so the RMA
# receive window's two halves are each reused.  MPICH's ranks spin: at 16
# ranks on 2 cores this size still takes only a few seconds.  Open MPI's host
# runs use osc/sm (its default here, osc/rdma, crashes:
# tests/accumulate/CMakeLists.txt).
set(fft3d_args --verify --n 24,32,16 --iterations 2 --repeat 2)
set(fft3d_env OMPI_MCA_osc=sm,pt2pt)
# host MPI alone and through Remora, from 1 to 16 ranks
remora_mpi_test(fft3d TARGET fft3d FLAVOURS openmpi NP 1 2 4 16 MODES host remora ARGS ${fft3d_args}
  LABELS apps ENV ${fft3d_env})
remora_mpi_test(fft3d TARGET fft3d FLAVOURS mpich NP 1 2 4 16 MODES host remora ARGS ${fft3d_args}
  LABELS apps ENV ${fft3d_env})
# isolated simulated nodes (every rank, or every 2 ranks, a network namespace
# of its own; UCX over TCP between them)
remora_mpi_test(fft3d TARGET fft3d FLAVOURS openmpi NP 4 MODES remora-ucx remora-nodes2 ARGS ${fft3d_args}
  LABELS apps ENV ${fft3d_env})
# Not MPICH across simulated nodes: MPICH 4.0.2's MPI_Finalize deadlocks there
# (cmake/RemoraTesting.cmake) in about 3 runs of 10 of any program on a loaded
# machine, with or without Remora.
