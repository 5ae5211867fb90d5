/* Concurrent accumulates on multi-element buffers never tear an element.
 *
 * Every thread of every rank ("writer" w = 1 + rank * T + thread) repeatedly
 * MPI_Accumulate(MPI_REPLACE)s buffers of NE elements filled with its own
 * full-width pattern into some rank's window, and reads buffers back with
 * MPI_Get_accumulate(MPI_NO_OP): every element read must be exactly one
 * writer's pattern (or the initial zero), for 1- to 32-byte types.  Only
 * REPLACE and NO_OP touch those buffers (accumulate_ops same_op_no_op).
 * A second buffer per type takes concurrent MPI_SUM of NE elements (plain
 * and through a vector datatype) and of single elements (one lock-free
 * atomic, inside the words the multi-element calls update) and must end
 * exactly right: no element-wise update is lost.
 *
 * A 1-byte element cannot tear: any byte read is some writer's pattern, so
 * the uint8 REPLACE row can never fail.  What can go wrong for 1-byte elements
 * is an update of a byte done as a read-modify-write of a wider word, which
 * puts back a neighbour's old value over a concurrent update of it (UCX has
 * no atomics below 4 bytes).  So the uint8 row's SUM buffer holds bytes, not
 * int64 counts: neighbouring bytes are summed concurrently by different
 * writers (whole rows, every other byte, single bytes), and a lost update
 * shows in the final count (mod 256).
 *
 *   acc_tear [--threads T] [--iters N] [--win all|allocate,create,alloc_mem,dynamic] */
#include "mtest.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NE = 16, MAXSIZE = 32 };

typedef struct { double v; int i; } double_int;

/* Patterns cover every value byte: bytes of w for integers, mantissa bytes of w
 * for floating types (a normal number in [1, 2)). */
static double double_pattern(int w) {
  uint64_t bits = 0x3FF0000000000000ull | (0x0101010101010101ull * (uint64_t)w & 0x000FFFFFFFFFFFFFull);
  double d;
  memcpy(&d, &bits, sizeof d);
  return w ? d : 0.0;
}
static long double ldouble_pattern(int w) {
  long double v = 1;
  for (int b = 1; b <= 7; b++)  /* w in each byte of the 64-bit mantissa below the leading 1 */
    v += ldexpl((long double)w, -8 * b);
  return w ? v : 0.0L;
}

#define INT_PATTERN(T) memset(out, w, sizeof(T))
/* X(tag, C type, MPI handle, make pattern of w into T *out, sum one) */
#define TEAR_TYPES(X) \
  X(uint8, uint8_t, MPI_UINT8_T, INT_PATTERN(uint8_t)) \
  X(uint16, uint16_t, MPI_UINT16_T, INT_PATTERN(uint16_t)) \
  X(uint32, uint32_t, MPI_UINT32_T, INT_PATTERN(uint32_t)) \
  X(uint64, uint64_t, MPI_UINT64_T, INT_PATTERN(uint64_t)) \
  X(double, double, MPI_DOUBLE, *out = double_pattern(w)) \
  X(long_double, long double, MPI_LONG_DOUBLE, *out = ldouble_pattern(w)) \
  X(double_complex, double _Complex, MPI_C_DOUBLE_COMPLEX, \
    *out = double_pattern(w) + double_pattern((w * 7) % 251) * I) \
  X(long_double_complex, long double _Complex, MPI_C_LONG_DOUBLE_COMPLEX, \
    *out = ldouble_pattern(w) + ldouble_pattern((w * 7) % 251) * I) \
  X(double_int, double_int, MPI_DOUBLE_INT, \
    (out->v = double_pattern(w), out->i = w ? 0x01010101 * w : 0))

/* Value equality: padding bytes (long double, pairs) carry nothing. */
#define EQ_uint8(a, b) (*(a) == *(b))
#define EQ_uint16 EQ_uint8
#define EQ_uint32 EQ_uint8
#define EQ_uint64 EQ_uint8
#define EQ_double EQ_uint8
#define EQ_long_double EQ_uint8
#define EQ_double_complex EQ_uint8
#define EQ_long_double_complex EQ_uint8
#define EQ_double_int(a, b) ((a)->v == (b)->v && (a)->i == (b)->i)

/* The one writer whose pattern p is (0: the initial zero), or -1 if torn. */
#define TEAR_FUNCS(tag, T, M, MAKE) \
  static void make_##tag(int w, void *o) { T *out = o; MAKE; } \
  static int who_##tag(const void *p, int writers) { \
    for (int w = 0; w <= writers; w++) { \
      T pat; \
      make_##tag(w, &pat); \
      if (EQ_##tag((const T *)p, &pat)) return w; \
    } \
    return -1; \
  }
TEAR_TYPES(TEAR_FUNCS)

typedef struct {
  const char *name;
  MPI_Datatype dt;
  size_t size;        /* 1: the SUM buffer holds bytes (see above), else int64 counts */
  void (*make)(int w, void *out);
  int (*who)(const void *p, int writers);
} tear_type;

static tear_type types[] = {
#define ENTRY(tag, T, M, MAKE) {#M, MPI_DATATYPE_NULL, sizeof(T), make_##tag, who_##tag},
  TEAR_TYPES(ENTRY)
#undef ENTRY
};
enum { NTYPES = sizeof types / sizeof types[0] };

/* Window: per type, a REPLACE buffer then a SUM buffer (int64 counts). */
static size_t replace_off(int t) { return (size_t)t * 2 * NE * MAXSIZE; }
static size_t sum_off(int t) { return replace_off(t) + NE * MAXSIZE; }

typedef struct {
  mtest_win w;
  int threads, iters, writers;
  MPI_Datatype sum_vec;   /* NE/2 int64 with stride 2: the odd elements are summed twice */
  MPI_Datatype sum_vec8;  /* the same over bytes (the uint8 row) */
} tear_test;
static tear_test *T_;

static void check_read(const tear_type *ty, const char *buf, int target, int thread) {
  for (int e = 0; e < NE; e++)
    MTEST_CHECK(ty->who(buf + (size_t)e * ty->size, T_->writers) >= 0,
              "thread %d read a torn %s at rank %d element %d", thread, ty->name, target, e);
}

/* The element writer w adds one to alone in round i. */
static int one_element(int w, int i) { return (w + i) % NE; }

static void worker(int thread, void *arg) {
  (void)arg;
  tear_test *t = T_;
  int me = 1 + mtest.rank * t->threads + thread;
  char mine[NE * MAXSIZE], got[NE * MAXSIZE];
  int64_t ones[NE];
  uint8_t ones8[NE];
  for (int e = 0; e < NE; e++)
    ones[e] = 1, ones8[e] = 1;
  for (int i = 0; i < t->iters; i++) {
    int target = (mtest.rank + thread + i) % mtest.size;
    for (int k = 0; k < NTYPES; k++) {
      const tear_type *ty = &types[k];
      for (int e = 0; e < NE; e++)
        ty->make(me, mine + (size_t)e * ty->size);
      MTEST_MPI(MPI_Accumulate(mine, NE, ty->dt, target, mtest_disp(&t->w, target, replace_off(k)), NE,
                             ty->dt, MPI_REPLACE, t->w.win));
      MTEST_MPI(MPI_Get_accumulate(NULL, 0, ty->dt, got, NE, ty->dt, target,
                                 mtest_disp(&t->w, target, replace_off(k)), NE, ty->dt, MPI_NO_OP,
                                 t->w.win));
      MPI_Aint sd = mtest_disp(&t->w, target, sum_off(k));
      int bytes = ty->size == 1;
      MPI_Datatype st = bytes ? MPI_UINT8_T : MPI_INT64_T;
      MPI_Aint ss = bytes ? 1 : 8;
      const void *one = bytes ? (const void *)ones8 : (const void *)ones;
      MTEST_MPI(MPI_Accumulate(one, NE, st, target, sd, NE, st, MPI_SUM, t->w.win));
      MTEST_MPI(MPI_Accumulate(one, NE / 2, st, target, sd + ss, 1, bytes ? t->sum_vec8 : t->sum_vec, MPI_SUM,
                             t->w.win));
      MTEST_MPI(MPI_Accumulate(one, 1, st, target, sd + ss * one_element(me, i), 1, st, MPI_SUM, t->w.win));
      MTEST_MPI(MPI_Win_flush(target, t->w.win));
      check_read(ty, got, target, thread);
    }
  }
}

static void check_final(const tear_test *t) {
  int64_t rounds = 0;  /* rounds that targeted me, over all ranks and threads */
  int64_t alone[NE] = {0}; /* single-element additions to each element, per type */
  for (int r = 0; r < mtest.size; r++)
    for (int th = 0; th < t->threads; th++)
      for (int i = 0; i < t->iters; i++)
        if ((r + th + i) % mtest.size == mtest.rank) {
          rounds++;
          alone[one_element(1 + r * t->threads + th, i)]++;
        }
  for (int k = 0; k < NTYPES; k++) {
    const tear_type *ty = &types[k];
    for (int e = 0; e < NE; e++) {
      int w = ty->who(t->w.base + replace_off(k) + (size_t)e * ty->size, t->writers);
      MTEST_CHECK(w >= 0, "final %s element %d is torn", ty->name, e);
      MTEST_CHECK(w > 0 || rounds == 0, "final %s element %d never written", ty->name, e);
      int64_t want = rounds * (e % 2 ? 2 : 1) + alone[e], v;
      if (ty->size == 1) {
        v = (uint8_t)t->w.base[sum_off(k) + (size_t)e];
        want = (uint8_t)want;
      } else {
        memcpy(&v, t->w.base + sum_off(k) + (size_t)e * 8, 8);
      }
      MTEST_CHECK(v == want, "%s SUM count of element %d: expected %lld, got %lld", ty->name, e, (long long)want,
                (long long)v);
    }
  }
}

static void run(tear_test *t, mtest_win_kind kind) {
  mtest_set_context("%s window", mtest_win_kind_name(kind));
  mtest_win_open(&t->w, kind, replace_off(NTYPES), MPI_INFO_NULL, MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_lock_all(0, t->w.win));
  mtest_run_threads(t->threads, worker, NULL);
  MTEST_MPI(MPI_Win_flush_all(t->w.win));
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_sync(t->w.win));
  check_final(t);
  MTEST_MPI(MPI_Win_unlock_all(t->w.win));
  mtest_win_close(&t->w);
}

int main(int argc, char **argv) {
  mtest_init(&argc, &argv, MPI_THREAD_MULTIPLE);
  tear_test t = {0};
  T_ = &t;
  t.threads = (int)mtest_arg_long(argc, argv, "--threads", 2);
  t.iters = (int)mtest_arg_long(argc, argv, "--iters", 30);
  t.writers = mtest.size * t.threads;
  MTEST_ASSERT(t.writers < 251, "too many writers for 8-bit patterns");
  int k = 0;
#define HANDLE(tag, T, M, MAKE) types[k++].dt = (M);
  TEAR_TYPES(HANDLE)
#undef HANDLE
  MPI_Type_vector(NE / 2, 1, 2, MPI_INT64_T, &t.sum_vec);
  MPI_Type_commit(&t.sum_vec);
  MPI_Type_vector(NE / 2, 1, 2, MPI_UINT8_T, &t.sum_vec8);
  MPI_Type_commit(&t.sum_vec8);
  mtest_win_kind kinds[MTEST_NKINDS];
  int nk = mtest_win_kinds(argc, argv, kinds);
  for (int i = 0; i < nk; i++)
    run(&t, kinds[i]);
  MPI_Type_free(&t.sum_vec);
  MPI_Type_free(&t.sum_vec8);
  return mtest_finish();
}
