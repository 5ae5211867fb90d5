/* Erroneous calls: `errors <case>` makes one at PE 0 (the others wait in a
 * barrier), which must end the job with a message naming the routine; the
 * registration matches the message.  Should the call return, the program
 * says "survived", which fails the test.
 *   bad_pe      shmem_int_put to PE n_pes
 *   bad_pe_amo  shmem_long_atomic_add to PE -1
 *   nonsym      shmem_int_put into a private (malloc'ed) buffer
 *   misaligned  shmem_long_atomic_fetch_add on a long one byte into the heap
 *   ctx_options (no abort) shmem_ctx_create with an unknown option and
 *               shmem_team_create_ctx on SHMEM_TEAM_INVALID return nonzero
 *               and leave SHMEM_CTX_INVALID */
#include <string.h>

#include "shtest.h"

static void ctx_options(void)
{
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    SHT_CHECK(shmem_ctx_create(1L << 20, &ctx) != 0, "shmem_ctx_create with an unknown option returned 0");
    SHT_CHECK(ctx == SHMEM_CTX_INVALID, "shmem_ctx_create failed but left %p", (void *)ctx);
    ctx = SHMEM_CTX_DEFAULT;
    SHT_CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &ctx) != 0,
              "shmem_team_create_ctx on SHMEM_TEAM_INVALID returned 0");
    SHT_CHECK(ctx == SHMEM_CTX_INVALID, "shmem_team_create_ctx failed but left %p", (void *)ctx);
    /* a good one still works after the failures */
    SHT_CHECK(shmem_ctx_create(SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE, &ctx) == 0,
              "shmem_ctx_create with every option failed");
    if (ctx != SHMEM_CTX_INVALID)
        shmem_ctx_destroy(ctx);
}

int main(int argc, char **argv)
{
    shmem_init();
    const char *c = argc > 1 ? argv[1] : "";
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int *heap = shmem_malloc(64);
    int src[4] = {1, 2, 3, 4}, *private = malloc(sizeof src);
    sht_barrier();
    if (strcmp(c, "ctx_options") == 0) {
        ctx_options();
        free(private);
        shmem_free(heap);
        return sht_finish("errors ctx_options");
    }
    if (me == 0) {
        if (strcmp(c, "bad_pe") == 0) {
            shmem_int_put(heap, src, 4, npes);
        } else if (strcmp(c, "bad_pe_amo") == 0) {
            shmem_long_atomic_add((long *)heap, 1, -1);
        } else if (strcmp(c, "nonsym") == 0) {
            shmem_int_put(private, src, 4, npes - 1);
        } else if (strcmp(c, "misaligned") == 0) {
            shmem_long_atomic_fetch_add((long *)((char *)heap + 1), 1, npes - 1);
        } else {
            printf("unknown case '%s'\n", c);
        }
        printf("survived %s\n", c);
        fflush(stdout);
    }
    sht_barrier();
    free(private);
    shmem_free(heap);
    shmem_finalize();
    return 1;
}
