# Teams and collectives (included by CMakeLists.txt): every program verifies
# its data element by element against a reference computed locally, on the
# team shapes of coll_util.h, at 1, 2, 4 and 8 PEs on the node and across
# simulated nodes of 2 PEs; coll_slots: what the shared-memory collectives add (coll_shm.c).
shmem_test(team_split SOURCES team_split.c)
shmem_test(team_threads SOURCES team_threads.c)
shmem_test(coll_reduce SOURCES coll_reduce.c)
shmem_test(coll_data SOURCES coll_data.c)
shmem_test(coll_active SOURCES coll_active.c)
shmem_test(coll_slots SOURCES coll_slots.c)
