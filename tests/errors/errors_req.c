/* Request-based RMA belongs to passive-target epochs (MPI-3.1 §11.3.5):
 * MPI_Rput, MPI_Rget, MPI_Raccumulate and MPI_Rget_accumulate must fail with
 * MPI_ERR_RMA_SYNC (under MPI_ERRORS_RETURN) with no epoch at all, inside a
 * fence epoch, inside a PSCW access epoch, and towards a target that the
 * origin's lock epoch does not cover.  The window stays usable afterwards.
 * A host MPI alone may not detect all of these: see mtest_expect_class.
 *
 *   errors_req [--host-skip no_epoch,fence,pscw,outside_lock]
 *
 * --host-skip names cases after which a host MPI that did not detect the
 * error breaks down (see CMakeLists.txt); under Remora it is refused. */
#include "mtest.h"

#include <stdio.h>
#include <string.h>

enum { NAPI = 4, WORDS = 16 };
static const char *api_names[NAPI] = {"MPI_Rput", "MPI_Rget", "MPI_Raccumulate", "MPI_Rget_accumulate"};

typedef struct {
  MPI_Win win;
  int64_t *base;
  int64_t buf[NAPI], res[NAPI];
  MPI_Request stray[64];  /* requests an undetecting host handed out */
  int nstray;
} req_err;

static const char *skip;

static void try_all(req_err *t, int target, const char *id, const char *epoch) {
  if (mtest_listed(skip, id)) {
    if (mtest.rank == 0)
      printf("not run over the host MPI alone (it breaks down): request-based RMA %s\n", epoch);
    return;
  }
  for (int a = 0; a < NAPI; a++) {
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Aint disp = WORDS - NAPI + a;  /* words nobody checks (disp_unit 8) */
    int rc = MPI_SUCCESS;
    t->buf[a] = 1;
    switch (a) {
    case 0: rc = MPI_Rput(&t->buf[a], 1, MPI_INT64_T, target, disp, 1, MPI_INT64_T, t->win, &req); break;
    case 1: rc = MPI_Rget(&t->res[a], 1, MPI_INT64_T, target, disp, 1, MPI_INT64_T, t->win, &req); break;
    case 2:
      rc = MPI_Raccumulate(&t->buf[a], 1, MPI_INT64_T, target, disp, 1, MPI_INT64_T, MPI_SUM, t->win, &req);
      break;
    default:
      rc = MPI_Rget_accumulate(&t->buf[a], 1, MPI_INT64_T, &t->res[a], 1, MPI_INT64_T, target, disp, 1,
                               MPI_INT64_T, MPI_SUM, t->win, &req);
    }
    char what[160];
    snprintf(what, sizeof what, "%s %s", api_names[a], epoch);
    mtest_expect_class(__FILE__, __LINE__, rc, MPI_ERR_RMA_SYNC, what);
    if (rc == MPI_SUCCESS && req != MPI_REQUEST_NULL)
      t->stray[t->nstray++] = req;  /* completed once the epoch is closed */
  }
}

static void finish_strays(req_err *t) {
  for (int i = 0; i < t->nstray; i++)
    MPI_Wait(&t->stray[i], MPI_STATUS_IGNORE);
  t->nstray = 0;
}

static MPI_Group group_of(int rank) {
  MPI_Group world, g;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &rank, &g);
  MPI_Group_free(&world);
  return g;
}

int main(int argc, char **argv) {
  mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
  skip = mtest_host_list(argc, argv, "--host-skip");
  static req_err t;
  int next = (mtest.rank + 1) % mtest.size, prev = (mtest.rank + mtest.size - 1) % mtest.size;
  MTEST_MPI(MPI_Win_allocate(WORDS * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &t.base, &t.win));
  MPI_Win_set_errhandler(t.win, MPI_ERRORS_RETURN);
  memset(t.base, 0, WORDS * 8);
  MPI_Barrier(MPI_COMM_WORLD);

  try_all(&t, next, "no_epoch", "with no epoch");
  MPI_Barrier(MPI_COMM_WORLD);
  /* Undetected with no epoch: the host may only finish them in an epoch. */
  MTEST_MPI(MPI_Win_lock_all(0, t.win));
  finish_strays(&t);
  MTEST_MPI(MPI_Win_unlock_all(t.win));

  MTEST_MPI(MPI_Win_fence(0, t.win));
  try_all(&t, next, "fence", "in a fence epoch");
  MTEST_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, t.win));
  finish_strays(&t);

  MPI_Group to = group_of(next), from = group_of(prev);
  MTEST_MPI(MPI_Win_post(from, 0, t.win));
  MTEST_MPI(MPI_Win_start(to, 0, t.win));
  try_all(&t, next, "pscw", "in a PSCW access epoch");
  MTEST_MPI(MPI_Win_complete(t.win));
  MTEST_MPI(MPI_Win_wait(t.win));
  finish_strays(&t);
  MPI_Group_free(&to);
  MPI_Group_free(&from);

  if (mtest.size > 1) {  /* a lock on rank+1 does not cover rank-1 (or me, with 2 ranks) */
    int other = mtest.size > 2 ? prev : mtest.rank;
    MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, next, 0, t.win));
    try_all(&t, other, "outside_lock", "to a target outside the origin's lock epoch");
    MTEST_MPI(MPI_Win_unlock(next, t.win));
    MPI_Barrier(MPI_COMM_WORLD);
    MTEST_MPI(MPI_Win_lock_all(0, t.win));
    finish_strays(&t);
    MTEST_MPI(MPI_Win_unlock_all(t.win));
  }

  /* The window still works: a correct MPI_Rput in a lock_all epoch. */
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_lock_all(0, t.win));
  MPI_Request req;
  int64_t v = 1000 + mtest.rank;
  MTEST_MPI(MPI_Rput(&v, 1, MPI_INT64_T, next, 0, 1, MPI_INT64_T, t.win, &req));
  MTEST_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  MTEST_MPI(MPI_Win_flush_all(t.win));
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_sync(t.win));
  MTEST_EQ(t.base[0], 1000 + prev, "a valid MPI_Rput after the errors");
  MTEST_MPI(MPI_Win_unlock_all(t.win));
  MTEST_MPI(MPI_Win_free(&t.win));
  return mtest_finish();
}
