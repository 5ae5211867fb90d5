/* MPICH 4.0 and 4.1 deadlock in their own MPI_Finalize across nodes (ch4:ucx
 * over TCP), with Remora in the process or not; this file keeps Remora's
 * processes out of it.
 *
 * MPICH's finalize closes its UCX endpoints (ucp_disconnect_nb), calls
 * ucp_worker_progress until every close has completed, waits in the PMI
 * barrier (a blocking read of the launcher's socket), then destroys its UCX
 * worker.  Over TCP a close is answered by the peer's UCX progress: the
 * closing side sends a zero-length put and waits for the peer's
 * acknowledgement.  A rank whose own closes completed first waits in the
 * barrier and reads nothing from the network any more, so a peer whose close
 * request reaches it then waits for ever, and both wait for each other.  A
 * program in which one rank calls MPI (MPI_Iprobe, for a second) after its
 * peer entered MPI_Finalize deadlocks so every time
 * (tests/isolation/finalize_deadlock.c); otherwise it is a race of the last
 * messages.  MPICH removed the barrier in July 2023 (pmodels/mpich#6596):
 * 4.2 and later, MPICH 5 among them, are left alone here.
 *
 * Under those MPICHs, from MPICH's first endpoint close inside MPI_Finalize
 * until it destroys its worker, a thread of Remora's keeps calling
 * ucp_worker_progress on MPICH's worker, so that the rank in the barrier
 * still answers.  Remora's library defines the five UCX functions MPICH calls
 * in that stretch (the program's references to them bind to the first
 * definition in the process: Remora's, loaded before the MPI library and its
 * UCX) and passes each call to UCX's own (look_up).  From the start of the
 * host's MPI_Finalize it holds a lock around them that the thread also holds
 * around its progress: MPICH's worker is never entered by two threads at
 * once.  Before that a call costs one test of a flag.  Remora's own network
 * calls UCX through its table (transport/ucx_api.h), never through these.
 *
 * Only the MPICH flavour has this (Open MPI closes its endpoints with
 * ucp_ep_close_nbx and keeps progressing in its fence), and within it only
 * MPICH 4.0 and 4.1 arm it (remora_host_finalize_begin). */
#include "mpi/api.h"

#ifdef MPICH_VERSION

#include "mpi/host_finalize.h"
#include "runtime/log.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* UCX's types, as MPICH passes them (ucp/api/ucp.h: pointers and unsigned). */
typedef struct ucp_worker *ucp_worker_h;
typedef struct ucp_ep *ucp_ep_h;
typedef void *ucs_status_ptr_t;

#define MAX_WORKERS 16

static atomic_int armed;   /* the MPI_Finalize of an MPICH 4.0 or 4.1 has begun */
static int closing;       /* and MPICH has closed an endpoint: its worker is served (lock held) */
static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP; /* UCX calls back into MPICH */
static ucp_worker_h workers[MAX_WORKERS];
static int nworkers, stop, started;
static pthread_t server;

/* UCX's own NAME, looked up once: the next definition after Remora's, else
 * the one in the libucp.so.0 already loaded (a library that loaded it into
 * a scope of its own, dlopen RTLD_LOCAL). */
static __attribute__((noinline)) void *look_up(void *_Atomic *slot, const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        void *ucp = dlopen("libucp.so.0", RTLD_NOW | RTLD_NOLOAD);
        f = ucp ? dlsym(ucp, name) : NULL;
    }
    if (!f)
        remora_fatal("%s is called, and no UCX library in the process defines it", name);
    atomic_store_explicit(slot, f, memory_order_relaxed);
    return f;
}

static inline void *ucx_own(void *_Atomic *slot, const char *name)
{
    void *f = atomic_load_explicit(slot, memory_order_relaxed);
    return __builtin_expect(f != NULL, 1) ? f : look_up(slot, name);
}

/* real_NAME: UCX's NAME, returning RET and taking PARAMS. */
#define REAL(ret, name, params)                                                                                        \
    static void *_Atomic slot_##name;                                                                                  \
    ret(*real_##name) params = (ret(*) params)ucx_own(&slot_##name, #name)

/* UCX's ucp_worker_progress (one lookup for the thread and the wrapper). */
static inline unsigned progress(ucp_worker_h worker)
{
    REAL(unsigned, ucp_worker_progress, (ucp_worker_h));
    return real_ucp_worker_progress(worker);
}

static unsigned progress_all(void)
{
    unsigned events = 0;
    for (int i = 0; i < nworkers; i++)
        events += progress(workers[i]);
    return events;
}

static void *serve(void *unused)
{
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&lock);
        if (stop) {
            pthread_mutex_unlock(&lock);
            return NULL;
        }
        unsigned events = progress_all();
        pthread_mutex_unlock(&lock);
        if (!events)
            nanosleep(&(struct timespec){.tv_nsec = 50000}, NULL);
    }
}

void remora_host_finalize_begin(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0, major = 0, minor = 0;
    PMPI_Get_library_version(v, &len);
    const char *at = strstr(v, "MPICH Version:");
    if (!at || sscanf(at + strlen("MPICH Version:"), "%d.%d", &major, &minor) != 2 || major != 4 || minor >= 2)
        return;
    remora_log(REMORA_LOG_DEBUG, "MPICH %d.%d: its UCX worker is served through MPI_Finalize", major, minor);
    atomic_store(&armed, 1);
    /* MPICH's progress shows its worker (ucp_worker_progress below) */
    int flag;
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

/* A worker MPICH progresses, remembered.  lock held. */
static void remember(ucp_worker_h worker)
{
    for (int i = 0; i < nworkers; i++)
        if (workers[i] == worker)
            return;
    if (nworkers < MAX_WORKERS)
        workers[nworkers++] = worker;
}

/* Once MPICH closes endpoints: the serving thread, started once.  lock held. */
static void start_serving(void)
{
    if (closing && nworkers && !started && pthread_create(&server, NULL, serve, NULL) == 0)
        started = 1;
}

REMORA_API ucs_status_ptr_t ucp_disconnect_nb(ucp_ep_h ep)
{
    REAL(ucs_status_ptr_t, ucp_disconnect_nb, (ucp_ep_h));
    if (!atomic_load_explicit(&armed, memory_order_relaxed))
        return real_ucp_disconnect_nb(ep);
    pthread_mutex_lock(&lock);
    ucs_status_ptr_t request = real_ucp_disconnect_nb(ep);
    closing = 1;
    start_serving();
    pthread_mutex_unlock(&lock);
    return request;
}

REMORA_API unsigned ucp_worker_progress(ucp_worker_h worker)
{
    if (__builtin_expect(!atomic_load_explicit(&armed, memory_order_relaxed), 1))
        return progress(worker);
    pthread_mutex_lock(&lock);
    remember(worker);
    start_serving();
    unsigned events = progress(worker);
    pthread_mutex_unlock(&lock);
    return events;
}

REMORA_API int ucp_request_is_completed(void *request)
{
    REAL(int, ucp_request_is_completed, (void *));
    if (!atomic_load_explicit(&armed, memory_order_relaxed))
        return real_ucp_request_is_completed(request);
    pthread_mutex_lock(&lock);
    int done = real_ucp_request_is_completed(request);
    pthread_mutex_unlock(&lock);
    return done;
}

REMORA_API void ucp_request_release(void *request)
{
    REAL(void, ucp_request_release, (void *));
    if (!atomic_load_explicit(&armed, memory_order_relaxed)) {
        real_ucp_request_release(request);
        return;
    }
    pthread_mutex_lock(&lock);
    real_ucp_request_release(request);
    pthread_mutex_unlock(&lock);
}

/* MPICH is past its barrier: the thread stops before the worker goes. */
REMORA_API void ucp_worker_destroy(ucp_worker_h worker)
{
    REAL(void, ucp_worker_destroy, (ucp_worker_h));
    if (atomic_load(&armed)) {
        pthread_mutex_lock(&lock);
        stop = 1;
        pthread_mutex_unlock(&lock);
        if (started)
            pthread_join(server, NULL);
        started = stop = nworkers = closing = 0;
        atomic_store(&armed, 0);
    }
    real_ucp_worker_destroy(worker);
}

#else

#include "mpi/host_finalize.h"

void remora_host_finalize_begin(void) {}

#endif
