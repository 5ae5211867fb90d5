/* mtest: the small harness of the engine's MPI tests (tests/windows, rma, sync, accumulate, dynamic, errors, symbols).
 *
 * Every test is a plain MPI program that must pass over a host MPI alone and
 * over Remora (remora-run).  It records failures with file:line, expected and
 * got, keeps going where it safely can, and ends with one collective verdict:
 * rank 0 prints "No Errors", or the failure count and the program exits 1. */
#ifndef MTEST_H
#define MTEST_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  int rank, size;
  int remora;        /* 1 when Remora serves RMA (remora_active() said so) */
  int thread_level;  /* what MPI_Init_thread provided */
} mtest_env;

extern mtest_env mtest;

/* MPI_Init_thread; a test that asks for MPI_THREAD_MULTIPLE and does not get
 * it fails (it cannot test what it was written for). */
void mtest_init(int *argc, char ***argv, int thread_level);
/* Collective verdict and MPI_Finalize; returns the process exit code. */
int mtest_finish(void);

/* What the test is doing now (e.g. the window kind), shown in failures. */
void mtest_set_context(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void mtest_fail(const char *file, int line, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));
/* A failure after which the test cannot go on: print and MPI_Abort. */
void mtest_die(const char *file, int line, const char *fmt, ...)
  __attribute__((format(printf, 3, 4), noreturn));
long mtest_failures(void);

#define MTEST_CHECK(cond, ...) \
  do { if (!(cond)) mtest_fail(__FILE__, __LINE__, __VA_ARGS__); } while (0)
#define MTEST_EQ(got, exp, what) \
  do { long long g_ = (long long)(got), e_ = (long long)(exp); \
       if (g_ != e_) mtest_fail(__FILE__, __LINE__, "%s: expected %lld, got %lld", (what), e_, g_); \
  } while (0)
/* An MPI call that must succeed (under MPI_ERRORS_RETURN it may not abort). */
#define MTEST_MPI(call) \
  do { int rc_ = (call); \
       if (rc_ != MPI_SUCCESS) mtest_fail_rc(__FILE__, __LINE__, #call, rc_); } while (0)
void mtest_fail_rc(const char *file, int line, const char *call, int rc);
#define MTEST_ASSERT(cond, ...) \
  do { if (!(cond)) mtest_die(__FILE__, __LINE__, __VA_ARGS__); } while (0)

/* An erroneous call made under MPI_ERRORS_RETURN: its error class must be cls.
 * A host MPI alone may not detect every error (the standard does not oblige
 * it to): then "host does not detect: <what>" is printed instead of failing.
 * A host that detects the error with another class is reported the same way.
 * Under Remora both are failures.  Returns 1 when the error was reported
 * with the right class. */
int mtest_expect_class(const char *file, int line, int rc, int cls, const char *what);
#define MTEST_EXPECT_ERR(rc, cls, what) mtest_expect_class(__FILE__, __LINE__, (rc), (cls), (what))

/* --name value options (every test takes only these). */
long mtest_arg_long(int argc, char **argv, const char *name, long dflt);
const char *mtest_arg_str(int argc, char **argv, const char *name, const char *dflt);

/* Is item in the comma-separated list (NULL: empty)? */
int mtest_listed(const char *list, const char *item);
/* A --name list of cases a host MPI alone gets wrong (crashes on, or
 * computes wrongly): named in CMakeLists.txt with the host bug, only ever
 * passed to host runs.  Under Remora the option is refused, so it can never
 * hide an engine bug. */
const char *mtest_host_list(int argc, char **argv, const char *name);

/* Run fn(i, arg) on n threads (i = 0..n-1) and join them. */
void mtest_run_threads(int n, void (*fn)(int i, void *arg), void *arg);

/* Windows of every creation flavour, addressed the same way: disp_unit 1 and
 * target displacement mtest_disp(w, rank, byte offset), which for a dynamic
 * window is the MPI_Get_address of the attached region (MPI_BOTTOM-relative). */
typedef enum { MTEST_WIN_ALLOCATE, MTEST_WIN_CREATE, MTEST_WIN_ALLOC_MEM, MTEST_WIN_DYNAMIC, MTEST_NKINDS } mtest_win_kind;

typedef struct {
  MPI_Win win;
  mtest_win_kind kind;
  char *base;        /* my memory, size bytes, zeroed */
  size_t size;
  MPI_Aint *origin;  /* per rank: displacement of its byte 0 */
} mtest_win;

/* "allocate" | "create" (malloc memory) | "alloc_mem" (MPI_Win_create on
 * MPI_Alloc_mem memory) | "dynamic" (one attached malloc region). */
mtest_win_kind mtest_win_kind_parse(const char *name);
/* The kinds named by --win (a comma-separated list, or "all", the default)
 * into kinds[MTEST_NKINDS]; returns how many. */
int mtest_win_kinds(int argc, char **argv, mtest_win_kind *kinds);
const char *mtest_win_kind_name(mtest_win_kind kind);
void mtest_win_open(mtest_win *w, mtest_win_kind kind, size_t size, MPI_Info info, MPI_Comm comm);
void mtest_win_close(mtest_win *w);
static inline MPI_Aint mtest_disp(const mtest_win *w, int rank, size_t off) {
  return w->origin[rank] + (MPI_Aint)off;
}

/* Name of an error class for messages. */
const char *mtest_class_name(int cls);

#endif
