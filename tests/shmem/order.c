/* Ordering: a PE puts a block of data to its right neighbour, orders it, then
 * puts a flag; the neighbour waits for the flag and checks the data at once:
 * the PE that sees the flag must see the data.  Ordered by shmem_fence,
 * shmem_ctx_fence on a created context, shmem_quiet, shmem_pe_quiet and
 * shmem_ctx_pe_quiet; the data by put, put_nbi and iput (the flag by p or
 * atomic set).  The reader acknowledges each round before the writer
 * overwrites the data.  Large data (256 KiB by put) over the network travels
 * in pieces, which is where a missing order shows. */
#include <string.h>

#include "shtest.h"

#define WORDS (32 * 1024) /* longs of data per round */
/* iput moves one element per transfer over the network (each one a message
 * over TCP here, tens of microseconds each): fewer */
#define IPUT_WORDS 1024
#define ROUNDS 20

enum order { FENCE, CTX_FENCE, QUIET, PE_QUIET, CTX_PE_QUIET, NORDERS };
static const char *const ORDER_NAME[] = {"fence", "ctx_fence", "quiet", "pe_quiet", "ctx_pe_quiet"};
enum how { PUT, PUT_NBI, IPUT, NHOWS };
static const char *const HOW_NAME[] = {"put", "put_nbi", "iput"};

static long flag, ack; /* static data: the flags travel through the static region */
static shmem_ctx_t ctx;

static size_t words_of(enum how h) { return h == IPUT ? IPUT_WORDS : WORDS; }

static long value(int pe, int round, size_t k) { return (long)pe << 40 | (long)round << 24 | (long)k; }

static void write_round(long *data, long *src, enum order o, enum how h, int round, int right)
{
    int me = shmem_my_pe();
    int use_ctx = o == CTX_FENCE || o == CTX_PE_QUIET;
    shmem_ctx_t c = use_ctx ? ctx : SHMEM_CTX_DEFAULT;
    for (size_t k = 0; k < words_of(h); k++)
        src[k] = value(me, round, k);
    if (h == PUT)
        shmem_ctx_long_put(c, data, src, WORDS, right);
    else if (h == PUT_NBI)
        shmem_ctx_long_put_nbi(c, data, src, WORDS, right);
    else { /* every other word, then the rest: two strided transfers */
        shmem_ctx_long_iput(c, data, src, 2, 2, IPUT_WORDS / 2, right);
        shmem_ctx_long_iput(c, data + 1, src + 1, 2, 2, IPUT_WORDS / 2, right);
    }
    switch (o) {
    case FENCE: shmem_fence(); break;
    case CTX_FENCE: shmem_ctx_fence(ctx); break;
    case QUIET: shmem_quiet(); break;
    case PE_QUIET: shmem_pe_quiet(&right, 1); break;
    default: shmem_ctx_pe_quiet(ctx, &right, 1); break;
    }
    if (round % 2)
        shmem_ctx_long_p(c, &flag, round + 1, right);
    else
        shmem_ctx_long_atomic_set(c, &flag, round + 1, right);
    if (use_ctx)
        shmem_ctx_quiet(ctx); /* the flag must leave: nothing else completes this context */
}

static void read_round(const long *data, enum order o, enum how h, int round, int left)
{
    shmem_long_wait_until(&flag, SHMEM_CMP_GE, round + 1);
    size_t bad = 0, first = 0;
    for (size_t k = 0; k < words_of(h); k++)
        if (data[k] != value(left, round, k) && bad++ == 0)
            first = k;
    SHT_CHECK(bad == 0, "%s after %s, round %d: %zu of %zu words not there when the flag was (first: [%zu] = %#lx)",
              HOW_NAME[h], ORDER_NAME[o], round, bad, words_of(h), first, data[first]);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), right = (me + 1) % npes, left = (me + npes - 1) % npes;
    if (shmem_ctx_create(0, &ctx) != 0) {
        fprintf(stderr, "PE %d: shmem_ctx_create failed\n", me);
        return 1;
    }
    long *data = shmem_malloc(WORDS * sizeof(long)), *src = malloc(WORDS * sizeof(long));
    SHT_CHECK(data && src, "no memory");
    for (int o = 0; data && src && o < NORDERS; o++)
        for (int h = 0; h < NHOWS; h++) {
            flag = ack = 0;
            memset(data, 0, WORDS * sizeof(long));
            sht_barrier();
            for (int r = 0; r < ROUNDS; r++) {
                write_round(data, src, o, h, r, right);
                read_round(data, o, h, r, left);
                shmem_long_atomic_set(&ack, r + 1, left); /* the data of round r was read */
                shmem_long_wait_until(&ack, SHMEM_CMP_GE, r + 1);
            }
            sht_barrier();
        }
    shmem_ctx_destroy(ctx);
    free(src);
    shmem_free(data);
    return sht_finish("order");
}
