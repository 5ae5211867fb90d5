/* RMA in processes whose Remora has no network transport (no usable UCX:
 * no_ucx.sh sets REMORA_UCX_LIB to a missing file).
 *
 *   no_network ok      the ranks share a node: windows of MPI_Win_allocate
 *                      and MPI_Win_create, puts, gets, accumulates and a
 *                      fetch-and-op, every value checked; prints "rank R ok"
 *   no_network error   the ranks are on different nodes: under
 *                      MPI_ERRORS_RETURN, MPI_Win_allocate and MPI_Win_create
 *                      on MPI_COMM_WORLD return an error class (printed as
 *                      "rank R: CALL: class C: text"); a window on
 *                      MPI_COMM_SELF still works; prints "rank R clean"
 *   no_network fatal   the same window under the default handler
 *                      (MPI_ERRORS_ARE_FATAL): the job must end, nonzero;
 *                      "rank R survived" if it returned
 * Each rank first prints "rank R pid P" (no_ucx.sh looks for its segments),
 * and appends the same line to the file NO_NETWORK_PID_FILE names, if set:
 * when a rank's error aborts the job, MPICH's launcher may kill the ranks
 * before it forwards their output, but the file keeps every line. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_RANKS 64

static int rank, size, failures;

static void check(const char *what, long got, long want)
{
    if (got != want) {
        printf("FAIL rank %d: %s: %ld, expected %ld\n", rank, what, got, want);
        failures++;
    }
}

/* Puts, gets, accumulates and fetch-and-ops on a window of n + 2 longs per
 * rank of comm (n ranks): slots 0..n-1 take puts, slot n accumulates, slot
 * n + 1 fetch-and-ops. */
static void exercise(MPI_Win win, long *mem, MPI_Comm comm)
{
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    int right = (me + 1) % n, left = (me + n - 1) % n;
    for (int i = 0; i < n; i++)
        mem[i] = -1;
    mem[n] = mem[n + 1] = 0;
    long one = 1, mine = 100 + me, got = 0, old = -1;
    MPI_Win_fence(0, win);
    MPI_Put(&mine, 1, MPI_LONG, right, me, 1, MPI_LONG, win);
    MPI_Win_fence(0, win);
    check("put from the left neighbour", mem[left], 100 + left);
    MPI_Get(&got, 1, MPI_LONG, right, right, 1, MPI_LONG, win); /* nobody but itself puts there */
    MPI_Accumulate(&one, 1, MPI_LONG, 0, n, 1, MPI_LONG, MPI_SUM, win);
    MPI_Win_fence(0, win);
    check("get of the right neighbour's own slot", got, n == 1 ? 100 : -1);
    if (me == 0)
        check("sum of every rank's accumulate", mem[n], n);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, n + 1, MPI_SUM, win);
    MPI_Win_unlock(0, win);
    check("fetch-and-op's old value in range", old >= 0 && old < n, 1);
    MPI_Barrier(comm);
    if (me == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        check("fetch-and-op total", mem[n + 1], n);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(comm);
}

static void on_node(void)
{
    long *mem;
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint)((size + 2) * sizeof(long)), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    exercise(win, mem, MPI_COMM_WORLD);
    MPI_Win_free(&win);
    long buf[MAX_RANKS + 2];
    MPI_Win_create(buf, (MPI_Aint)((size + 2) * sizeof(long)), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    exercise(win, buf, MPI_COMM_WORLD);
    MPI_Win_free(&win);
}

static void report(const char *call, int rc)
{
    int cls = 0, len = 0;
    char text[MPI_MAX_ERROR_STRING];
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, text, &len);
    printf("rank %d: %s: class %d: %s\n", rank, call, cls, text);
    if (cls == MPI_SUCCESS || cls > MPI_ERR_LASTCODE) {
        printf("FAIL rank %d: %s: not an MPI error class\n", rank, call);
        failures++;
    }
}

static void across_nodes(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    long *mem, buf[MAX_RANKS + 2];
    MPI_Win win = MPI_WIN_NULL;
    int rc = MPI_Win_allocate((MPI_Aint)((size + 2) * sizeof(long)), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    if (rc == MPI_SUCCESS) {
        printf("FAIL rank %d: MPI_Win_allocate across nodes succeeded without a network\n", rank);
        failures++;
        MPI_Win_free(&win);
    } else {
        report("MPI_Win_allocate", rc);
    }
    rc = MPI_Win_create(buf, (MPI_Aint)sizeof buf, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    if (rc == MPI_SUCCESS) {
        printf("FAIL rank %d: MPI_Win_create across nodes succeeded without a network\n", rank);
        failures++;
        MPI_Win_free(&win);
    } else {
        report("MPI_Win_create", rc);
    }
    /* the process is still whole: a window of its own node works */
    MPI_Win_allocate((MPI_Aint)(3 * sizeof(long)), sizeof(long), MPI_INFO_NULL, MPI_COMM_SELF, &mem, &win);
    exercise(win, mem, MPI_COMM_SELF);
    MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "";
    char line[64];
    int len = snprintf(line, sizeof line, "rank %d pid %ld\n", rank, (long)getpid());
    fputs(line, stdout);
    fflush(stdout);
    const char *pid_file = getenv("NO_NETWORK_PID_FILE");
    if (pid_file) { /* one write of an O_APPEND file: the lines do not mix */
        int fd = open(pid_file, O_WRONLY | O_APPEND | O_CREAT, 0600);
        if (fd < 0 || write(fd, line, (size_t)len) != len)
            printf("FAIL rank %d: cannot append to %s\n", rank, pid_file);
        if (fd >= 0)
            close(fd);
    }
    if (size > MAX_RANKS) {
        if (rank == 0)
            printf("FAIL: at most %d ranks\n", MAX_RANKS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (!strcmp(mode, "ok")) {
        on_node();
        if (!failures)
            printf("rank %d ok\n", rank);
    } else if (!strcmp(mode, "error")) {
        across_nodes();
        if (!failures)
            printf("rank %d clean\n", rank);
    } else if (!strcmp(mode, "fatal")) {
        long *mem;
        MPI_Win win;
        MPI_Win_allocate((MPI_Aint)sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
        printf("rank %d survived\n", rank);
        MPI_Win_free(&win);
    } else {
        if (rank == 0)
            printf("usage: no_network ok|error|fatal\n");
        failures = 1;
    }
    fflush(stdout);
    MPI_Finalize();
    return failures ? 1 : 0;
}
