/* Setup, query and exit: `setup <case>`
 *   single|funneled|serialized|multiple
 *            shmem_init_thread at that level: returns 0, provides at least
 *            it, shmem_query_thread agrees; shmem_query_initialized before,
 *            during and after; shmem_info_get_version / _name; my_pe and
 *            n_pes are the MPI rank and size; a put ring works; pcontrol
 *   mpi      the program calls MPI_Init_thread itself, then shmem_init; MPI
 *            and OpenSHMEM used together; shmem_finalize leaves MPI up for
 *            the program's MPI_Finalize
 *   legacy   start_pes, _my_pe, _num_pes and the shmalloc family of old
 *            programs
 * After shmem_finalize MPI may be gone, so each PE judges itself (its exit
 * status) instead of summing the errors at PE 0. */
#include <string.h>

#include "shtest.h"

static const char *const LEVELS[] = {"single", "funneled", "serialized", "multiple"};
static const int LEVEL[] = {SHMEM_THREAD_SINGLE, SHMEM_THREAD_FUNNELED, SHMEM_THREAD_SERIALIZED,
                            SHMEM_THREAD_MULTIPLE};

static int initialized(void)
{
    int i = -1;
    shmem_query_initialized(&i);
    return i;
}

/* Every PE puts its number to its right neighbour's word. */
static void ring(void)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int *w = shmem_malloc(sizeof *w);
    if (!w) {
        SHT_CHECK(0, "shmem_malloc returned NULL");
        return;
    }
    *w = -1;
    sht_barrier();
    shmem_int_p(w, me, (me + 1) % npes);
    sht_barrier();
    SHT_CHECK(*w == (me + npes - 1) % npes, "the ring put gave %d", *w);
    sht_barrier();
    shmem_free(w);
}

static void queries(void)
{
    int major = 0, minor = 0, rank = -1, size = -1;
    char name[SHMEM_MAX_NAME_LEN];
    memset(name, 'x', sizeof name);
    shmem_info_get_version(&major, &minor);
    SHT_CHECK(major == 1 && minor == 6 && major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION,
              "shmem_info_get_version: %d.%d", major, minor);
    shmem_info_get_name(name);
    SHT_CHECK(memchr(name, '\0', sizeof name) != NULL && strcmp(name, SHMEM_VENDOR_STRING) == 0,
              "shmem_info_get_name: \"%.40s\"", name);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    SHT_CHECK(shmem_my_pe() == rank && shmem_n_pes() == size, "PE %d of %d is MPI rank %d of %d", shmem_my_pe(),
              shmem_n_pes(), rank, size);
    shmem_pcontrol(0);
    shmem_pcontrol(1);
    shmem_pcontrol(2, "extra arguments are allowed");
}

static int level_case(int requested)
{
    SHT_CHECK(initialized() == 0, "shmem_query_initialized before shmem_init: %d", initialized());
    int provided = -1, queried = -2;
    int rc = shmem_init_thread(requested, &provided);
    SHT_CHECK(rc == 0, "shmem_init_thread(%d) returned %d", requested, rc);
    if (rc != 0)
        return 1;
    shmem_query_thread(&queried);
    SHT_CHECK(provided >= requested && provided <= SHMEM_THREAD_MULTIPLE, "asked for %d, provided %d", requested,
              provided);
    SHT_CHECK(queried == provided, "shmem_query_thread: %d, shmem_init_thread provided %d", queried, provided);
    SHT_CHECK(initialized() == 1, "shmem_query_initialized after shmem_init: %d", initialized());
    queries();
    ring();
    shmem_finalize();
    SHT_CHECK(initialized() == 0, "shmem_query_initialized after shmem_finalize: %d", initialized());
    return sht_errors != 0;
}

static int mpi_case(void)
{
    int got = -1, down = -1, sum = 0, size = 0;
    MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &got);
    shmem_init();
    int provided = -1;
    shmem_query_thread(&provided);
    SHT_CHECK(got != MPI_THREAD_MULTIPLE || provided == SHMEM_THREAD_MULTIPLE,
              "MPI gave MPI_THREAD_MULTIPLE, shmem_query_thread says %d", provided);
    queries();
    ring();
    int me = shmem_my_pe();
    MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    SHT_CHECK(sum == shmem_n_pes() * (shmem_n_pes() - 1) / 2, "MPI_Allreduce between OpenSHMEM calls: %d", sum);
    shmem_finalize();
    MPI_Finalized(&down);
    SHT_CHECK(down == 0, "shmem_finalize finalized the program's MPI");
    SHT_CHECK(initialized() == 0, "shmem_query_initialized after shmem_finalize: %d", initialized());
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&sht_errors, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* MPI still works */
    if (me == 0)
        printf("setup mpi: %d PEs: %s (%d errors)\n", size, sum ? "FAILED" : "ok", sum);
    MPI_Finalize();
    return sht_errors != 0;
}

#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* the point of this case */
static int legacy_case(void)
{
    start_pes(0);
    int me = _my_pe(), npes = _num_pes();
    SHT_CHECK(me == shmem_my_pe() && npes == shmem_n_pes(), "_my_pe %d, _num_pes %d", me, npes);
    long *a = shmalloc((size_t)npes * sizeof(long));
    long *b = shmemalign(4096, sizeof(long));
    SHT_CHECK(a && b && (uintptr_t)b % 4096 == 0, "shmalloc %p, shmemalign %p", (void *)a, (void *)b);
    if (a && b) {
        for (int pe = 0; pe < npes; pe++)
            shmem_long_p(&a[me], me + 1, pe);
        sht_barrier();
        a = shrealloc(a, 4 * (size_t)npes * sizeof(long));
        for (int pe = 0; a && pe < npes; pe++)
            SHT_CHECK(a[pe] == pe + 1, "after shrealloc: PE %d's word is %ld", pe, a[pe]);
    }
    shfree(b);
    shfree(a);
    return sht_finish("setup legacy");
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    for (int i = 0; i < 4; i++)
        if (strcmp(c, LEVELS[i]) == 0)
            return level_case(LEVEL[i]);
    if (strcmp(c, "mpi") == 0)
        return mpi_case();
    if (strcmp(c, "legacy") == 0)
        return legacy_case();
    fprintf(stderr, "usage: setup single|funneled|serialized|multiple|mpi|legacy\n");
    return 2;
}
