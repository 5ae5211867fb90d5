/* mt3: the small harness of the issue-3 MPI tests (accumulates, request-based
 * operations, dynamic windows, MPI_Alloc_mem).
 *
 * Every test is a plain MPI program that must pass over a host MPI alone and
 * over Remora (remora-run).  It records failures with file:line, expected and
 * got, keeps going where it safely can, and ends with one collective verdict:
 * rank 0 prints "No Errors", or the failure count and the program exits 1. */
#ifndef MT3_H
#define MT3_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  int rank, size;
  int remora;        /* 1 when Remora serves RMA (remora_active() said so) */
  int thread_level;  /* what MPI_Init_thread provided */
} mt3_env;

extern mt3_env mt3;

/* MPI_Init_thread; a test that asks for MPI_THREAD_MULTIPLE and does not get
 * it fails (it cannot test what it was written for). */
void mt3_init(int *argc, char ***argv, int thread_level);
/* Collective verdict and MPI_Finalize; returns the process exit code. */
int mt3_finish(void);

/* What the test is doing now (e.g. the window kind), shown in failures. */
void mt3_set_context(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void mt3_fail(const char *file, int line, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));
/* A failure after which the test cannot go on: print and MPI_Abort. */
void mt3_die(const char *file, int line, const char *fmt, ...)
  __attribute__((format(printf, 3, 4), noreturn));
long mt3_failures(void);

#define MT3_CHECK(cond, ...) \
  do { if (!(cond)) mt3_fail(__FILE__, __LINE__, __VA_ARGS__); } while (0)
#define MT3_EQ(got, exp, what) \
  do { long long g_ = (long long)(got), e_ = (long long)(exp); \
       if (g_ != e_) mt3_fail(__FILE__, __LINE__, "%s: expected %lld, got %lld", (what), e_, g_); \
  } while (0)
/* An MPI call that must succeed (under MPI_ERRORS_RETURN it may not abort). */
#define MT3_MPI(call) \
  do { int rc_ = (call); \
       if (rc_ != MPI_SUCCESS) mt3_fail_rc(__FILE__, __LINE__, #call, rc_); } while (0)
void mt3_fail_rc(const char *file, int line, const char *call, int rc);
#define MT3_ASSERT(cond, ...) \
  do { if (!(cond)) mt3_die(__FILE__, __LINE__, __VA_ARGS__); } while (0)

/* An erroneous call made under MPI_ERRORS_RETURN: its error class must be cls.
 * A host MPI alone may not detect every error (the standard does not oblige
 * it to): then "host does not detect: <what>" is printed instead of failing.
 * A host that detects the error with another class is reported the same way.
 * Under Remora both are failures.  Returns 1 when the error was reported
 * with the right class. */
int mt3_expect_class(const char *file, int line, int rc, int cls, const char *what);
#define MT3_EXPECT_ERR(rc, cls, what) mt3_expect_class(__FILE__, __LINE__, (rc), (cls), (what))

/* --name value options (every test takes only these). */
long mt3_arg_long(int argc, char **argv, const char *name, long dflt);
const char *mt3_arg_str(int argc, char **argv, const char *name, const char *dflt);

/* Is item in the comma-separated list (NULL: empty)? */
int mt3_listed(const char *list, const char *item);
/* A --name list of cases a host MPI alone gets wrong (crashes on, or
 * computes wrongly): named in CMakeLists.txt with the host bug, only ever
 * passed to host runs.  Under Remora the option is refused, so it can never
 * hide an engine bug. */
const char *mt3_host_list(int argc, char **argv, const char *name);

/* Run fn(i, arg) on n threads (i = 0..n-1) and join them. */
void mt3_run_threads(int n, void (*fn)(int i, void *arg), void *arg);

/* Windows of every creation flavour, addressed the same way: disp_unit 1 and
 * target displacement mt3_disp(w, rank, byte offset), which for a dynamic
 * window is the MPI_Get_address of the attached region (MPI_BOTTOM-relative). */
typedef enum { MT3_WIN_ALLOCATE, MT3_WIN_CREATE, MT3_WIN_ALLOC_MEM, MT3_WIN_DYNAMIC, MT3_NKINDS } mt3_win_kind;

typedef struct {
  MPI_Win win;
  mt3_win_kind kind;
  char *base;        /* my memory, size bytes, zeroed */
  size_t size;
  MPI_Aint *origin;  /* per rank: displacement of its byte 0 */
} mt3_win;

/* "allocate" | "create" (malloc memory) | "alloc_mem" (MPI_Win_create on
 * MPI_Alloc_mem memory) | "dynamic" (one attached malloc region). */
mt3_win_kind mt3_win_kind_parse(const char *name);
/* The kinds named by --win (a comma-separated list, or "all", the default)
 * into kinds[MT3_NKINDS]; returns how many. */
int mt3_win_kinds(int argc, char **argv, mt3_win_kind *kinds);
const char *mt3_win_kind_name(mt3_win_kind kind);
void mt3_win_open(mt3_win *w, mt3_win_kind kind, size_t size, MPI_Info info, MPI_Comm comm);
void mt3_win_close(mt3_win *w);
static inline MPI_Aint mt3_disp(const mt3_win *w, int rank, size_t off) {
  return w->origin[rank] + (MPI_Aint)off;
}

/* Name of an error class for messages. */
const char *mt3_class_name(int cls);

#endif
