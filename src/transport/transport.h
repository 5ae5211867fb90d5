/* The transport interface: the only way one process reaches another's memory.
 *
 * Two transports implement it, each as a complete operation table (UCX's uct
 * is the model): shm (peers on this node: memory mapped here is reached with
 * load/store and CPU atomics, other memory of a verified same-kernel peer with
 * process_vm_readv/writev) and net (UCX: peers on other nodes, and every atomic
 * of a window that spans nodes).  Core reaches memory only through a
 * struct remora_rmem and the calls below, and never learns which transport
 * serves it; what it may ask is what the transport offers (mapped memory,
 * atomic sizes).
 *
 * Memory becomes reachable by registering it (remora_mem_register): the
 * registration packs a key that the owner sends to its peers (over the host
 * MPI); a peer unpacks it (remora_mem_unpack) into a remora_rmem, choosing the
 * transport by what the runtime verified about the owner (same node or not).
 *
 * Completion: puts, gets and non-fetching atomics are remotely complete at
 * the next flush toward the owner (shm: at once; net: when the flush returns);
 * a fetching atomic and a read are complete when they return.  A flush
 * completes the operations of every thread of this process.
 *
 * Every call returns a status (remora_status_t); core maps it to MPI error
 * classes.  A transport never knows what an epoch is. */
#ifndef REMORA_TRANSPORT_TRANSPORT_H
#define REMORA_TRANSPORT_TRANSPORT_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/doorbell.h"
#include "runtime/pool.h"

/* What a transport call did: a typed status, not an int, so that it cannot
 * pass for an MPI error class (whose small values it would overlap) nor one
 * for it: the compiler refuses to mix them.  Core maps it to an MPI error
 * class in one place (core/status.h: remora_status_class), shmem/ to its
 * aborts.  Test it with remora_ok / remora_status_is; the code is for
 * switches and tables. */
enum remora_status_code {
    REMORA_S_OK = 0,
    REMORA_S_NO_MEM,      /* memory or registration resources ran out                   */
    REMORA_S_UNREACHABLE, /* the owner cannot be reached (no address, no connection)      */
    REMORA_S_IO,          /* a transfer or atomic failed (network error, bad address)     */
    REMORA_S_UNSUPPORTED, /* this memory offers no such operation (atomic size, op)       */
    REMORA_S_INVALID,     /* a malformed key or argument                                   */
    REMORA_S_COUNT
};

typedef struct remora_status {
    enum remora_status_code code;
} remora_status_t;

#define REMORA_STATUS(c) ((remora_status_t){REMORA_S_##c})
#define REMORA_OK REMORA_STATUS(OK)
#define REMORA_ERR_NO_MEM REMORA_STATUS(NO_MEM)
#define REMORA_ERR_UNREACHABLE REMORA_STATUS(UNREACHABLE)
#define REMORA_ERR_IO REMORA_STATUS(IO)
#define REMORA_ERR_UNSUPPORTED REMORA_STATUS(UNSUPPORTED)
#define REMORA_ERR_INVALID REMORA_STATUS(INVALID)

static inline int remora_ok(remora_status_t s) { return s.code == REMORA_S_OK; }
static inline int remora_status_is(remora_status_t s, enum remora_status_code c) { return s.code == c; }
/* A code carried through an int (a generic walk's callback, a message): back to a status. */
static inline remora_status_t remora_status_of_code(int c) { return (remora_status_t){(enum remora_status_code)c}; }

/* A short text for a status (for error details). */
const char *remora_status_str(remora_status_t status);

/* Atomic operations on 1-, 2-, 4- or 8-byte words.  Fetching or not is the
 * caller's choice (a `fetched` pointer or NULL); a load is a fetching ADD of 0. */
enum remora_amo_op {
    REMORA_AMO_ADD,
    REMORA_AMO_AND,
    REMORA_AMO_OR,
    REMORA_AMO_XOR,
    REMORA_AMO_SWAP,
    REMORA_AMO_CSWAP, /* swap in `operand` if the word equals `compare`; fetches the old value */
};

struct remora_transport;
struct remora_rmem;

/* One fetching atomic of a batch (remora_amov) on the size-byte word at off
 * (1, 2, 4 or 8, aligned to size); its old value goes to fetched. */
struct remora_amo_req {
    uint64_t off;
    size_t size;
    int op;                     /* enum remora_amo_op */
    uint64_t operand, compare;  /* compare: REMORA_AMO_CSWAP only */
    uint64_t fetched;
};

/* Another process's memory (or this process's own) as this process reaches
 * it.  base + off is byte `off` of the registered memory in the address space
 * the transport uses (here when the memory is mapped, else the owner's); a view
 * of a part of it is the same rmem with base advanced.  The key belongs to the
 * rmem that remora_mem_unpack made: release that one only. */
struct remora_rmem {
    const struct remora_transport *tp; /* NULL: nothing reachable */
    uintptr_t base;
    void *key;                         /* the transport's unpacked key */
    int proc;                          /* the owner's rank in MPI_COMM_WORLD */
};

/* One piece of a vectored transfer: len bytes between local and byte off of the rmem. */
struct remora_iov {
    void *local;
    uint64_t off;
    size_t len;
};

/* A strided transfer: n blocks of len bytes, block i between local + i *
 * lstride and byte off + i * rstride of the rmem. */
struct remora_strided {
    void *local;
    int64_t lstride;
    uint64_t off;
    int64_t rstride;
    size_t len, n;
};

/* ---- calls carried out by the memory's owner ----------------------------------
 * Where every atomic on some memory is done by its owner's CPU under one
 * lock (UCX's software atomics over TCP: the owner's target worker does
 * them), a transport can carry a whole call there (remora_apply): the owner
 * applies its pieces under that lock, atomically with every atomic and every
 * other such call on that memory, with the function core registered
 * (remora_apply_register).  One call is one message and, when it fetches,
 * its reply, whatever its size and layout. */

#define REMORA_APPLY_HEAD 16 /* bytes of core's description of a call */

/* Applies operand (and compare, for a compare-and-swap; operand is NULL for
 * a call that only reads) to the len bytes at mem, as head describes: count
 * pieces, the i-th at mem + i * stride with operand + i * len (and compare
 * + i * len). */
typedef void (*remora_apply_fn)(const void *head, char *mem, int64_t stride, const char *operand,
                                const char *compare, size_t len, uint32_t count);
void remora_apply_register(remora_apply_fn fn);

/* One piece of a call: count (>= 1) blocks of len bytes, the i-th at byte
 * off + i * stride of the rmem, with operand + i * len (and compare + i *
 * len).  result: where the blocks' old values go, packed the same way (a
 * fetching call), or NULL. */
struct remora_apply_piece {
    uint64_t off;
    size_t len;
    uint32_t count;
    int64_t stride;
    const void *operand, *compare;
    void *result;
};

struct remora_transport {
    const char *name;
    int mapped;          /* base + off is a load/store address in this process */
    unsigned amo_sizes;  /* bit s: atomics on s-byte words (1, 2, 4, 8); 0: none */
    unsigned amo_native; /* the sizes done by one operation at the target (others
                            are compare-and-swap loops: several round trips) */
    remora_status_t (*putv)(const struct remora_rmem *m, const struct remora_iov *v, size_t n);
    remora_status_t (*getv)(const struct remora_rmem *m, const struct remora_iov *v, size_t n);
    /* NULL, or REMORA_ERR_UNSUPPORTED returned for this memory: the caller
     * moves the blocks by putv and getv */
    remora_status_t (*strided)(const struct remora_rmem *m, const struct remora_strided *s, int put);
    remora_status_t (*amo)(const struct remora_rmem *m, uint64_t off, size_t size, enum remora_amo_op op, uint64_t operand,
               uint64_t compare, uint64_t *fetched);
    /* NULL: remora_amov does one amo after the other */
    remora_status_t (*amov)(const struct remora_rmem *m, struct remora_amo_req *v, size_t n);
    /* NULL: remora_amo_nbi does a fetching amo */
    remora_status_t (*amo_nbi)(const struct remora_rmem *m, uint64_t off, size_t size, enum remora_amo_op op, uint64_t operand,
                   uint64_t compare, void *fetched);
    /* NULL: remora_amo_post does a non-fetching amo */
    remora_status_t (*amo_post)(const struct remora_rmem *m, uint64_t off, size_t size, enum remora_amo_op op, uint64_t operand);
    remora_status_t (*read)(const struct remora_rmem *m, uint64_t off, void *dst, size_t len);
    /* NULL: remora_write is a put and a flush */
    remora_status_t (*write)(const struct remora_rmem *m, uint64_t off, const void *src, size_t len);
    remora_status_t (*flush)(int proc); /* proc < 0: every owner */
    /* NULL: remora_flush_post is remora_flush_then_post */
    remora_status_t (*flush_post)(const struct remora_rmem *m, uint64_t off, uint64_t add);
    void (*release)(struct remora_rmem *m);
    /* NULL: the owner carries out no calls (see above).  A call's results are
     * there when it returns; one without results completes at the next flush. */
    int (*applies)(const struct remora_rmem *m);
    remora_status_t (*apply)(const struct remora_rmem *m, const void *head, const struct remora_apply_piece *v, size_t n);
    /* NULL: nothing of it is mapped unless `mapped` says all is (remora_mapped_prefix) */
    char *(*mapped_prefix)(const struct remora_rmem *m, uint64_t *len);
};

/* ---- operations -------------------------------------------------------------- */

static inline remora_status_t remora_putv(const struct remora_rmem *m, const struct remora_iov *v, size_t n)
{
    return m->tp->putv(m, v, n);
}

static inline remora_status_t remora_getv(const struct remora_rmem *m, const struct remora_iov *v, size_t n)
{
    return m->tp->getv(m, v, n);
}

/* A strided put or get in one call where the transport has one (its runs
 * as such on the wire: over messages, a 4-byte block costs 4 bytes);
 * REMORA_ERR_UNSUPPORTED: move its blocks by remora_putv / remora_getv.
 * Complete at the next flush. */
static inline remora_status_t remora_move_strided(const struct remora_rmem *m, const struct remora_strided *s, int put)
{
    return m->tp->strided ? m->tp->strided(m, s, put) : REMORA_ERR_UNSUPPORTED;
}

/* Contiguous put and get: complete at the next flush. */
static inline remora_status_t remora_put(const struct remora_rmem *m, uint64_t off, const void *src, size_t len)
{
    struct remora_iov v = {(void *)src, off, len};
    return m->tp->putv(m, &v, 1);
}

/* A put whose source may be reused when it returns (OpenSHMEM's blocking
 * put).  Where the transport has its own write, the put is remotely complete
 * only at the next flush (remora_write_pending says so); otherwise it is
 * complete when it returns. */
static inline remora_status_t remora_write(const struct remora_rmem *m, uint64_t off, const void *src, size_t len)
{
    if (m->tp->write)
        return m->tp->write(m, off, src, len);
    remora_status_t st = remora_put(m, off, src, len);
    return remora_ok(st) ? m->tp->flush(m->proc) : st;
}

static inline int remora_write_pending(const struct remora_rmem *m) { return m->tp->write != NULL; }

static inline remora_status_t remora_get(const struct remora_rmem *m, uint64_t off, void *dst, size_t len)
{
    struct remora_iov v = {dst, off, len};
    return m->tp->getv(m, &v, 1);
}

/* An atomic on the size-byte word at off (aligned to size).  With `fetched`
 * the call returns when the old value is there; without, the update is
 * complete at the next flush.  REMORA_ERR_UNSUPPORTED when this memory has no
 * atomics of that size (remora_amo_size_ok says beforehand). */
static inline remora_status_t remora_amo(const struct remora_rmem *m, uint64_t off, size_t size, enum remora_amo_op op,
                             uint64_t operand, uint64_t compare, uint64_t *fetched)
{
    return m->tp->amo(m, off, size, op, operand, compare, fetched);
}

/* Stores the size-byte word whose bits are in old at p. */
static inline void remora_amo_store(void *p, uint64_t old, size_t size)
{
    switch (size) {
    case 1: *(uint8_t *)p = (uint8_t)old; break;
    case 2: *(uint16_t *)p = (uint16_t)old; break;
    case 4: *(uint32_t *)p = (uint32_t)old; break;
    default: *(uint64_t *)p = old; break;
    }
}

/* A fetching atomic, done at once, whose old value is stored at fetched as a
 * size-byte word. */
static inline remora_status_t remora_amo_into(const struct remora_rmem *m, uint64_t off, size_t size, enum remora_amo_op op,
                                  uint64_t operand, uint64_t compare, void *fetched)
{
    uint64_t old;
    remora_status_t st = m->tp->amo(m, off, size, op, operand, compare, &old);
    if (remora_ok(st))
        remora_amo_store(fetched, old, size);
    return st;
}

/* A fetching atomic that does not wait: the old value (size bytes, as the word
 * holds it) is in *fetched when the next flush toward the owner returns, and
 * fetched must stay valid until then (OpenSHMEM's non-blocking atomics). */
static inline remora_status_t remora_amo_nbi(const struct remora_rmem *m, uint64_t off, size_t size, enum remora_amo_op op,
                                 uint64_t operand, uint64_t compare, void *fetched)
{
    if (m->tp->amo_nbi)
        return m->tp->amo_nbi(m, off, size, op, operand, compare, fetched);
    return remora_amo_into(m, off, size, op, operand, compare, fetched);
}

/* A non-fetching atomic that no flush waits for: it has left this process
 * when this returns and reaches the target without further calls, but a
 * flush does not wait for its remote completion.  For releasing a lock word,
 * which nobody needs to see complete: waiting for it would cost a round trip. */
static inline remora_status_t remora_amo_post(const struct remora_rmem *m, uint64_t off, size_t size, enum remora_amo_op op,
                                  uint64_t operand)
{
    if (m->tp->amo_post)
        return m->tp->amo_post(m, off, size, op, operand);
    return m->tp->amo(m, off, size, op, operand, 0, NULL);
}

/* Fetching atomics on n words, all complete when it returns (over the
 * network: in flight together, one round trip for the batch). */
static inline remora_status_t remora_amov(const struct remora_rmem *m, struct remora_amo_req *v, size_t n)
{
    if (m->tp->amov)
        return m->tp->amov(m, v, n);
    remora_status_t st = REMORA_OK;
    for (size_t i = 0; i < n && remora_ok(st); i++)
        st = m->tp->amo(m, v[i].off, v[i].size, (enum remora_amo_op)v[i].op, v[i].operand, v[i].compare,
                        &v[i].fetched);
    return st;
}

/* Whether m's owner carries out calls on it (remora_apply). */
static inline int remora_applies(const struct remora_rmem *m) { return m->tp->applies && m->tp->applies(m); }

/* A whole call on m, carried out by its owner (only where remora_applies). */
static inline remora_status_t remora_apply(const struct remora_rmem *m, const void *head, const struct remora_apply_piece *v,
                               size_t n)
{
    return m->tp->apply(m, head, v, n);
}

/* 1, 2, 4 or 8 (the masks below are bitmasks of sizes, which 3 or 6 would pass). */
static inline int remora_amo_size_valid(size_t size)
{
    return size == 1 || size == 2 || size == 4 || size == 8;
}

static inline int remora_amo_size_ok(const struct remora_rmem *m, size_t size)
{
    return remora_amo_size_valid(size) && (m->tp->amo_sizes & (unsigned)size) != 0;
}

/* Whether an atomic of that size is one operation at the target. */
static inline int remora_amo_size_native(const struct remora_rmem *m, size_t size)
{
    return remora_amo_size_valid(size) && (m->tp->amo_native & (unsigned)size) != 0;
}

/* A blocking read: the bytes are in dst when it returns. */
static inline remora_status_t remora_read(const struct remora_rmem *m, uint64_t off, void *dst, size_t len)
{
    return m->tp->read(m, off, dst, len);
}

/* Remote completion of this process's operations on m's owner (through m's transport). */
static inline remora_status_t remora_flush(const struct remora_rmem *m) { return m->tp->flush(m->proc); }

/* remora_flush, then remora_amo_post of an add to the 8-byte word at off:
 * the owner sees the add only after every operation this process issued
 * toward it through m's transport is complete there, and their results
 * (gets, fetching calls) are here when this returns.  Nobody waits for the
 * add.  A transport whose operations toward an owner stay in order may send
 * the add behind them instead of waiting for their completion first: a
 * notification (MPI_Win_complete's) without a round trip. */
static inline remora_status_t remora_flush_then_post(const struct remora_rmem *m, uint64_t off, uint64_t add)
{
    remora_status_t st = m->tp->flush(m->proc), st2 = remora_amo_post(m, off, 8, REMORA_AMO_ADD, add);
    return !remora_ok(st) ? st : st2;
}

static inline remora_status_t remora_flush_post(const struct remora_rmem *m, uint64_t off, uint64_t add)
{
    return m->tp->flush_post ? m->tp->flush_post(m, off, add) : remora_flush_then_post(m, off, add);
}

/* The load/store address of byte off of m, or NULL when m is not mapped here. */
static inline char *remora_mapped(const struct remora_rmem *m, uint64_t off)
{
    return m->tp->mapped ? (char *)(m->base + off) : NULL;
}

/* The load/store address of byte 0 of m, where m is mapped here from byte 0
 * on, with *len lowered to how many bytes are (of memory mapped here in
 * part); else NULL. */
static inline char *remora_mapped_prefix(const struct remora_rmem *m, uint64_t *len)
{
    if (m->tp->mapped)
        return (char *)m->base;
    return m->tp->mapped_prefix ? m->tp->mapped_prefix(m, len) : NULL;
}

/* Remote completion of everything this process issued, through every
 * transport: to one process, or to all. */
remora_status_t remora_flush_proc(int proc);
remora_status_t remora_flush_all(void);
/* Move what waits on this process (a waiting caller calls this in its loop). */
void remora_progress(void);
/* A waiting caller that called remora_progress is about to sleep: whoever
 * else can serve other processes' requests toward this one does so now. */
void remora_progress_pause(void);
/* Serve other processes' requests toward this one (the network's software
 * RMA and atomics), unless another thread does right now; the number of
 * requests served.  For threads that wait inside the host MPI. */
int remora_serve(void);
/* Whether processes reach this one over the network: remora_serve has
 * something to look for. */
int remora_serve_wanted(void);

/* ---- memory registration and keys --------------------------------------------- */

#define REMORA_KEY_MAX 320 /* bytes of a packed key, at most */

/* How an origin wants to reach registered memory. */
enum remora_reach_via {
    REMORA_REACH_FAST, /* the fastest way: shm on the owner's node, net across nodes    */
    REMORA_REACH_NET,  /* the network, whatever the owner's node: the one atomicity domain
                          of memory that processes on several nodes update              */
};

/* This process's registration of [addr, addr + len). */
struct remora_mem_reg {
    void *net;          /* the net transport's registration, when asked for */
    struct remora_pool_ref pages; /* REMORA_REG_SHARE_PAGES: the pages moved (chunk_size 0: none) */
    size_t packed_len;
    unsigned char packed[REMORA_KEY_MAX];
};

/* What a registration asks for besides the node's own means. */
enum {
    REMORA_REG_NET = 1,         /* the network too (peers on other nodes, or REMORA_REACH_NET) */
    REMORA_REG_SHARE_PAGES = 2, /* the program's own private memory: move its whole pages into
                                   shared memory, for peers on the node to map, until
                                   deregistered (runtime/shared_pages.h) */
};

/* Register memory as `flags` (REMORA_REG_*) ask.  len may be 0 (nothing is
 * reachable then). */
remora_status_t remora_mem_register(void *addr, size_t len, int flags, struct remora_mem_reg *reg);
void remora_mem_deregister(struct remora_mem_reg *reg);

/* The memory a key of process `proc` describes, reached as `how` asks.
 * REMORA_ERR_UNREACHABLE when it cannot be (e.g. REMORA_REACH_NET for a key
 * registered without the network). */
remora_status_t remora_mem_unpack(int proc, const void *packed, size_t len, enum remora_reach_via how, struct remora_rmem *out);
/* Memory of `proc` that this process has mapped at addr (a node-shared segment). */
void remora_mem_mapped(int proc, void *addr, struct remora_rmem *out);
/* Releases what remora_mem_unpack made (nothing for remora_mem_mapped). */
void remora_rmem_release(struct remora_rmem *m);

/* ---- network wire-up and lifetime ------------------------------------------------ */

/* Collective over comm: start the network transport and learn how to reach
 * comm's processes.  Called before keys with the network are exchanged. */
remora_status_t remora_net_wireup(MPI_Comm comm);
/* Ring `bell` (NULL: none) whenever the network has carried out requests into
 * this process's memory with this process's CPU: software RMA and atomics
 * (UCX over TCP), served by the progress thread or by a waiting thread.
 * Hardware RMA writes without the CPU and rings nothing, so a waiter on memory
 * that other nodes write must also look again now and then. */
void remora_net_watch(struct remora_doorbell *bell);

/* MPI_Finalize: stop the transports. */
void remora_transport_finalize(void);

#endif
