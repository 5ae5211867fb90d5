/* Torn-read detector: each accumulate call is applied as a whole.
 *
 * The standard promises atomicity per basic element; real programs (the
 * MPICH test suite's linked lists, acc_list.c) also count on one accumulate
 * call at one target being applied whole, as Open MPI and MPICH do: a 16-byte
 * pointer written with MPI_Accumulate(MPI_REPLACE) of MPI_BYTEs and read with
 * MPI_Get_accumulate(MPI_NO_OP) must never be read half old, half new.  Every
 * thread of every rank ("writer" w = 1 + rank * T + thread) hammers one target
 * at a time (all of them the same one), in phases:
 *
 *  replace  MPI_Accumulate(MPI_REPLACE) of 16-, 32- and 64-byte values as
 *           MPI_BYTE, MPI_INT and MPI_UINT64_T counts, and as contiguous
 *           MPI_UINT64_Ts into a vector target (every other 8 bytes), each
 *           in its own slot; every byte of a value encodes the writer and a
 *           sequence number (byte 0 the writer, byte 1 the sequence, the rest
 *           a hash of both and the position).  Readers (the same threads)
 *           MPI_Get_accumulate(MPI_NO_OP) with the same datatypes: every
 *           value read must be one whole written value, or the initial zeros.
 *  sum      MPI_Get_accumulate(MPI_SUM) and MPI_Accumulate(MPI_SUM) of a
 *           buffer of NSUM int64 (4 and 32), every element incremented by the
 *           same amount per call, against MPI_Get_accumulate(MPI_NO_OP)
 *           readers: every read and every fetched result has all elements
 *           equal, and at the end every element is the total of all calls.
 *  mixed    the linked list's pointers: 16-byte records {int; int; int64}
 *           whose first int is changed by MPI_Compare_and_swap, by
 *           MPI_Fetch_and_op(MPI_BXOR) and by MPI_Fetch_and_op(MPI_REPLACE)
 *           (one record each; every value has its 4 bytes equal), read whole
 *           as 16 MPI_BYTEs by MPI_Get_accumulate(MPI_NO_OP); and a record
 *           written whole as 16 MPI_BYTEs (all bytes equal) read as an int
 *           and an int64 by MPI_Fetch_and_op(MPI_NO_OP).
 * MPI_Fetch_and_op is never a reader of a multi-element value.  An engine
 * that applies a multi-element accumulate element by element (or byte by
 * byte) is caught by a reader in the middle of a writer's call: with many
 * iterations, every rank's threads on the same target and slot at once.
 * Rank 0 prints how many reads were checked; failures name the phase, the
 * slot and the bytes read.  scripts/stress-acc-whole runs it many times.
 *
 *   acc_whole [--threads T] [--iters N] [--win all|allocate,create,alloc_mem,dynamic]
 *             [--phases replace,sum,mixed] */
#include "mtest.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAXV = 64, SLOT = 2 * MAXV, NSIZES = 3, NFORMS = 4, NREPL = NSIZES * NFORMS };
enum { SUM_SMALL = 4, SUM_LARGE = 32, NSUMS = 2 };
enum { R_CAS, R_BXOR, R_FREPL, R_WHOLE, NREC, REC = 16 };
enum { FILLER = 0xc3, BXOR_INIT = 0x5a, PRINT_MAX = 5 };

static const int sizes[NSIZES] = {16, 32, 64};
typedef enum { F_BYTE, F_INT, F_UINT64, F_VECTOR } form;
static const char *form_names[NFORMS] = {"MPI_BYTE", "MPI_INT", "MPI_UINT64_T", "vector of MPI_UINT64_T"};

/* Window layout (bytes): REPLACE slots, SUM buffers, mixed records. */
static size_t repl_off(int k) { return (size_t)k * SLOT; }
static size_t sum_off(int s) { return repl_off(NREPL) + (size_t)s * SUM_LARGE * 8; }
static size_t rec_off(int r) { return sum_off(NSUMS) + (size_t)r * REC; }
static size_t win_bytes(void) { return rec_off(NREC); }

/* Phases: each REPLACE slot, each SUM buffer, the mixed records. */
enum { PH_SUM = NREPL, PH_MIXED = NREPL + NSUMS, NPHASES };
static int phase_target(int p) { return p % mtest.size; }

typedef struct {
  MPI_Datatype otype, ttype;  /* origin/result and target datatypes */
  int ocount, tcount;
  int size;                   /* bytes of a value */
  char name[64];
} repl_cfg;

typedef struct {
  mtest_win w;
  int threads, iters, writers;
  repl_cfg repl[NREPL];
  MPI_Datatype vec[NSIZES];
  const char *phases;
  atomic_long reads;
} whole_test;
static whole_test *T_;

/* Byte i of writer w's value number s (w > 0). */
static unsigned char value_byte(int w, int s, int i) {
  if (i == 0)
    return (unsigned char)w;
  if (i == 1)
    return (unsigned char)s;
  uint32_t h = (uint32_t)w * 2654435761u ^ (uint32_t)(s & 0xff) * 40503u ^ (uint32_t)i * 2246822519u;
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  return (unsigned char)h;
}

static void make_value(int w, int s, int n, unsigned char *v) {
  for (int i = 0; i < n; i++)
    v[i] = value_byte(w, s, i);
}

static void hex(char *out, size_t len, const unsigned char *v, int n) {
  size_t at = 0;
  for (int i = 0; i < n && at + 3 < len; i++)
    at += (size_t)snprintf(out + at, len - at, "%02x", v[i]);
}

/* 1 if v is one whole written value or all zeros. */
static int whole_value(const unsigned char *v, int n, int writers) {
  int w = v[0], s = v[1];
  if (w == 0) {
    for (int i = 0; i < n; i++)
      if (v[i])
        return 0;
    return 1;
  }
  if (w > writers)
    return 0;
  for (int i = 2; i < n; i++)
    if (v[i] != value_byte(w, s, i))
      return 0;
  return 1;
}

/* Failures of one thread in one phase: the first few printed, all counted. */
typedef struct {
  long torn;
} tally;

#define TORN(t, ...) \
  do { if ((t)->torn++ < PRINT_MAX) mtest_fail(__FILE__, __LINE__, __VA_ARGS__); } while (0)

static void replace_phase(whole_test *t, int k, int thread, tally *ty) {
  const repl_cfg *c = &t->repl[k];
  int target = phase_target(k), me = 1 + mtest.rank * t->threads + thread;
  MPI_Aint disp = mtest_disp(&t->w, target, repl_off(k));
  unsigned char val[MAXV], got[2][MAXV];
  char h[2 * MAXV + 1];
  for (int i = 0; i < t->iters; i++) {
    make_value(me, i, c->size, val);
    MTEST_MPI(MPI_Accumulate(val, c->ocount, c->otype, target, disp, c->tcount, c->ttype, MPI_REPLACE,
                             t->w.win));
    for (int r = 0; r < 2; r++)
      MTEST_MPI(MPI_Get_accumulate(NULL, 0, MPI_DATATYPE_NULL, got[r], c->ocount, c->otype, target, disp,
                                   c->tcount, c->ttype, MPI_NO_OP, t->w.win));
    MTEST_MPI(MPI_Win_flush(target, t->w.win));
    for (int r = 0; r < 2; r++)
      if (!whole_value(got[r], c->size, t->writers)) {
        hex(h, sizeof h, got[r], c->size);
        TORN(ty, "torn read of a %s at rank %d (thread %d, iteration %d): %s", c->name, target, thread, i, h);
      }
  }
  atomic_fetch_add(&t->reads, 2L * t->iters);
}

static int all_equal(const int64_t *v, int n) {
  for (int e = 1; e < n; e++)
    if (v[e] != v[0])
      return 0;
  return 1;
}

static void show_int64s(char *out, size_t len, const int64_t *v, int n) {
  size_t at = 0;
  for (int e = 0; e < n && at + 24 < len; e++)
    at += (size_t)snprintf(out + at, len - at, "%s%lld", e ? " " : "", (long long)v[e]);
}

static void sum_phase(whole_test *t, int s, int thread, tally *ty) {
  int n = s ? SUM_LARGE : SUM_SMALL, target = phase_target(PH_SUM + s);
  MPI_Aint disp = mtest_disp(&t->w, target, sum_off(s));
  int64_t add[SUM_LARGE], fetched[SUM_LARGE], got[SUM_LARGE];
  char h[SUM_LARGE * 24];
  for (int i = 0; i < t->iters; i++) {
    int64_t d = 1 + i % 3;
    for (int e = 0; e < n; e++)
      add[e] = d;
    MTEST_MPI(MPI_Get_accumulate(add, n, MPI_INT64_T, fetched, n, MPI_INT64_T, target, disp, n, MPI_INT64_T,
                                 MPI_SUM, t->w.win));
    MTEST_MPI(MPI_Accumulate(add, n, MPI_INT64_T, target, disp, n, MPI_INT64_T, MPI_SUM, t->w.win));
    MTEST_MPI(MPI_Get_accumulate(NULL, 0, MPI_DATATYPE_NULL, got, n, MPI_INT64_T, target, disp, n, MPI_INT64_T,
                                 MPI_NO_OP, t->w.win));
    MTEST_MPI(MPI_Win_flush(target, t->w.win));
    if (!all_equal(fetched, n)) {
      show_int64s(h, sizeof h, fetched, n);
      TORN(ty, "MPI_Get_accumulate(MPI_SUM) of %d int64 at rank %d fetched a torn buffer (thread %d): %s", n,
           target, thread, h);
    }
    if (!all_equal(got, n)) {
      show_int64s(h, sizeof h, got, n);
      TORN(ty, "MPI_Get_accumulate(MPI_NO_OP) of %d int64 at rank %d read a torn buffer (thread %d): %s", n,
           target, thread, h);
    }
  }
  atomic_fetch_add(&t->reads, 2L * t->iters);
}

static int32_t pattern32(int b) { return (int32_t)(0x01010101u * (uint32_t)(b & 0xff)); }
static int is_pattern32(int32_t v) { return v == pattern32(v & 0xff); }

/* A 16-byte record whose first int is changed by atomics: its 4 bytes equal,
 * the other 12 the owner's filler. */
static int record_ok(const unsigned char *r) {
  for (int i = 1; i < 4; i++)
    if (r[i] != r[0])
      return 0;
  for (int i = 4; i < REC; i++)
    if (r[i] != FILLER)
      return 0;
  return 1;
}

static void mixed_phase(whole_test *t, int thread, tally *ty) {
  int target = phase_target(PH_MIXED), me = 1 + mtest.rank * t->threads + thread;
  MPI_Win win = t->w.win;
  MPI_Aint d[NREC];
  for (int r = 0; r < NREC; r++)
    d[r] = mtest_disp(&t->w, target, rec_off(r));
  int32_t guess = pattern32(0), flip = -1;
  unsigned char rec[3][REC], whole[REC];
  char h[2 * REC + 1];
  for (int i = 0; i < t->iters; i++) {
    int32_t next = pattern32(me * 7 + i), old = 0, fx = 0, fr = 0, mine = pattern32(me + i), ri = 0;
    int64_t r64 = 0;
    MTEST_MPI(MPI_Compare_and_swap(&next, &guess, &old, MPI_INT, target, d[R_CAS], win));
    MTEST_MPI(MPI_Fetch_and_op(&flip, &fx, MPI_INT, target, d[R_BXOR], MPI_BXOR, win));
    MTEST_MPI(MPI_Fetch_and_op(&mine, &fr, MPI_INT, target, d[R_FREPL], MPI_REPLACE, win));
    memset(whole, (unsigned char)(me + i), REC);
    MTEST_MPI(MPI_Accumulate(whole, REC, MPI_BYTE, target, d[R_WHOLE], REC, MPI_BYTE, MPI_REPLACE, win));
    for (int r = 0; r < 3; r++)
      MTEST_MPI(MPI_Get_accumulate(NULL, 0, MPI_DATATYPE_NULL, rec[r], REC, MPI_BYTE, target, d[r], REC, MPI_BYTE,
                                   MPI_NO_OP, win));
    MTEST_MPI(MPI_Fetch_and_op(NULL, &ri, MPI_INT, target, d[R_WHOLE], MPI_NO_OP, win));
    MTEST_MPI(MPI_Fetch_and_op(NULL, &r64, MPI_INT64_T, target, d[R_WHOLE] + 8, MPI_NO_OP, win));
    MTEST_MPI(MPI_Win_flush(target, win));
    guess = old == guess ? next : old;
    MTEST_CHECK(is_pattern32(old), "MPI_Compare_and_swap fetched %#x, never written", (unsigned)old);
    MTEST_CHECK(is_pattern32(fx) && ((fx & 0xff) == BXOR_INIT || (fx & 0xff) == (0xff ^ BXOR_INIT)),
                "MPI_Fetch_and_op(MPI_BXOR) fetched %#x, never written", (unsigned)fx);
    MTEST_CHECK(is_pattern32(fr), "MPI_Fetch_and_op(MPI_REPLACE) fetched %#x, never written", (unsigned)fr);
    static const char *rec_names[3] = {"MPI_Compare_and_swap", "MPI_Fetch_and_op(MPI_BXOR)",
                                       "MPI_Fetch_and_op(MPI_REPLACE)"};
    for (int r = 0; r < 3; r++)
      if (!record_ok(rec[r])) {
        hex(h, sizeof h, rec[r], REC);
        TORN(ty, "16 MPI_BYTEs read at rank %d while %s changes their first int: torn %s (thread %d, iteration %d)",
             target, rec_names[r], h, thread, i);
      }
    if (!is_pattern32(ri))
      TORN(ty, "MPI_Fetch_and_op(MPI_NO_OP) of an int at rank %d read %#x while 16 MPI_BYTEs are replaced whole",
           target, (unsigned)ri);
    if (r64 != (int64_t)(0x0101010101010101ull * (uint64_t)(r64 & 0xff)))
      TORN(ty, "MPI_Fetch_and_op(MPI_NO_OP) of an int64 at rank %d read %#llx while 16 MPI_BYTEs are replaced "
               "whole", target, (unsigned long long)r64);
  }
  atomic_fetch_add(&t->reads, 6L * t->iters);
}

static void worker(int thread, void *arg) {
  (void)arg;
  whole_test *t = T_;
  for (int p = 0; p < NPHASES; p++) {
    const char *kind = p < PH_SUM ? "replace" : p < PH_MIXED ? "sum" : "mixed";
    if (!mtest_listed(t->phases, kind))
      continue;
    tally one = {0};
    if (p < PH_SUM)
      replace_phase(t, p, thread, &one);
    else if (p < PH_MIXED)
      sum_phase(t, p - PH_SUM, thread, &one);
    else
      mixed_phase(t, thread, &one);
    if (one.torn > PRINT_MAX)
      mtest_fail(__FILE__, __LINE__, "thread %d: %ld torn reads in all in phase %s", thread, one.torn,
                 p < PH_SUM ? t->repl[p].name : p < PH_MIXED ? (p == PH_SUM ? "sum of 4 int64" : "sum of 32 int64")
                                                             : "mixed");
  }
}

/* The owner's view at the end: whole values, totals, intact fillers. */
static void check_final(whole_test *t) {
  char h[2 * SLOT + 1];
  for (int k = 0; k < NREPL && mtest_listed(t->phases, "replace"); k++) {
    if (phase_target(k) != mtest.rank)
      continue;
    const repl_cfg *c = &t->repl[k];
    const unsigned char *s = (const unsigned char *)t->w.base + repl_off(k);
    unsigned char v[MAXV];
    int vec = k % NFORMS == F_VECTOR, holes = 0;
    for (int i = 0; i < c->size; i++)
      v[i] = vec ? s[i / 8 * 16 + i % 8] : s[i];
    for (int i = 0; vec && i < c->size; i++)
      holes |= s[i / 8 * 16 + 8 + i % 8];
    hex(h, sizeof h, v, c->size);
    MTEST_CHECK(whole_value(v, c->size, t->writers) && v[0] != 0, "final %s is not a whole written value: %s",
                c->name, h);
    MTEST_CHECK(!holes, "the holes of the vector target of %s were written", c->name);
    for (int i = vec ? 2 * c->size : c->size; i < SLOT; i++)
      MTEST_CHECK(s[i] == 0, "byte %d past the %s slot was written", i, c->name);
  }
  int64_t per_call = 0;  /* 1 + i % 3 over the iterations, twice per iteration */
  for (int i = 0; i < t->iters; i++)
    per_call += 2 * (1 + i % 3);
  for (int s = 0; s < NSUMS && mtest_listed(t->phases, "sum"); s++) {
    if (phase_target(PH_SUM + s) != mtest.rank)
      continue;
    const int64_t *v = (const int64_t *)(t->w.base + sum_off(s));
    for (int e = 0; e < (s ? SUM_LARGE : SUM_SMALL); e++)
      MTEST_EQ(v[e], per_call * t->writers, "final SUM element");
  }
  if (mtest_listed(t->phases, "mixed") && phase_target(PH_MIXED) == mtest.rank) {
    const unsigned char *b = (const unsigned char *)t->w.base;
    for (int r = 0; r < 3; r++) {
      hex(h, sizeof h, b + rec_off(r), REC);
      MTEST_CHECK(record_ok(b + rec_off(r)), "final record %d is torn: %s", r, h);
    }
    long flips = (long)t->writers * t->iters;
    MTEST_EQ(b[rec_off(R_BXOR)], flips % 2 ? 0xff ^ BXOR_INIT : BXOR_INIT, "final MPI_BXOR record byte");
    for (int i = 1; i < REC; i++)
      MTEST_EQ(b[rec_off(R_WHOLE) + (size_t)i], b[rec_off(R_WHOLE)], "final whole record byte");
  }
}

static void run(whole_test *t, mtest_win_kind kind) {
  mtest_set_context("%s window", mtest_win_kind_name(kind));
  mtest_win_open(&t->w, kind, win_bytes(), MPI_INFO_NULL, MPI_COMM_WORLD);
  /* mixed records: first ints 0 (CAS, REPLACE) and BXOR_INIT bytes, fillers */
  for (int r = 0; r < 3; r++)
    memset(t->w.base + rec_off(r) + 4, FILLER, REC - 4);
  memset(t->w.base + rec_off(R_BXOR), BXOR_INIT, 4);
  MTEST_MPI(MPI_Win_lock_all(0, t->w.win));
  MTEST_MPI(MPI_Win_sync(t->w.win));
  MPI_Barrier(MPI_COMM_WORLD);
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
  static whole_test t;
  T_ = &t;
  t.threads = (int)mtest_arg_long(argc, argv, "--threads", 2);
  t.iters = (int)mtest_arg_long(argc, argv, "--iters", 300);
  t.phases = mtest_arg_str(argc, argv, "--phases", "replace,sum,mixed");
  t.writers = mtest.size * t.threads;
  MTEST_ASSERT(t.writers < 255, "too many writers for 8-bit writer ids");
  for (int z = 0; z < NSIZES; z++) {
    int n = sizes[z];
    MPI_Type_vector(n / 8, 1, 2, MPI_UINT64_T, &t.vec[z]);
    MPI_Type_commit(&t.vec[z]);
    for (int f = 0; f < NFORMS; f++) {
      repl_cfg *c = &t.repl[z * NFORMS + f];
      c->size = n;
      snprintf(c->name, sizeof c->name, "%d-byte value as %s", n, form_names[f]);
      switch ((form)f) {
      case F_BYTE: c->otype = c->ttype = MPI_BYTE; c->ocount = c->tcount = n; break;
      case F_INT: c->otype = c->ttype = MPI_INT; c->ocount = c->tcount = n / 4; break;
      case F_UINT64: c->otype = c->ttype = MPI_UINT64_T; c->ocount = c->tcount = n / 8; break;
      case F_VECTOR:
        c->otype = MPI_UINT64_T;
        c->ocount = n / 8;
        c->ttype = t.vec[z];
        c->tcount = 1;
        break;
      }
    }
  }
  mtest_win_kind kinds[MTEST_NKINDS];
  int nk = mtest_win_kinds(argc, argv, kinds);
  for (int i = 0; i < nk; i++)
    run(&t, kinds[i]);
  long reads = atomic_load(&t.reads), all = 0;
  MPI_Reduce(&reads, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (mtest.rank == 0)
    printf("%ld reads checked\n", all);
  for (int z = 0; z < NSIZES; z++)
    MPI_Type_free(&t.vec[z]);
  return mtest_finish();
}
