/* Smoke: init, heap, put/get, static data, atomics, wait, barrier by MPI. */
#include <mpi.h>
#include <shmemx.h> /* and through it shmem.h: the extension header must compile */
#include <stdio.h>
#include <stdlib.h>

static long counter;
static int statics[4];

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), errors = 0;
    int *a = shmem_malloc(16 * sizeof *a);
    for (int i = 0; i < 16; i++)
        a[i] = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    int src[16];
    for (int i = 0; i < 16; i++)
        src[i] = me * 100 + i;
    shmem_int_put(a, src, 16, (me + 1) % n);
    shmem_int_p(&statics[1], me + 7, (me + 1) % n);
    shmem_long_atomic_add(&counter, me + 1, 0);
    shmem_quiet();
    MPI_Barrier(MPI_COMM_WORLD);
    int left = (me + n - 1) % n;
    for (int i = 0; i < 16; i++)
        if (a[i] != left * 100 + i)
            errors++;
    if (statics[1] != left + 7)
        errors++;
    if (me == 0 && counter != (long)n * (n + 1) / 2)
        errors++, printf("counter %ld\n", counter);
    int g = shmem_int_g(&a[3], (me + 1) % n);
    if (g != me * 100 + 3)
        errors++;
    shmem_free(a);
    printf("PE %d/%d: %s\n", me, n, errors ? "FAILED" : "ok");
    shmem_finalize();
    return errors != 0;
}
