/* Attach and detach under concurrent access.  In every round each rank
 * attaches a fresh "churn" region (a new address), publishes it through a
 * mailbox in its stable region, waits until every other rank has used it
 * (put, get, SUM, then an acknowledgement), checks it, and detaches it - all
 * while the other ranks keep hammering its stable region (SUMs into per-origin
 * counters, put/get into per-origin slots).  Origins that cached the region
 * table of a target must find each new region and never the old ones.
 *
 * Stable region of every rank (int64 words): mailbox address, mailbox round
 * (REPLACE + NO_OP only), acknowledgements (SUM only), then per origin a
 * counter (SUM only) and a slot (put/get by that origin only).
 *
 *   dyn_concurrent [--rounds R] */
#include "mtest.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

enum { MB_ADDR = 0, MB_ROUND = 1, ACKS = 2, PER_ORIGIN = 3 };
enum { CHURN_WORDS = 64 };

typedef struct {
  MPI_Win win;
  int64_t *stable;       /* 3 + 2 * size words */
  MPI_Aint *stable_addr;  /* per rank */
  int64_t *churn;
  int round;
  int64_t *sums_to;       /* per target: SUMs I sent into my counter there */
  int stable_rr;
  int64_t one, zero, scratch[CHURN_WORDS];
} churn_test;
static churn_test C;

static MPI_Aint stable_word(int rank, int w) { return C.stable_addr[rank] + 8 * w; }
static int counter_word(int origin) { return PER_ORIGIN + 2 * origin; }
static int slot_word(int origin) { return PER_ORIGIN + 2 * origin + 1; }

static int64_t fetch(int rank, MPI_Aint disp, int64_t v, MPI_Op op) {
  int64_t res = 0, val = v;
  MTEST_MPI(MPI_Fetch_and_op(&val, &res, MPI_INT64_T, rank, disp, op, C.win));
  MTEST_MPI(MPI_Win_flush(rank, C.win));
  return res;
}

/* One step of background traffic on another rank's stable region. */
static void stable_step(void) {
  if (mtest.size < 2)
    return;
  int q = (mtest.rank + 1 + C.stable_rr++ % (mtest.size - 1)) % mtest.size;
  MTEST_MPI(MPI_Accumulate(&C.one, 1, MPI_INT64_T, q, stable_word(q, counter_word(mtest.rank)), 1,
                         MPI_INT64_T, MPI_SUM, C.win));
  C.sums_to[q]++;
  int64_t v = ((int64_t)mtest.rank << 32) + C.stable_rr, back = -1;
  MTEST_MPI(MPI_Put(&v, 1, MPI_INT64_T, q, stable_word(q, slot_word(mtest.rank)), 1, MPI_INT64_T, C.win));
  MTEST_MPI(MPI_Win_flush(q, C.win));
  MTEST_MPI(MPI_Get(&back, 1, MPI_INT64_T, q, stable_word(q, slot_word(mtest.rank)), 1, MPI_INT64_T, C.win));
  MTEST_MPI(MPI_Win_flush(q, C.win));
  MTEST_EQ(back, v, "my slot in a stable region read back");
}

static int64_t churn_value(int owner, int round, int w) { return (int64_t)owner * 1000000 + round * 1000 + w; }

static void publish_churn(void) {
  MTEST_MPI(MPI_Alloc_mem(CHURN_WORDS * 8, MPI_INFO_NULL, &C.churn));
  for (int w = 0; w < CHURN_WORDS; w++)
    C.churn[w] = w < mtest.size ? 0 : churn_value(mtest.rank, C.round, w);
  MTEST_MPI(MPI_Win_attach(C.win, C.churn, CHURN_WORDS * 8));
  MTEST_MPI(MPI_Win_sync(C.win));
  MPI_Aint a;
  MPI_Get_address(C.churn, &a);
  /* The address first; the round, which readers wait for, after it landed. */
  fetch(mtest.rank, stable_word(mtest.rank, MB_ADDR), (int64_t)a, MPI_REPLACE);
  fetch(mtest.rank, stable_word(mtest.rank, MB_ROUND), C.round + 1, MPI_REPLACE);
}

/* Use rank p's churn region of this round: SUM into word `my rank`, get the
 * pattern words behind the SUM words, then acknowledge. */
static void use_churn(int p) {
  while (fetch(p, stable_word(p, MB_ROUND), 0, MPI_NO_OP) < C.round + 1) {
    stable_step();
    sched_yield();
  }
  MPI_Aint a = (MPI_Aint)fetch(p, stable_word(p, MB_ADDR), 0, MPI_NO_OP);
  int64_t mark = churn_value(mtest.rank, C.round, 0) + 7;
  MTEST_MPI(MPI_Accumulate(&mark, 1, MPI_INT64_T, p, a + 8 * mtest.rank, 1, MPI_INT64_T, MPI_SUM, C.win));
  int n = CHURN_WORDS - mtest.size;
  MTEST_MPI(MPI_Get(C.scratch, n, MPI_INT64_T, p, a + 8 * mtest.size, n, MPI_INT64_T, C.win));
  MTEST_MPI(MPI_Win_flush(p, C.win));
  for (int w = 0; w < n; w++)
    MTEST_CHECK(C.scratch[w] == churn_value(p, C.round, mtest.size + w), "round %d: rank %d's churn "
              "region word %d is %lld", C.round, p, mtest.size + w, (long long)C.scratch[w]);
  fetch(p, stable_word(p, ACKS), 1, MPI_SUM);
}

static void retire_churn(void) {
  int64_t want = (int64_t)(C.round + 1) * (mtest.size - 1);
  while (fetch(mtest.rank, stable_word(mtest.rank, ACKS), 0, MPI_NO_OP) < want) {
    stable_step();
    sched_yield();
  }
  MTEST_MPI(MPI_Win_sync(C.win));
  for (int p = 0; p < mtest.size; p++)
    if (p != mtest.rank)
      MTEST_EQ(C.churn[p], churn_value(p, C.round, 0) + 7, "SUM into my churn region");
  MTEST_MPI(MPI_Win_detach(C.win, C.churn));
  MTEST_MPI(MPI_Free_mem(C.churn));
  C.churn = NULL;
}

int main(int argc, char **argv) {
  mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
  int rounds = (int)mtest_arg_long(argc, argv, "--rounds", 10);
  size_t words = PER_ORIGIN + 2 * (size_t)mtest.size;
  C.one = 1;
  C.stable_addr = calloc((size_t)mtest.size, sizeof *C.stable_addr);
  C.sums_to = calloc((size_t)mtest.size, sizeof *C.sums_to);
  MTEST_MPI(MPI_Alloc_mem((MPI_Aint)(words * 8), MPI_INFO_NULL, &C.stable));
  memset(C.stable, 0, words * 8);
  MTEST_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &C.win));
  MTEST_MPI(MPI_Win_attach(C.win, C.stable, (MPI_Aint)(words * 8)));
  MPI_Aint mine;
  MPI_Get_address(C.stable, &mine);
  MPI_Allgather(&mine, 1, MPI_AINT, C.stable_addr, 1, MPI_AINT, MPI_COMM_WORLD);

  MTEST_MPI(MPI_Win_lock_all(0, C.win));
  MTEST_MPI(MPI_Win_sync(C.win));
  MPI_Barrier(MPI_COMM_WORLD);
  for (C.round = 0; C.round < rounds; C.round++) {
    publish_churn();
    for (int k = 1; k < mtest.size; k++)
      use_churn((mtest.rank + k) % mtest.size);
    retire_churn();
  }
  MTEST_MPI(MPI_Win_flush_all(C.win));
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_sync(C.win));
  /* My counter for each origin holds exactly the SUMs it sent me. */
  int64_t *sent_me = calloc((size_t)mtest.size, sizeof *sent_me);
  MPI_Alltoall(C.sums_to, 1, MPI_INT64_T, sent_me, 1, MPI_INT64_T, MPI_COMM_WORLD);
  for (int p = 0; p < mtest.size; p++)
    MTEST_EQ(C.stable[counter_word(p)], sent_me[p], "SUMs from one origin into my stable region");
  MTEST_EQ(C.stable[ACKS], (int64_t)rounds * (mtest.size - 1), "acknowledgements");
  free(sent_me);
  MTEST_MPI(MPI_Win_unlock_all(C.win));

  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_detach(C.win, C.stable));
  MTEST_MPI(MPI_Win_free(&C.win));
  MTEST_MPI(MPI_Free_mem(C.stable));
  free(C.stable_addr);
  free(C.sums_to);
  return mtest_finish();
}
