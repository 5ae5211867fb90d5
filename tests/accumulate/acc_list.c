/* The concurrent linked list as real programs write it (the idea of the
 * MPICH test suite's linked_list_bench_lock_shr and linked_list_lockall,
 * written here): a dynamic window; every element
 *     { int value; llist_ptr next; }   llist_ptr = { int rank; MPI_Aint disp; }
 * (the pointer 16 bytes with its padding) is allocated with MPI_Alloc_mem and
 * attached on its own.  Every rank, and with --threads T every thread of it
 * (an "appender"), appends its own elements to one shared list headed by a
 * sentinel at rank 0.  To append, the appender MPI_Compare_and_swaps
 * next.rank (MPI_INT) of the element it believes the tail from nil (-1) to
 * its rank; the winner then writes the displacement:
 *   --write split  MPI_Accumulate(MPI_REPLACE) of next.disp as one MPI_AINT;
 *   --write whole  MPI_Accumulate(MPI_REPLACE) of the whole 16-byte pointer
 *                  as 16 MPI_BYTEs.
 * A loser chases the tail: it reads the whole 16-byte next pointer with
 * MPI_Get_accumulate(NULL, 0, MPI_DATATYPE_NULL, &ptr, 16, MPI_BYTE, ...,
 * MPI_NO_OP) until its displacement is set, and moves on.  A pointer read is
 * never torn: its rank is -1 or a rank of the window (and the one the
 * compare-and-swap saw), its padding is zero, its displacement nil (always
 * with rank -1) or the address of one of the elements that rank attached;
 * anything else fails at once with the bytes read.  At the end rank 0 walks
 * the list and checks it element by element: every element on it exactly
 * once, at the address its appender attached it, each appender's elements in
 * the order it appended them.
 *
 * To have readers in the middle of writes, as a loaded machine would: the
 * winner pauses --pause-us microseconds (default 50) between its two steps
 * (a program at work there, or preempted), so that losers spin on the
 * half-made pointer; and with --chase 1 (the default) an appender done with
 * its own elements goes on chasing the tail, spinning on the nil and the
 * half-made pointers, until the list holds every element.
 *
 * Synchronisation (--sync, each in its own round):
 *   shared   MPI_Win_lock(MPI_LOCK_SHARED) / MPI_Win_unlock around every
 *            operation (the threads of a process take turns: a process holds
 *            one lock per target);
 *   lockall  one MPI_Win_lock_all(0) epoch, MPI_Win_flush after operations;
 *   nocheck  the same with MPI_Win_lock_all(MPI_MODE_NOCHECK).
 *
 *   acc_list [--elements N] [--threads T] [--sync shared,lockall,nocheck] [--write split,whole]
 *            [--pause-us U] [--chase 0|1] */
#include "mtest.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int rank;
  MPI_Aint disp;
} llist_ptr;

typedef struct {
  int value;  /* appender << 16 | sequence number; -1 for the sentinel */
  llist_ptr next;
} llist_elem;

_Static_assert(sizeof(llist_ptr) == 16, "llist_ptr is 16 bytes");

enum { NIL_RANK = -1 };
static const MPI_Aint NIL_DISP = 0;
static const MPI_Aint RANK_OFF = offsetof(llist_elem, next) + offsetof(llist_ptr, rank);
static const MPI_Aint DISP_OFF = offsetof(llist_elem, next) + offsetof(llist_ptr, disp);
static const MPI_Aint NEXT_OFF = offsetof(llist_elem, next);

typedef enum { SHARED, LOCKALL, NOCHECK, NSYNC } sync_mode;
static const char *sync_names[NSYNC] = {"shared", "lockall", "nocheck"};

typedef struct {
  MPI_Win win;
  int threads, n, per_rank;  /* per_rank = threads * n elements */
  llist_elem **mine;         /* [thread * n + i] */
  llist_elem *sentinel;      /* rank 0 */
  llist_ptr head;
  MPI_Aint *addr;            /* [rank * per_rank + k]: element k of rank */
  MPI_Aint *sorted;          /* the same, sorted per rank */
  sync_mode sync;
  int whole;                 /* --write whole */
  int pause_us;              /* between the compare-and-swap and the write */
  int chase;                 /* chase the tail after my appends until the list is full */
  pthread_mutex_t lock;      /* shared: one lock epoch of this process at a time */
} list;
static list *L;

static int cmp_aint(const void *a, const void *b) {
  MPI_Aint x = *(const MPI_Aint *)a, y = *(const MPI_Aint *)b;
  return x < y ? -1 : x > y;
}

static int is_element(const list *l, int rank, MPI_Aint disp) {
  return bsearch(&disp, l->sorted + (size_t)rank * l->per_rank, (size_t)l->per_rank, sizeof(MPI_Aint),
                 cmp_aint) != NULL;
}

/* Epoch around one operation (shared) or a flush after it (lock_all). */
static void begin(list *l, int target) {
  if (l->sync == SHARED) {
    pthread_mutex_lock(&l->lock);
    MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, l->win));
  }
}
static void end(list *l, int target) {
  if (l->sync == SHARED) {
    MTEST_MPI(MPI_Win_unlock(target, l->win));
    pthread_mutex_unlock(&l->lock);
  } else {
    MTEST_MPI(MPI_Win_flush(target, l->win));
  }
}

/* The whole 16-byte next pointer of the element at `at`, read as MPI_BYTEs. */
static llist_ptr read_next(list *l, llist_ptr at) {
  llist_ptr p;
  memset(&p, 0x77, sizeof p);
  begin(l, at.rank);
  MTEST_MPI(MPI_Get_accumulate(NULL, 0, MPI_DATATYPE_NULL, &p, sizeof p, MPI_BYTE, at.rank, at.disp + NEXT_OFF,
                               sizeof p, MPI_BYTE, MPI_NO_OP, l->win));
  end(l, at.rank);
  return p;
}

/* A pointer read must be whole: dies with the bytes read if it is not. */
static void check_ptr(const list *l, llist_ptr p, llist_ptr at, int expect_rank, const char *who) {
  const unsigned char *b = (const unsigned char *)&p;
  char bytes[40];
  for (int i = 0; i < 16; i++)
    snprintf(bytes + 2 * i, 3, "%02x", b[i]);
  int pad = 0;
  memcpy(&pad, b + sizeof(int), sizeof pad);
  MTEST_ASSERT(p.rank >= NIL_RANK && p.rank < mtest.size,
               "%s read a torn pointer at rank %d disp %#lx: rank %d outside [-1, %d) (bytes %s)", who, at.rank,
               (unsigned long)at.disp, p.rank, mtest.size, bytes);
  MTEST_ASSERT(expect_rank == -2 || p.rank == expect_rank,
               "%s read a torn pointer at rank %d disp %#lx: rank %d, but MPI_Compare_and_swap saw %d (bytes %s)",
               who, at.rank, (unsigned long)at.disp, p.rank, expect_rank, bytes);
  MTEST_ASSERT(pad == 0, "%s read a torn pointer at rank %d disp %#lx: padding %#x (bytes %s)", who, at.rank,
               (unsigned long)at.disp, (unsigned)pad, bytes);
  MTEST_ASSERT(p.rank != NIL_RANK || p.disp == NIL_DISP,
               "%s read a torn pointer at rank %d disp %#lx: rank -1 (nil) but disp %#lx (bytes %s)", who, at.rank,
               (unsigned long)at.disp, (unsigned long)p.disp, bytes);
  MTEST_ASSERT(p.disp == NIL_DISP || is_element(l, p.rank, p.disp),
               "%s read a torn pointer at rank %d disp %#lx: disp %#lx is not an element of rank %d (bytes %s)",
               who, at.rank, (unsigned long)at.disp, (unsigned long)p.disp, p.rank, bytes);
}

/* Busy for us microseconds (the appender at work between its two steps). */
static void pause_us(int us) {
  for (double t0 = MPI_Wtime(); us > 0 && MPI_Wtime() - t0 < us * 1e-6;)
    ;
}

/* Appends e (mine: rank, address) after the list's tail; *tail is where the
 * search starts and, on return, e; *pos counts the elements up to *tail. */
static void append(list *l, llist_ptr e, llist_ptr *tail, long *pos, const char *who) {
  int nil = NIL_RANK;
  for (;;) {
    int seen = -3;
    begin(l, tail->rank);
    MTEST_MPI(MPI_Compare_and_swap(&e.rank, &nil, &seen, MPI_INT, tail->rank, tail->disp + RANK_OFF, l->win));
    end(l, tail->rank);
    MTEST_ASSERT(seen >= NIL_RANK && seen < mtest.size, "%s: MPI_Compare_and_swap of next.rank fetched %d", who,
                 seen);
    if (seen == NIL_RANK) {  /* won: make the pointer whole */
      pause_us(l->pause_us);
      begin(l, tail->rank);
      if (l->whole)
        MTEST_MPI(MPI_Accumulate(&e, sizeof e, MPI_BYTE, tail->rank, tail->disp + NEXT_OFF, sizeof e, MPI_BYTE,
                                 MPI_REPLACE, l->win));
      else
        MTEST_MPI(MPI_Accumulate(&e.disp, 1, MPI_AINT, tail->rank, tail->disp + DISP_OFF, 1, MPI_AINT,
                                 MPI_REPLACE, l->win));
      end(l, tail->rank);
      *tail = e;
      ++*pos;
      return;
    }
    /* Lost: another appender's element follows; wait for its displacement. */
    llist_ptr next;
    double t0 = MPI_Wtime();
    for (;;) {
      next = read_next(l, *tail);
      check_ptr(l, next, *tail, seen, who);
      if (next.disp != NIL_DISP)
        break;
      MTEST_ASSERT(MPI_Wtime() - t0 < 30, "%s: the displacement after rank %d disp %#lx was never written", who,
                   tail->rank, (unsigned long)tail->disp);
    }
    *tail = next;
    ++*pos;
  }
}

/* After its own appends an appender keeps chasing the tail (reading every
 * pointer whole, spinning on the nil and the half-made ones) until the list
 * holds every appender's elements. */
static void chase(list *l, llist_ptr *tail, long *pos, long total, const char *who) {
  double t0 = MPI_Wtime();
  while (*pos < total) {
    llist_ptr next = read_next(l, *tail);
    check_ptr(l, next, *tail, -2, who);
    if (next.rank != NIL_RANK && next.disp != NIL_DISP) {
      *tail = next;
      ++*pos;
      t0 = MPI_Wtime();
    }
    MTEST_ASSERT(MPI_Wtime() - t0 < 30, "%s: the list stayed at %ld of %ld elements for 30 s", who, *pos, total);
  }
}

static void appender(int thread, void *arg) {
  list *l = arg ? arg : L;
  char who[64];
  snprintf(who, sizeof who, "appender %d (rank %d thread %d)", mtest.rank * l->threads + thread, mtest.rank,
           thread);
  llist_ptr tail = l->head;
  long pos = 0;
  for (int i = 0; i < l->n; i++) {
    llist_ptr e;
    memset(&e, 0, sizeof e);  /* zero padding: the whole pointer goes out */
    e.rank = mtest.rank;
    e.disp = l->addr[(size_t)mtest.rank * l->per_rank + (size_t)thread * l->n + i];
    append(l, e, &tail, &pos, who);
  }
  if (l->chase)
    chase(l, &tail, &pos, (long)mtest.size * l->per_rank, who);
}

/* Rank 0 walks the list (nobody writes it now) and checks every element. */
static void traverse(list *l) {
  int appenders = mtest.size * l->threads;
  int *last = malloc(sizeof(int) * (size_t)appenders);
  for (int a = 0; a < appenders; a++)
    last[a] = -1;
  long count = 0, total = (long)appenders * l->n;
  llist_ptr at = l->head, next = read_next(l, at);
  check_ptr(l, next, at, -2, "the traversal");
  while (next.rank != NIL_RANK && count <= total) {
    MTEST_CHECK(next.disp != NIL_DISP, "element %ld: a pointer with rank %d and no displacement", count, next.rank);
    if (next.disp == NIL_DISP)
      break;
    at = next;
    int value = -1;
    begin(l, at.rank);
    MTEST_MPI(MPI_Get(&value, 1, MPI_INT, at.rank, at.disp + (MPI_Aint)offsetof(llist_elem, value), 1, MPI_INT,
                      l->win));
    end(l, at.rank);
    int a = value >> 16, seq = value & 0xffff;
    count++;
    if (a < 0 || a >= appenders || a / l->threads != at.rank || seq >= l->n) {
      mtest_fail(__FILE__, __LINE__, "element %ld at rank %d disp %#lx has value %#x: not an element of that rank",
                 count, at.rank, (unsigned long)at.disp, (unsigned)value);
    } else {
      MPI_Aint want = l->addr[(size_t)at.rank * l->per_rank + (size_t)(a % l->threads) * l->n + seq];
      MTEST_CHECK(at.disp == want, "element %ld (appender %d, number %d) is at disp %#lx, attached at %#lx", count,
                  a, seq, (unsigned long)at.disp, (unsigned long)want);
      MTEST_CHECK(seq == last[a] + 1, "element %ld: appender %d's element %d follows its element %d", count, a,
                  seq, last[a]);
      last[a] = seq;
    }
    next = read_next(l, at);
    check_ptr(l, next, at, -2, "the traversal");
  }
  MTEST_EQ(count, total, "elements on the list");
  for (int a = 0; a < appenders; a++)
    MTEST_EQ(last[a], l->n - 1, "last element of an appender on the list");
  free(last);
}

/* Every next pointer back to nil, made public before anyone appends. */
static void reset(list *l) {
  for (int k = 0; k < l->per_rank; k++) {
    memset(&l->mine[k]->next, 0, sizeof(llist_ptr));
    l->mine[k]->next.rank = NIL_RANK;
    l->mine[k]->next.disp = NIL_DISP;
  }
  if (l->sentinel) {
    memset(&l->sentinel->next, 0, sizeof(llist_ptr));
    l->sentinel->next.rank = NIL_RANK;
  }
  MTEST_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, l->win));
  MTEST_MPI(MPI_Win_sync(l->win));
  MTEST_MPI(MPI_Win_unlock_all(l->win));
  MPI_Barrier(MPI_COMM_WORLD);
}

static void round_of(list *l, sync_mode s, int whole) {
  l->sync = s;
  l->whole = whole;
  mtest_set_context("--sync %s --write %s", sync_names[s], whole ? "whole" : "split");
  reset(l);
  if (s != SHARED)
    MTEST_MPI(MPI_Win_lock_all(s == NOCHECK ? MPI_MODE_NOCHECK : 0, l->win));
  if (l->threads > 1)
    mtest_run_threads(l->threads, appender, NULL);
  else
    appender(0, l);
  if (s != SHARED)
    MTEST_MPI(MPI_Win_flush_all(l->win));
  MPI_Barrier(MPI_COMM_WORLD);  /* every append complete */
  if (mtest.rank == 0)
    traverse(l);
  if (s != SHARED)
    MTEST_MPI(MPI_Win_unlock_all(l->win));
  MPI_Barrier(MPI_COMM_WORLD);
}

static llist_elem *new_elem(list *l, int value) {
  llist_elem *e;
  MTEST_MPI(MPI_Alloc_mem(sizeof *e, MPI_INFO_NULL, &e));
  memset(e, 0, sizeof *e);
  e->value = value;
  e->next.rank = NIL_RANK;
  MTEST_MPI(MPI_Win_attach(l->win, e, sizeof *e));
  return e;
}

int main(int argc, char **argv) {
  /* Options before MPI_Init_thread: one thread needs no MPI_THREAD_MULTIPLE
   * (Open MPI's osc/pt2pt, which serves dynamic windows, refuses it). */
  int threads = (int)mtest_arg_long(argc, argv, "--threads", 1);
  mtest_init(&argc, &argv, threads > 1 ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE);
  static list l;
  L = &l;
  l.threads = threads;
  l.n = (int)mtest_arg_long(argc, argv, "--elements", 32);
  l.pause_us = (int)mtest_arg_long(argc, argv, "--pause-us", 50);
  l.chase = (int)mtest_arg_long(argc, argv, "--chase", 1);
  l.per_rank = l.threads * l.n;
  const char *syncs = mtest_arg_str(argc, argv, "--sync", "shared,lockall,nocheck");
  const char *writes = mtest_arg_str(argc, argv, "--write", "split,whole");
  MTEST_ASSERT(l.n > 0 && l.n <= 0xffff && (long)mtest.size * l.threads < 0x7fff, "too many elements");
  pthread_mutex_init(&l.lock, NULL);
  MTEST_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &l.win));

  /* My elements, each its own region; everyone learns every address. */
  l.mine = malloc(sizeof *l.mine * (size_t)l.per_rank);
  MPI_Aint *mine = malloc(sizeof(MPI_Aint) * (size_t)l.per_rank);
  for (int th = 0; th < l.threads; th++)
    for (int i = 0; i < l.n; i++) {
      int k = th * l.n + i;
      l.mine[k] = new_elem(&l, (mtest.rank * l.threads + th) << 16 | i);
      MPI_Get_address(l.mine[k], &mine[k]);
    }
  l.addr = malloc(sizeof(MPI_Aint) * (size_t)l.per_rank * (size_t)mtest.size);
  l.sorted = malloc(sizeof(MPI_Aint) * (size_t)l.per_rank * (size_t)mtest.size);
  MPI_Allgather(mine, l.per_rank, MPI_AINT, l.addr, l.per_rank, MPI_AINT, MPI_COMM_WORLD);
  memcpy(l.sorted, l.addr, sizeof(MPI_Aint) * (size_t)l.per_rank * (size_t)mtest.size);
  for (int r = 0; r < mtest.size; r++)
    qsort(l.sorted + (size_t)r * l.per_rank, (size_t)l.per_rank, sizeof(MPI_Aint), cmp_aint);
  l.sentinel = mtest.rank == 0 ? new_elem(&l, -1) : NULL;
  l.head.rank = 0;
  l.head.disp = 0;
  if (l.sentinel)
    MPI_Get_address(l.sentinel, &l.head.disp);
  MPI_Bcast(&l.head.disp, 1, MPI_AINT, 0, MPI_COMM_WORLD);

  for (int s = 0; s < NSYNC; s++)
    for (int whole = 0; whole < 2; whole++)
      if (mtest_listed(syncs, sync_names[s]) && mtest_listed(writes, whole ? "whole" : "split"))
        round_of(&l, (sync_mode)s, whole);

  mtest_set_context("%s", "");
  for (int k = 0; k < l.per_rank; k++) {
    MTEST_MPI(MPI_Win_detach(l.win, l.mine[k]));
    MTEST_MPI(MPI_Free_mem(l.mine[k]));
  }
  if (l.sentinel) {
    MTEST_MPI(MPI_Win_detach(l.win, l.sentinel));
    MTEST_MPI(MPI_Free_mem(l.sentinel));
  }
  MTEST_MPI(MPI_Win_free(&l.win));
  pthread_mutex_destroy(&l.lock);
  free(l.mine);
  free(mine);
  free(l.addr);
  free(l.sorted);
  return mtest_finish();
}
