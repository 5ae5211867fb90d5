/* The wrappers' test (bench/shmem/CMakeLists.txt): built with oshcc (and as
 * C++ with oshc++), run with oshrun.  Each PE puts its number + 1 into the
 * static symmetric data of the next PE and waits for its own, so a program that
 * found the wrong shmem.h or library, or PEs that cannot reach each other,
 * fail.  No collectives: the test is of the tools, not of teams. */
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    char name[SHMEM_MAX_NAME_LEN];
    shmem_info_get_name(name);
    /* static: symmetric, and zero before any PE can write it */
    static int box_word;
    int *box = &box_word;
    int mine = me + 1;
    shmem_int_put(box, &mine, 1, (me + 1) % n);
    shmem_quiet();
    shmem_int_wait_until(box, SHMEM_CMP_NE, 0);
    int want = (me + n - 1) % n + 1;
    printf("PE %d of %d (%s): got %d from PE %d\n", me, n, name, *box, want - 1);
    int bad = *box != want;
    shmem_finalize();
    return bad;
}
