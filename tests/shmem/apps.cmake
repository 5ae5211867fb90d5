# The OpenSHMEM application apps/shmem-gups (random atomic updates and a
# distributed hash table, each verified exactly), run by shmem_test: both modes
# in every run (--mode all, the default), sizes small enough for a few seconds
# per test (across simulated nodes every atomic is a network round trip).
#   shmem/app_gups/<flavour>/node/np1,2,4,8, .../nodes2/np2,4   XOR, non-fetching
#   shmem/app_gups_threads/<flavour>/node/np2,4, .../nodes2/np4 2 threads on private
#                                                              contexts, add, fetch nbi
#   shmem/app_gups_corruption/<flavour>/node/np2               the checks catch a
#                                                              corrupted update and key
# shmem_test runs shmem_<PROGRAM><suffix>: that name for apps/shmem-gups's target.
foreach(f ${REMORA_FLAVOURS})
  set(s ${REMORA_SUFFIX_${f}})
  if(TARGET shmem-gups${s} AND NOT TARGET shmem_gups${s})
    add_executable(shmem_gups${s} ALIAS shmem-gups${s})
  endif()
endforeach()

set(small --log-table 10 --updates 8192 --inserts 1024)
# across nodes every update and probe is a network round trip or message
set(across --log-table 10 --updates 4096 --inserts 512)
shmem_test(app_gups PROGRAM gups ARGS ${small} NP 1 2 4 8 LAYOUTS node LABELS apps)
shmem_test(app_gups PROGRAM gups ARGS ${across} NP 2 4 LAYOUTS nodes2 LABELS apps)
set(threaded --threads 2 --op add --fetch nbi --batch 64)
shmem_test(app_gups_threads PROGRAM gups ARGS ${small} ${threaded} NP 2 4 LAYOUTS node LABELS apps threads)
shmem_test(app_gups_threads PROGRAM gups ARGS ${across} ${threaded} NP 4 LAYOUTS nodes2 LABELS apps threads)
# both modes must fail, which PE 0's last line says
shmem_test(app_gups_corruption PROGRAM gups ARGS ${small} --inject-corruption NP 2 LAYOUTS node LABELS apps
  PASS_REGEX "shmem-gups: FAILED [(]gups, hash[)]")
