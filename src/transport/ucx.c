/* The UCX transport (see ucx.h). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucp/api/ucp.h>

#include "runtime/context.h"
#include "runtime/log.h"
#include "transport/ucx.h"

/* The instance of this thread; IE model: the library is loaded at start-up. */
static _Thread_local struct remora_ucx_instance *my_instance __attribute__((tls_model("initial-exec")));

#define U (&remora_ctx.ucx)

static int create_worker(ucp_worker_h *w)
{
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = UCS_THREAD_MODE_SERIALIZED};
    return ucp_worker_create(U->ctx, &wp, w) == UCS_OK ? 0 : -1;
}

static int instance_init(struct remora_ucx_instance *in, int id)
{
    in->id = id;
    in->eps = calloc((size_t)remora_ctx.world_size, sizeof *in->eps);
    in->dirty = calloc((size_t)remora_ctx.world_size, 1);
    pthread_mutex_init(&in->lock, NULL);
    return in->eps && in->dirty && create_worker((ucp_worker_h *)&in->worker) == 0 ? 0 : -1;
}

static void instance_destroy(struct remora_ucx_instance *in)
{
    for (int r = 0; in->eps && r < remora_ctx.world_size; r++)
        if (in->eps[r]) {
            ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = UCP_EP_CLOSE_FLAG_FORCE};
            ucs_status_ptr_t req = ucp_ep_close_nbx(in->eps[r], &prm);
            while (UCS_PTR_IS_PTR(req) && ucp_request_check_status(req) == UCS_INPROGRESS)
                ucp_worker_progress(in->worker);
            if (UCS_PTR_IS_PTR(req))
                ucp_request_free(req);
        }
    if (in->worker)
        ucp_worker_destroy(in->worker);
    free(in->eps);
    free(in->dirty);
    pthread_mutex_destroy(&in->lock);
}

/* A thread ends: its dedicated instance is free for the next thread. */
static void thread_exit(void *arg)
{
    struct remora_ucx_instance *in = arg;
    atomic_fetch_sub(&in->users, 1);
}

static void *progress_main(void *arg);

int remora_ucx_init(void)
{
    pthread_mutex_lock(&U->init_lock);
    if (U->ready) {
        pthread_mutex_unlock(&U->init_lock);
        return MPI_SUCCESS;
    }
    ucp_config_t *cfg;
    ucp_params_t prm = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS,
        .features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_WAKEUP,
        .mt_workers_shared = 1,
        .estimated_num_eps = (size_t)remora_ctx.world_size,
    };
    int ok = ucp_config_read(NULL, NULL, &cfg) == UCS_OK;
    /* REMORA_UCX_TLS picks Remora's transports without changing those of
     * the host MPI's own UCX (UCX_TLS would set both). */
    const char *tls = getenv("REMORA_UCX_TLS");
    if (ok && tls && *tls && ucp_config_modify(cfg, "TLS", tls) != UCS_OK) {
        remora_log(REMORA_LOG_ERROR, "REMORA_UCX_TLS=%s is not a UCX transport list", tls);
        ok = 0;
        ucp_config_release(cfg);
    }
    if (ok) {
        ok = ucp_init(&prm, cfg, (ucp_context_h *)&U->ctx) == UCS_OK;
        ucp_config_release(cfg);
    }
    ok = ok && instance_init(&U->target, -1) == 0;
    ucp_address_t *addr = NULL;
    ok = ok && ucp_worker_get_address(U->target.worker, &addr, &U->my_addr_len) == UCS_OK;
    if (ok) {
        U->my_addr = malloc(U->my_addr_len);
        memcpy(U->my_addr, addr, U->my_addr_len);
        ucp_worker_release_address(U->target.worker, addr);
    }
    U->peer_addr = calloc((size_t)remora_ctx.world_size, sizeof *U->peer_addr);
    U->peer_addr_len = calloc((size_t)remora_ctx.world_size, sizeof *U->peer_addr_len);
    ok = ok && U->my_addr && U->peer_addr && U->peer_addr_len;
    U->max_instances = remora_ctx.config.ucx_instances < REMORA_UCX_MAX_INSTANCES ? remora_ctx.config.ucx_instances
                                                                                   : REMORA_UCX_MAX_INSTANCES;
    ok = ok && pthread_key_create(&U->thread_key, thread_exit) == 0;
    if (!ok) {
        pthread_mutex_unlock(&U->init_lock);
        remora_log(REMORA_LOG_ERROR, "UCX start-up failed");
        return MPI_ERR_OTHER;
    }
    U->ready = 1;
    pthread_mutex_unlock(&U->init_lock);
    return MPI_SUCCESS;
}

static void stop_progress_thread(void)
{
    if (!U->progress_started)
        return;
    atomic_store(&U->progress_stop, 1);
    ucp_worker_signal(U->target.worker);
    pthread_join(U->progress_thread, NULL);
    U->progress_started = 0;
}

void remora_ucx_finalize(void)
{
    if (!U->ready)
        return;
    stop_progress_thread();
    for (int i = 0; i < U->ninstances; i++) {
        instance_destroy(U->instance[i]);
        free(U->instance[i]);
    }
    instance_destroy(&U->target);
    for (int r = 0; r < remora_ctx.world_size; r++)
        free(U->peer_addr[r]);
    free(U->peer_addr);
    free(U->peer_addr_len);
    free(U->my_addr);
    pthread_key_delete(U->thread_key);
    ucp_cleanup(U->ctx);
    U->ready = 0;
}

/* ---- instances -------------------------------------------------------------- */

/* This thread's instance: a free one, a new one, or (at the limit) the least used. */
static struct remora_ucx_instance *instance(void)
{
    struct remora_ucx_instance *in = my_instance;
    if (__builtin_expect(in != NULL, 1))
        return in;
    pthread_mutex_lock(&U->init_lock);
    for (int i = 0; i < U->ninstances && !in; i++)
        if (atomic_load(&U->instance[i]->users) == 0)
            in = U->instance[i];
    int n = atomic_load_explicit(&U->ninstances, memory_order_relaxed);
    if (!in && n < U->max_instances) {
        in = calloc(1, sizeof *in);
        if (!in || instance_init(in, n) != 0)
            remora_fatal("cannot create a UCX worker for a new thread");
        /* published before counted: flushes read the count, then the slots */
        atomic_store_explicit(&U->instance[n], in, memory_order_relaxed);
        atomic_store_explicit(&U->ninstances, n + 1, memory_order_release);
    }
    for (int i = 0; i < U->ninstances && !in; i++)
        if (!in || atomic_load(&U->instance[i]->users) < atomic_load(&in->users))
            in = U->instance[i];
    if (!in)
        in = U->instance[atomic_fetch_add(&U->round_robin, 1) % (unsigned)U->ninstances];
    atomic_fetch_add(&in->users, 1);
    pthread_mutex_unlock(&U->init_lock);
    pthread_setspecific(U->thread_key, in);
    my_instance = in;
    return in;
}

static int endpoint_needs_progress(ucp_ep_h ep);

/* The endpoint from instance `in` (locked) to a peer's target worker. */
static ucp_ep_h endpoint(struct remora_ucx_instance *in, int world_rank)
{
    ucp_ep_h ep = in->eps[world_rank];
    if (__builtin_expect(ep != NULL, 1))
        return ep;
    if (!U->peer_addr[world_rank])
        remora_fatal("no UCX address of process %d (no window shared with it?)", world_rank);
    ucp_ep_params_t prm = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
                           .address = (const ucp_address_t *)U->peer_addr[world_rank]};
    if (ucp_ep_create(in->worker, &prm, &ep) != UCS_OK)
        remora_fatal("cannot connect to process %d through UCX", world_rank);
    in->eps[world_rank] = ep;
    if (endpoint_needs_progress(ep))
        remora_log(REMORA_LOG_DEBUG, "RMA to process %d is emulated in software", world_rank);
    return ep;
}

static ucp_rkey_h rkey_for(struct remora_ucx_instance *in, ucp_ep_h ep, struct remora_ucx_rkey *k)
{
    ucp_rkey_h rk = k->unpacked[in->id];
    if (__builtin_expect(rk != NULL, 1))
        return rk;
    if (ucp_ep_rkey_unpack(ep, k->packed, &rk) != UCS_OK)
        remora_fatal("cannot unpack a UCX remote key");
    k->unpacked[in->id] = rk;
    return rk;
}

/* Progress the target worker if nobody else does right now. */
static void progress_target(void)
{
    if (pthread_mutex_trylock(&U->target.lock) == 0) {
        ucp_worker_progress(U->target.worker);
        pthread_mutex_unlock(&U->target.lock);
    }
}

/* Wait for request r of instance in (locked); UCS status. */
static ucs_status_t wait(struct remora_ucx_instance *in, ucs_status_ptr_t r)
{
    if (!UCS_PTR_IS_PTR(r))
        return UCS_PTR_STATUS(r);
    ucs_status_t st;
    while ((st = ucp_request_check_status(r)) == UCS_INPROGRESS) {
        ucp_worker_progress(in->worker);
        progress_target(); /* our own target worker may be the peer (loopback) */
    }
    ucp_request_free(r);
    return st;
}

/* Post without waiting: the request completes by itself, flush collects it. */
static int posted(ucs_status_ptr_t r)
{
    if (UCS_PTR_IS_ERR(r))
        return EIO;
    if (r)
        ucp_request_free(r);
    return 0;
}

/* ---- the software-RMA question ------------------------------------------------ */

/* Does RMA or AMO on this endpoint go through active messages (software, needing
 * the target's progress)?  UCX lists hardware lanes as rma/amo in its endpoint
 * description; when none is listed, the target's CPU does the work. */
static int endpoint_needs_progress(ucp_ep_h ep)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return 1;
    ucp_ep_print_info(ep, f);
    fclose(f);
    int hw_rma = 0, hw_amo = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        if (strstr(line, "lane[")) {
            hw_rma |= strstr(line, " rma") != NULL;
            hw_amo |= strstr(line, " amo") != NULL;
        }
    free(text);
    return !(hw_rma && hw_amo);
}

static void start_progress_thread(void)
{
    if (U->progress_started)
        return;
    if (ucp_worker_get_efd(U->target.worker, &U->efd) != UCS_OK) {
        remora_log(REMORA_LOG_WARN, "no UCX wake-up fd: the progress thread will poll");
        U->efd = -1;
    }
    atomic_store(&U->progress_stop, 0);
    if (pthread_create(&U->progress_thread, NULL, progress_main, NULL) == 0)
        U->progress_started = 1;
    else
        remora_log(REMORA_LOG_WARN, "cannot start the progress thread: passive targets progress only in MPI calls");
}

/* Serve the target worker: progress while there is work, sleep on its fd otherwise. */
static void *progress_main(void *arg)
{
    (void)arg;
    while (!atomic_load(&U->progress_stop)) {
        pthread_mutex_lock(&U->target.lock);
        while (ucp_worker_progress(U->target.worker))
            ;
        ucs_status_t armed = U->efd >= 0 ? ucp_worker_arm(U->target.worker) : UCS_ERR_BUSY;
        pthread_mutex_unlock(&U->target.lock);
        if (armed == UCS_OK) {
            /* The wake-up fd alone is not enough here: with UCX 1.13 over tcp
             * and oversubscribed ranks some work is left that no event announces
             * (we suspect replies that could not be sent at once); MPICH tests
             * at 4 ranks took 25 s with a 100 ms timeout and 5 s with 1 ms.
             * Waking each millisecond bounds that delay at a negligible cost. */
            struct pollfd pfd = {.fd = U->efd, .events = POLLIN};
            poll(&pfd, 1, 1);
        } else if (armed != UCS_ERR_BUSY) {
            struct timespec ts = {0, 50000};
            nanosleep(&ts, NULL);
        }
    }
    return NULL;
}

/* ---- addresses and keys --------------------------------------------------------- */

/* Variable-size allgather of (buf, len) over comm: lengths into lens[n], data into *all. */
static int allgatherv(MPI_Comm comm, const void *buf, size_t len, size_t *lens, char **all, size_t **offs)
{
    int n;
    PMPI_Comm_size(comm, &n);
    int mine = (int)len, *ilen = malloc(sizeof(int) * (size_t)n), *idsp = malloc(sizeof(int) * (size_t)n);
    *offs = malloc(sizeof(size_t) * (size_t)n);
    if (!ilen || !idsp || !*offs)
        remora_fatal("out of memory exchanging UCX information");
    PMPI_Allgather(&mine, 1, MPI_INT, ilen, 1, MPI_INT, comm);
    size_t total = 0;
    for (int r = 0; r < n; r++) {
        idsp[r] = (int)total;
        (*offs)[r] = total;
        lens[r] = (size_t)ilen[r];
        total += (size_t)ilen[r];
    }
    *all = malloc(total ? total : 1);
    if (!*all)
        remora_fatal("out of memory exchanging UCX information");
    PMPI_Allgatherv(buf, mine, MPI_BYTE, *all, ilen, idsp, MPI_BYTE, comm);
    free(ilen);
    free(idsp);
    return MPI_SUCCESS;
}

int remora_ucx_exchange_addresses(MPI_Comm comm)
{
    int n;
    PMPI_Comm_size(comm, &n);
    int *world = malloc(sizeof(int) * (size_t)n);
    size_t *lens = malloc(sizeof(size_t) * (size_t)n), *offs;
    char *all;
    if (!world || !lens)
        remora_fatal("out of memory exchanging UCX addresses");
    PMPI_Allgather(&remora_ctx.world_rank, 1, MPI_INT, world, 1, MPI_INT, comm);
    allgatherv(comm, U->my_addr, U->my_addr_len, lens, &all, &offs);
    pthread_mutex_lock(&U->init_lock);
    int software = 0;
    for (int r = 0; r < n; r++) {
        if (U->peer_addr[world[r]])
            continue;
        U->peer_addr[world[r]] = malloc(lens[r]);
        memcpy(U->peer_addr[world[r]], all + offs[r], lens[r]);
        U->peer_addr_len[world[r]] = lens[r];
    }
    pthread_mutex_unlock(&U->init_lock);
    /* The progress thread: needed as soon as one peer is reached by software
     * RMA.  Probe an endpoint to a peer other than ourselves (self is always
     * served in place) for every window until the thread runs. */
    enum remora_progress_choice choice = remora_ctx.config.progress_thread;
    int peer = -1;
    for (int r = 0; r < n && peer < 0; r++)
        if (world[r] != remora_ctx.world_rank)
            peer = world[r];
    if (!U->progress_started && choice != REMORA_PROGRESS_OFF && (peer >= 0 || choice == REMORA_PROGRESS_ON)) {
        if (choice == REMORA_PROGRESS_AUTO) {
            struct remora_ucx_instance *in = instance();
            pthread_mutex_lock(&in->lock);
            software = endpoint_needs_progress(endpoint(in, peer));
            pthread_mutex_unlock(&in->lock);
        }
        pthread_mutex_lock(&U->init_lock);
        if (choice == REMORA_PROGRESS_ON || software)
            start_progress_thread();
        pthread_mutex_unlock(&U->init_lock);
    }
    free(world);
    free(lens);
    free(offs);
    free(all);
    return MPI_SUCCESS;
}

int remora_ucx_register(void *addr, size_t len, struct remora_ucx_reg *reg)
{
    memset(reg, 0, sizeof *reg);
    if (len == 0)
        return MPI_SUCCESS;
    ucp_mem_map_params_t prm = {.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH,
                                .address = addr,
                                .length = len};
    if (ucp_mem_map(U->ctx, &prm, (ucp_mem_h *)&reg->memh) != UCS_OK)
        return remora_err(MPI_ERR_NO_MEM, "UCX cannot register %zu bytes", len);
    if (ucp_rkey_pack(U->ctx, reg->memh, &reg->packed, &reg->len) != UCS_OK) {
        ucp_mem_unmap(U->ctx, reg->memh);
        reg->memh = NULL;
        return remora_err(MPI_ERR_NO_MEM, "UCX cannot pack a remote key");
    }
    return MPI_SUCCESS;
}

void remora_ucx_deregister(struct remora_ucx_reg *reg)
{
    if (reg->packed)
        ucp_rkey_buffer_release(reg->packed);
    if (reg->memh)
        ucp_mem_unmap(U->ctx, reg->memh);
    memset(reg, 0, sizeof *reg);
}

int remora_ucx_rkey_init(struct remora_ucx_rkey *k, const void *packed, size_t len)
{
    memset(k, 0, sizeof *k);
    k->len = len;
    if (len && !(k->packed = malloc(len)))
        return MPI_ERR_NO_MEM;
    memcpy(k->packed, packed, len);
    return MPI_SUCCESS;
}

void remora_ucx_rkey_release(struct remora_ucx_rkey *k)
{
    for (int i = 0; i < REMORA_UCX_MAX_INSTANCES; i++)
        if (k->unpacked[i])
            ucp_rkey_destroy(k->unpacked[i]);
    free(k->packed);
    memset(k, 0, sizeof *k);
}

int remora_ucx_exchange_rkeys(MPI_Comm comm, const struct remora_ucx_reg *mine, struct remora_ucx_rkey **rkeys)
{
    int n;
    PMPI_Comm_size(comm, &n);
    size_t *lens = malloc(sizeof(size_t) * (size_t)n), *offs;
    char *all;
    *rkeys = calloc((size_t)n, sizeof **rkeys);
    if (!lens || !*rkeys)
        remora_fatal("out of memory exchanging UCX keys");
    allgatherv(comm, mine->packed, mine->len, lens, &all, &offs);
    for (int r = 0; r < n; r++)
        if (remora_ucx_rkey_init(&(*rkeys)[r], all + offs[r], lens[r]) != MPI_SUCCESS)
            remora_fatal("out of memory exchanging UCX keys");
    free(lens);
    free(offs);
    free(all);
    return MPI_SUCCESS;
}

void remora_ucx_rkeys_free(struct remora_ucx_rkey *rkeys, int n)
{
    for (int r = 0; rkeys && r < n; r++)
        remora_ucx_rkey_release(&rkeys[r]);
    free(rkeys);
}

/* ---- operations -------------------------------------------------------------- */

static int put_get(const struct remora_peer *p, uint64_t off, void *buf, size_t len, int put)
{
    const struct remora_ucx_target *t = p->net;
    struct remora_ucx_instance *in = instance();
    pthread_mutex_lock(&in->lock);
    ucp_ep_h ep = endpoint(in, t->world_rank);
    ucp_rkey_h rk = rkey_for(in, ep, t->data_rkey);
    ucp_request_param_t prm = {0};
    uint64_t raddr = (uint64_t)(uintptr_t)p->base + off;
    int err = posted(put ? ucp_put_nbx(ep, buf, len, raddr, rk, &prm) : ucp_get_nbx(ep, buf, len, raddr, rk, &prm));
    in->dirty[t->world_rank] = 1;
    pthread_mutex_unlock(&in->lock);
    return err;
}

int remora_ucx_put(const struct remora_peer *p, uint64_t off, const void *src, size_t len)
{
    return put_get(p, off, (void *)src, len, 1);
}

int remora_ucx_get(const struct remora_peer *p, uint64_t off, void *dst, size_t len)
{
    return put_get(p, off, dst, len, 0);
}

int remora_ucx_read(const struct remora_ucx_target *t, struct remora_ucx_rkey *k, uint64_t raddr, void *dst,
                    size_t len)
{
    struct remora_ucx_instance *in = instance();
    pthread_mutex_lock(&in->lock);
    ucp_ep_h ep = endpoint(in, t->world_rank);
    ucp_request_param_t prm = {0};
    int err = wait(in, ucp_get_nbx(ep, dst, len, raddr, rkey_for(in, ep, k), &prm)) == UCS_OK ? 0 : EIO;
    pthread_mutex_unlock(&in->lock);
    return err;
}

static ucp_atomic_op_t ucp_op_of(enum remora_amo_op op)
{
    switch (op) {
    case REMORA_AMO_SWAP: return UCP_ATOMIC_OP_SWAP;
    case REMORA_AMO_CSWAP: return UCP_ATOMIC_OP_CSWAP;
    case REMORA_AMO_AND: return UCP_ATOMIC_OP_AND;
    case REMORA_AMO_OR: return UCP_ATOMIC_OP_OR;
    case REMORA_AMO_XOR: return UCP_ATOMIC_OP_XOR;
    case REMORA_AMO_FADD:
    case REMORA_AMO_LOAD:
    default: return UCP_ATOMIC_OP_ADD; /* LOAD is a fetch-add of 0 */
    }
}

/* One atomic at (raddr, k): waits for the old value when old != NULL. */
static int amo(int world_rank, struct remora_ucx_rkey *k, uint64_t raddr, enum remora_amo_op op, size_t size,
               uint64_t operand, uint64_t compare, uint64_t *old)
{
    struct remora_ucx_instance *in = instance();
    pthread_mutex_lock(&in->lock);
    ucp_ep_h ep = endpoint(in, world_rank);
    ucp_rkey_h rk = rkey_for(in, ep, k);
    union { uint64_t u64; uint32_t u32; } x, reply;
    uint64_t value = op == REMORA_AMO_LOAD ? 0 : op == REMORA_AMO_CSWAP ? compare : operand;
    if (size == 4) {
        x.u32 = (uint32_t)value;
        reply.u32 = (uint32_t)operand; /* CSWAP: the value to swap in */
    } else {
        x.u64 = value;
        reply.u64 = operand;
    }
    ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE, .datatype = ucp_dt_make_contig(size)};
    if (old || op == REMORA_AMO_CSWAP || op == REMORA_AMO_SWAP) {
        prm.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        prm.reply_buffer = &reply;
    }
    ucs_status_ptr_t r = ucp_atomic_op_nbx(ep, ucp_op_of(op), &x, 1, raddr, rk, &prm);
    int err;
    if (prm.op_attr_mask & UCP_OP_ATTR_FIELD_REPLY_BUFFER) {
        err = wait(in, r) == UCS_OK ? 0 : EIO;
        if (!err && old)
            *old = size == 4 ? reply.u32 : reply.u64;
    } else {
        err = posted(r);
        in->dirty[world_rank] = 1;
    }
    pthread_mutex_unlock(&in->lock);
    return err;
}

uint64_t remora_ucx_amo_ctrl(const struct remora_peer *p, size_t ctrl_off, enum remora_amo_op op, uint64_t operand,
                             uint64_t compare)
{
    const struct remora_ucx_target *t = p->net;
    uint64_t old = 0;
    if (amo(t->world_rank, t->ctrl_rkey, t->ctrl_addr + ctrl_off, op, 8, operand, compare, &old) != 0)
        remora_fatal("a UCX atomic on a control word of process %d failed", t->world_rank);
    return old;
}

int remora_ucx_amo_data(const struct remora_peer *p, uint64_t off, enum remora_amo_op op, size_t size,
                        uint64_t operand, uint64_t compare, uint64_t *old)
{
    const struct remora_ucx_target *t = p->net;
    /* a peer mapped here has a local base; the atomic needs the owner's address */
    uint64_t raddr = (p->kind == REMORA_PEER_MAPPED ? t->data_addr : (uint64_t)(uintptr_t)p->base) + off;
    return amo(t->world_rank, t->data_rkey, raddr, op, size, operand, compare, old);
}

/* Flush instance `in` toward world_rank (or every peer when world_rank < 0). */
static int flush_instance(struct remora_ucx_instance *in, int world_rank)
{
    ucp_request_param_t prm = {0};
    int err = 0;
    pthread_mutex_lock(&in->lock);
    if (world_rank >= 0) {
        if (in->dirty[world_rank] && in->eps[world_rank]) {
            err = wait(in, ucp_ep_flush_nbx(in->eps[world_rank], &prm)) == UCS_OK ? 0 : EIO;
            in->dirty[world_rank] = 0;
        }
    } else {
        err = wait(in, ucp_worker_flush_nbx(in->worker, &prm)) == UCS_OK ? 0 : EIO;
        memset(in->dirty, 0, (size_t)remora_ctx.world_size);
    }
    pthread_mutex_unlock(&in->lock);
    return err;
}

int remora_ucx_flush(const struct remora_peer *p)
{
    if (!U->ready)
        return 0;
    int world_rank = p ? ((const struct remora_ucx_target *)p->net)->world_rank : -1, err = 0;
    /* every thread's operations: every instance */
    int n = atomic_load_explicit(&U->ninstances, memory_order_acquire);
    for (int i = 0; i < n; i++)
        err |= flush_instance(atomic_load_explicit(&U->instance[i], memory_order_relaxed), world_rank);
    return err ? EIO : 0;
}

void remora_ucx_progress(void)
{
    if (!U->ready)
        return;
    struct remora_ucx_instance *in = my_instance;
    if (in && pthread_mutex_trylock(&in->lock) == 0) {
        ucp_worker_progress(in->worker);
        pthread_mutex_unlock(&in->lock);
    }
    progress_target();
}
