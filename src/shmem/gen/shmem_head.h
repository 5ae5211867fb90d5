/* OpenSHMEM 1.6 for C, served by Remora: https://www.openshmem.org/
 * Generated from src/shmem/gen (this part: shmem_head.h; the typed routines
 * and the C11 generic interfaces: shmem_gen.py).  Every routine shmem_X is
 * also pshmem_X (the profiling interface). */
#ifndef REMORA_SHMEM_H
#define REMORA_SHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef REMORA_SHMEM_BUILD
#define REMORA_SHMEM_VISIBLE __attribute__((visibility("default")))
#else
#define REMORA_SHMEM_VISIBLE
#endif
/* Declares shmem_<name> and pshmem_<name>. */
#define REMORA_SHMEM_FN(ret, name, params)                                                                 \
    REMORA_SHMEM_VISIBLE ret shmem_##name params;                                                          \
    REMORA_SHMEM_VISIBLE ret pshmem_##name params

#if defined(__GNUC__)
#define REMORA_SHMEM_DEPRECATED __attribute__((deprecated))
#else
#define REMORA_SHMEM_DEPRECATED
#endif

/* ---- library constants ---------------------------------------------------------- */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 6
#define SHMEM_MAX_NAME_LEN 256
#define SHMEM_VENDOR_STRING "Remora OpenSHMEM"
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

#define SHMEM_CTX_PRIVATE (1L << 0)
#define SHMEM_CTX_SERIALIZED (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)

#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_GE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_LE 5
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

#define SHMEM_SESSION_BATCH (1L << 0)
#define SHMEM_SESSION_TOTAL_OPS (1L << 0)

/* ---- handles ---------------------------------------------------------------------- */
typedef struct remora_shmem_ctx *shmem_ctx_t;
typedef struct remora_shmem_team *shmem_team_t;

typedef struct {
    int num_contexts;
} shmem_team_config_t;

typedef struct {
    size_t total_ops;
} shmem_session_config_t;

extern REMORA_SHMEM_VISIBLE struct remora_shmem_ctx remora_shmem_ctx_default;
extern REMORA_SHMEM_VISIBLE struct remora_shmem_team remora_shmem_team_world, remora_shmem_team_shared;

#define SHMEM_CTX_DEFAULT ((shmem_ctx_t)&remora_shmem_ctx_default)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)
#define SHMEM_TEAM_WORLD ((shmem_team_t)&remora_shmem_team_world)
#define SHMEM_TEAM_SHARED ((shmem_team_t)&remora_shmem_team_shared)
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)

/* ---- setup, exit and query -------------------------------------------------------- */
REMORA_SHMEM_FN(void, init, (void));
REMORA_SHMEM_FN(int, init_thread, (int requested, int *provided));
REMORA_SHMEM_FN(void, query_thread, (int *provided));
REMORA_SHMEM_FN(void, query_initialized, (int *initialized));
REMORA_SHMEM_FN(void, finalize, (void));
REMORA_SHMEM_FN(void, global_exit, (int status));
REMORA_SHMEM_FN(int, my_pe, (void));
REMORA_SHMEM_FN(int, n_pes, (void));
REMORA_SHMEM_FN(int, pe_accessible, (int pe));
REMORA_SHMEM_FN(int, addr_accessible, (const void *addr, int pe));
REMORA_SHMEM_FN(void *, ptr, (const void *dest, int pe));
REMORA_SHMEM_FN(void *, team_ptr, (shmem_team_t team, const void *dest, int pe));
REMORA_SHMEM_FN(void, info_get_version, (int *major, int *minor));
REMORA_SHMEM_FN(void, info_get_name, (char *name));
REMORA_SHMEM_FN(void, pcontrol, (const int level, ...));

/* ---- memory management ------------------------------------------------------------ */
REMORA_SHMEM_FN(void *, malloc, (size_t size));
REMORA_SHMEM_FN(void *, malloc_with_hints, (size_t size, long hints));
REMORA_SHMEM_FN(void *, calloc, (size_t count, size_t size));
REMORA_SHMEM_FN(void *, align, (size_t alignment, size_t size));
REMORA_SHMEM_FN(void *, realloc, (void *ptr, size_t size));
REMORA_SHMEM_FN(void, free, (void *ptr));

/* ---- teams ----------------------------------------------------------------------- */
REMORA_SHMEM_FN(int, team_my_pe, (shmem_team_t team));
REMORA_SHMEM_FN(int, team_n_pes, (shmem_team_t team));
REMORA_SHMEM_FN(int, team_get_config, (shmem_team_t team, long config_mask, shmem_team_config_t *config));
REMORA_SHMEM_FN(int, team_translate_pe, (shmem_team_t src_team, int src_pe, shmem_team_t dest_team));
REMORA_SHMEM_FN(int, team_split_strided, (shmem_team_t parent_team, int start, int stride, int size,
                                          const shmem_team_config_t *config, long config_mask,
                                          shmem_team_t *new_team));
REMORA_SHMEM_FN(int, team_split_2d, (shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config,
                                     long xaxis_mask, shmem_team_t *xaxis_team,
                                     const shmem_team_config_t *yaxis_config, long yaxis_mask,
                                     shmem_team_t *yaxis_team));
REMORA_SHMEM_FN(void, team_destroy, (shmem_team_t team));

/* ---- contexts and sessions -------------------------------------------------------- */
REMORA_SHMEM_FN(int, ctx_create, (long options, shmem_ctx_t *ctx));
REMORA_SHMEM_FN(int, team_create_ctx, (shmem_team_t team, long options, shmem_ctx_t *ctx));
REMORA_SHMEM_FN(void, ctx_destroy, (shmem_ctx_t ctx));
REMORA_SHMEM_FN(int, ctx_get_team, (shmem_ctx_t ctx, shmem_team_t *team));
REMORA_SHMEM_FN(void, ctx_session_start, (shmem_ctx_t ctx, long options, const shmem_session_config_t *config,
                                          long config_mask));
REMORA_SHMEM_FN(void, ctx_session_stop, (shmem_ctx_t ctx));

/* ---- memory ordering -------------------------------------------------------------- */
REMORA_SHMEM_FN(void, fence, (void));
REMORA_SHMEM_FN(void, ctx_fence, (shmem_ctx_t ctx));
REMORA_SHMEM_FN(void, quiet, (void));
REMORA_SHMEM_FN(void, ctx_quiet, (shmem_ctx_t ctx));
REMORA_SHMEM_FN(void, pe_quiet, (const int *target_pes, size_t npes));
REMORA_SHMEM_FN(void, ctx_pe_quiet, (shmem_ctx_t ctx, const int *target_pes, size_t npes));

/* ---- signals ---------------------------------------------------------------------- */
REMORA_SHMEM_FN(uint64_t, signal_fetch, (const uint64_t *sig_addr));
REMORA_SHMEM_FN(uint64_t, signal_wait_until, (uint64_t *sig_addr, int cmp, uint64_t cmp_value));
REMORA_SHMEM_FN(void, signal_add, (uint64_t *sig_addr, uint64_t signal, int pe));
REMORA_SHMEM_FN(void, ctx_signal_add, (shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe));
REMORA_SHMEM_FN(void, signal_set, (uint64_t *sig_addr, uint64_t signal, int pe));
REMORA_SHMEM_FN(void, ctx_signal_set, (shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe));

/* ---- distributed locks ------------------------------------------------------------ */
REMORA_SHMEM_FN(void, set_lock, (long *lock));
REMORA_SHMEM_FN(void, clear_lock, (long *lock));
REMORA_SHMEM_FN(int, test_lock, (long *lock));

/* ---- untyped collectives ---------------------------------------------------------- */
REMORA_SHMEM_FN(void, barrier_all, (void));
REMORA_SHMEM_FN(void, sync_all, (void));
REMORA_SHMEM_FN(int, team_sync, (shmem_team_t team));
REMORA_SHMEM_FN(int, broadcastmem, (shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root));
REMORA_SHMEM_FN(int, collectmem, (shmem_team_t team, void *dest, const void *source, size_t nelems));
REMORA_SHMEM_FN(int, fcollectmem, (shmem_team_t team, void *dest, const void *source, size_t nelems));
REMORA_SHMEM_FN(int, alltoallmem, (shmem_team_t team, void *dest, const void *source, size_t nelems));
REMORA_SHMEM_FN(int, alltoallsmem, (shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                                    ptrdiff_t sst, size_t nelems));

/* ---- deprecated routines old programs still call ---------------------------------- */
REMORA_SHMEM_VISIBLE void start_pes(int npes) REMORA_SHMEM_DEPRECATED;
REMORA_SHMEM_VISIBLE void pstart_pes(int npes);
REMORA_SHMEM_VISIBLE int _my_pe(void) REMORA_SHMEM_DEPRECATED;
REMORA_SHMEM_VISIBLE int _num_pes(void) REMORA_SHMEM_DEPRECATED;
REMORA_SHMEM_VISIBLE void *shmalloc(size_t size) REMORA_SHMEM_DEPRECATED;
REMORA_SHMEM_VISIBLE void shfree(void *ptr) REMORA_SHMEM_DEPRECATED;
REMORA_SHMEM_VISIBLE void *shrealloc(void *ptr, size_t size) REMORA_SHMEM_DEPRECATED;
REMORA_SHMEM_VISIBLE void *shmemalign(size_t alignment, size_t size) REMORA_SHMEM_DEPRECATED;
REMORA_SHMEM_FN(void, wait, (long *ivar, long cmp_value));
REMORA_SHMEM_FN(void, wait_until, (long *ivar, int cmp, long cmp_value));
REMORA_SHMEM_FN(void, clear_cache_inv, (void));
REMORA_SHMEM_FN(void, set_cache_inv, (void));
REMORA_SHMEM_FN(void, clear_cache_line_inv, (void *dest));
REMORA_SHMEM_FN(void, set_cache_line_inv, (void *dest));
REMORA_SHMEM_FN(void, udcflush, (void));
REMORA_SHMEM_FN(void, udcflush_line, (void *dest));
