/* Ranks without memory in windows of MPI_Win_allocate_shared, and
 * accumulates of zero elements whose types differ (issue 32).
 *
 * Every even rank allocates 0 bytes, every odd rank 16 * (rank + 1), in a
 * contiguous window and in one with alloc_shared_noncontig=true.  What a rank
 * without memory gets as its base (from MPI_Win_allocate_shared, MPI_WIN_BASE
 * and MPI_Win_shared_query) is what the host's own one-sided component gives,
 * checked on both (Remora is built per host):
 *   MPICH 4.0.2              NULL, contiguous or not;
 *   Open MPI 4.1.4 (osc/sm)  NULL when noncontiguous; in a contiguous window
 *                            the address where its memory would start.
 * Size 0 for it either way; MPI_PROC_NULL is the lowest rank with memory; in
 * a contiguous window each rank's memory starts where the previous one's
 * ends; every rank reads every other's pattern through the queried pointers.
 *
 * MPI_Accumulate and MPI_Get_accumulate of zero MPI_INT at zero MPI_DOUBLE
 * (MPI_SUM): MPICH takes them as a no-op (nothing changes at the target),
 * Open MPI's osc/sm refuses them (MPI_ERR_ARG; Remora over Open MPI says
 * MPI_ERR_TYPE, the class mtest expects, a host with another class is
 * reported, not failed).
 *
 *
 * Open MPI 4.1.4 alone (--host-skip, never through Remora):
 *   noncontig-size  its osc/sm gives the size of a rank's memory in a
 *                   noncontiguous window rounded up to a page (4096 for 32);
 *   all-empty-base  when no rank has memory (one rank) it gives a non-NULL
 *                   base in a noncontiguous window too.
 *
 *   shared_zero [--host-skip noncontig-size,all-empty-base] */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static MPI_Aint size_of(int rank) { return rank % 2 ? 16 * (MPI_Aint)(rank + 1) : 0; }
static unsigned char pattern(int rank, MPI_Aint i) { return (unsigned char)(rank * 31 + i * 5 + 1); }

static int null_when_empty(int noncontig) {
#if defined(OPEN_MPI)
  return noncontig;
#else
  (void)noncontig;
  return 1;
#endif
}

static const char *host_skip;

static void one_window(int noncontig) {
  mtest_set_context("MPI_Win_allocate_shared, alloc_shared_noncontig=%s", noncontig ? "true" : "false");
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", noncontig ? "true" : "false");
  unsigned char *mine = (unsigned char *)1;
  MPI_Win win;
  MTEST_MPI(MPI_Win_allocate_shared(size_of(mtest.rank), 4, info, MPI_COMM_WORLD, &mine, &win));
  MPI_Info_free(&info);
  MTEST_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  int hide = null_when_empty(noncontig);
  int all_empty = mtest.size == 1; /* only rank 0, without memory */
  int skip_base = all_empty && mtest_listed(host_skip, "all-empty-base");
  if (size_of(mtest.rank) != 0)
    MTEST_CHECK(mine != NULL, "my base pointer is NULL");
  else if (!skip_base)
    MTEST_CHECK(hide ? mine == NULL : mine != NULL, "my base pointer (no memory) is %s",
                mine ? "not NULL" : "NULL");
  void *attr = NULL;
  int flag = 0;
  MTEST_MPI(MPI_Win_get_attr(win, MPI_WIN_BASE, &attr, &flag));
  MTEST_CHECK(flag && attr == (void *)mine, "MPI_WIN_BASE is not the base pointer MPI_Win_allocate_shared gave");

  MTEST_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
  for (MPI_Aint i = 0; i < size_of(mtest.rank); i++)
    mine[i] = pattern(mtest.rank, i);
  MTEST_MPI(MPI_Win_sync(win));
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_sync(win));

  int lowest = -1;
  unsigned char *prev_end = NULL;
  for (int r = 0; r < mtest.size; r++) {
    MPI_Aint qsize = -1;
    int qunit = 0;
    unsigned char *q = (unsigned char *)1;
    MTEST_MPI(MPI_Win_shared_query(win, r, &qsize, &qunit, &q));
    if (!(noncontig && mtest_listed(host_skip, "noncontig-size")))
      MTEST_EQ(qsize, size_of(r), "the size of a queried rank");
    MTEST_EQ(qunit, 4, "the displacement unit of a queried rank");
    if (r == mtest.rank)
      MTEST_CHECK(q == mine, "rank %d (me): MPI_Win_shared_query's base is not my base pointer", r);
    if (size_of(r) == 0) {
      if (!skip_base)
        MTEST_CHECK(hide ? q == NULL : q != NULL, "rank %d has no memory: its base is %s", r,
                  q ? "not NULL" : "NULL");
      if (!noncontig && q && prev_end)
        MTEST_CHECK(q == prev_end, "rank %d (no memory): its base is not where rank %d's memory ends", r, r - 1);
      continue;
    }
    if (lowest < 0)
      lowest = r;
    MTEST_CHECK(q != NULL, "rank %d's base is NULL", r);
    if (!q)
      continue;
    if (!noncontig && prev_end)
      MTEST_CHECK(q == prev_end, "contiguous window: rank %d's memory does not start where the previous ends", r);
    prev_end = q + size_of(r);
    MPI_Aint bad = -1;
    for (MPI_Aint i = 0; i < size_of(r) && bad < 0; i++)
      if (q[i] != pattern(r, i))
        bad = i;
    MTEST_CHECK(bad < 0, "rank %d's memory through the queried pointer differs at byte %ld", r, (long)bad);
  }
  {
    MPI_Aint qsize = -1, lsize = 0;
    int qunit = 0, lunit = 0;
    unsigned char *q = (unsigned char *)1, *l = NULL;
    MTEST_MPI(MPI_Win_shared_query(win, MPI_PROC_NULL, &qsize, &qunit, &q));
    if (lowest >= 0) {
      MTEST_MPI(MPI_Win_shared_query(win, lowest, &lsize, &lunit, &l));
      MTEST_CHECK(q == l && (qsize == lsize || (noncontig && mtest_listed(host_skip, "noncontig-size"))),
                  "MPI_PROC_NULL is not the lowest rank with memory (%d)", lowest);
    } else {
      MTEST_EQ(qsize, 0, "MPI_PROC_NULL's size where no rank has memory");
    }
  }

  /* zero MPI_INT at zero MPI_DOUBLE, at a rank with memory and at one without */
  int x[2] = {7, 7}, res[2] = {5, 5};
  for (int t = 0; t < mtest.size && t < 2; t++) {
    int rc = MPI_Accumulate(x, 0, MPI_INT, t, 0, 0, MPI_DOUBLE, MPI_SUM, win);
    int rc2 = MPI_Get_accumulate(x, 0, MPI_INT, res, 0, MPI_INT, t, 0, 0, MPI_DOUBLE, MPI_SUM, win);
#if defined(OPEN_MPI)
    MTEST_EXPECT_ERR(rc, MPI_ERR_TYPE, "MPI_Accumulate of 0 MPI_INT at 0 MPI_DOUBLE (Open MPI refuses it)");
    MTEST_EXPECT_ERR(rc2, MPI_ERR_TYPE, "MPI_Get_accumulate of 0 MPI_INT at 0 MPI_DOUBLE (Open MPI refuses it)");
#else
    MTEST_CHECK(rc == MPI_SUCCESS, "MPI_Accumulate of 0 MPI_INT at 0 MPI_DOUBLE (target %d) returned %s; MPICH takes "
                "it as a no-op", t, mtest_class_name(rc));
    MTEST_CHECK(rc2 == MPI_SUCCESS, "MPI_Get_accumulate of 0 MPI_INT at 0 MPI_DOUBLE (target %d) returned %s; MPICH "
                "takes it as a no-op", t, mtest_class_name(rc2));
#endif
  }
  MTEST_MPI(MPI_Win_flush_all(win));
  MTEST_CHECK(res[0] == 5 && res[1] == 5, "a zero-element MPI_Get_accumulate wrote its result buffer");
  MTEST_MPI(MPI_Win_sync(win));
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_sync(win));
  MPI_Aint bad = -1;
  for (MPI_Aint i = 0; i < size_of(mtest.rank) && bad < 0; i++)
    if (mine[i] != pattern(mtest.rank, i))
      bad = i;
  MTEST_CHECK(bad < 0, "my memory changed at byte %ld after zero-element accumulates", (long)bad);
  MTEST_MPI(MPI_Win_unlock_all(win));
  MTEST_MPI(MPI_Win_free(&win));
}

int main(int argc, char **argv) {
  mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
  host_skip = mtest_host_list(argc, argv, "--host-skip");
  one_window(0);
  one_window(1);
  return mtest_finish();
}
