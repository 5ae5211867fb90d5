/* Dynamic-window errors under MPI_ERRORS_RETURN: attaching memory that
 * overlaps an attached region (MPI_ERR_RMA_ATTACH), detaching an address
 * where no region is attached, accessing a target address that is not
 * attached, that straddles a region's end, or whose region was detached
 * (MPI_ERR_RMA_RANGE).  The window stays usable afterwards.
 * A host MPI alone may not detect all of these: see mtest_expect_class.
 * Both hosts run every case (no --host-skip): the accesses they do not
 * detect land in memory this test owns (the SPARE allocations below).
 *
 * The standard names no class for MPI_Win_detach of an address where no
 * region is attached; MPI_ERR_RMA_RANGE ("target memory is not attached")
 * and MPI_ERR_RMA_ATTACH are both taken, any other class is not.
 *
 *   errors_dyn */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

/* Regions live inside SPARE-byte allocations, so overlapping attaches and
 * undetected stray accesses stay in memory we own. */
enum { REGION = 256, SPARE = 512, LEAD = 64 };

typedef struct {
  MPI_Win win;
  char *spare;     /* SPARE bytes */
  char *region;    /* spare + LEAD, REGION bytes attached */
  char *never;     /* allocated, never attached */
  char *gone;      /* attached, published, then detached (kept allocated) */
  MPI_Aint *region_at, *never_at, *gone_at;  /* per rank */
} dyn_err;

static void attach_errors(dyn_err *t) {
  struct { const char *what; char *base; MPI_Aint size; } overlap[] = {
    {"MPI_Win_attach of the attached region again", t->region, REGION},
    {"MPI_Win_attach inside an attached region", t->region + 64, 64},
    {"MPI_Win_attach overlapping an attached region's end", t->region + 200, 100},
    {"MPI_Win_attach overlapping an attached region's start", t->region - 32, 64},
  };
  for (size_t i = 0; i < sizeof overlap / sizeof overlap[0]; i++) {
    int rc = MPI_Win_attach(t->win, overlap[i].base, overlap[i].size);
    mtest_expect_class(__FILE__, __LINE__, rc, MPI_ERR_RMA_ATTACH, overlap[i].what);
    if (rc == MPI_SUCCESS)  /* a host took it: take it back */
      MPI_Win_detach(t->win, overlap[i].base);
  }
}

static void detach_errors(dyn_err *t) {
  struct { const char *what; char *base; } bad[] = {
    {"MPI_Win_detach of memory never attached", t->never},
    {"MPI_Win_detach of an address inside an attached region", t->region + 8},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int rc = MPI_Win_detach(t->win, bad[i].base), cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
      MPI_Error_class(rc, &cls);
    if (cls == MPI_ERR_RMA_ATTACH)
      continue;
    mtest_expect_class(__FILE__, __LINE__, rc, MPI_ERR_RMA_RANGE, bad[i].what);
  }
}

/* Puts that hit no attached memory of rank+1. */
static void access_errors(dyn_err *t) {
  int next = (mtest.rank + 1) % mtest.size;
  static int64_t v[2] = {1, 2};
  struct { const char *what; MPI_Aint disp; int count; } bad[] = {
    {"MPI_Put to memory the target never attached", t->never_at[next], 1},
    {"MPI_Put straddling the end of an attached region", t->region_at[next] + REGION - 8, 2},
    {"MPI_Put to a region the target detached", t->gone_at[next], 1},
  };
  MTEST_MPI(MPI_Win_lock_all(0, t->win));
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int rc = MPI_Put(v, bad[i].count, MPI_INT64_T, next, bad[i].disp, bad[i].count, MPI_INT64_T, t->win);
    if (rc == MPI_SUCCESS)
      rc = MPI_Win_flush(next, t->win);  /* a host may report it at completion */
    mtest_expect_class(__FILE__, __LINE__, rc, MPI_ERR_RMA_RANGE, bad[i].what);
  }
  MTEST_MPI(MPI_Win_unlock_all(t->win));
}

static void still_works(dyn_err *t) {
  int next = (mtest.rank + 1) % mtest.size, prev = (mtest.rank + mtest.size - 1) % mtest.size;
  int64_t v = 4242 + mtest.rank;
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_lock_all(0, t->win));
  MTEST_MPI(MPI_Put(&v, 1, MPI_INT64_T, next, t->region_at[next] + 16, 1, MPI_INT64_T, t->win));
  MTEST_MPI(MPI_Win_flush_all(t->win));
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_sync(t->win));
  int64_t got;
  memcpy(&got, t->region + 16, 8);
  MTEST_EQ(got, 4242 + prev, "a valid MPI_Put after the errors");
  MTEST_MPI(MPI_Win_unlock_all(t->win));
}

static void publish(MPI_Aint *all, void *p) {
  MPI_Aint a;
  MPI_Get_address(p, &a);
  MPI_Allgather(&a, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
  dyn_err t = {0};
  t.region_at = calloc((size_t)mtest.size, sizeof(MPI_Aint));
  t.never_at = calloc((size_t)mtest.size, sizeof(MPI_Aint));
  t.gone_at = calloc((size_t)mtest.size, sizeof(MPI_Aint));
  t.spare = calloc(1, SPARE);
  t.region = t.spare + LEAD;
  t.never = calloc(1, SPARE);
  t.gone = calloc(1, SPARE);
  MTEST_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &t.win));
  MPI_Win_set_errhandler(t.win, MPI_ERRORS_RETURN);
  MTEST_MPI(MPI_Win_attach(t.win, t.region, REGION));
  MTEST_MPI(MPI_Win_attach(t.win, t.gone, REGION));
  publish(t.region_at, t.region);
  publish(t.never_at, t.never);
  publish(t.gone_at, t.gone);
  MTEST_MPI(MPI_Win_detach(t.win, t.gone));
  MPI_Barrier(MPI_COMM_WORLD);

  attach_errors(&t);
  detach_errors(&t);
  access_errors(&t);
  still_works(&t);

  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_detach(t.win, t.region));
  MTEST_MPI(MPI_Win_free(&t.win));
  free(t.spare);
  free(t.never);
  free(t.gone);
  free(t.region_at);
  free(t.never_at);
  free(t.gone_at);
  return mtest_finish();
}
