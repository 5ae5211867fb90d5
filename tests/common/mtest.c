/* mtest: harness of the issue-3 MPI tests (see mtest.h). */
#define _GNU_SOURCE
#include "mtest.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

mtest_env mtest;

/* Threads of a test report failures concurrently. */
static atomic_long failures;
/* Enough lines to see a pattern, not so many that a broken matrix floods the log. */
enum { MAX_PRINTED = 4000 };

/* Set between phases, never while threads report. */
static char context[128];

void mtest_set_context(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(context, sizeof context, fmt, ap);
  va_end(ap);
}

static void vreport(const char *kind, const char *file, int line, const char *fmt, va_list ap) {
  char msg[1024];
  vsnprintf(msg, sizeof msg, fmt, ap);
  fprintf(stderr, "%s: rank %d%s%s%s (%s:%d): %s\n", kind, mtest.rank, context[0] ? " [" : "", context,
          context[0] ? "]" : "", file, line, msg);
  fflush(stderr);
}

void mtest_fail(const char *file, int line, const char *fmt, ...) {
  long n = atomic_fetch_add(&failures, 1);
  if (n >= MAX_PRINTED)
    return;
  va_list ap;
  va_start(ap, fmt);
  vreport("FAIL", file, line, fmt, ap);
  va_end(ap);
}

void mtest_die(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("FATAL", file, line, fmt, ap);
  va_end(ap);
  MPI_Abort(MPI_COMM_WORLD, 1);
  abort();
}

long mtest_failures(void) { return atomic_load(&failures); }

static const struct { int cls; const char *name; } class_names[] = {
  {MPI_SUCCESS, "MPI_SUCCESS"}, {MPI_ERR_OP, "MPI_ERR_OP"}, {MPI_ERR_TYPE, "MPI_ERR_TYPE"},
  {MPI_ERR_ARG, "MPI_ERR_ARG"}, {MPI_ERR_COUNT, "MPI_ERR_COUNT"}, {MPI_ERR_RANK, "MPI_ERR_RANK"},
  {MPI_ERR_WIN, "MPI_ERR_WIN"}, {MPI_ERR_BASE, "MPI_ERR_BASE"}, {MPI_ERR_DISP, "MPI_ERR_DISP"},
  {MPI_ERR_SIZE, "MPI_ERR_SIZE"}, {MPI_ERR_INFO, "MPI_ERR_INFO"}, {MPI_ERR_OTHER, "MPI_ERR_OTHER"},
  {MPI_ERR_INTERN, "MPI_ERR_INTERN"}, {MPI_ERR_REQUEST, "MPI_ERR_REQUEST"},
  {MPI_ERR_RMA_SYNC, "MPI_ERR_RMA_SYNC"}, {MPI_ERR_RMA_RANGE, "MPI_ERR_RMA_RANGE"},
  {MPI_ERR_RMA_ATTACH, "MPI_ERR_RMA_ATTACH"}, {MPI_ERR_RMA_CONFLICT, "MPI_ERR_RMA_CONFLICT"},
  {MPI_ERR_RMA_SHARED, "MPI_ERR_RMA_SHARED"}, {MPI_ERR_RMA_FLAVOR, "MPI_ERR_RMA_FLAVOR"},
  {MPI_ERR_LOCKTYPE, "MPI_ERR_LOCKTYPE"}, {MPI_ERR_ASSERT, "MPI_ERR_ASSERT"},
  {MPI_ERR_NO_MEM, "MPI_ERR_NO_MEM"}, {MPI_ERR_BUFFER, "MPI_ERR_BUFFER"},
  {MPI_ERR_TRUNCATE, "MPI_ERR_TRUNCATE"}, {MPI_ERR_UNSUPPORTED_OPERATION, "MPI_ERR_UNSUPPORTED_OPERATION"},
};

const char *mtest_class_name(int cls) {
  for (size_t i = 0; i < sizeof class_names / sizeof class_names[0]; i++)
    if (class_names[i].cls == cls)
      return class_names[i].name;
  return "(another class)";
}

void mtest_fail_rc(const char *file, int line, const char *call, int rc) {
  int cls = rc, len = 0;
  char s[MPI_MAX_ERROR_STRING] = "";
  MPI_Error_class(rc, &cls);
  MPI_Error_string(rc, s, &len);
  mtest_fail(file, line, "%s returned %d (%s: %s), expected MPI_SUCCESS", call, rc,
           mtest_class_name(cls), s);
}

int mtest_expect_class(const char *file, int line, int rc, int cls, const char *what) {
  int got = MPI_SUCCESS;
  if (rc != MPI_SUCCESS)
    MPI_Error_class(rc, &got);
  if (got == cls)
    return 1;
  if (!mtest.remora) {
    if (got == MPI_SUCCESS)
      printf("host does not detect: %s (rank %d, %s:%d)\n", what, mtest.rank, file, line);
    else
      printf("host does not detect: %s with %s; it reports %s (rank %d, %s:%d)\n", what,
             mtest_class_name(cls), mtest_class_name(got), mtest.rank, file, line);
    fflush(stdout);
    return 0;
  }
  mtest_fail(file, line, "%s: expected error class %s, got %s (rc %d)", what, mtest_class_name(cls),
           mtest_class_name(got), rc);
  return 0;
}

void mtest_init(int *argc, char ***argv, int thread_level) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(argc, argv, thread_level, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &mtest.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mtest.size);
  mtest.thread_level = provided;
  /* Remora exports remora_active(); a host MPI alone does not. */
  int (*active)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "remora_active");
  mtest.remora = active != NULL && active() == 1;
  if (provided < thread_level)
    mtest_die(__FILE__, __LINE__, "MPI_Init_thread provided level %d, the test needs %d", provided,
            thread_level);
}

int mtest_finish(void) {
  long mine = mtest_failures(), all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (mtest.rank == 0) {
    if (all == 0)
      printf(" No Errors\n");
    else
      printf(" Found %ld errors\n", all);
    fflush(stdout);
  }
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}

static int find_arg(int argc, char **argv, const char *name) {
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], name) == 0)
      return i + 1;
  return 0;
}

long mtest_arg_long(int argc, char **argv, const char *name, long dflt) {
  int i = find_arg(argc, argv, name);
  return i ? strtol(argv[i], NULL, 0) : dflt;
}

const char *mtest_arg_str(int argc, char **argv, const char *name, const char *dflt) {
  int i = find_arg(argc, argv, name);
  return i ? argv[i] : dflt;
}

int mtest_listed(const char *list, const char *item) {
  size_t n = strlen(item);
  for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
    if (strncmp(p, item, n) == 0 && (p[n] == ',' || p[n] == '\0'))
      return 1;
  return 0;
}

const char *mtest_host_list(int argc, char **argv, const char *name) {
  const char *list = mtest_arg_str(argc, argv, name, NULL);
  if (list && mtest.remora)
    mtest_die(__FILE__, __LINE__, "%s is for runs over a host MPI alone: Remora must pass every case",
            name);
  return list;
}

typedef struct {
  void (*fn)(int, void *);
  void *arg;
  int i;
} thread_start;

static void *thread_main(void *p) {
  thread_start *s = p;
  s->fn(s->i, s->arg);
  return NULL;
}

void mtest_run_threads(int n, void (*fn)(int i, void *arg), void *arg) {
  pthread_t tid[n];
  thread_start st[n];
  for (int i = 0; i < n; i++) {
    st[i] = (thread_start){fn, arg, i};
    MTEST_ASSERT(pthread_create(&tid[i], NULL, thread_main, &st[i]) == 0, "pthread_create");
  }
  for (int i = 0; i < n; i++)
    pthread_join(tid[i], NULL);
}

static const char *kind_names[MTEST_NKINDS] = {"allocate", "create", "alloc_mem", "dynamic"};

mtest_win_kind mtest_win_kind_parse(const char *name) {
  for (int k = 0; k < MTEST_NKINDS; k++)
    if (strcmp(name, kind_names[k]) == 0)
      return (mtest_win_kind)k;
  mtest_die(__FILE__, __LINE__, "unknown window kind '%s' (allocate|create|alloc_mem|dynamic)", name);
}

const char *mtest_win_kind_name(mtest_win_kind kind) { return kind_names[kind]; }

int mtest_win_kinds(int argc, char **argv, mtest_win_kind *kinds) {
  const char *list = mtest_arg_str(argc, argv, "--win", "all");
  int n = 0;
  if (strcmp(list, "all") == 0) {
    for (int k = 0; k < MTEST_NKINDS; k++)
      kinds[n++] = (mtest_win_kind)k;
    return n;
  }
  char buf[128];
  snprintf(buf, sizeof buf, "%s", list);
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok && n < MTEST_NKINDS;
       tok = strtok_r(NULL, ",", &save))
    kinds[n++] = mtest_win_kind_parse(tok);
  return n;
}

void mtest_win_open(mtest_win *w, mtest_win_kind kind, size_t size, MPI_Info info, MPI_Comm comm) {
  int n;
  MPI_Comm_size(comm, &n);
  w->kind = kind;
  w->size = size;
  w->origin = calloc((size_t)n, sizeof *w->origin);
  MTEST_ASSERT(w->origin != NULL, "calloc");
  MPI_Aint sz = (MPI_Aint)size;
  switch (kind) {
  case MTEST_WIN_ALLOCATE:
    /* A multiple of 64 bytes: MPICH 4.0.2 (ch4:ucx) misplaces RMA to ranks > 0
     * of an MPI_Win_allocate window whose size is not a multiple of 16. */
    MTEST_MPI(MPI_Win_allocate((sz + 63) / 64 * 64, 1, info, comm, &w->base, &w->win));
    break;
  case MTEST_WIN_CREATE:
    /* 64-byte alignment so 16-byte types stay naturally aligned. */
    w->base = aligned_alloc(64, (size + 63) / 64 * 64 + 64);
    MTEST_ASSERT(w->base != NULL, "aligned_alloc");
    MTEST_MPI(MPI_Win_create(w->base, sz, 1, info, comm, &w->win));
    break;
  case MTEST_WIN_ALLOC_MEM:
    MTEST_MPI(MPI_Alloc_mem(sz, MPI_INFO_NULL, &w->base));
    MTEST_MPI(MPI_Win_create(w->base, sz, 1, info, comm, &w->win));
    break;
  case MTEST_WIN_DYNAMIC: {
    /* malloc memory: MPI_Alloc_mem memory is what the alloc_mem kind uses. */
    w->base = aligned_alloc(64, (size + 63) / 64 * 64 + 64);
    MTEST_ASSERT(w->base != NULL, "aligned_alloc");
    MTEST_MPI(MPI_Win_create_dynamic(info, comm, &w->win));
    MTEST_MPI(MPI_Win_attach(w->win, w->base, sz));
    MPI_Aint mine;
    MPI_Get_address(w->base, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, w->origin, 1, MPI_AINT, comm);
    break;
  }
  case MTEST_NKINDS:
    mtest_die(__FILE__, __LINE__, "no window kind %d", (int)kind);
  }
  memset(w->base, 0, size);
  /* Nobody may access a peer's memory before the peer has zeroed it; the
   * local stores reach the public copy through MPI_Win_sync. */
  MTEST_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, w->win));
  MTEST_MPI(MPI_Win_sync(w->win));
  MTEST_MPI(MPI_Win_unlock_all(w->win));
  MPI_Barrier(comm);
}

void mtest_win_close(mtest_win *w) {
  if (w->kind == MTEST_WIN_DYNAMIC)
    MTEST_MPI(MPI_Win_detach(w->win, w->base));
  MTEST_MPI(MPI_Win_free(&w->win));
  if (w->kind == MTEST_WIN_CREATE || w->kind == MTEST_WIN_DYNAMIC)
    free(w->base);
  else if (w->kind == MTEST_WIN_ALLOC_MEM)
    MTEST_MPI(MPI_Free_mem(w->base));
  free(w->origin);
  w->origin = NULL;
}
