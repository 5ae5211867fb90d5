/* MPI_Alloc_mem / MPI_Free_mem: small, odd and large sizes, with and without
 * info keys; the memory is ours to use whole (patterns written and read back,
 * no two allocations overlap); it serves MPI_Win_create windows and attached
 * regions of a dynamic window, as targets and as origin buffers; it is freed
 * in an order unrelated to allocation, after the windows that used it.
 *
 *   alloc_mem [--large-mib M] */
#include "mtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NSMALL = 500 };

static unsigned char byte_of(uintptr_t id, size_t i) { return (unsigned char)(id * 131 + i * 7 + 1); }

static void fill(void *p, size_t n, uintptr_t id) {
  unsigned char *b = p;
  for (size_t i = 0; i < n; i++)
    b[i] = byte_of(id, i);
}

static int intact(const void *p, size_t n, uintptr_t id) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++)
    if (b[i] != byte_of(id, i))
      return 0;
  return 1;
}

static void *alloc(size_t n, MPI_Info info) {
  void *p = NULL;
  MTEST_MPI(MPI_Alloc_mem((MPI_Aint)n, info, &p));
  MTEST_CHECK(n == 0 || p != NULL, "MPI_Alloc_mem(%zu) returned NULL", n);
  MTEST_CHECK((uintptr_t)p % 8 == 0, "MPI_Alloc_mem(%zu) returned %p, not 8-byte aligned", n, p);
  return p;
}

/* Many allocations of assorted sizes, alive together, freed in a shuffled
 * order: every one keeps its own pattern. */
static void many_small(MPI_Info info) {
  void *p[NSMALL];
  size_t n[NSMALL];
  int order[NSMALL];
  for (int i = 0; i < NSMALL; i++) {
    n[i] = (size_t)(1 + (i * 37) % 200);
    p[i] = alloc(n[i], info);
    fill(p[i], n[i], (uintptr_t)i);
    order[i] = i;
  }
  for (int i = NSMALL - 1; i > 0; i--) {  /* a fixed shuffle */
    int j = (i * 7919) % (i + 1), tmp = order[i];
    order[i] = order[j];
    order[j] = tmp;
  }
  for (int k = 0; k < NSMALL; k++) {
    int i = order[k];
    MTEST_CHECK(intact(p[i], n[i], (uintptr_t)i), "allocation %d (%zu bytes) was overwritten", i, n[i]);
    MTEST_MPI(MPI_Free_mem(p[i]));
    /* Half-way, the survivors are still intact after frees around them. */
    if (k == NSMALL / 2)
      for (int m = k + 1; m < NSMALL; m++)
        MTEST_CHECK(intact(p[order[m]], n[order[m]], (uintptr_t)order[m]), "allocation %d damaged by "
                  "freeing others", order[m]);
  }
}

static void large(size_t bytes) {
  char *p = alloc(bytes, MPI_INFO_NULL);
  for (size_t i = 0; i < bytes; i += 4096)
    p[i] = (char)(i >> 12);
  p[bytes - 1] = 0x5a;
  for (size_t i = 0; i < bytes; i += 4096)
    MTEST_CHECK(p[i] == (char)(i >> 12), "large allocation, byte %zu", i);
  MTEST_CHECK(p[bytes - 1] == 0x5a, "large allocation, last byte");
  MTEST_MPI(MPI_Free_mem(p));
}

static void zero_size(void) {
  void *p = alloc(0, MPI_INFO_NULL);
  MTEST_MPI(MPI_Free_mem(p));
}

/* The MPI-4.1 key: an implementation that knows it must honour it. */
static void aligned(void) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "mpi_minimum_memory_alignment", "4096");
  void *p = alloc(100, info);
  if ((uintptr_t)p % 4096 != 0) {
    if (mtest.remora)
      mtest_fail(__FILE__, __LINE__, "mpi_minimum_memory_alignment=4096 gave %p", p);
    else if (mtest.rank == 0)
      printf("host does not honour: mpi_minimum_memory_alignment=4096 (got %p)\n", p);
  }
  MTEST_MPI(MPI_Free_mem(p));
  MPI_Info_free(&info);
}

/* Windows on MPI_Alloc_mem memory: MPI_Win_create on it (sizes odd and
 * large) and one attached region per size in a dynamic window; puts come from
 * an MPI_Alloc_mem origin buffer too.  Memory outlives its windows and is
 * freed in reverse-interleaved order. */
static void windows(void) {
  static const size_t sizes[] = {8, 100, 4096, 1 << 20};
  enum { NS = sizeof sizes / sizeof sizes[0] };
  int next = (mtest.rank + 1) % mtest.size, prev = (mtest.rank + mtest.size - 1) % mtest.size;
  char *mem[NS], *dmem[NS];
  MPI_Win win[NS], dyn;
  MPI_Aint daddr[NS], remote[NS];
  int64_t *src = alloc(16, MPI_INFO_NULL);
  MTEST_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn));
  for (int s = 0; s < NS; s++) {
    mem[s] = alloc(sizes[s], MPI_INFO_NULL);
    dmem[s] = alloc(sizes[s], MPI_INFO_NULL);
    memset(mem[s], 0, sizes[s]);
    memset(dmem[s], 0, sizes[s]);
    MTEST_MPI(MPI_Win_create(mem[s], (MPI_Aint)sizes[s], 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win[s]));
    MTEST_MPI(MPI_Win_attach(dyn, dmem[s], (MPI_Aint)sizes[s]));
    MPI_Get_address(dmem[s], &daddr[s]);
  }
  /* Everyone sends the addresses of its regions to rank-1, its only origin. */
  MPI_Sendrecv(daddr, NS, MPI_AINT, prev, 0, remote, NS, MPI_AINT, next, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  for (int s = 0; s < NS; s++) {
    MPI_Aint last = (MPI_Aint)sizes[s] - 8;  /* the last word of the target memory */
    src[0] = ((int64_t)mtest.rank << 32) | s;
    src[1] = -src[0];
    int put = sizes[s] > 8;  /* else the put would hit the SUM's word */
    MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win[s]));
    if (put)
      MTEST_MPI(MPI_Put(&src[0], 1, MPI_INT64_T, next, last, 1, MPI_INT64_T, win[s]));
    MTEST_MPI(MPI_Accumulate(&src[1], 1, MPI_INT64_T, next, 0, 1, MPI_INT64_T, MPI_SUM, win[s]));
    MTEST_MPI(MPI_Win_unlock(next, win[s]));
    MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, next, 0, dyn));
    if (put)
      MTEST_MPI(MPI_Put(&src[0], 1, MPI_INT64_T, next, remote[s] + last, 1, MPI_INT64_T, dyn));
    MTEST_MPI(MPI_Accumulate(&src[1], 1, MPI_INT64_T, next, remote[s], 1, MPI_INT64_T, MPI_SUM, dyn));
    MTEST_MPI(MPI_Win_unlock(next, dyn));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int s = 0; s < NS; s++) {
    int64_t mine = ((int64_t)prev << 32) | s, first, lastw;
    MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, mtest.rank, 0, win[s]));
    MTEST_MPI(MPI_Win_sync(win[s]));
    memcpy(&first, mem[s], 8);
    memcpy(&lastw, mem[s] + sizes[s] - 8, 8);
    MTEST_MPI(MPI_Win_unlock(mtest.rank, win[s]));
    if (sizes[s] > 8)
      MTEST_EQ(lastw, mine, "put into MPI_Win_create memory from MPI_Alloc_mem");
    MTEST_EQ(first, -mine, "SUM into MPI_Win_create memory from MPI_Alloc_mem");
    MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, mtest.rank, 0, dyn));
    MTEST_MPI(MPI_Win_sync(dyn));
    memcpy(&first, dmem[s], 8);
    memcpy(&lastw, dmem[s] + sizes[s] - 8, 8);
    MTEST_MPI(MPI_Win_unlock(mtest.rank, dyn));
    if (sizes[s] > 8)
      MTEST_EQ(lastw, mine, "put into an attached MPI_Alloc_mem region");
    MTEST_EQ(first, -mine, "SUM into an attached MPI_Alloc_mem region");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int s = NS - 1; s >= 0; s--) {
    MTEST_MPI(MPI_Win_free(&win[s]));
    MTEST_MPI(MPI_Win_detach(dyn, dmem[s]));
  }
  MTEST_MPI(MPI_Win_free(&dyn));
  for (int s = 0; s < NS; s++) {  /* interleaved: window memory up, region memory down */
    MTEST_MPI(MPI_Free_mem(mem[s]));
    MTEST_MPI(MPI_Free_mem(dmem[NS - 1 - s]));
  }
  MTEST_MPI(MPI_Free_mem(src));
}

int main(int argc, char **argv) {
  mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
  size_t large_mib = (size_t)mtest_arg_long(argc, argv, "--large-mib", 16);
  MPI_Info info;
  MPI_Info_create(&info);
  /* Keys an implementation may not know must be ignored. */
  MPI_Info_set(info, "alloc_shm", "true");
  MPI_Info_set(info, "remora_no_such_key", "x");
  many_small(MPI_INFO_NULL);
  many_small(info);
  MPI_Info_free(&info);
  large(large_mib << 20);
  zero_size();
  aligned();
  windows();
  return mtest_finish();
}
