# hashtable (apps/hashtable): both modes insert and --verify checks that every
# rank's volume holds exactly the keys it owns (replayed from every rank's key
# generator), each once, in its slot or that slot's chain.  A table of a
# quarter of the inserts makes most inserts collide and chains grow; two runs
# per mode empty and refill the volume.
set(hashtable_args --verify --inserts 1024 --table 256 --repeat 2)
# MPICH's ranks spin without yielding and its RMA needs the target to run:
# on 2 cores every insert waits for its owner to be scheduled (16 ranks, 512
# inserts: 86 s), so MPICH alone inserts fewer keys into a smaller table.
set(hashtable_mpich_args --verify --inserts 32 --table 16)
# Across simulated nodes every atomic is a round trip over TCP: an RMA insert
# takes 1-4 ms here, so fewer keys.
set(hashtable_nodes_args --verify --inserts 256 --table 64)
# Open MPI's host runs use osc/sm (tests/apps/CMakeLists.txt).
set(hashtable_env OMPI_MCA_osc=sm,pt2pt)
remora_mpi_test(hashtable TARGET hashtable FLAVOURS openmpi NP 1 2 4 16 MODES host remora
  ARGS ${hashtable_args} LABELS apps ENV ${hashtable_env})
remora_mpi_test(hashtable TARGET hashtable FLAVOURS mpich NP 1 2 4 16 MODES host
  ARGS ${hashtable_mpich_args} LABELS apps ENV ${hashtable_env})
remora_mpi_test(hashtable TARGET hashtable FLAVOURS mpich NP 1 2 4 16 MODES remora
  ARGS ${hashtable_args} LABELS apps ENV ${hashtable_env})
remora_mpi_test(hashtable TARGET hashtable FLAVOURS openmpi NP 4 MODES remora-ucx remora-nodes2
  ARGS ${hashtable_nodes_args} LABELS apps ENV ${hashtable_env})
# Not MPICH across simulated nodes: MPICH 4.0.2's MPI_Finalize deadlocks there
# (cmake/RemoraTesting.cmake) in about 3 runs of 10 of any program on a loaded
# machine, with or without Remora.
