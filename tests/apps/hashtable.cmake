# hashtable (apps/hashtable): both modes insert and --verify checks that every
# rank's volume holds exactly the keys it owns (replayed from every rank's key
# generator), each once, in its slot or that slot's chain.  A table of a
# quarter of the inserts makes most inserts collide and chains grow; two runs
# per mode empty and refill the volume.
# MPICH's ranks spin without yielding and its RMA needs the target to run:
# on 2 cores every insert waits for its owner to be scheduled (16 ranks, 512
# inserts: 86 s), so MPICH alone inserts fewer keys into a smaller table.
# Across simulated nodes every atomic is a round trip over TCP: an RMA insert
# takes 1-4 ms here, so fewer keys.
motif_test(hashtable ARGS --verify --inserts 1024 --table 256 --repeat 2
  MPICH_HOST_ARGS --verify --inserts 32 --table 16
  NODES_ARGS --verify --inserts 256 --table 64)
