/* Setup, exit and query: shmem_init[_thread], shmem_finalize, shmem_global_exit,
 * the PE queries, shmem_ptr, and the deprecated names of all of these.
 *
 * shmem_init bootstraps over the host MPI (and calls MPI_Init when the
 * program has not), so a program may use MPI and OpenSHMEM together. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/engine.h"
#include "runtime/context.h"
#include "runtime/log.h"
#include "shmem/api.h"
#include "shmem/ctx.h"
#include "shmem/heap.h"
#include "shmem/ops.h"
#include "shmem/statics.h"
#include "shmem/team.h"
#include "transport/transport.h"

struct remora_shmem remora_shmem;

_Noreturn void remora_shmem_abort(const char *routine, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    fprintf(stderr, "remora-shmem: PE %d: %s: %s\n", remora_shmem.my_pe, routine, what);
    fflush(NULL);
    int up = 0;
    MPI_Initialized(&up);
    if (up) {
        /* MPICH's launcher kills every process at the abort and, about once in
         * ten runs here, before it has passed the message on: give it time */
        nanosleep(&(struct timespec){.tv_nsec = 200 * 1000 * 1000}, NULL);
        PMPI_Abort(MPI_COMM_WORLD, 1);
    }
    abort();
}

void remora_shmem_check_init(const char *routine)
{
    if (!remora_shmem.initialized || remora_shmem.finalized)
        remora_shmem_abort(routine, "OpenSHMEM is not initialized (call shmem_init first)");
}

static int mpi_level(int shmem_level)
{
    switch (shmem_level) {
    case SHMEM_THREAD_SINGLE: return MPI_THREAD_SINGLE;
    case SHMEM_THREAD_FUNNELED: return MPI_THREAD_FUNNELED;
    case SHMEM_THREAD_SERIALIZED: return MPI_THREAD_SERIALIZED;
    default: return MPI_THREAD_MULTIPLE;
    }
}

static int shmem_level(int mpi)
{
    return mpi == MPI_THREAD_MULTIPLE ? SHMEM_THREAD_MULTIPLE
           : mpi == MPI_THREAD_SERIALIZED ? SHMEM_THREAD_SERIALIZED
           : mpi == MPI_THREAD_FUNNELED ? SHMEM_THREAD_FUNNELED
                                         : SHMEM_THREAD_SINGLE;
}

static void finalize_at_exit(void)
{
    int down = 0;
    MPI_Finalized(&down);
    if (remora_shmem.initialized && !remora_shmem.finalized && !down)
        pshmem_finalize();
}

int pshmem_init_thread(int requested, int *provided)
{
    if (remora_shmem.initialized && !remora_shmem.finalized) {
        if (provided)
            *provided = remora_shmem.thread_level;
        return 0;
    }
    if (remora_shmem.finalized) {
        fprintf(stderr, "remora-shmem: shmem_init: OpenSHMEM cannot be initialized again after shmem_finalize\n");
        return -1;
    }
    int up = 0, got = MPI_THREAD_SINGLE;
    MPI_Initialized(&up);
    if (!up) {
        if (MPI_Init_thread(NULL, NULL, mpi_level(requested), &got) != MPI_SUCCESS)
            return -1;
        remora_shmem.started_mpi = 1;
    } else {
        MPI_Query_thread(&got);
    }
    remora_engine_init();
    remora_shmem.thread_level = shmem_level(got);
    PMPI_Comm_dup(MPI_COMM_WORLD, &remora_shmem.comm);
    PMPI_Comm_rank(remora_shmem.comm, &remora_shmem.my_pe);
    PMPI_Comm_size(remora_shmem.comm, &remora_shmem.n_pes);
    remora_shmem.use_net = remora_shmem.n_pes > 1;
    if (remora_shmem.use_net && !remora_ok(remora_net_wireup(remora_shmem.comm))) {
        remora_log(REMORA_LOG_ERROR, "shmem_init: the network transport cannot start");
        return -1;
    }
    if (remora_shmem_heap_init() != 0 || remora_shmem_statics_init() != 0 || remora_shmem_teams_init() != 0)
        return -1;
    if (remora_shmem.nlocal < remora_shmem.n_pes) /* other nodes write into us: they wake our waits (wait.c) */
        remora_net_watch((struct remora_doorbell *)remora_shmem.heap.base);
    remora_shmem.initialized = 1;
    if (provided)
        *provided = remora_shmem.thread_level;
    static int registered;
    if (!registered++)
        atexit(finalize_at_exit);
    PMPI_Barrier(remora_shmem.comm);
    return 0;
}
REMORA_SHMEM_ALIAS(shmem_init_thread);

void pshmem_init(void)
{
    if (pshmem_init_thread(SHMEM_THREAD_SINGLE, NULL) != 0)
        remora_shmem_abort("shmem_init", "initialization failed (the messages above say why)");
}
REMORA_SHMEM_ALIAS(shmem_init);

void pshmem_finalize(void)
{
    if (!remora_shmem.initialized || remora_shmem.finalized)
        return;
    remora_shmem_quiet_all();
    PMPI_Barrier(remora_shmem.comm);
    remora_shmem_teams_finalize();
    remora_net_watch(NULL);
    remora_shmem_statics_finalize();
    remora_shmem_heap_finalize();
    remora_shmem_alloc_finalize();
    PMPI_Comm_free(&remora_shmem.comm);
    remora_shmem.finalized = 1;
    if (remora_shmem.started_mpi)
        MPI_Finalize();
}
REMORA_SHMEM_ALIAS(shmem_finalize);

void pshmem_query_thread(int *provided) { *provided = remora_shmem.thread_level; }
REMORA_SHMEM_ALIAS(shmem_query_thread);

void pshmem_query_initialized(int *initialized)
{
    *initialized = remora_shmem.initialized && !remora_shmem.finalized;
}
REMORA_SHMEM_ALIAS(shmem_query_initialized);

void pshmem_global_exit(int status)
{
    fflush(NULL);
    PMPI_Abort(MPI_COMM_WORLD, status);
    exit(status);
}
REMORA_SHMEM_ALIAS(shmem_global_exit);

int pshmem_my_pe(void) { return remora_shmem.my_pe; }
REMORA_SHMEM_ALIAS(shmem_my_pe);
int pshmem_n_pes(void) { return remora_shmem.n_pes; }
REMORA_SHMEM_ALIAS(shmem_n_pes);

int pshmem_pe_accessible(int pe) { return remora_shmem.initialized && pe >= 0 && pe < remora_shmem.n_pes; }
REMORA_SHMEM_ALIAS(shmem_pe_accessible);

int pshmem_addr_accessible(const void *addr, int pe)
{
    uint64_t off;
    return pshmem_pe_accessible(pe) && remora_shmem_find(addr, 1, &off) != NULL;
}
REMORA_SHMEM_ALIAS(shmem_addr_accessible);

void *pshmem_ptr(const void *dest, int pe)
{
    remora_shmem_check_pe("shmem_ptr", pe);
    if (pe == remora_shmem.my_pe && pshmem_addr_accessible(dest, pe))
        return (void *)dest;
    return remora_shmem_heap_view(dest, 1, pe);
}
REMORA_SHMEM_ALIAS(shmem_ptr);

void pshmem_info_get_version(int *major, int *minor)
{
    *major = SHMEM_MAJOR_VERSION;
    *minor = SHMEM_MINOR_VERSION;
}
REMORA_SHMEM_ALIAS(shmem_info_get_version);

void pshmem_info_get_name(char *name)
{
    strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN - 1);
    name[SHMEM_MAX_NAME_LEN - 1] = '\0';
}
REMORA_SHMEM_ALIAS(shmem_info_get_name);

/* The profiling control: levels are for tools that define shmem_pcontrol; the library has nothing to switch. */
void pshmem_pcontrol(const int level, ...) { (void)level; }
REMORA_SHMEM_ALIAS(shmem_pcontrol);

/* ---- deprecated ------------------------------------------------------------------ */
void pstart_pes(int npes)
{
    (void)npes;
    pshmem_init();
}
REMORA_SHMEM_ALIAS(start_pes);
REMORA_SHMEM_VISIBLE int _my_pe(void) { return remora_shmem.my_pe; }
REMORA_SHMEM_VISIBLE int _num_pes(void) { return remora_shmem.n_pes; }

/* The cache routines date from machines without coherent caches: nothing to do here. */
void pshmem_clear_cache_inv(void) {}
REMORA_SHMEM_ALIAS(shmem_clear_cache_inv);
void pshmem_set_cache_inv(void) {}
REMORA_SHMEM_ALIAS(shmem_set_cache_inv);
void pshmem_clear_cache_line_inv(void *dest) { (void)dest; }
REMORA_SHMEM_ALIAS(shmem_clear_cache_line_inv);
void pshmem_set_cache_line_inv(void *dest) { (void)dest; }
REMORA_SHMEM_ALIAS(shmem_set_cache_line_inv);
void pshmem_udcflush(void) {}
REMORA_SHMEM_ALIAS(shmem_udcflush);
void pshmem_udcflush_line(void *dest) { (void)dest; }
REMORA_SHMEM_ALIAS(shmem_udcflush_line);
