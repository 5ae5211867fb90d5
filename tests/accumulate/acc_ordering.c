/* Accumulate ordering and the accumulate info keys.
 *
 * MPI orders accumulates from one origin to one target location as the
 * window's accumulate_ordering asks (default rar,raw,war,waw), with no flush
 * in between.  Here every rank issues sequences of accumulates of different
 * operations (REPLACE, SUM, PROD, MAX, NO_OP reads) to locations of rank+1
 * that only it touches (so they are not concurrent with anyone's: the
 * same_op_no_op rule is kept) and checks what each read returned; with a
 * weaker ordering it flushes where the ordering no longer promises anything.
 * Under accumulate_ops=same_op a location sees one operation only: SUMs (and
 * reads by a SUM of zero).  At the end every target checks its own memory
 * against the final values its one origin computed.  Meanwhile all ranks
 * increment one counter at rank 0 with SUM only, which is legal under
 * accumulate_ops=same_op too.
 *
 * Each variant is one window created with info keys: accumulate_ordering
 * (default, none, waw, rar,raw,war,waw), accumulate_ops (same_op,
 * same_op_no_op), mpi_accumulate_granularity, same_size, same_disp_unit.
 *
 *   acc_ordering [--win all|allocate,create,alloc_mem,dynamic] [--rounds N] */
#include "mtest.h"

#include <string.h>

typedef struct {
  const char *name;
  const char *info[4][2];
  int ordered_reads;   /* rar, raw, war: reads need no flush after writes */
  int ordered_writes;  /* waw */
  int same_op;         /* accumulate_ops=same_op: one op per location */
} variant;

static const variant variants[] = {
  {"default", {{NULL, NULL}}, 1, 1, 0},
  {"accumulate_ordering=rar,raw,war,waw", {{"accumulate_ordering", "rar,raw,war,waw"}}, 1, 1, 0},
  {"accumulate_ordering=none", {{"accumulate_ordering", "none"}}, 0, 0, 0},
  {"accumulate_ordering=waw", {{"accumulate_ordering", "waw"}}, 0, 1, 0},
  {"accumulate_ops=same_op_no_op", {{"accumulate_ops", "same_op_no_op"}}, 1, 1, 0},
  {"accumulate_ops=same_op", {{"accumulate_ops", "same_op"}}, 1, 1, 1},
  {"mpi_accumulate_granularity=8", {{"mpi_accumulate_granularity", "8"}}, 1, 1, 0},
  {"mpi_accumulate_granularity=65536", {{"mpi_accumulate_granularity", "65536"}}, 1, 1, 0},
  {"same_size=true,same_disp_unit=true", {{"same_size", "true"}, {"same_disp_unit", "true"}}, 1, 1, 0},
  {"all keys", {{"accumulate_ordering", "rar,waw"}, {"accumulate_ops", "same_op"},
                {"mpi_accumulate_granularity", "16"}, {"same_size", "true"}}, 0, 1, 1},
};
enum { NVARIANTS = sizeof variants / sizeof variants[0] };

enum { NSEQ = 8, NVEC = 8 };
/* Layout: counter (int64) | NSEQ int64 sequence words | 2*NVEC doubles */
enum { COUNTER = 0, SEQ = 8, VEC = SEQ + NSEQ * 8, WIN_BYTES = VEC + 2 * NVEC * 8 };

typedef struct {
  const variant *v;
  mtest_win w;
  int target, round;
  MPI_Datatype vec;  /* NVEC doubles, stride 2 */
  /* Origin buffers must stay untouched until the flush that completes them. */
  int64_t one, zero;
  double zeros[2 * NVEC];
  /* What the target's words and vector hold once this origin's calls are
   * complete: only this origin touches them. */
  int64_t seq[NSEQ];
  double vec_now[2 * NVEC];
} ctx;

/* Where the ordering does not cover a read after writes (or writes after a
 * read), complete what is outstanding first. */
static void before_read(ctx *c) {
  if (!c->v->ordered_reads)
    MTEST_MPI(MPI_Win_flush(c->target, c->w.win));
}
static void before_write(ctx *c, int after_read) {
  if ((after_read && !c->v->ordered_reads) || (!after_read && !c->v->ordered_writes))
    MTEST_MPI(MPI_Win_flush(c->target, c->w.win));
}

static int64_t seed_of(const ctx *c, int k) { return 3 + (mtest.rank * 7 + k * 5 + c->round) % 11; }

/* Mixed operations on word k: REPLACE a, SUM b, read, PROD 3, fetch-SUM d,
 * fetch-REPLACE e, read.  Results land in res[0..3]; returns the final value. */
static int64_t mixed_sequence(ctx *c, int k, int64_t res[4], int64_t ops[5]) {
  MPI_Aint d = mtest_disp(&c->w, c->target, SEQ + (size_t)k * 8);
  int64_t a = seed_of(c, k), e = 1000 + a;
  ops[0] = a, ops[1] = a + 1, ops[2] = 3, ops[3] = a + 2, ops[4] = e;
  before_write(c, 0);
  MTEST_MPI(MPI_Accumulate(&ops[0], 1, MPI_INT64_T, c->target, d, 1, MPI_INT64_T, MPI_REPLACE, c->w.win));
  before_write(c, 0);
  MTEST_MPI(MPI_Accumulate(&ops[1], 1, MPI_INT64_T, c->target, d, 1, MPI_INT64_T, MPI_SUM, c->w.win));
  before_read(c);
  MTEST_MPI(MPI_Get_accumulate(&c->zero, 1, MPI_INT64_T, &res[0], 1, MPI_INT64_T, c->target, d, 1,
                             MPI_INT64_T, MPI_NO_OP, c->w.win));
  before_write(c, 1);
  MTEST_MPI(MPI_Accumulate(&ops[2], 1, MPI_INT64_T, c->target, d, 1, MPI_INT64_T, MPI_PROD, c->w.win));
  before_read(c);
  MTEST_MPI(MPI_Fetch_and_op(&ops[3], &res[1], MPI_INT64_T, c->target, d, MPI_SUM, c->w.win));
  before_write(c, 1);
  MTEST_MPI(MPI_Fetch_and_op(&ops[4], &res[2], MPI_INT64_T, c->target, d, MPI_REPLACE, c->w.win));
  before_read(c);
  MTEST_MPI(MPI_Fetch_and_op(&c->zero, &res[3], MPI_INT64_T, c->target, d, MPI_NO_OP, c->w.win));
  return e;
}

/* Under same_op a location sees one operation: SUMs only, fetched in order. */
static int64_t sum_sequence(ctx *c, int k, int64_t res[4], int64_t ops[5]) {
  MPI_Aint d = mtest_disp(&c->w, c->target, SEQ + (size_t)k * 8);
  for (int j = 0; j < 5; j++)
    ops[j] = seed_of(c, k) + j;
  before_write(c, 0);
  MTEST_MPI(MPI_Accumulate(&ops[0], 1, MPI_INT64_T, c->target, d, 1, MPI_INT64_T, MPI_SUM, c->w.win));
  for (int j = 0; j < 4; j++) {
    before_read(c);
    MTEST_MPI(MPI_Fetch_and_op(&ops[j + 1], &res[j], MPI_INT64_T, c->target, d, MPI_SUM, c->w.win));
  }
  return 0;  /* the checker knows the start value */
}

/* Multi-element: REPLACE through a vector, SUM contiguous over it, MAX, read
 * (NO_OP).  Under same_op: SUM through the vector, SUM contiguous, and a read
 * that is a SUM of zeros.  Updates c->vec_now to what the target holds after. */
static void vector_sequence(ctx *c, double got[2 * NVEC], double ops[3][2 * NVEC]) {
  MPI_Aint d = mtest_disp(&c->w, c->target, VEC);
  int same = c->v->same_op;
  for (int e = 0; e < 2 * NVEC; e++) {
    ops[0][e] = mtest.rank + e + c->round;
    ops[1][e] = 0.5 * e;
    ops[2][e] = e % 3 ? 0 : 100 + e;
  }
  before_write(c, 0);
  MTEST_MPI(MPI_Accumulate(ops[0], NVEC, MPI_DOUBLE, c->target, d, 1, c->vec, same ? MPI_SUM : MPI_REPLACE,
                         c->w.win));
  before_write(c, 0);
  MTEST_MPI(MPI_Accumulate(ops[1], 2 * NVEC, MPI_DOUBLE, c->target, d, 2 * NVEC, MPI_DOUBLE, MPI_SUM,
                         c->w.win));
  if (!same) {
    before_write(c, 0);
    MTEST_MPI(MPI_Accumulate(ops[2], 2 * NVEC, MPI_DOUBLE, c->target, d, 2 * NVEC, MPI_DOUBLE, MPI_MAX,
                           c->w.win));
  }
  before_read(c);
  MTEST_MPI(MPI_Get_accumulate(c->zeros, 2 * NVEC, MPI_DOUBLE, got, 2 * NVEC, MPI_DOUBLE, c->target, d,
                             2 * NVEC, MPI_DOUBLE, same ? MPI_SUM : MPI_NO_OP, c->w.win));
  for (int e = 0; e < 2 * NVEC; e++) {
    double x = c->vec_now[e];
    if (e % 2 == 0)
      x = same ? x + ops[0][e / 2] : ops[0][e / 2];
    x += ops[1][e];
    if (!same && ops[2][e] > x)
      x = ops[2][e];
    c->vec_now[e] = x;
  }
}

static void check_mixed(const ctx *c, int k, const int64_t res[4], const int64_t ops[5]) {
  int64_t ab = ops[0] + ops[1], prod = ab * ops[2];
  MTEST_CHECK(res[0] == ab, "%s word %d: REPLACE %lld, SUM %lld, then read %lld", c->v->name, k,
            (long long)ops[0], (long long)ops[1], (long long)res[0]);
  MTEST_CHECK(res[1] == prod, "%s word %d: PROD 3 then fetch-SUM fetched %lld, expected %lld",
            c->v->name, k, (long long)res[1], (long long)prod);
  MTEST_CHECK(res[2] == prod + ops[3], "%s word %d: fetch-REPLACE fetched %lld, expected %lld",
            c->v->name, k, (long long)res[2], (long long)(prod + ops[3]));
  MTEST_CHECK(res[3] == ops[4], "%s word %d: final read %lld, expected %lld", c->v->name, k,
            (long long)res[3], (long long)ops[4]);
}

static void check_sums(const ctx *c, int k, const int64_t res[4], const int64_t ops[5],
                       int64_t before) {
  int64_t v = before + ops[0];
  for (int j = 0; j < 4; j++) {
    MTEST_CHECK(res[j] == v, "%s word %d: fetch-SUM %d fetched %lld, expected %lld", c->v->name, k, j,
              (long long)res[j], (long long)v);
    v += ops[j + 1];
  }
}

/* Every element, the odd ones too (they carry what earlier rounds left). */
static void check_vector(const ctx *c, const double got[2 * NVEC]) {
  for (int e = 0; e < 2 * NVEC; e++)
    MTEST_CHECK(got[e] == c->vec_now[e], "%s vector element %d (round %d): read %g, expected %g", c->v->name,
              e, c->round, got[e], c->vec_now[e]);
}

/* After every origin's calls completed: my words and vector hold what my one
 * origin (rank - 1) computed they must. */
static void check_target_memory(const ctx *c) {
  struct { int64_t seq[NSEQ]; double vec[2 * NVEC]; } mine, theirs;
  memcpy(mine.seq, c->seq, sizeof mine.seq);
  memcpy(mine.vec, c->vec_now, sizeof mine.vec);
  int prev = (mtest.rank + mtest.size - 1) % mtest.size;
  MPI_Sendrecv(&mine, sizeof mine, MPI_BYTE, c->target, 0, &theirs, sizeof theirs, MPI_BYTE, prev, 0,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int k = 0; k < NSEQ; k++) {
    int64_t v;
    memcpy(&v, c->w.base + SEQ + (size_t)k * 8, 8);
    MTEST_CHECK(v == theirs.seq[k], "%s: my word %d holds %lld at the end, rank %d's calls leave %lld",
              c->v->name, k, (long long)v, prev, (long long)theirs.seq[k]);
  }
  for (int e = 0; e < 2 * NVEC; e++) {
    double x;
    memcpy(&x, c->w.base + VEC + (size_t)e * 8, 8);
    MTEST_CHECK(x == theirs.vec[e], "%s: my vector element %d holds %g at the end, rank %d's calls leave %g",
              c->v->name, e, x, prev, theirs.vec[e]);
  }
}

static void run_variant(const variant *v, mtest_win_kind kind, int rounds) {
  ctx c = {.v = v, .target = (mtest.rank + 1) % mtest.size, .one = 1};
  MPI_Info info;
  MPI_Info_create(&info);
  for (int i = 0; i < 4 && v->info[i][0]; i++)
    MPI_Info_set(info, v->info[i][0], v->info[i][1]);
  mtest_win_open(&c.w, kind, WIN_BYTES, info, MPI_COMM_WORLD);
  MPI_Info_free(&info);
  MPI_Type_vector(NVEC, 1, 2, MPI_DOUBLE, &c.vec);
  MPI_Type_commit(&c.vec);

  int64_t sums_before[NSEQ] = {0};
  MTEST_MPI(MPI_Win_lock_all(0, c.w.win));
  for (c.round = 0; c.round < rounds; c.round++) {
    int64_t res[NSEQ][4], ops[NSEQ][5];
    double got[2 * NVEC], vops[3][2 * NVEC];
    for (int k = 0; k < NSEQ; k++) {
      MTEST_MPI(MPI_Accumulate(&c.one, 1, MPI_INT64_T, 0, mtest_disp(&c.w, 0, COUNTER), 1, MPI_INT64_T,
                             MPI_SUM, c.w.win));
      if (v->same_op)
        sum_sequence(&c, k, res[k], ops[k]);
      else
        c.seq[k] = mixed_sequence(&c, k, res[k], ops[k]);
    }
    vector_sequence(&c, got, vops);
    MTEST_MPI(MPI_Win_flush_all(c.w.win));
    for (int k = 0; k < NSEQ; k++) {
      if (v->same_op) {
        check_sums(&c, k, res[k], ops[k], sums_before[k]);
        for (int j = 0; j < 5; j++)
          sums_before[k] += ops[k][j];
        c.seq[k] = sums_before[k];
      } else {
        check_mixed(&c, k, res[k], ops[k]);
      }
    }
    check_vector(&c, got);
  }
  MTEST_MPI(MPI_Win_flush_all(c.w.win));
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_sync(c.w.win));
  if (rounds > 0)
    check_target_memory(&c);
  if (mtest.rank == 0) {
    int64_t counter;
    memcpy(&counter, c.w.base + COUNTER, 8);
    MTEST_CHECK(counter == (int64_t)mtest.size * rounds * NSEQ, "%s: counter %lld, expected %lld",
              v->name, (long long)counter, (long long)mtest.size * rounds * NSEQ);
  }
  MTEST_MPI(MPI_Win_unlock_all(c.w.win));
  mtest_win_close(&c.w);
  MPI_Type_free(&c.vec);
}

int main(int argc, char **argv) {
  mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
  int rounds = (int)mtest_arg_long(argc, argv, "--rounds", 20);
  mtest_win_kind kinds[MTEST_NKINDS];
  int nk = mtest_win_kinds(argc, argv, kinds);
  for (int k = 0; k < nk; k++)
    for (int i = 0; i < NVARIANTS; i++) {
      mtest_set_context("%s window, %s", mtest_win_kind_name(kinds[k]), variants[i].name);
      run_variant(&variants[i], kinds[k], rounds);
    }
  return mtest_finish();
}
