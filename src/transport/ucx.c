/* The net transport over UCX (see net.h). */
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "runtime/bootstrap.h"
#include "runtime/context.h"
#include "runtime/log.h"
#include "transport/mapped.h"
#include "transport/net.h"
#include "transport/ucx.h"
#include "transport/ucx_api.h"

/* An origin's unpacked remote key: one ucp_rkey_h per instance (an rkey
 * belongs to an endpoint), made on first use. */
struct net_key {
    size_t len;
    ucp_rkey_h _Atomic unpacked[MAX_INSTANCES];
    unsigned char packed[];
};

static struct {
    pthread_mutex_t init_lock;    /* start-up, instance creation, addresses */
    int ready;
    ucp_context_h ctx;
    struct instance target;       /* the worker peers reach us at */
    struct instance *_Atomic instance[MAX_INSTANCES];
    _Atomic int ninstances;
    int max_instances;
    pthread_key_t thread_key;     /* releases a thread's instance when it ends */
    void *my_addr;
    size_t my_addr_len;
    void **peer_addr;             /* by world rank, learned at wire-up */
    int progress_started;
    _Atomic int progress_stop;
    _Atomic int progress_running; /* the progress thread serves the target worker */
    _Atomic int served_elsewhere; /* a thread that waits in MPI or in Remora progressed the target worker */
    int kick_fd;                  /* an eventfd that ends the progress thread's away period */
    int has_peers;                /* processes on other nodes may send requests here */
    /* What UCX does in software toward the network's peers (decided at the
     * first wire-up with peers, from one endpoint's lanes: wired_up):
     * sw_rma  puts and gets are messages the target's CPU handles: small
     *         ones travel as Remora's messages (ucx_msg.c);
     * sw_amo  atomics too: this process's own memory sees only atomics that
     *         its CPU does (under the target lock), so its own atomics on it
     *         are CPU atomics under that lock, not a loopback message. */
    int wired_up, sw_rma, sw_amo;
    struct remora_doorbell *_Atomic watch; /* rung after requests were served (remora_net_watch) */
    pthread_t progress_thread;
} net = {.init_lock = PTHREAD_MUTEX_INITIALIZER, .kick_fd = -1};

/* The instance of this thread; IE model: the library is loaded at start-up. */
static _Thread_local struct instance *my_instance __attribute__((tls_model("initial-exec")));

int remora_net_running(void) { return net.ready; }

static int instance_init(struct instance *in, int id)
{
    in->id = id;
    in->eps = calloc((size_t)remora_ctx.world_size, sizeof *in->eps);
    in->dirty = calloc((size_t)remora_ctx.world_size, 1);
    in->owes = calloc((size_t)remora_ctx.world_size, sizeof *in->owes);
    pthread_mutex_init(&in->lock, NULL);
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = UCS_THREAD_MODE_SERIALIZED};
    if (!in->eps || !in->dirty || !in->owes || remora_ucx.ucp_worker_create(net.ctx, &wp, &in->worker) != UCS_OK ||
        !remora_ok(remora_msg_worker_init(in)))
        return -1;
    if (remora_ucx.ucp_worker_get_efd(in->worker, &in->efd) != UCS_OK)
        in->efd = -1;
    return 0;
}

static void instance_destroy(struct instance *in)
{
    for (int i = 0; i < in->nfetch; i++) /* never flushed: nobody waits for their replies */
        remora_ucx.ucp_request_free(in->fetch[i].req);
    for (int r = 0; in->eps && r < remora_ctx.world_size; r++)
        if (in->eps[r]) {
            ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = UCP_EP_CLOSE_FLAG_FORCE};
            ucs_status_ptr_t req = remora_ucx.ucp_ep_close_nbx(in->eps[r], &prm);
            while (UCS_PTR_IS_PTR(req) && remora_ucx.ucp_request_check_status(req) == UCS_INPROGRESS)
                remora_ucx.ucp_worker_progress(in->worker);
            if (UCS_PTR_IS_PTR(req))
                remora_ucx.ucp_request_free(req);
        }
    if (in->worker)
        remora_ucx.ucp_worker_destroy(in->worker);
    remora_msg_free(in);
    free(in->eps);
    free(in->dirty);
    free((void *)in->owes);
    pthread_mutex_destroy(&in->lock);
}

/* A thread ends: its dedicated instance is free for the next thread. */
static void thread_exit(void *arg)
{
    struct instance *in = arg;
    atomic_fetch_sub(&in->users, 1);
}

static void *progress_main(void *arg);

/* Start-up on first need (thread safe).  Without a usable UCX (ucx_api.c
 * said why, once) the network does not start. */
static remora_status_t start(void)
{
    if (!remora_ok(remora_ucx_load()))
        return REMORA_ERR_UNREACHABLE;
    pthread_mutex_lock(&net.init_lock);
    if (net.ready) {
        pthread_mutex_unlock(&net.init_lock);
        return REMORA_OK;
    }
    ucp_config_t *cfg;
    ucp_params_t prm = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS,
        .features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_AM | UCP_FEATURE_WAKEUP,
        .mt_workers_shared = 1,
        .estimated_num_eps = (size_t)remora_ctx.world_size,
    };
    int ok = remora_ucx.ucp_config_read(NULL, NULL, &cfg) == UCS_OK;
    /* REMORA_UCX_TLS picks Remora's transports without changing those of
     * the host MPI's own UCX (UCX_TLS would set both). */
    const char *tls = getenv("REMORA_UCX_TLS");
    if (ok && tls && *tls && remora_ucx.ucp_config_modify(cfg, "TLS", tls) != UCS_OK) {
        remora_log(REMORA_LOG_ERROR, "REMORA_UCX_TLS=%s is not a UCX transport list", tls);
        ok = 0;
        remora_ucx.ucp_config_release(cfg);
    }
    if (ok) {
        ok = remora_ucx.ucp_init_version(REMORA_UCX_API_MAJOR, REMORA_UCX_API_MINOR, &prm, cfg, &net.ctx) == UCS_OK;
        remora_ucx.ucp_config_release(cfg);
    }
    ok = ok && instance_init(&net.target, -1) == 0;
    ucp_address_t *addr = NULL;
    ok = ok && remora_ucx.ucp_worker_get_address(net.target.worker, &addr, &net.my_addr_len) == UCS_OK;
    if (ok) {
        net.my_addr = malloc(net.my_addr_len);
        if (net.my_addr)
            memcpy(net.my_addr, addr, net.my_addr_len);
        remora_ucx.ucp_worker_release_address(net.target.worker, addr);
    }
    net.peer_addr = calloc((size_t)remora_ctx.world_size, sizeof *net.peer_addr);
    ok = ok && net.my_addr && net.peer_addr;
    net.max_instances = remora_ctx.config.ucx_instances;
    if (net.max_instances > MAX_INSTANCES) {
        remora_log(REMORA_LOG_WARN, "REMORA_UCX_INSTANCES=%d: at most %d instances, using %d", net.max_instances,
                   MAX_INSTANCES, MAX_INSTANCES);
        net.max_instances = MAX_INSTANCES;
    }
    ok = ok && pthread_key_create(&net.thread_key, thread_exit) == 0;
    if (!ok) {
        pthread_mutex_unlock(&net.init_lock);
        remora_log(REMORA_LOG_ERROR, "UCX start-up failed");
        return REMORA_ERR_UNREACHABLE;
    }
    net.ready = 1;
    pthread_mutex_unlock(&net.init_lock);
    return REMORA_OK;
}

static void stop_progress_thread(void)
{
    if (!net.progress_started)
        return;
    atomic_store(&net.progress_stop, 1);
    remora_ucx.ucp_worker_signal(net.target.worker);
    if (write(net.kick_fd, &(uint64_t){1}, sizeof(uint64_t)) < 0) {
        /* the counter is full: the thread wakes anyway */
    }
    pthread_join(net.progress_thread, NULL);
    close(net.kick_fd);
    net.kick_fd = -1;
    net.progress_started = 0;
}

void remora_net_finalize(void)
{
    if (!net.ready)
        return;
    stop_progress_thread();
    for (int i = 0; i < net.ninstances; i++) {
        instance_destroy(net.instance[i]);
        free(net.instance[i]);
    }
    net.ninstances = 0;
    instance_destroy(&net.target);
    for (int r = 0; r < remora_ctx.world_size; r++)
        free(net.peer_addr[r]);
    free(net.peer_addr);
    free(net.my_addr);
    pthread_key_delete(net.thread_key);
    remora_ucx.ucp_cleanup(net.ctx);
    net.ready = 0;
}

/* ---- instances --------------------------------------------------------------- */

/* This thread's instance: a free one, a new one, or (at the limit) the least
 * used.  NULL only when no worker could be made at all. */
static struct instance *instance(void)
{
    struct instance *in = my_instance;
    if (__builtin_expect(in != NULL, 1))
        return in;
    pthread_mutex_lock(&net.init_lock);
    int n = atomic_load_explicit(&net.ninstances, memory_order_relaxed);
    for (int i = 0; i < n && !in; i++)
        if (atomic_load(&net.instance[i]->users) == 0)
            in = net.instance[i];
    if (!in && n < net.max_instances) {
        struct instance *fresh = calloc(1, sizeof *fresh);
        if (fresh && instance_init(fresh, n) == 0) {
            /* published before counted: flushes read the count, then the slots */
            atomic_store_explicit(&net.instance[n], fresh, memory_order_relaxed);
            atomic_store_explicit(&net.ninstances, n + 1, memory_order_release);
            in = fresh;
        } else {
            if (fresh)
                instance_destroy(fresh);
            free(fresh);
            remora_log(REMORA_LOG_WARN, "cannot create a UCX worker for a new thread: sharing one");
        }
    }
    n = atomic_load_explicit(&net.ninstances, memory_order_relaxed);
    for (int i = 0; i < n && !in; i++)
        if (!in || atomic_load(&net.instance[i]->users) < atomic_load(&in->users))
            in = net.instance[i];
    if (in) {
        atomic_fetch_add(&in->users, 1);
        pthread_setspecific(net.thread_key, in);
        my_instance = in;
    }
    pthread_mutex_unlock(&net.init_lock);
    return in;
}

ucp_ep_h remora_ucx_endpoint(struct instance *in, int proc)
{
    ucp_ep_h ep = in->eps[proc];
    if (__builtin_expect(ep != NULL, 1))
        return ep;
    if (!net.peer_addr[proc]) {
        remora_log(REMORA_LOG_ERROR, "no UCX address of process %d (no window shared with it?)", proc);
        return NULL;
    }
    ucp_ep_params_t prm = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
                           .address = (const ucp_address_t *)net.peer_addr[proc]};
    if (remora_ucx.ucp_ep_create(in->worker, &prm, &ep) != UCS_OK) {
        remora_log(REMORA_LOG_ERROR, "cannot connect to process %d through UCX", proc);
        return NULL;
    }
    in->eps[proc] = ep;
    return ep;
}

static ucp_rkey_h rkey_for(struct instance *in, ucp_ep_h ep, struct net_key *k)
{
    ucp_rkey_h rk = atomic_load_explicit(&k->unpacked[in->id], memory_order_acquire);
    if (__builtin_expect(rk != NULL, 1))
        return rk;
    if (remora_ucx.ucp_ep_rkey_unpack(ep, k->packed, &rk) != UCS_OK)
        return NULL;
    atomic_store_explicit(&k->unpacked[in->id], rk, memory_order_release);
    return rk;
}

/* The instance of this thread, locked, with its endpoint to m's owner and the
 * rkey of m.  REMORA_OK, or an error with nothing locked. */
static remora_status_t begin(const struct remora_rmem *m, struct instance **in, ucp_ep_h *ep, ucp_rkey_h *rk)
{
    if (!(*in = instance()))
        return REMORA_ERR_NO_MEM;
    pthread_mutex_lock(&(*in)->lock);
    if (!atomic_load_explicit(&(*in)->busy, memory_order_relaxed))
        atomic_store_explicit(&(*in)->busy, 1, memory_order_relaxed);
    if (!(*ep = remora_ucx_endpoint(*in, m->proc))) {
        pthread_mutex_unlock(&(*in)->lock);
        return REMORA_ERR_UNREACHABLE;
    }
    if (rk && (!m->key || !(*rk = rkey_for(*in, *ep, m->key)))) {
        pthread_mutex_unlock(&(*in)->lock);
        return REMORA_ERR_INVALID;
    }
    return REMORA_OK;
}

/* Instance in (locked) holds work toward proc that a flush must complete:
 * flushes toward proc from other threads visit it (flush_visits). */
static void owe(struct instance *in, int proc)
{
    if (!atomic_load_explicit(&in->owes[proc], memory_order_relaxed))
        atomic_store_explicit(&in->owes[proc], 1, memory_order_relaxed);
}

/* begin() for UCX's atomics: what was gathered toward the owner leaves
 * first, so the atomic stays behind it (ucx_msg.c's M1). */
static remora_status_t begin_amo(const struct remora_rmem *m, struct instance **in, ucp_ep_h *ep, ucp_rkey_h *rk)
{
    remora_status_t st = begin(m, in, ep, rk);
    if (remora_ok(st) && (*in)->msg && !remora_ok((st = remora_msg_push(*in, m->proc))))
        pthread_mutex_unlock(&(*in)->lock);
    return st;
}

/* Rings happen under the target's lock: once this returns, the old bell is no
 * longer touched (its memory may go). */
void remora_net_watch(struct remora_doorbell *bell)
{
    if (!net.ready) {
        atomic_store(&net.watch, bell);
        return;
    }
    pthread_mutex_lock(&net.target.lock);
    atomic_store(&net.watch, bell);
    pthread_mutex_unlock(&net.target.lock);
}

/* After the target worker (locked) carried out requests: the writes into our
 * memory happen before the ring's load of `sleepers` (doorbell.h's D1 wants a
 * seq_cst change; the fence stands in for it). */
void remora_ucx_served(void)
{
    struct remora_doorbell *bell = atomic_load_explicit(&net.watch, memory_order_acquire);
    if (bell) {
        atomic_thread_fence(memory_order_seq_cst);
        remora_doorbell_ring(bell);
    }
}

/* Progress the target worker if nobody else does right now: a thread that
 * waits (in the host MPI, or in Remora for its own request) serves requests
 * toward this process itself, with no hand-off to the progress thread, and
 * says so (served_elsewhere): while somebody does, the progress thread is
 * not woken by arrivals (see progress_main). */
static unsigned progress_target(void)
{
    unsigned did = 0;
    if (pthread_mutex_trylock(&net.target.lock) == 0) {
        did = remora_ucx.ucp_worker_progress(net.target.worker);
        if (did)
            remora_ucx_served();
        pthread_mutex_unlock(&net.target.lock);
    }
    if (!atomic_load_explicit(&net.served_elsewhere, memory_order_relaxed))
        atomic_store_explicit(&net.served_elsewhere, 1, memory_order_relaxed);
    return did;
}

/* A thread that waits in the host MPI: besides serving, what it gathered
 * toward others leaves (MPI may keep a put until the next synchronisation,
 * but a program that waits in MPI for its effect elsewhere is better served
 * by the message leaving now). */
int remora_net_serve(void)
{
    if (!net.has_peers)
        return 0;
    struct instance *in = my_instance;
    if (in && atomic_load_explicit(&in->gathered, memory_order_relaxed) && pthread_mutex_trylock(&in->lock) == 0) {
        remora_msg_push_all(in);
        pthread_mutex_unlock(&in->lock);
    }
    return (int)progress_target();
}

int remora_net_serving(void) { return net.has_peers; }

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* End the progress thread's away period (progress_main): whoever served
 * the target worker stops doing so. */
static void kick_progress_thread(void)
{
    if (!net.progress_started)
        return;
    atomic_store_explicit(&net.served_elsewhere, 0, memory_order_relaxed);
    if (write(net.kick_fd, &(uint64_t){1}, sizeof(uint64_t)) < 0) {
        /* the counter is full: the thread wakes anyway */
    }
}

/* Sleep until worker `in` (locked) has an event, unless it has work right now. */
static void sleep_on(struct instance *in)
{
    if (remora_ucx.ucp_worker_arm(in->worker) == UCS_OK)
        poll(&(struct pollfd){.fd = in->efd, .events = POLLIN}, 1, -1);
}

/* Progress instance in (locked) until done(arg), and after REMORA_NET_SPIN_US
 * without it sleep on the worker's wake-up fd, so that threads and processes
 * sharing the cores (the target's progress thread among them) get them.  On
 * a machine with more of our processes than cores, each idle poll yields the
 * core first: the peer that must answer may be waiting for this very core
 * (with 4 ranks on 2 cores, an origin and its target on one core took
 * 110 us per put+flush, the spin's length twice, instead of 30).
 * Sleeping needs the progress thread: our own target worker may be the peer
 * (loopback), and then somebody else must serve it. */
remora_status_t remora_ucx_wait_until(struct instance *in, int (*done)(void *), void *arg)
{
    uint64_t sleep_at = 0;
    for (unsigned idle = 0; !done(arg);) {
        if (remora_ucx.ucp_worker_progress(in->worker))
            continue;
        if (!progress_target() && remora_ctx.oversubscribed)
            sched_yield(); /* the peer we wait for may be waiting for this core */
        if (++idle % 64 || in->efd < 0 || !atomic_load_explicit(&net.progress_running, memory_order_relaxed))
            continue;
        uint64_t t = now_ns();
        if (!sleep_at) {
            sleep_at = t + (uint64_t)remora_ctx.config.net_spin_us * 1000u;
        } else if (t >= sleep_at) {
            kick_progress_thread(); /* we stop serving the target worker */
            sleep_on(in);
        }
    }
    return REMORA_OK;
}

static int request_done(void *r) { return remora_ucx.ucp_request_check_status(r) != UCS_INPROGRESS; }

/* Wait for request r of instance in (locked). */
static remora_status_t wait(struct instance *in, ucs_status_ptr_t r)
{
    if (!UCS_PTR_IS_PTR(r))
        return UCS_PTR_STATUS(r) == UCS_OK ? REMORA_OK : REMORA_ERR_IO;
    remora_ucx_wait_until(in, request_done, r);
    ucs_status_t st = remora_ucx.ucp_request_check_status(r);
    remora_ucx.ucp_request_free(r);
    return st == UCS_OK ? REMORA_OK : REMORA_ERR_IO;
}

/* Posted without waiting: the request completes by itself, flush collects it. */
static remora_status_t posted(ucs_status_ptr_t r)
{
    if (UCS_PTR_IS_ERR(r))
        return REMORA_ERR_IO;
    if (r)
        remora_ucx.ucp_request_free(r);
    return REMORA_OK;
}

/* ---- progress thread ------------------------------------------------------------ */

static void start_progress_thread(void)
{
    if (net.progress_started)
        return;
    if (net.target.efd < 0)
        remora_log(REMORA_LOG_WARN, "no UCX wake-up fd: the progress thread will poll");
    atomic_store(&net.progress_stop, 0);
    if (net.kick_fd < 0 && (net.kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
        remora_log(REMORA_LOG_WARN, "no eventfd: no progress thread; passive targets progress only in MPI calls");
        return;
    }
    if (pthread_create(&net.progress_thread, NULL, progress_main, NULL) == 0)
        net.progress_started = 1;
    else
        remora_log(REMORA_LOG_WARN, "cannot start the progress thread: passive targets progress only in MPI calls");
}

/* Progress the target worker (locked) until it has no work left. */
static void serve_target(void)
{
    while (remora_ucx.ucp_worker_progress(net.target.worker))
        remora_ucx_served();
}

/* How long the progress thread stays away from the wake-up fd once it found
 * that another thread served the target worker (progress_target). */
#define AWAY_MS 1

/* The progress thread serves the target only for a process that does not:
 * one that computes outside MPI.  While threads that wait in MPI (or in
 * Remora) progress the target worker themselves, the thread sleeps AWAY_MS
 * at a time without arming the worker, so arrivals do not wake it to compete
 * for a core with the thread that serves them anyway; once a period passed
 * with nobody else serving, it serves what is left, arms the worker and
 * sleeps on its wake-up fd until an arrival (or stop_progress_thread) rings
 * it.  A thread that stops serving to sleep itself kicks it out of its away
 * period at once (kick_progress_thread).  It never spins: a spin, even one
 * that yields, takes the core from a computing thread for a whole time slice
 * (measured: 8-byte put+flush toward a computing target 95-115 us without
 * the spin, 165-205 us with 50 us of it).  Work that another thread's
 * progress left over is served within two periods. */
static void *progress_main(void *arg)
{
    (void)arg;
    atomic_store(&net.progress_running, 1);
    while (!atomic_load(&net.progress_stop)) {
        if (atomic_exchange_explicit(&net.served_elsewhere, 0, memory_order_relaxed)) {
            if (poll(&(struct pollfd){.fd = net.kick_fd, .events = POLLIN}, 1, AWAY_MS) > 0) {
                uint64_t kicks;
                if (read(net.kick_fd, &kicks, sizeof kicks) < 0) {
                    /* drained by nobody else: cannot fail but for a signal */
                }
            }
            continue;
        }
        pthread_mutex_lock(&net.target.lock);
        serve_target();
        if (net.target.efd < 0) {
            pthread_mutex_unlock(&net.target.lock);
            nanosleep(&(struct timespec){0, 50000}, NULL);
            continue;
        }
        ucs_status_t armed = remora_ucx.ucp_worker_arm(net.target.worker);
        pthread_mutex_unlock(&net.target.lock);
        if (armed == UCS_OK)
            poll(&(struct pollfd){.fd = net.target.efd, .events = POLLIN}, 1, -1);
    }
    atomic_store(&net.progress_running, 0);
    return NULL;
}

/* ---- wire-up, registration, keys ------------------------------------------------ */

/* Whether UCX does RMA and atomics toward proc in software: from the roles
 * of the lanes of this thread's endpoint to it, as ucp_ep_print_info names
 * them ("lane[0]: 1:tcp/eth0.0 md[1] -> md[1]/tcp/sysdev[255] rma_bw#0 am
 * am_bw#0 wireup"; an RDMA device's lane adds "rma" and "amo": "rma_bw"
 * alone is the bulk lane, which TCP has too).  UCX 1.13 offers no query of
 * the lanes; text that has none is taken for hardware RMA and atomics (what
 * UCX's own RMA then serves correctly either way). */
static void learn_lanes(int proc)
{
    struct instance *in = instance();
    char *text = NULL;
    size_t size = 0;
    if (in) {
        pthread_mutex_lock(&in->lock);
        ucp_ep_h ep = remora_ucx_endpoint(in, proc);
        FILE *f = ep ? open_memstream(&text, &size) : NULL;
        if (f) {
            remora_ucx.ucp_ep_print_info(ep, f);
            fclose(f);
        }
        pthread_mutex_unlock(&in->lock);
    }
    int lanes = 0, rma = 0, amo = 0;
    char *line_save = NULL;
    for (char *line = text ? strtok_r(text, "\n", &line_save) : NULL; line; line = strtok_r(NULL, "\n", &line_save)) {
        if (!strstr(line, "lane["))
            continue;
        lanes++;
        char *tok_save = NULL;
        for (char *tok = strtok_r(line, " ", &tok_save); tok; tok = strtok_r(NULL, " ", &tok_save)) {
            rma |= !strcmp(tok, "rma") || !strncmp(tok, "rma#", 4);
            amo |= !strcmp(tok, "amo") || !strncmp(tok, "amo#", 4);
        }
    }
    free(text);
    net.sw_rma = lanes && !rma;
    net.sw_amo = lanes && !amo;
    remora_log(REMORA_LOG_DEBUG, "UCX toward process %d: %d lanes, RMA in %s, atomics in %s", proc, lanes,
               net.sw_rma ? "software" : "hardware", net.sw_amo ? "software" : "hardware");
}

remora_status_t remora_net_wireup(MPI_Comm comm)
{
    remora_status_t st = start();
    int n;
    PMPI_Comm_size(comm, &n);
    if (!remora_boot_agree(comm, remora_ok(st)))
        return !remora_ok(st) ? st : REMORA_ERR_UNREACHABLE;
    struct member {
        uint64_t node_key;
        int32_t world_rank, pad;
    } mine = {remora_ctx.node_key, remora_ctx.world_rank, 0}, *all_members = malloc(sizeof mine * (size_t)n);
    if (!remora_boot_agree(comm, all_members != NULL)) {
        free(all_members);
        return REMORA_ERR_NO_MEM;
    }
    PMPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all_members, (int)sizeof mine, MPI_BYTE, comm);
    char *all;
    size_t *offs, *lens;
    if (remora_boot_allgatherv(comm, net.my_addr, net.my_addr_len, &all, &offs, &lens) != MPI_SUCCESS) {
        free(all_members);
        return REMORA_ERR_NO_MEM;
    }
    int ok = 1, peers = 0, probe = -1;
    pthread_mutex_lock(&net.init_lock);
    for (int r = 0; r < n; r++) {
        int w = all_members[r].world_rank;
        peers += w != remora_ctx.world_rank;
        if (w != remora_ctx.world_rank && (probe < 0 || all_members[r].node_key != remora_ctx.node_key))
            probe = w; /* a peer on another node if there is one */
        if (net.peer_addr[w])
            continue;
        if ((net.peer_addr[w] = malloc(lens[r])))
            memcpy(net.peer_addr[w], all + offs[r], lens[r]);
        ok = ok && net.peer_addr[w];
    }
    /* Over TCP, UCX emulates RMA and atomics with messages that the target
     * must progress; on hardware the thread only sleeps on the wake-up fd. */
    enum remora_progress_choice choice = remora_ctx.config.progress_thread;
    if (peers)
        net.has_peers = 1;
    if (choice == REMORA_PROGRESS_ON || (choice == REMORA_PROGRESS_AUTO && peers))
        start_progress_thread();
    int learn = ok && probe >= 0 && !net.wired_up;
    net.wired_up |= learn;
    pthread_mutex_unlock(&net.init_lock);
    if (learn)
        learn_lanes(probe);
    free(all_members);
    free(all);
    free(offs);
    free(lens);
    return remora_boot_agree(comm, ok) ? REMORA_OK : REMORA_ERR_NO_MEM;
}

/* Registered ranges are widened to 8-byte boundaries: 1- and 2-byte atomics
 * work on the aligned 4-byte word around them. */
remora_status_t remora_net_register(void *addr, size_t len, void **reg, void *packed, size_t cap, size_t *packed_len)
{
    *reg = NULL;
    *packed_len = 0;
    if (len == 0)
        return REMORA_OK;
    remora_status_t st = start();
    if (!remora_ok(st))
        return st;
    uintptr_t lo = (uintptr_t)addr & ~(uintptr_t)7, hi = ((uintptr_t)addr + len + 7) & ~(uintptr_t)7;
    ucp_mem_map_params_t prm = {.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH,
                                .address = (void *)lo,
                                .length = hi - lo};
    ucp_mem_h memh;
    if (remora_ucx.ucp_mem_map(net.ctx, &prm, &memh) != UCS_OK)
        return REMORA_ERR_NO_MEM;
    void *buf;
    size_t blen;
    if (remora_ucx.ucp_rkey_pack(net.ctx, memh, &buf, &blen) != UCS_OK) {
        remora_ucx.ucp_mem_unmap(net.ctx, memh);
        return REMORA_ERR_NO_MEM;
    }
    if (blen > cap) {
        remora_log(REMORA_LOG_ERROR, "a UCX remote key of %zu bytes does not fit in %zu", blen, cap);
        remora_ucx.ucp_rkey_buffer_release(buf);
        remora_ucx.ucp_mem_unmap(net.ctx, memh);
        return REMORA_ERR_NO_MEM;
    }
    memcpy(packed, buf, blen);
    *packed_len = blen;
    remora_ucx.ucp_rkey_buffer_release(buf);
    *reg = memh;
    return REMORA_OK;
}

void remora_net_deregister(void *reg)
{
    if (reg)
        remora_ucx.ucp_mem_unmap(net.ctx, reg);
}

remora_status_t remora_net_unpack(int proc, const void *packed, size_t len, uintptr_t base, struct remora_rmem *out)
{
    memset(out, 0, sizeof *out);
    if (!net.ready || proc < 0 || proc >= remora_ctx.world_size || !net.peer_addr[proc])
        return REMORA_ERR_UNREACHABLE;
    if (len == 0) { /* empty memory: nothing to reach, but flushes toward proc still go here */
        *out = (struct remora_rmem){.tp = &remora_net, .base = base, .proc = proc};
        return REMORA_OK;
    }
    struct net_key *k = calloc(1, sizeof *k + len);
    if (!k)
        return REMORA_ERR_NO_MEM;
    k->len = len;
    memcpy(k->packed, packed, len);
    *out = (struct remora_rmem){.tp = &remora_net, .base = base, .key = k, .proc = proc};
    return REMORA_OK;
}

static void net_release(struct remora_rmem *m)
{
    struct net_key *k = m->key;
    if (!k)
        return;
    for (int i = 0; i < MAX_INSTANCES; i++)
        if (k->unpacked[i])
            remora_ucx.ucp_rkey_destroy(k->unpacked[i]);
    free(k);
    m->key = NULL;
}

/* ---- operations ------------------------------------------------------------------ */

/* Our own memory reached through the network while UCX does its RMA in
 * software: a copy. */
static remora_status_t self_copy(const struct remora_rmem *m, const struct remora_iov *v, size_t n, int put)
{
    for (size_t i = 0; i < n; i++) {
        char *mem = (char *)(m->base + v[i].off);
        remora_mapped_copy(put ? mem : v[i].local, put ? v[i].local : mem, v[i].len);
    }
    return REMORA_OK;
}

static int to_self(const struct remora_rmem *m) { return m->proc == remora_ctx.world_rank; }

/* As messages where UCX's RMA is software (ucx_msg.c: even a 4 MiB block
 * moves 4x faster in messages of 64 KiB than by UCX's put over TCP, 1.9
 * against 7.5 ms here), else UCX's RMA. */
static remora_status_t net_vec(const struct remora_rmem *m, const struct remora_iov *v, size_t n, int put)
{
    if (net.sw_rma && to_self(m))
        return self_copy(m, v, n, put);
    struct instance *in;
    ucp_ep_h ep;
    ucp_rkey_h rk;
    remora_status_t st = begin(m, &in, &ep, &rk);
    if (!remora_ok(st))
        return st;
    ucp_request_param_t prm = {0};
    for (size_t i = 0; i < n && remora_ok(st);) {
        size_t j = i;
        while (net.sw_rma && j < n)
            j++;
        if (j > i) {
            st = remora_msg_add(in, m->proc, m->base, v + i, j - i, put);
            owe(in, m->proc);
            i = j;
            continue;
        }
        uint64_t raddr = m->base + v[i].off;
        st = posted(put ? remora_ucx.ucp_put_nbx(ep, v[i].local, v[i].len, raddr, rk, &prm)
                        : remora_ucx.ucp_get_nbx(ep, v[i].local, v[i].len, raddr, rk, &prm));
        in->dirty[m->proc] = 1;
        owe(in, m->proc);
        i++;
    }
    pthread_mutex_unlock(&in->lock);
    return st;
}

/* As entries of messages where UCX's RMA is software; else block by block. */
static remora_status_t net_strided(const struct remora_rmem *m, const struct remora_strided *s, int put)
{
    if (!net.sw_rma || to_self(m))
        return REMORA_ERR_UNSUPPORTED;
    struct instance *in;
    ucp_ep_h ep;
    remora_status_t st = begin(m, &in, &ep, NULL);
    if (!remora_ok(st))
        return st;
    st = remora_msg_add_strided(in, m->proc, m->base, s, put);
    owe(in, m->proc);
    pthread_mutex_unlock(&in->lock);
    return st;
}

static remora_status_t net_putv(const struct remora_rmem *m, const struct remora_iov *v, size_t n) { return net_vec(m, v, n, 1); }
static remora_status_t net_getv(const struct remora_rmem *m, const struct remora_iov *v, size_t n) { return net_vec(m, v, n, 0); }

struct msg_wait {
    struct instance *in;
    int proc;
};

static int msg_replied(void *arg)
{
    const struct msg_wait *w = arg;
    return !remora_msg_waiting(w->in, w->proc);
}

/* The messages toward proc (every peer: proc < 0) of instance in (locked)
 * sent, and their replies here. */
static remora_status_t msg_complete(struct instance *in, int proc)
{
    if (!in->msg)
        return REMORA_OK;
    remora_status_t st = remora_msg_send(in, proc);
    remora_ucx_wait_until(in, msg_replied, &(struct msg_wait){in, proc});
    remora_status_t s = remora_msg_status(in, proc);
    return !remora_ok(st) ? st : s;
}

/* One get or put, waited for: the get's data is here, the put's source is
 * free again (UCX has copied or sent it, or it travels in a message; its
 * remote completion is the flush's). */
static remora_status_t net_one(const struct remora_rmem *m, uint64_t off, void *local, size_t len, int put)
{
    struct remora_iov v = {local, off, len};
    if (net.sw_rma && to_self(m))
        return self_copy(m, &v, 1, put);
    struct instance *in;
    ucp_ep_h ep;
    ucp_rkey_h rk;
    remora_status_t st = begin(m, &in, &ep, &rk);
    if (!remora_ok(st))
        return st;
    if (net.sw_rma) {
        /* a blocking put (OpenSHMEM's) leaves at once: a program may wait
         * elsewhere for its data without a quiet, and it must arrive.  It asks
         * for a reply, which the next quiet waits for instead of sending a
         * message of its own (one round trip for put + quiet, not 1.5) */
        st = remora_msg_add(in, m->proc, m->base, &v, 1, put);
        if (remora_ok(st))
            st = put ? remora_msg_send(in, m->proc) : msg_complete(in, m->proc);
        if (put)
            owe(in, m->proc);
    } else {
        ucp_request_param_t prm = {0};
        uint64_t raddr = m->base + off;
        st = wait(in, put ? remora_ucx.ucp_put_nbx(ep, local, len, raddr, rk, &prm)
                          : remora_ucx.ucp_get_nbx(ep, local, len, raddr, rk, &prm));
        if (put)
            in->dirty[m->proc] = 1, owe(in, m->proc);
    }
    pthread_mutex_unlock(&in->lock);
    return st;
}

static remora_status_t net_read(const struct remora_rmem *m, uint64_t off, void *dst, size_t len)
{
    return net_one(m, off, dst, len, 0);
}

static remora_status_t net_write(const struct remora_rmem *m, uint64_t off, const void *src, size_t len)
{
    return net_one(m, off, (void *)src, len, 1);
}

static ucp_atomic_op_t ucp_op_of(enum remora_amo_op op)
{
    switch (op) {
    case REMORA_AMO_AND: return UCP_ATOMIC_OP_AND;
    case REMORA_AMO_OR: return UCP_ATOMIC_OP_OR;
    case REMORA_AMO_XOR: return UCP_ATOMIC_OP_XOR;
    case REMORA_AMO_SWAP: return UCP_ATOMIC_OP_SWAP;
    case REMORA_AMO_CSWAP: return UCP_ATOMIC_OP_CSWAP;
    case REMORA_AMO_ADD:
    default: return UCP_ATOMIC_OP_ADD;
    }
}

/* A 4- or 8-byte atomic's operand and reply as UCX takes them. */
union amo_buf {
    uint64_t u64;
    uint32_t u32;
};

static uint64_t amo_value(const union amo_buf *b, size_t size) { return size == 4 ? b->u32 : b->u64; }

/* Post one 4- or 8-byte atomic (instance locked); with `reply`, fetching:
 * the old value lands there when the request completes. */
static ucs_status_ptr_t post_amo(ucp_ep_h ep, ucp_rkey_h rk, uint64_t raddr, size_t size, enum remora_amo_op op,
                                 uint64_t operand, uint64_t compare, union amo_buf *x, void *reply)
{
    /* CSWAP: the value sent is the one compared with; the reply buffer holds
     * the one swapped in, and gets the old value.  The reply buffer may be
     * the caller's (non-blocking fetches), aligned only to size. */
    uint64_t value = op == REMORA_AMO_CSWAP ? compare : operand;
    if (size == 4)
        x->u32 = (uint32_t)value;
    else
        x->u64 = value;
    if (reply)
        remora_amo_store(reply, operand, size);
    ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE, .datatype = ucp_dt_make_contig(size)};
    if (reply) {
        prm.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        prm.reply_buffer = reply;
    }
    return remora_ucx.ucp_atomic_op_nbx(ep, ucp_op_of(op), x, 1, raddr, rk, &prm);
}

/* A 4- or 8-byte network atomic. */
static remora_status_t amo_word(const struct remora_rmem *m, uint64_t raddr, size_t size, enum remora_amo_op op,
                    uint64_t operand, uint64_t compare, uint64_t *fetched)
{
    struct instance *in;
    ucp_ep_h ep;
    ucp_rkey_h rk;
    remora_status_t st = begin_amo(m, &in, &ep, &rk);
    if (!remora_ok(st))
        return st;
    union amo_buf x, reply;
    /* swaps always fetch: UCX's software atomics (tcp) have no posted swap */
    int fetch = fetched || op == REMORA_AMO_CSWAP || op == REMORA_AMO_SWAP;
    ucs_status_ptr_t r = post_amo(ep, rk, raddr, size, op, operand, compare, &x, fetch ? &reply : NULL);
    if (fetch) {
        st = wait(in, r);
        if (remora_ok(st) && fetched)
            *fetched = amo_value(&reply, size);
    } else {
        st = posted(r);
        in->dirty[m->proc] = 1;
        owe(in, m->proc);
    }
    pthread_mutex_unlock(&in->lock);
    return st;
}

/* 1- and 2-byte atomics: a compare-and-swap loop on the aligned 4-byte word
 * around them (the network has no smaller atomics; every atomic on the word
 * goes through the network, so the loop is atomic with all of them). */
static remora_status_t amo_narrow(const struct remora_rmem *m, uint64_t raddr, size_t size, enum remora_amo_op op,
                      uint64_t operand, uint64_t compare, uint64_t *fetched)
{
    uint64_t word_addr = raddr & ~(uint64_t)3;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    unsigned shift = (unsigned)(raddr - word_addr) * 8;
#else
    unsigned shift = (unsigned)(4 - size - (raddr - word_addr)) * 8;
#endif
    uint32_t mask = (uint32_t)((size == 1 ? 0xffu : 0xffffu) << shift);
    uint64_t cur;
    remora_status_t st = amo_word(m, word_addr, 4, REMORA_AMO_ADD, 0, 0, &cur);
    for (; remora_ok(st);) {
        uint32_t w = (uint32_t)cur, old = (w & mask) >> shift, x = (uint32_t)operand & (mask >> shift), nv;
        switch (op) {
        case REMORA_AMO_ADD: nv = old + x; break;
        case REMORA_AMO_AND: nv = old & x; break;
        case REMORA_AMO_OR: nv = old | x; break;
        case REMORA_AMO_XOR: nv = old ^ x; break;
        case REMORA_AMO_SWAP: nv = x; break;
        default: nv = old == ((uint32_t)compare & (mask >> shift)) ? x : old; break;
        }
        uint32_t want = (w & ~mask) | ((nv << shift) & mask);
        uint64_t seen;
        if (want == w) { /* nothing changes (a failed compare, a no-op): the read was atomic */
            if (fetched)
                *fetched = old;
            return REMORA_OK;
        }
        st = amo_word(m, word_addr, 4, REMORA_AMO_CSWAP, want, w, &seen);
        if (remora_ok(st) && (uint32_t)seen == w) {
            if (fetched)
                *fetched = old;
            return REMORA_OK;
        }
        cur = seen;
    }
    return st;
}

/* An atomic on our own memory while UCX does atomics in software: every
 * other process's atomic on it is done by this CPU under the target lock
 * (ucp_worker_progress of the target worker), so ours is a CPU atomic under
 * the same lock, not a message to ourselves. */
static uint64_t self_amo(uint64_t raddr, size_t size, enum remora_amo_op op, uint64_t operand, uint64_t compare)
{
    void *p = (void *)(uintptr_t)raddr;
    uint64_t old;
    pthread_mutex_lock(&net.target.lock);
    switch (size) {
    case 1: old = remora_mapped_amo8(p, op, operand, compare); break;
    case 2: old = remora_mapped_amo16(p, op, operand, compare); break;
    case 4: old = remora_mapped_amo32(p, op, operand, compare); break;
    default: old = remora_mapped_amo64(p, op, operand, compare); break;
    }
    remora_ucx_served();
    pthread_mutex_unlock(&net.target.lock);
    return old;
}

static remora_status_t net_amo(const struct remora_rmem *m, uint64_t off, size_t size, enum remora_amo_op op, uint64_t operand,
                   uint64_t compare, uint64_t *fetched)
{
    uint64_t raddr = m->base + off;
    if (!remora_amo_size_ok(m, size) || raddr % size)
        return REMORA_ERR_UNSUPPORTED;
    if (net.sw_amo && to_self(m)) {
        uint64_t old = self_amo(raddr, size, op, operand, compare);
        if (fetched)
            *fetched = old;
        return REMORA_OK;
    }
    if (size < 4)
        return amo_narrow(m, raddr, size, op, operand, compare, fetched);
    return amo_word(m, raddr, size, op, operand, compare, fetched);
}

/* One 4- or 8-byte atomic that the caller does not wait for.  Fetching (with
 * `fetched`): UCX writes the reply there when it arrives, and the next flush
 * waits for it (a flush completes every operation of the endpoint, fetching
 * ones with their reply).  Not fetching: waited for until it has left (local
 * completion), and no flush waits for it (remora_amo_post). */
static remora_status_t amo_unwaited(const struct remora_rmem *m, uint64_t raddr, size_t size, enum remora_amo_op op,
                        uint64_t operand, uint64_t compare, void *fetched)
{
    if (net.sw_amo && to_self(m)) {
        uint64_t old = self_amo(raddr, size, op, operand, compare);
        if (fetched)
            remora_amo_store(fetched, old, size);
        return REMORA_OK;
    }
    struct instance *in;
    ucp_ep_h ep;
    ucp_rkey_h rk;
    remora_status_t st = begin_amo(m, &in, &ep, &rk);
    if (!remora_ok(st))
        return st;
    union amo_buf x; /* UCX takes the operand when the atomic is posted */
    ucs_status_ptr_t r = post_amo(ep, rk, raddr, size, op, operand, compare, &x, fetched);
    if (fetched && UCS_PTR_IS_PTR(r) && in->nfetch < MAX_FETCHES) {
        owe(in, m->proc);
        in->fetch[in->nfetch].req = r;
        in->fetch[in->nfetch++].proc = m->proc;
    } else if (fetched) {
        st = posted(r);
        in->dirty[m->proc] |= r != NULL; /* NULL: done at once, the reply is there */
        owe(in, m->proc);
    } else {
        st = wait(in, r);
    }
    pthread_mutex_unlock(&in->lock);
    return st;
}

/* 1- and 2-byte words are loops of round trips, done at once. */
static remora_status_t net_amo_nbi(const struct remora_rmem *m, uint64_t off, size_t size, enum remora_amo_op op,
                       uint64_t operand, uint64_t compare, void *fetched)
{
    uint64_t raddr = m->base + off;
    if (!remora_amo_size_ok(m, size) || raddr % size)
        return REMORA_ERR_UNSUPPORTED;
    if (size < 4 || (uintptr_t)fetched % size)
        return remora_amo_into(m, off, size, op, operand, compare, fetched);
    return amo_unwaited(m, raddr, size, op, operand, compare, fetched);
}

static remora_status_t net_amo_post(const struct remora_rmem *m, uint64_t off, size_t size, enum remora_amo_op op,
                        uint64_t operand)
{
    uint64_t raddr = m->base + off;
    if (!remora_amo_size_ok(m, size) || raddr % size || op == REMORA_AMO_CSWAP || op == REMORA_AMO_SWAP)
        return REMORA_ERR_UNSUPPORTED;
    if (size < 4)
        return amo_narrow(m, raddr, size, op, operand, 0, NULL);
    return amo_unwaited(m, raddr, size, op, operand, 0, NULL);
}

/* Fetching atomics in flight together: 4- and 8-byte ones posted in batches
 * and waited for as a batch; 1- and 2-byte ones are loops of their own. */
static remora_status_t net_amov(const struct remora_rmem *m, struct remora_amo_req *v, size_t n)
{
    enum { BATCH = 64 };
    if (net.sw_amo && to_self(m)) {
        remora_status_t st = REMORA_OK;
        for (size_t i = 0; i < n && remora_ok(st); i++)
            st = net_amo(m, v[i].off, v[i].size, (enum remora_amo_op)v[i].op, v[i].operand, v[i].compare,
                         &v[i].fetched);
        return st;
    }
    for (size_t first = 0; first < n; first += BATCH) {
        size_t k = n - first < BATCH ? n - first : BATCH, issued = 0;
        union amo_buf x[BATCH], reply[BATCH];
        ucs_status_ptr_t r[BATCH];
        struct instance *in;
        ucp_ep_h ep;
        ucp_rkey_h rk;
        remora_status_t st = begin_amo(m, &in, &ep, &rk);
        if (!remora_ok(st))
            return st;
        for (; issued < k; issued++) {
            struct remora_amo_req *c = &v[first + issued];
            r[issued] = NULL;
            if (c->size < 4)
                continue;
            if ((m->base + c->off) % c->size) {
                st = REMORA_ERR_UNSUPPORTED;
                break;
            }
            r[issued] = post_amo(ep, rk, m->base + c->off, c->size, (enum remora_amo_op)c->op, c->operand, c->compare,
                                 &x[issued], &reply[issued]);
        }
        for (size_t i = 0; i < issued; i++) { /* every one issued, even after an error */
            struct remora_amo_req *c = &v[first + i];
            if (c->size < 4)
                continue;
            remora_status_t s = wait(in, r[i]);
            if (remora_ok(s))
                c->fetched = amo_value(&reply[i], c->size);
            else if (remora_ok(st))
                st = s;
        }
        pthread_mutex_unlock(&in->lock);
        for (size_t i = 0; i < k && remora_ok(st); i++) {
            struct remora_amo_req *c = &v[first + i];
            if (c->size < 4)
                st = net_amo(m, c->off, c->size, (enum remora_amo_op)c->op, c->operand, c->compare, &c->fetched);
        }
        if (!remora_ok(st))
            return st;
    }
    return REMORA_OK;
}

/* Flush instance `in` toward proc (or every peer when proc < 0). */
static remora_status_t flush_instance(struct instance *in, int proc)
{
    ucp_request_param_t prm = {0};
    pthread_mutex_lock(&in->lock);
    remora_status_t st = msg_complete(in, proc);
    for (int i = 0; i < in->nfetch;) {
        if (proc >= 0 && in->fetch[i].proc != proc) {
            i++;
            continue;
        }
        remora_status_t s = wait(in, in->fetch[i].req);
        st = !remora_ok(st) ? st : s;
        in->fetch[i] = in->fetch[--in->nfetch];
    }
    if (proc >= 0) {
        if (in->dirty[proc] && in->eps[proc]) {
            remora_status_t s = wait(in, remora_ucx.ucp_ep_flush_nbx(in->eps[proc], &prm));
            st = !remora_ok(st) ? st : s;
            in->dirty[proc] = 0;
        }
        atomic_store_explicit(&in->owes[proc], 0, memory_order_relaxed);
    } else {
        for (int r = 0; r < remora_ctx.world_size; r++)
            atomic_store_explicit(&in->owes[r], 0, memory_order_relaxed);
        remora_status_t s = wait(in, remora_ucx.ucp_worker_flush_nbx(in->worker, &prm));
        st = !remora_ok(st) ? st : s;
        memset(in->dirty, 0, (size_t)remora_ctx.world_size);
        if (!in->nfetch && !atomic_load_explicit(&in->gathered, memory_order_relaxed) && !remora_msg_waiting(in, -1))
            atomic_store_explicit(&in->busy, 0, memory_order_relaxed);
    }
    pthread_mutex_unlock(&in->lock);
    return st;
}

/* Whether a flush toward proc (every peer: proc < 0) must visit instance in:
 * it holds work toward proc (`owes`), or it was used since its last complete
 * flush (`busy`), or it is this thread's own.  An operation of another thread
 * that happens before this flush set the flag before it, and the
 * synchronisation that orders the two made that visible; a thread's
 * operation that completed in its call (a fetching one) owes nothing, so
 * flushes do not wait for instances busy with such calls. */
static int flush_visits(struct instance *in, int proc)
{
    if (in == my_instance)
        return 1;
    if (proc < 0)
        return atomic_load_explicit(&in->busy, memory_order_relaxed);
    return atomic_load_explicit(&in->owes[proc], memory_order_relaxed);
}

/* Every thread's operations but those of instance `skip` (NULL: none):
 * every instance used since its last complete flush.  The messages of all
 * leave first, so that their replies are in flight together. */
static remora_status_t flush_instances(int proc, const struct instance *skip)
{
    remora_status_t st = REMORA_OK;
    int n = atomic_load_explicit(&net.ninstances, memory_order_acquire);
    for (int i = 0; n > 1 && net.sw_rma && i < n; i++) {
        struct instance *in = atomic_load_explicit(&net.instance[i], memory_order_relaxed);
        if (in == skip || !flush_visits(in, proc))
            continue;
        pthread_mutex_lock(&in->lock);
        remora_status_t s = remora_msg_send(in, proc);
        pthread_mutex_unlock(&in->lock);
        st = !remora_ok(st) ? st : s;
    }
    for (int i = 0; i < n; i++) {
        struct instance *in = atomic_load_explicit(&net.instance[i], memory_order_relaxed);
        remora_status_t s = in != skip && flush_visits(in, proc) ? flush_instance(in, proc) : REMORA_OK;
        if (remora_ok(st))
            st = s;
    }
    return st;
}

static remora_status_t net_flush(int proc) { return net.ready ? flush_instances(proc, NULL) : REMORA_OK; }

/* Whether instance in (locked) holds nothing toward proc that a reply must
 * complete here: no gets or fetching calls gathered or in flight, no UCX
 * RMA posted (its completion is ucp_ep_flush's). */
static int quiet_toward(struct instance *in, int proc)
{
    for (int i = 0; i < in->nfetch; i++)
        if (in->fetch[i].proc == proc)
            return 0;
    return !in->dirty[proc] && !remora_msg_owes_reply(in, proc);
}

/* When puts and atomics toward an owner are messages its target worker
 * handles in order (software RMA and atomics: M1), the add travels in a
 * message behind this thread's messages instead of after their replies: no
 * round trip.  Other threads' instances are flushed first, and this
 * thread's when something of it waits for a reply anyway. */
static remora_status_t net_flush_post(const struct remora_rmem *m, uint64_t off, uint64_t add)
{
    int proc = m->proc;
    if (!net.ready || !net.sw_rma || !net.sw_amo || to_self(m))
        return remora_flush_then_post(m, off, add);
    struct instance *in;
    remora_status_t st = flush_instances(proc, my_instance), s;
    ucp_ep_h ep;
    if (!remora_ok((s = begin(m, &in, &ep, NULL))))
        return !remora_ok(st) ? st : s;
    if (!quiet_toward(in, proc)) {
        pthread_mutex_unlock(&in->lock);
        s = flush_instance(in, proc);
        st = !remora_ok(st) ? st : s;
        pthread_mutex_lock(&in->lock);
    } else {
        s = remora_msg_status(in, proc); /* a failure replied before */
        st = !remora_ok(st) ? st : s;
    }
    s = remora_msg_push_add(in, proc, m->base + off, add);
    owe(in, proc); /* its message asked for no reply: the next flush does */
    pthread_mutex_unlock(&in->lock);
    return !remora_ok(st) ? st : s;
}

void remora_net_pause(void)
{
    if (net.ready)
        kick_progress_thread();
}

void remora_net_progress(void)
{
    if (!net.ready)
        return;
    struct instance *in = my_instance;
    if (in && pthread_mutex_trylock(&in->lock) == 0) {
        remora_ucx.ucp_worker_progress(in->worker);
        pthread_mutex_unlock(&in->lock);
    }
    progress_target();
}

static int net_applies(const struct remora_rmem *m)
{
    (void)m;
    return net.sw_amo;
}

/* A call on our own memory: carried out here, under the target lock (what
 * the target worker holds while it carries out other processes' calls). */
static void self_apply(const struct remora_rmem *m, const void *head, const struct remora_apply_piece *v, size_t n)
{
    pthread_mutex_lock(&net.target.lock);
    for (size_t i = 0; i < n; i++)
        remora_msg_apply_here((char *)(m->base + v[i].off), head, &v[i]);
    remora_ucx_served();
    pthread_mutex_unlock(&net.target.lock);
}

static remora_status_t net_apply(const struct remora_rmem *m, const void *head, const struct remora_apply_piece *v, size_t n)
{
    if (!net.sw_amo)
        return REMORA_ERR_UNSUPPORTED;
    if (to_self(m)) {
        self_apply(m, head, v, n);
        return REMORA_OK;
    }
    struct instance *in;
    ucp_ep_h ep;
    remora_status_t st = begin(m, &in, &ep, NULL);
    if (!remora_ok(st))
        return st;
    st = remora_msg_apply(in, m->proc, m->base, head, v, n);
    int fetch = 0;
    for (size_t i = 0; i < n; i++)
        fetch |= v[i].result != NULL;
    if (remora_ok(st) && fetch)
        st = msg_complete(in, m->proc);
    else
        owe(in, m->proc);
    pthread_mutex_unlock(&in->lock);
    return st;
}

const struct remora_transport remora_net = {
    .name = "ucx",
    .mapped = 0,
    .amo_sizes = 1 | 2 | 4 | 8,
    .amo_native = 4 | 8,
    .putv = net_putv,
    .strided = net_strided,
    .getv = net_getv,
    .amo = net_amo,
    .amov = net_amov,
    .amo_nbi = net_amo_nbi,
    .amo_post = net_amo_post,
    .read = net_read,
    .write = net_write,
    .flush = net_flush,
    .flush_post = net_flush_post,
    .release = net_release,
    .applies = net_applies,
    .apply = net_apply,
};
