/* A PE dies by SIGKILL while the others put to it and wait in shmem_quiet
 * (across simulated nodes: the victim is the last PE, on the last node).
 * OpenSHMEM has no error reporting: the job must end (the launcher ends it
 * when it sees the death) and never hang.  Run by fault_kill.sh, which reads
 * the victim's "killing at <ns since the epoch>". */
#include <shmem.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>

int main(void)
{
    static long dest[1024];
    shmem_init();
    int me = shmem_my_pe(), victim = shmem_n_pes() - 1;
    long x = me;
    shmem_barrier_all();
    if (me == 0)
        printf("heap ready, case quiet\n");
    fflush(stdout);
    if (me == victim) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        printf("killing at %lld\n", ts.tv_sec * 1000000000LL + ts.tv_nsec);
        fflush(stdout);
        raise(SIGKILL);
    }
    for (int i = 0; i < 100000; i++) {
        shmem_long_put(&dest[i % 1024], &x, 1, victim);
        shmem_quiet();
    }
    shmem_barrier_all(); /* never completes */
    printf("PE %d: past the victim's death\n", me);
    shmem_finalize();
    return 0;
}
