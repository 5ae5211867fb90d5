/* A rank dies by SIGKILL in the middle of synchronisation across nodes:
 *   lock   it holds an exclusive lock on rank 0's window; the others then
 *          ask for that lock (and put and flush toward the dead rank)
 *   flush  inside everyone's lock_all: the others put to it and flush
 *   fence  between two fences: the others wait in the second
 *   pscw   rank 0 exposes its window to all; the victim starts and puts
 *          but never completes: rank 0 waits in MPI_Win_wait
 * The victim is the last rank (on the last simulated node); the survivors
 * run under MPI_ERRORS_RETURN and print any error they get.  Just before it
 * dies the victim prints "killing at <ns since the epoch>", from which
 * fault_kill.sh measures the time until the job ends. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "mtest.h"

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void die(void)
{
    printf("killing at %lld\n", now_ns());
    fflush(stdout);
    raise(SIGKILL);
}

/* A survivor's call: report, do not abort, on error. */
static void call(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        char s[MPI_MAX_ERROR_STRING];
        int n, cls;
        MPI_Error_class(rc, &cls);
        MPI_Error_string(rc, s, &n);
        printf("rank %d: %s returned error class %d: %s\n", mtest.rank, what, cls, s);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
    const char *mode = mtest_arg_str(argc, argv, "--case", "lock");
    int rank = mtest.rank, size = mtest.size, victim = size - 1;
    long *mem, x = rank;
    MPI_Win win;
    MTEST_MPI(MPI_Win_allocate(4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("window ready, case %s\n", mode);
    fflush(stdout);

    if (strcmp(mode, "lock") == 0) {
        if (rank == victim) {
            MTEST_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
            MTEST_MPI(MPI_Put(&x, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win));
            MTEST_MPI(MPI_Win_flush(0, win));
        }
        call(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        if (rank == victim)
            die();
        call(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win), "MPI_Win_lock");
        call(MPI_Put(&x, 1, MPI_LONG, victim, 8, 1, MPI_LONG, win), "MPI_Put");
        call(MPI_Win_unlock(0, win), "MPI_Win_unlock");
    } else if (strcmp(mode, "flush") == 0) {
        MTEST_MPI(MPI_Win_lock_all(0, win));
        call(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        if (rank == victim)
            die();
        for (int i = 0; i < 1000; i++) {
            call(MPI_Put(&x, 1, MPI_LONG, victim, 0, 1, MPI_LONG, win), "MPI_Put");
            call(MPI_Win_flush(victim, win), "MPI_Win_flush");
        }
        call(MPI_Win_unlock_all(win), "MPI_Win_unlock_all");
    } else if (strcmp(mode, "fence") == 0) {
        MTEST_MPI(MPI_Win_fence(0, win));
        call(MPI_Put(&x, 1, MPI_LONG, (rank + 1) % size, 0, 1, MPI_LONG, win), "MPI_Put");
        if (rank == victim)
            die();
        call(MPI_Win_fence(0, win), "MPI_Win_fence");
    } else if (strcmp(mode, "pscw") == 0) {
        MPI_Group world, others, zero;
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        int r0 = 0;
        MPI_Group_excl(world, 1, &r0, &others);
        MPI_Group_incl(world, 1, &r0, &zero);
        if (rank == 0) {
            call(MPI_Win_post(others, 0, win), "MPI_Win_post");
            call(MPI_Win_wait(win), "MPI_Win_wait");
        } else {
            call(MPI_Win_start(zero, 0, win), "MPI_Win_start");
            call(MPI_Put(&x, 1, MPI_LONG, 0, 8 * rank, 1, MPI_LONG, win), "MPI_Put");
            if (rank == victim)
                die();
            call(MPI_Win_complete(win), "MPI_Win_complete");
        }
        MPI_Group_free(&world);
        MPI_Group_free(&others);
        MPI_Group_free(&zero);
    } else {
        mtest_die(__FILE__, __LINE__, "unknown --case %s (lock|flush|fence|pscw)", mode);
    }
    /* A survivor that got here lives on past a dead rank: the job must
     * still end (the launcher ends it when the victim's death is seen). */
    call(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    printf("rank %d: past the victim's death\n", rank);
    MPI_Win_free(&win);
    return mtest_finish();
}
