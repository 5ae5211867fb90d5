/* MPI_Win_create over the program's own heap memory, whose pages Remora
 * moves into shared memory for the peers on its node to map
 * (runtime/shared_pages.h), and back at MPI_Win_free: every page the window
 * touches where this process may hold other threads' writes meanwhile
 * (runtime/write_hold.h), else its whole pages.  Checks, with windows whose
 * ends lie inside pages that hold other data:
 *   - contents: the window's and its neighbours' bytes are the same after
 *     creation and after freeing; puts, gets and accumulates across the
 *     window's partial end pages and its shared pages land where they must;
 *   - where: the window's pages (only they) are shared memory while a window
 *     is over them and private again after the last window over them is
 *     freed (two windows over one range, a third over part of it, two over
 *     neighbouring memory that share a page); nothing shared is left mapped
 *     anywhere at the end;
 *   - MPI_Win_shared_query gives a peer's memory only when all of it is mapped;
 *   - a program that unmaps the memory before freeing the window (erroneous)
 *     does not crash MPI_Win_free;
 *   - while windows are made and freed, another thread that reads the window
 *     never sees other bytes, and one that keeps writing the neighbours on
 *     the end pages loses no write.
 * Remora only (the placement is Remora's).
 *
 *   shared_pages [--node-size K] [--expect-shared 0|1|2]
 * K: ranks per node as the job was started (0: all on one node); pages are
 * expected shared when another rank is on this rank's node: none with
 * --expect-shared 0 (REMORA_SHARE_WINDOW_PAGES=0), the whole pages with 1
 * (REMORA_SHARE_WINDOW_PAGES=whole), every page touched with 2; by default 2
 * when the kernel lets this process hold writes (a userfaultfd that serves
 * system calls too), else 1. */
#define _GNU_SOURCE /* memfd_create */
#include "mtest.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static size_t page;
static int expect_shared, expect_ends, node_size;

/* Whether this process may have a userfaultfd that serves system calls. */
static int may_hold_writes(void) {
  int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
  if (fd < 0) {
    int dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
    fd = dev < 0 ? -1 : ioctl(dev, _IO(0xAA, 0x00), O_CLOEXEC); /* USERFAULTFD_IOC_NEW */
    if (dev >= 0)
      close(dev);
  }
  if (fd >= 0)
    close(fd);
  return fd >= 0;
}

static unsigned char pattern(int owner, size_t i, int round) { return (unsigned char)(owner * 29 + i * 13 + round * 7 + 1); }

/* How many of Remora's shared window mappings hold p (p NULL: there are). */
static int shared_mappings(const void *p) {
  FILE *f = fopen("/proc/self/maps", "r");
  MTEST_ASSERT(f != NULL, "cannot read /proc/self/maps");
  char line[512];
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    uintptr_t lo, hi;
    if (strstr(line, "remora-window") && sscanf(line, "%lx-%lx", &lo, &hi) == 2 &&
        (!p || ((uintptr_t)p >= lo && (uintptr_t)p < hi)))
      n++;
  }
  fclose(f);
  return n;
}

static int in_shared_pages(const void *p) { return shared_mappings(p) > 0; }

/* Another rank on this rank's node (as the job was started). */
static int peer_on_node(void) {
  if (node_size == 0)
    return mtest.size > 1;
  int first = mtest.rank / node_size * node_size, last = first + node_size;
  return (last > mtest.size ? mtest.size : last) - first > 1;
}

static int same_node(int a, int b) { return node_size == 0 || a / node_size == b / node_size; }

/* A buffer of 6 pages; the window: 3 pages from 100 bytes into page 1, so its
 * first and last pages hold neighbours' bytes too, pages 2 and 3 are whole. */
enum { HEAD = 100 };
struct layout {
  unsigned char *buf, *win;
  size_t size;
};

static struct layout layout_new(void) {
  struct layout l;
  MTEST_ASSERT(posix_memalign((void **)&l.buf, page, 6 * page) == 0, "posix_memalign");
  l.win = l.buf + page + HEAD;
  l.size = 3 * page;
  for (size_t i = 0; i < 6 * page; i++)
    l.buf[i] = (unsigned char)(0xA5 ^ i);
  for (size_t i = 0; i < l.size; i++)
    l.win[i] = pattern(mtest.rank, i, 0);
  return l;
}

static int neighbours_intact(const struct layout *l) {
  for (size_t i = 0; i < 6 * page; i++)
    if ((l->buf + i < l->win || l->buf + i >= l->win + l->size) && l->buf[i] != (unsigned char)(0xA5 ^ i))
      return 0;
  return 1;
}

static int window_is(const unsigned char *w, size_t n, int owner, int round) {
  for (size_t i = 0; i < n; i++)
    if (w[i] != pattern(owner, i, round))
      return 0;
  return 1;
}

static void check_placement(const struct layout *l, const char *when, int shared) {
  MTEST_CHECK(in_shared_pages(l->buf + 2 * page) == shared && in_shared_pages(l->buf + 3 * page) == shared,
              "%s: the window's whole pages are %s", when, shared ? "not shared" : "still shared");
  int ends = shared && expect_ends;
  MTEST_CHECK(in_shared_pages(l->buf + page) == ends && in_shared_pages(l->buf + 4 * page) == ends,
              "%s: the window's end pages (with others' bytes) are %s", when, ends ? "not shared" : "shared");
  MTEST_CHECK(!in_shared_pages(l->buf) && !in_shared_pages(l->buf + 5 * page),
              "%s: a page the window does not touch was moved", when);
}

/* Puts, gets and accumulates across the partial end pages and the shared ones. */
static void edges(void) {
  mtest_set_context("edges");
  struct layout l = layout_new();
  MPI_Win win;
  MTEST_MPI(MPI_Win_create(l.win, (MPI_Aint)l.size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  int shared = expect_shared && peer_on_node();
  check_placement(&l, "after MPI_Win_create", shared);
  MTEST_CHECK(window_is(l.win, l.size, mtest.rank, 0) && neighbours_intact(&l), "MPI_Win_create changed the memory");
  MPI_Barrier(MPI_COMM_WORLD); /* checked before anybody puts */

  int to = (mtest.rank + 1) % mtest.size, from = (mtest.rank + mtest.size - 1) % mtest.size;
  unsigned char *mine = malloc(l.size);
  for (size_t i = 0; i < l.size; i++)
    mine[i] = pattern(to, i, 1);
  MTEST_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, to, 0, win));
  MTEST_MPI(MPI_Put(mine, (int)l.size, MPI_BYTE, to, 0, (int)l.size, MPI_BYTE, win));
  MTEST_MPI(MPI_Win_unlock(to, win));
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, mtest.rank, 0, win));
  MTEST_CHECK(window_is(l.win, l.size, mtest.rank, 1), "a put across the window's pages did not land whole");
  MTEST_MPI(MPI_Win_unlock(mtest.rank, win));
  MTEST_CHECK(neighbours_intact(&l), "a put into the window changed bytes beside it");

  /* reads of every piece, each on its own: the head page, a stretch across
   * each boundary, a shared page, the tail page */
  size_t first = page - HEAD, cuts[][2] = {{0, first}, {first - 8, 16}, {first, page}, {first + 2 * page - 8, 16},
                                           {first + 2 * page, HEAD}};
  MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, to, 0, win));
  for (size_t c = 0; c < sizeof cuts / sizeof *cuts; c++) {
    memset(mine, 0, l.size);
    MTEST_MPI(MPI_Get(mine, (int)cuts[c][1], MPI_BYTE, to, (MPI_Aint)cuts[c][0], (int)cuts[c][1], MPI_BYTE, win));
    MTEST_MPI(MPI_Win_flush(to, win));
    for (size_t i = 0; i < cuts[c][1]; i++)
      if (mine[i] != pattern(to, cuts[c][0] + i, 1)) {
        MTEST_CHECK(0, "get of %zu bytes at %zu: byte %zu wrong", cuts[c][1], cuts[c][0], i);
        break;
      }
  }
  MTEST_MPI(MPI_Win_unlock(to, win));

  /* accumulates of ints over the whole window (the lock-based protocol) */
  int nint = (int)(l.size / sizeof(int)), *ones = malloc(sizeof(int) * (size_t)nint), *before = malloc(l.size);
  for (int i = 0; i < nint; i++)
    ones[i] = 1;
  memcpy(before, l.win, l.size);
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, to, 0, win));
  MTEST_MPI(MPI_Accumulate(ones, nint, MPI_INT, to, 0, nint, MPI_INT, MPI_SUM, win));
  MTEST_MPI(MPI_Win_unlock(to, win));
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, mtest.rank, 0, win));
  int bad = 0;
  for (int i = 0; i < nint; i++) {
    int got, was;
    memcpy(&got, l.win + sizeof(int) * (size_t)i, sizeof got);
    memcpy(&was, (char *)before + sizeof(int) * (size_t)i, sizeof was);
    bad += got != was + 1;
  }
  MTEST_MPI(MPI_Win_unlock(mtest.rank, win));
  MTEST_CHECK(bad == 0, "accumulate from rank %d: %d of %d ints not incremented", from, bad, nint);

  /* a peer's memory is handed out when all of it is mapped, not in part */
  if (same_node(mtest.rank, to) && to != mtest.rank) {
    MPI_Aint qsize;
    int qdisp;
    void *qbase;
    MTEST_MPI(MPI_Win_shared_query(win, to, &qsize, &qdisp, &qbase));
    if (expect_shared && expect_ends)
      MTEST_CHECK(qsize == (MPI_Aint)l.size && qbase != NULL, "MPI_Win_shared_query of a window all shared: %ld "
                  "bytes at %p", (long)qsize, qbase);
    else
      MTEST_CHECK(qsize == 0 && qbase == NULL, "MPI_Win_shared_query gave %ld bytes at %p of a window whose ends "
                  "are not shared", (long)qsize, qbase);
  }
  memcpy(before, l.win, l.size);
  MTEST_MPI(MPI_Win_free(&win));
  check_placement(&l, "after MPI_Win_free", 0);
  MTEST_CHECK(memcmp(before, l.win, l.size) == 0 && neighbours_intact(&l), "MPI_Win_free changed the memory");
  free(before);
  free(ones);
  free(mine);
  free(l.buf);
}

/* A region attached to a dynamic window: the same placement at
 * MPI_Win_attach and MPI_Win_detach, and puts and gets across its edges. */
static void dynamic(void) {
  mtest_set_context("dynamic window");
  struct layout l = layout_new();
  MPI_Win win;
  MTEST_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  MTEST_MPI(MPI_Win_attach(win, l.win, (MPI_Aint)l.size));
  check_placement(&l, "after MPI_Win_attach", expect_shared && peer_on_node());
  MTEST_CHECK(window_is(l.win, l.size, mtest.rank, 0) && neighbours_intact(&l), "MPI_Win_attach changed the memory");
  MPI_Aint mine_at, *at = malloc(sizeof(MPI_Aint) * (size_t)mtest.size);
  MPI_Get_address(l.win, &mine_at);
  MPI_Allgather(&mine_at, 1, MPI_AINT, at, 1, MPI_AINT, MPI_COMM_WORLD);
  int to = (mtest.rank + 1) % mtest.size;
  unsigned char *mine = malloc(l.size);
  for (size_t i = 0; i < l.size; i++)
    mine[i] = pattern(to, i, 3);
  MTEST_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, to, 0, win));
  MTEST_MPI(MPI_Put(mine, (int)l.size, MPI_BYTE, to, at[to], (int)l.size, MPI_BYTE, win));
  MTEST_MPI(MPI_Win_unlock(to, win));
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_CHECK(window_is(l.win, l.size, mtest.rank, 3) && neighbours_intact(&l), "a put across an attached region");
  memset(mine, 0, l.size);
  MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, to, 0, win));
  MTEST_MPI(MPI_Get(mine, (int)l.size, MPI_BYTE, to, at[to], (int)l.size, MPI_BYTE, win));
  MTEST_MPI(MPI_Win_unlock(to, win));
  MTEST_CHECK(window_is(mine, l.size, to, 3), "a get across an attached region");
  MPI_Barrier(MPI_COMM_WORLD); /* nobody reaches the region any more */
  MTEST_MPI(MPI_Win_detach(win, l.win));
  check_placement(&l, "after MPI_Win_detach", 0);
  MTEST_CHECK(window_is(l.win, l.size, mtest.rank, 3) && neighbours_intact(&l), "MPI_Win_detach changed the memory");
  MTEST_MPI(MPI_Win_free(&win));
  free(mine);
  free(at);
  free(l.buf);
}

/* A window of whole pages: all of it mapped, MPI_Win_shared_query hands it out. */
static void whole_pages(void) {
  mtest_set_context("whole pages");
  unsigned char *buf;
  MTEST_ASSERT(posix_memalign((void **)&buf, page, 2 * page) == 0, "posix_memalign");
  for (size_t i = 0; i < 2 * page; i++)
    buf[i] = pattern(mtest.rank, i, 2);
  MPI_Win win;
  MTEST_MPI(MPI_Win_create(buf, (MPI_Aint)(2 * page), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  int to = (mtest.rank + 1) % mtest.size;
  if (expect_shared && same_node(mtest.rank, to) && to != mtest.rank) {
    MPI_Aint qsize;
    int qdisp;
    void *qbase;
    MTEST_MPI(MPI_Win_shared_query(win, to, &qsize, &qdisp, &qbase));
    MTEST_CHECK(qsize == (MPI_Aint)(2 * page) && qbase != NULL, "MPI_Win_shared_query of a peer's shared pages: "
                "%ld bytes at %p", (long)qsize, qbase);
    if (qbase)
      MTEST_CHECK(window_is(qbase, 2 * page, to, 2), "a peer's pages read through MPI_Win_shared_query");
  }
  MTEST_MPI(MPI_Win_free(&win));
  MTEST_CHECK(window_is(buf, 2 * page, mtest.rank, 2) && !in_shared_pages(buf), "whole pages after MPI_Win_free");
  free(buf);
}

/* Two windows over one range, a third over part of it: the pages stay
 * shared until the last window over them goes; the third one's puts land. */
static void twice(void) {
  mtest_set_context("two windows over one range");
  unsigned char *buf;
  MTEST_ASSERT(posix_memalign((void **)&buf, page, 3 * page) == 0, "posix_memalign");
  memset(buf, 0, 3 * page);
  int shared = expect_shared && peer_on_node();
  MPI_Win a, b, part;
  MTEST_MPI(MPI_Win_create(buf, (MPI_Aint)(3 * page), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &a));
  MTEST_MPI(MPI_Win_create(buf, (MPI_Aint)(3 * page), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &b));
  MTEST_MPI(MPI_Win_create(buf + page, (MPI_Aint)page, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &part));
  MTEST_CHECK(in_shared_pages(buf) == shared, "two windows over one range");
  int to = (mtest.rank + 1) % mtest.size, from = (mtest.rank + mtest.size - 1) % mtest.size;
  long v = 1000 + from;
  long mine = 1000 + mtest.rank;
  MTEST_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, to, 0, part));
  MTEST_MPI(MPI_Put(&mine, 1, MPI_LONG, to, 8, 1, MPI_LONG, part));
  MTEST_MPI(MPI_Win_unlock(to, part));
  MPI_Barrier(MPI_COMM_WORLD);
  long got;
  MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, mtest.rank, 0, a));
  memcpy(&got, buf + page + 8, sizeof got);
  MTEST_MPI(MPI_Win_unlock(mtest.rank, a));
  MTEST_EQ(got, v, "a put through a window over part of shared pages");
  MTEST_MPI(MPI_Win_free(&part));
  MTEST_MPI(MPI_Win_free(&a));
  MTEST_CHECK(in_shared_pages(buf) == shared, "the pages must stay shared while a window is over them");
  MTEST_MPI(MPI_Win_free(&b));
  MTEST_CHECK(!in_shared_pages(buf), "the pages must be private after the last window over them");
  memcpy(&got, buf + page + 8, sizeof got);
  MTEST_EQ(got, v, "the put's value after the windows are freed");
  free(buf);
}

/* Windows over neighbouring memory whose ends share a page: the first takes
 * every page it touches, the second then only its whole pages (the page they
 * share is the first's); puts through both land, each window's pages go back
 * when it is freed. */
static void neighbours(void) {
  mtest_set_context("windows that share a page");
  unsigned char *buf;
  MTEST_ASSERT(posix_memalign((void **)&buf, page, 4 * page) == 0, "posix_memalign");
  memset(buf, 0, 4 * page);
  int shared = expect_shared && peer_on_node(), ends = shared && expect_ends;
  unsigned char *a_mem = buf + HEAD, *b_mem = buf + page + 2 * HEAD;
  size_t a_size = page, b_size = 3 * page - page - 2 * HEAD;
  MPI_Win a, b;
  MTEST_MPI(MPI_Win_create(a_mem, (MPI_Aint)a_size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &a));
  MTEST_MPI(MPI_Win_create(b_mem, (MPI_Aint)b_size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &b));
  MTEST_CHECK(in_shared_pages(buf) == ends && in_shared_pages(buf + page) == ends,
              "the first window's pages are %s", ends ? "not shared" : "shared");
  MTEST_CHECK(in_shared_pages(buf + 2 * page) == shared && !in_shared_pages(buf + 3 * page),
              "the second window's whole page is %s", shared ? "not shared" : "shared");
  int to = (mtest.rank + 1) % mtest.size, from = (mtest.rank + mtest.size - 1) % mtest.size;
  long mine = 2000 + mtest.rank;
  MPI_Aint at[] = {0, (MPI_Aint)(a_size - 8), 0, (MPI_Aint)(b_size - 8)};
  for (int k = 0; k < 4; k++) {
    MPI_Win w = k < 2 ? a : b;
    MTEST_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, to, 0, w));
    MTEST_MPI(MPI_Put(&mine, 1, MPI_LONG, to, at[k], 1, MPI_LONG, w));
    MTEST_MPI(MPI_Win_unlock(to, w));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int k = 0; k < 4; k++) {
    long got;
    memcpy(&got, (k < 2 ? a_mem : b_mem) + at[k], sizeof got);
    MTEST_CHECK(got == 2000 + from, "a put at byte %ld of window %c: %ld, expected %d", (long)at[k],
                k < 2 ? 'a' : 'b', got, 2000 + from);
  }
  MTEST_MPI(MPI_Win_free(&a));
  MTEST_CHECK(!in_shared_pages(buf) && !in_shared_pages(buf + page) && in_shared_pages(buf + 2 * page) == shared,
              "after the first window is freed: its pages private, the second's as they were");
  MTEST_MPI(MPI_Win_free(&b));
  MTEST_CHECK(!in_shared_pages(buf + 2 * page), "the pages must be private after both windows are freed");
  free(buf);
}

/* A window over an array on the stack of a thread other than the main one
 * (memory like the heap's to the kernel): its pages hold the frames of the
 * calls that make and free it, so they stay where they are (a hold of their
 * writes would wait for itself); the window works all the same. */
static void *stack_window(void *arg) {
  (void)arg;
  unsigned char mem[3 * 4096 + 256];
  memset(mem, 0, sizeof mem);
  MPI_Win win;
  MTEST_MPI(MPI_Win_create(mem, (MPI_Aint)sizeof mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  int to = (mtest.rank + 1) % mtest.size, from = (mtest.rank + mtest.size - 1) % mtest.size;
  long mine = 3000 + mtest.rank, got;
  MTEST_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, to, 0, win));
  MTEST_MPI(MPI_Put(&mine, 1, MPI_LONG, to, (MPI_Aint)sizeof mem - 8, 1, MPI_LONG, win));
  MTEST_MPI(MPI_Win_unlock(to, win));
  MPI_Barrier(MPI_COMM_WORLD);
  memcpy(&got, mem + sizeof mem - 8, sizeof got);
  MTEST_CHECK(got == 3000 + from, "a put into a window on a thread's stack: %ld, expected %d", got, 3000 + from);
  MTEST_MPI(MPI_Win_free(&win));
  return NULL;
}

static void thread_stack(void) {
  mtest_set_context("a window on a thread's stack");
  pthread_t t;
  pthread_create(&t, NULL, stack_window, NULL);
  pthread_join(t, NULL); /* MPI_THREAD_SERIALIZED: the main thread makes no MPI call meanwhile */
}

/* A program that unmaps its window memory before freeing the window (as a
 * large free() does) and maps something else there, a shared file: erroneous,
 * but MPI_Win_free must leave what is there now alone (moving "its" pages
 * back would replace the file's mapping by a private copy). */
static void unmapped_first(void) {
  mtest_set_context("memory unmapped before MPI_Win_free");
  size_t len = 4 * page;
  unsigned char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  MTEST_ASSERT(mem != MAP_FAILED, "mmap");
  memset(mem, 7, len);
  MPI_Win win;
  MTEST_MPI(MPI_Win_create(mem, (MPI_Aint)len, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  MTEST_CHECK(in_shared_pages(mem) == (expect_shared && peer_on_node()), "an mmap'ed window's pages");
  MPI_Barrier(MPI_COMM_WORLD);
  munmap(mem, len);
  int fd = memfd_create("shared_pages-test", MFD_CLOEXEC);
  MTEST_ASSERT(fd >= 0 && ftruncate(fd, (off_t)len) == 0, "memfd");
  unsigned char *again = mmap(mem, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
  unsigned char *other = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  MTEST_ASSERT(other != MAP_FAILED, "mmap of the test's file");
  MTEST_MPI(MPI_Win_free(&win));
  if (again == mem) { /* else the place was taken meanwhile: nothing to check there */
    again[len - 1] = 42;
    MTEST_EQ(other[len - 1], 42, "the program's file mapping where the window was, after MPI_Win_free");
    munmap(again, len);
  }
  munmap(other, len);
  close(fd);
}

/* Threads that do not call MPI: one reads the window, one writes the
 * neighbours on its end pages, while the main thread makes and frees it. */
struct busy {
  struct layout *l;
  atomic_int stop;
  long wrong_reads, writes;
};

static void *reader(void *arg) {
  struct busy *b = arg;
  while (!atomic_load(&b->stop))
    for (size_t i = 0; i < b->l->size; i += 61)
      b->wrong_reads += ((volatile unsigned char *)b->l->win)[i] != pattern(mtest.rank, i, 0);
  return NULL;
}

static void *writer(void *arg) {
  struct busy *b = arg;
  /* longs beside the window on its first and last pages */
  volatile long *head = (volatile long *)(b->l->buf + page), *tail = (volatile long *)(b->l->buf + 5 * page - 8);
  while (!atomic_load(&b->stop)) {
    *head += 1;
    *tail += 1;
    b->writes++;
  }
  return NULL;
}

static void concurrent(void) {
  mtest_set_context("threads beside MPI_Win_create and MPI_Win_free");
  struct layout l = layout_new();
  memset(l.buf + page, 0, 8);
  memset(l.buf + 5 * page - 8, 0, 8);
  struct busy b = {.l = &l};
  pthread_t t[2];
  pthread_create(&t[0], NULL, reader, &b);
  pthread_create(&t[1], NULL, writer, &b);
  for (int k = 0; k < 60; k++) {
    MPI_Win win;
    MTEST_MPI(MPI_Win_create(l.win, (MPI_Aint)l.size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MTEST_MPI(MPI_Win_free(&win));
  }
  atomic_store(&b.stop, 1);
  pthread_join(t[0], NULL);
  pthread_join(t[1], NULL);
  long head, tail;
  memcpy(&head, l.buf + page, 8);
  memcpy(&tail, l.buf + 5 * page - 8, 8);
  MTEST_EQ(b.wrong_reads, 0, "reads of the window that saw other bytes while it was made and freed");
  MTEST_CHECK(head == b.writes && tail == b.writes, "writes beside the window lost: %ld made, %ld and %ld found",
              b.writes, head, tail);
  free(l.buf);
}

int main(int argc, char **argv) {
  mtest_init(&argc, &argv, MPI_THREAD_SERIALIZED);
  page = (size_t)sysconf(_SC_PAGESIZE);
  node_size = (int)mtest_arg_long(argc, argv, "--node-size", 0);
  expect_shared = (int)mtest_arg_long(argc, argv, "--expect-shared", may_hold_writes() ? 2 : 1);
  expect_ends = expect_shared == 2;
  MTEST_ASSERT(mtest.remora, "this test checks where Remora places window memory: run it through remora-run");
  edges();
  dynamic();
  whole_pages();
  twice();
  neighbours();
  thread_stack();
  unmapped_first();
  concurrent();
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_EQ(shared_mappings(NULL), 0, "shared window mappings left after every window was freed");
  return mtest_finish();
}
