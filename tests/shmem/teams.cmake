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
# Both barriers of the shared-memory collectives at every size (here, with
# more PEs than cores, the default would always be the central one).
foreach(barrier central dissemination)
  shmem_test(coll_slots_${barrier} PROGRAM coll_slots NP 2 4 8 LAYOUTS node ENV REMORA_SHMEM_BARRIER=${barrier})
  shmem_test(team_threads_${barrier} PROGRAM team_threads NP 4 LAYOUTS node ENV REMORA_SHMEM_BARRIER=${barrier} LABELS threads)
endforeach()
