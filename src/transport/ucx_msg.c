/* RMA by messages, for networks whose RMA UCX carries out in software.
 *
 * Over TCP, UCX turns every put, get and atomic into a message that the
 * target's CPU handles, and every message costs a system call on either side
 * (8-10 us here, most of a round trip); a flush after a put is a second round
 * trip of its own (measured between two simulated nodes: put + ucp_ep_flush
 * 32-40 us, get + flush 34-41 us, one fetching atomic or one message with a
 * reply 20 us).  So small puts and gets, and the calls that the owner carries
 * out (remora_apply: accumulates), travel as Remora's own active messages,
 * gathered per instance and target until a flush, a fetching call or a full
 * message: a flush after any number of them is one message and its reply.
 * Runs of equal blocks at constant strides (strided datatypes) travel as one
 * entry, so a 4-byte block costs 4 bytes, not a header.
 *
 * Message (an instance's worker -> the target worker, AM_OPS):
 *   uint64 token, uint64 0   (token 0: no reply wanted; else the origin's
 *                            struct inflight)
 *   entries                  { kind, flags, count, len, raddr, stride }: count
 *                            blocks of len bytes at raddr + i * stride; a put
 *                            is followed by its bytes, a call (APPLY) by its
 *                            head and its operand and compare bytes, an ADD
 *                            (of a notification to one 8-byte word) by its
 *                            operand; every part padded to 16 bytes, so that
 *                            the owner's reduction kernels find their
 *                            elements aligned
 * Reply (AM_REPLY): { token, status } and the bytes of the message's gets and
 * the old bytes of its fetching calls, in order.
 *
 * Invariants:
 *   M1  The target handles one origin's messages in the order they were sent
 *       (one endpoint, one stream, eager protocol only): a reply means that
 *       its message and every earlier one toward that target are complete.
 *       UCX's atomics toward a target leave after the message gathered
 *       toward it (remora_msg_push), so they keep their order with the calls.
 *   M2  A message that holds gets or fetching calls is sent with a reply
 *       request (their bytes come back in it); a message without leaves
 *       without one when it is full (`unacked` counts those), and the next
 *       flush's message asks for the reply that completes them (M1).
 *   M3  The origin's data is copied into the message when an operation is
 *       gathered (a put's source may be reused at once); a get's or a
 *       fetching call's destination is written only by the reply.
 *   M4  A call travels in one message (however large), which the target
 *       carries out under its target lock: the call is atomic as a whole.
 * A target never checks an address: origins send only what core checked
 * against the window, and processes of one job trust each other, as with
 * UCX's own software RMA. */
#include <stdlib.h>
#include <string.h>

#include "runtime/context.h"
#include "runtime/log.h"
#include "transport/mapped.h"
#include "transport/ucx.h"

#define AM_OPS 11
#define AM_REPLY 12
#define MSG_MAX 65536 /* bytes of one message (but a larger call), and of the gets one reply carries */
#define MSG_HEAD 16   /* token and padding */
#define CHUNK (MSG_MAX - MSG_HEAD - 32) /* a put's or get's bytes in one entry of a message at most */

enum { ENTRY_PUT = 1, ENTRY_GET = 2, ENTRY_APPLY = 3, ENTRY_ADD = 4 };
enum { APPLY_OPERAND = 1, APPLY_COMPARE = 2, APPLY_FETCH = 4 };

struct entry {
    uint16_t kind, flags; /* flags: APPLY_* of a call */
    uint32_t count;       /* count blocks of len bytes at raddr + i * stride */
    uint64_t len, raddr;
    int64_t stride;
};

struct reply_head {
    uint64_t token;
    int64_t status;
};

/* Where the reply's bytes of one entry go: count blocks of len at local + i * stride. */
struct dest {
    char *local;
    int64_t stride;
    uint64_t len;
    uint32_t count;
};

/* The message being gathered toward one target, and what is in flight. */
struct msg_peer {
    char *buf;                /* MSG_HEAD, then entries */
    size_t len, cap;
    size_t last;              /* offset of the last entry (runs grow it), 0: none */
    struct dest *dst;         /* the entries with bytes in the reply, in order */
    size_t ndst, dcap, reply_bytes;
    unsigned unacked;         /* messages sent without a reply request since the last one with */
    unsigned waiting;         /* replies outstanding */
    remora_status_t status;   /* the first failure reported, until remora_msg_status */
};

/* A sent message that waits for its reply (its token). */
struct inflight {
    struct msg_peer *p;
    struct dest *dst;
    size_t ndst;
};

static remora_apply_fn applier;

void remora_apply_register(remora_apply_fn fn) { applier = fn; }

static size_t pad16(size_t n) { return (n + 15) & ~(size_t)15; }

static struct msg_peer *peer_of(struct instance *in, int proc)
{
    if (!in->msg && !(in->msg = calloc((size_t)remora_ctx.world_size, sizeof *in->msg)))
        return NULL;
    if (!in->msg[proc])
        in->msg[proc] = calloc(1, sizeof **in->msg);
    return in->msg[proc];
}

static struct entry *last_entry(struct msg_peer *p) { return p->last ? (struct entry *)(p->buf + p->last) : NULL; }

static remora_status_t reserve(struct msg_peer *p, size_t more)
{
    if (p->len + more <= p->cap)
        return REMORA_OK;
    size_t cap = p->cap ? p->cap : 512;
    while (cap < p->len + more)
        cap *= 2;
    char *b = realloc(p->buf, cap);
    if (!b)
        return REMORA_ERR_NO_MEM;
    p->buf = b;
    p->cap = cap;
    return REMORA_OK;
}

static remora_status_t add_dest(struct msg_peer *p, const struct dest *d)
{
    if (p->ndst == p->dcap) {
        size_t cap = p->dcap ? p->dcap * 2 : 16;
        struct dest *n = realloc(p->dst, cap * sizeof *n);
        if (!n)
            return REMORA_ERR_NO_MEM;
        p->dst = n;
        p->dcap = cap;
    }
    p->dst[p->ndst++] = *d;
    p->reply_bytes += d->len * d->count;
    return REMORA_OK;
}

static void sent(void *request, ucs_status_t status, void *buf)
{
    (void)status; /* a send that fails fails its reply too: the flush waits for that */
    free(buf);
    remora_ucx.ucp_request_free(request);
}

/* A send whose sender waits until it has left this process (then it reaches
 * its target without further calls here). */
struct sending {
    void *buf;
    int left; /* set by progress of the sending instance's worker (locked) */
};

static void sent_tracked(void *request, ucs_status_t status, void *arg)
{
    (void)status;
    struct sending *s = arg;
    free(s->buf);
    s->left = 1;
    remora_ucx.ucp_request_free(request);
}

static int has_left(void *arg) { return ((const struct sending *)arg)->left; }

/* Send buf[len] (ours to free) on ep as message `id`; with track, track->left
 * says when it has left. */
static remora_status_t send_owned(ucp_ep_h ep, unsigned id, void *buf, size_t len, int reply, struct sending *track)
{
    ucp_request_param_t prm = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
        .flags = UCP_AM_SEND_FLAG_EAGER | (reply ? UCP_AM_SEND_FLAG_REPLY : 0),
        .cb.send = track ? sent_tracked : sent,
        .user_data = track ? (void *)track : buf,
    };
    if (track)
        *track = (struct sending){buf, 0};
    ucs_status_ptr_t r = remora_ucx.ucp_am_send_nbx(ep, id, NULL, 0, buf, len, &prm);
    if (UCS_PTR_IS_PTR(r))
        return REMORA_OK;
    free(buf);
    if (track)
        track->left = 1;
    return UCS_PTR_STATUS(r) == UCS_OK ? REMORA_OK : REMORA_ERR_IO;
}

/* Send the message gathered toward proc; with a reply request when asked
 * for or when the reply must carry bytes (M2). */
static remora_status_t send_message(struct instance *in, int proc, struct msg_peer *p, int want_reply,
                                    struct sending *track)
{
    ucp_ep_h ep = remora_ucx_endpoint(in, proc);
    if (!ep)
        return REMORA_ERR_UNREACHABLE;
    struct inflight *f = NULL;
    int reply = want_reply || p->ndst > 0;
    if (reply) {
        if (!(f = malloc(sizeof *f)))
            return REMORA_ERR_NO_MEM;
        *f = (struct inflight){p, p->dst, p->ndst};
    }
    if (!p->len) { /* a message with no entries: a flush */
        if (!remora_ok(reserve(p, MSG_HEAD))) {
            free(f);
            return REMORA_ERR_NO_MEM;
        }
        p->len = MSG_HEAD;
    } else {
        atomic_fetch_sub_explicit(&in->gathered, 1, memory_order_relaxed);
    }
    uint64_t head[2] = {(uint64_t)(uintptr_t)f, 0};
    memcpy(p->buf, head, sizeof head);
    char *buf = p->buf;
    size_t len = p->len;
    if (!reply)
        free(p->dst); /* none gathered (M2): an empty array at most */
    *p = (struct msg_peer){.unacked = reply ? 0 : p->unacked + 1, .waiting = p->waiting + (reply != 0),
                           .status = p->status};
    remora_status_t st = send_owned(ep, AM_OPS, buf, len, reply, track);
    if (!remora_ok(st) && f) { /* no reply will come */
        p->waiting--;
        free(f->dst);
        free(f);
    }
    return st;
}

/* Room for `need` more bytes in the message toward proc, sending it first
 * when it would grow past MSG_MAX (or its reply past MSG_MAX with `reply`
 * more bytes), unless `whole` (a call's pieces are never split: M4). */
static remora_status_t make_room(struct instance *in, int proc, struct msg_peer *p, size_t need, size_t reply, int whole)
{
    if (!whole && p->len > MSG_HEAD && (p->len + need > MSG_MAX || p->reply_bytes + reply > MSG_MAX)) {
        remora_status_t st = send_message(in, proc, p, 0, NULL);
        if (!remora_ok(st))
            return st;
    }
    if (!p->len) {
        if (!remora_ok(reserve(p, MSG_HEAD)))
            return REMORA_ERR_NO_MEM;
        memset(p->buf, 0, MSG_HEAD);
        p->len = MSG_HEAD;
        atomic_fetch_add_explicit(&in->gathered, 1, memory_order_relaxed);
    }
    return reserve(p, need);
}

/* What to gather: kind and flags, count blocks of len bytes at raddr + i *
 * stride; local: the put's source or the get's destination (block i at +
 * i * lstride); operand, compare, result: a call's, packed (lstride len). */
struct block {
    int kind, flags;
    uint64_t raddr, len;
    uint32_t count;
    int64_t stride, lstride;
    const char *local, *operand, *compare;
    char *result;
    const void *head;
};

/* Whether b, one block, continues the last entry as a run: same kind, flags,
 * length and head, the run's strides (set by its second block) kept. */
static int continues(const struct msg_peer *p, const struct block *b)
{
    const struct entry *e = p->last ? (const struct entry *)(p->buf + p->last) : NULL;
    if (!e || b->count != 1 || e->kind != (uint16_t)b->kind || e->flags != (uint16_t)b->flags || e->len != b->len ||
        e->count == UINT32_MAX || (b->flags & APPLY_COMPARE) || b->kind == ENTRY_ADD)
        return 0;
    if (e->count > 1 && b->raddr != e->raddr + (uint64_t)(e->stride * (int64_t)e->count))
        return 0;
    if (b->kind == ENTRY_APPLY && memcmp(e + 1, b->head, REMORA_APPLY_HEAD) != 0)
        return 0;
    const char *to = b->kind == ENTRY_GET ? b->local : b->result;
    if ((b->kind == ENTRY_GET || (b->flags & APPLY_FETCH))) {
        const struct dest *d = &p->dst[p->ndst - 1];
        if (d->count > 1 && to != d->local + d->stride * (int64_t)d->count)
            return 0;
    }
    return 1;
}

/* Bytes b's blocks bring after their entry (puts and calls: their operands; an add: its operand). */
static size_t data_of(const struct block *b)
{
    if (b->kind == ENTRY_PUT || b->kind == ENTRY_ADD || (b->kind == ENTRY_APPLY && (b->flags & APPLY_OPERAND)))
        return b->len * b->count;
    return 0;
}

/* The last entry grows by b (continues() said it may). */
static remora_status_t extend(struct msg_peer *p, const struct block *b)
{
    struct entry *e = last_entry(p);
    size_t data = data_of(b);
    if (data) { /* the run's data is contiguous: its padding moves to the end */
        size_t data_at = p->last + sizeof *e + (b->kind == ENTRY_APPLY ? REMORA_APPLY_HEAD : 0) + e->count * e->len;
        if (!remora_ok(reserve(p, pad16(data_at + data) - p->len)))
            return REMORA_ERR_NO_MEM;
        e = last_entry(p);
        memcpy(p->buf + data_at, b->kind == ENTRY_PUT ? b->local : b->operand, data);
        p->len = pad16(data_at + data);
    }
    if (b->kind == ENTRY_GET || (b->flags & APPLY_FETCH)) {
        struct dest *d = &p->dst[p->ndst - 1];
        char *to = b->kind == ENTRY_GET ? (char *)b->local : b->result;
        if (d->count == 1)
            d->stride = to - d->local;
        d->count++;
        p->reply_bytes += b->len;
    }
    if (e->count == 1)
        e->stride = (int64_t)(b->raddr - e->raddr);
    e->count++;
    return REMORA_OK;
}

static remora_status_t add_block(struct instance *in, int proc, struct msg_peer *p, const struct block *b, int whole)
{
    int fetch = b->kind == ENTRY_GET || (b->flags & APPLY_FETCH);
    size_t data = data_of(b), bytes = b->len * b->count;
    if (continues(p, b) && (whole || (p->len + data <= MSG_MAX && p->reply_bytes + (fetch ? b->len : 0) <= MSG_MAX)))
        return extend(p, b);
    size_t need = sizeof(struct entry) + (b->kind == ENTRY_APPLY ? REMORA_APPLY_HEAD : 0) + pad16(data) +
                  ((b->flags & APPLY_COMPARE) ? pad16(bytes) : 0);
    remora_status_t st = make_room(in, proc, p, need, fetch ? bytes : 0, whole);
    if (!remora_ok(st))
        return st;
    p->last = p->len;
    struct entry *e = last_entry(p);
    *e = (struct entry){.kind = (uint16_t)b->kind, .flags = (uint16_t)b->flags, .count = b->count, .len = b->len,
                        .raddr = b->raddr, .stride = b->count > 1 ? b->stride : 0};
    p->len += sizeof *e;
    if (b->kind == ENTRY_APPLY) {
        memcpy(p->buf + p->len, b->head, REMORA_APPLY_HEAD);
        p->len += REMORA_APPLY_HEAD;
    }
    if (data && b->kind == ENTRY_PUT && b->count > 1 && b->lstride != (int64_t)b->len) {
        for (uint32_t i = 0; i < b->count; i++) /* a strided source, packed */
            memcpy(p->buf + p->len + (size_t)i * b->len, b->local + b->lstride * (int64_t)i, b->len);
        p->len += pad16(data);
    } else if (data) {
        memcpy(p->buf + p->len, b->kind == ENTRY_PUT ? b->local : b->operand, data);
        p->len += pad16(data);
    }
    if (b->flags & APPLY_COMPARE) {
        memcpy(p->buf + p->len, b->compare, bytes);
        p->len += pad16(bytes);
    }
    if (fetch)
        st = add_dest(p, &(struct dest){b->kind == ENTRY_GET ? (char *)b->local : b->result,
                                        b->count > 1 ? b->lstride : 0, b->len, b->count});
    return st;
}

/* The common case of a strided put, inline: block v continues the last
 * entry's run, which has room (its stride known: count > 1). */
static int put_continues(struct msg_peer *p, uintptr_t base, const struct remora_iov *v)
{
    struct entry *e = last_entry(p);
    if (!e || e->kind != ENTRY_PUT || e->len != v->len || e->count < 2 || e->count == UINT32_MAX ||
        base + v->off != e->raddr + (uint64_t)(e->stride * (int64_t)e->count))
        return 0;
    size_t data_at = p->last + sizeof *e + e->count * e->len, end = pad16(data_at + v->len);
    if (end > MSG_MAX || end > p->cap)
        return 0;
    remora_mapped_copy(p->buf + data_at, v->local, v->len); /* 4 and 8 bytes without a call into libc */
    p->len = end;
    e->count++;
    return 1;
}

remora_status_t remora_msg_add(struct instance *in, int proc, uintptr_t base, const struct remora_iov *v, size_t n, int put)
{
    struct msg_peer *p = peer_of(in, proc);
    if (!p)
        return REMORA_ERR_NO_MEM;
    remora_status_t st = REMORA_OK;
    for (size_t i = 0; i < n && remora_ok(st); i++)
        if (!put || !put_continues(p, base, &v[i]))
        for (size_t done = 0, take; done < v[i].len && remora_ok(st); done += take) {
            take = v[i].len - done < CHUNK ? v[i].len - done : CHUNK; /* a large block in messages of MSG_MAX */
            st = add_block(in, proc, p,
                           &(struct block){.kind = put ? ENTRY_PUT : ENTRY_GET, .raddr = base + v[i].off + done,
                                           .len = take, .count = 1, .local = (char *)v[i].local + done},
                           0);
        }
    return st;
}

remora_status_t remora_msg_add_strided(struct instance *in, int proc, uintptr_t base, const struct remora_strided *s, int put)
{
    struct msg_peer *p = peer_of(in, proc);
    if (!p)
        return REMORA_ERR_NO_MEM;
    remora_status_t st = REMORA_OK;
    for (size_t done = 0, k; done < s->n && remora_ok(st); done += k) {
        char *local = (char *)s->local + s->lstride * (int64_t)done;
        uint64_t raddr = base + s->off + (uint64_t)(s->rstride * (int64_t)done);
        if (s->len > CHUNK) { /* blocks of several messages: one by one */
            k = 1;
            st = remora_msg_add(in, proc, base, &(struct remora_iov){local, raddr - base, s->len}, 1, put);
            continue;
        }
        /* as many blocks as the message (and its reply) has room for, its
         * entry's data padded (lengths are multiples of 16); none: send it */
        size_t len = p->len ? p->len : MSG_HEAD;
        size_t room = len + sizeof(struct entry) <= MSG_MAX ? MSG_MAX - len - sizeof(struct entry) : 0;
        if (!put)
            room = room && p->reply_bytes < MSG_MAX ? MSG_MAX - p->reply_bytes : 0;
        k = room / s->len;
        k = k < s->n - done ? k : s->n - done;
        k = k < UINT32_MAX ? k : UINT32_MAX;
        if (!k)
            st = send_message(in, proc, p, 0, NULL);
        else
            st = add_block(in, proc, p,
                           &(struct block){.kind = put ? ENTRY_PUT : ENTRY_GET, .raddr = raddr, .len = s->len,
                                           .count = (uint32_t)k, .stride = s->rstride, .lstride = s->lstride,
                                           .local = local},
                           0);
    }
    return st;
}

remora_status_t remora_msg_apply(struct instance *in, int proc, uintptr_t base, const void *head,
                     const struct remora_apply_piece *v, size_t n)
{
    struct msg_peer *p = peer_of(in, proc);
    if (!p)
        return REMORA_ERR_NO_MEM;
    size_t need = 0, reply = 0; /* the whole call, at most: M4 */
    for (size_t i = 0; i < n; i++) {
        need += sizeof(struct entry) + REMORA_APPLY_HEAD + 2 * pad16(v[i].len * v[i].count);
        reply += v[i].result ? v[i].len * v[i].count : 0;
    }
    remora_status_t st = make_room(in, proc, p, need, reply, 0);
    for (size_t i = 0; i < n && remora_ok(st); i++) {
        const struct remora_apply_piece *x = &v[i];
        int flags = (x->operand ? APPLY_OPERAND : 0) | (x->compare ? APPLY_COMPARE : 0) | (x->result ? APPLY_FETCH : 0);
        if (x->len)
            st = add_block(in, proc, p,
                           &(struct block){.kind = ENTRY_APPLY, .flags = flags, .raddr = base + x->off, .len = x->len,
                                           .count = x->count, .stride = x->stride, .lstride = (int64_t)x->len,
                                           .operand = x->operand,
                                           .compare = x->compare, .result = x->result, .head = head},
                           1);
    }
    return st;
}

remora_status_t remora_msg_push(struct instance *in, int proc)
{
    struct msg_peer *p = in->msg ? in->msg[proc] : NULL;
    return p && p->len > MSG_HEAD ? send_message(in, proc, p, 0, NULL) : REMORA_OK;
}

remora_status_t remora_msg_push_all(struct instance *in)
{
    remora_status_t st = REMORA_OK;
    for (int r = 0; in->msg && atomic_load_explicit(&in->gathered, memory_order_relaxed) && r < remora_ctx.world_size;
         r++) {
        remora_status_t s = remora_msg_push(in, r);
        st = !remora_ok(st) ? st : s;
    }
    return st;
}

remora_status_t remora_msg_push_add(struct instance *in, int proc, uint64_t raddr, uint64_t x)
{
    struct msg_peer *p = peer_of(in, proc);
    if (!p)
        return REMORA_ERR_NO_MEM;
    remora_status_t st = add_block(
        in, proc, p, &(struct block){.kind = ENTRY_ADD, .raddr = raddr, .len = 8, .count = 1, .operand = (const char *)&x},
        0);
    if (!remora_ok(st))
        return st;
    struct sending s;
    if (!remora_ok((st = send_message(in, proc, p, 0, &s))))
        return st;
    return remora_ucx_wait_until(in, has_left, &s);
}

remora_status_t remora_msg_send(struct instance *in, int proc)
{
    if (!in->msg)
        return REMORA_OK;
    remora_status_t st = REMORA_OK;
    int first = proc < 0 ? 0 : proc, end = proc < 0 ? remora_ctx.world_size : proc + 1;
    for (int r = first; r < end; r++) {
        struct msg_peer *p = in->msg[r];
        if (p && (p->len > MSG_HEAD || p->unacked)) {
            remora_status_t s = send_message(in, r, p, 1, NULL);
            st = !remora_ok(st) ? st : s;
        }
    }
    return st;
}

int remora_msg_waiting(struct instance *in, int proc)
{
    if (!in->msg)
        return 0;
    if (proc >= 0)
        return in->msg[proc] && in->msg[proc]->waiting;
    for (int r = 0; r < remora_ctx.world_size; r++)
        if (in->msg[r] && in->msg[r]->waiting)
            return 1;
    return 0;
}

int remora_msg_owes_reply(struct instance *in, int proc)
{
    const struct msg_peer *p = in->msg ? in->msg[proc] : NULL;
    return p && (p->ndst > 0 || p->waiting);
}

remora_status_t remora_msg_status(struct instance *in, int proc)
{
    if (!in->msg)
        return REMORA_OK;
    remora_status_t st = REMORA_OK;
    int first = proc < 0 ? 0 : proc, end = proc < 0 ? remora_ctx.world_size : proc + 1;
    for (int r = first; r < end; r++)
        if (in->msg[r] && !remora_ok(in->msg[r]->status)) {
            st = !remora_ok(st) ? st : in->msg[r]->status;
            in->msg[r]->status = REMORA_OK;
        }
    return st;
}

void remora_msg_free(struct instance *in)
{
    for (int r = 0; in->msg && r < remora_ctx.world_size; r++)
        if (in->msg[r]) {
            free(in->msg[r]->buf);
            free(in->msg[r]->dst);
            free(in->msg[r]);
        }
    free(in->msg);
    in->msg = NULL;
}

/* ---- the owner: carry a message out ---------------------------------------------- */

void remora_msg_apply_here(char *mem, const void *head, const struct remora_apply_piece *v)
{
    for (uint32_t i = 0; v->result && i < v->count; i++)
        memcpy((char *)v->result + (size_t)i * v->len, mem + v->stride * (int64_t)i, v->len);
    applier(head, mem, v->stride, v->operand, v->compare, v->len, v->count);
}

/* Walks the entries of msg[len]: the bytes the reply carries, or -1 for a
 * malformed message (or a call that nobody here can carry out). */
static int64_t reply_size(const char *msg, size_t len)
{
    int64_t bytes = 0;
    for (size_t at = MSG_HEAD; at < len;) {
        if (len - at < sizeof(struct entry))
            return -1;
        struct entry e;
        memcpy(&e, msg + at, sizeof e);
        at += sizeof e;
        uint64_t total = (uint64_t)e.count * e.len, data = 0;
        if (e.kind == ENTRY_PUT) {
            data = pad16(total);
        } else if (e.kind == ENTRY_GET) {
            bytes += (int64_t)total;
        } else if (e.kind == ENTRY_ADD && e.count == 1 && e.len == 8 && e.raddr % 8 == 0) {
            data = 16;
        } else if (e.kind == ENTRY_APPLY && applier) {
            data = REMORA_APPLY_HEAD + ((e.flags & APPLY_OPERAND) ? pad16(total) : 0) +
                   ((e.flags & APPLY_COMPARE) ? pad16(total) : 0);
            bytes += (e.flags & APPLY_FETCH) ? (int64_t)total : 0;
        } else {
            return -1;
        }
        if (data > len - at)
            return -1;
        at += data;
    }
    return bytes;
}

/* The puts and calls into our memory, the bytes of gets and fetching calls into out. */
static void carry_out(const char *msg, size_t len, char *out)
{
    for (size_t at = MSG_HEAD; at < len;) {
        struct entry e;
        memcpy(&e, msg + at, sizeof e);
        at += sizeof e;
        size_t total = (size_t)e.count * e.len;
        char *mem = (char *)(uintptr_t)e.raddr;
        if (e.kind == ENTRY_PUT) {
            remora_strided_copy(mem, e.stride, msg + at, (int64_t)e.len, e.len, e.count);
            at += pad16(total);
        } else if (e.kind == ENTRY_APPLY) { /* the old bytes first, then the run as one */
            const char *head = msg + at, *operand = NULL, *compare = NULL;
            at += REMORA_APPLY_HEAD;
            if (e.flags & APPLY_OPERAND)
                operand = msg + at, at += pad16(total);
            if (e.flags & APPLY_COMPARE)
                compare = msg + at, at += pad16(total);
            if (e.flags & APPLY_FETCH) {
                remora_strided_copy(out, (int64_t)e.len, mem, e.stride, e.len, e.count);
                out += total;
            }
            applier(head, mem, e.stride, operand, compare, e.len, e.count);
        } else if (e.kind == ENTRY_ADD) { /* with CPU atomics, as UCX's software atomics on the word */
            uint64_t x;
            memcpy(&x, msg + at, 8);
            atomic_fetch_add((_Atomic uint64_t *)mem, x);
            at += 16;
        } else { /* a get */
            remora_strided_copy(out, (int64_t)e.len, mem, e.stride, e.len, e.count);
            out += total;
        }
    }
}

static void handle_ops(const char *msg, size_t len, ucp_ep_h reply_ep)
{
    uint64_t token = 0;
    char *aligned = NULL;
    if ((uintptr_t)msg % 16 && (aligned = malloc(len ? len : 1))) /* the kernels' elements aligned */
        msg = memcpy(aligned, msg, len);
    if (len >= sizeof token)
        memcpy(&token, msg, sizeof token);
    int64_t bytes = len >= MSG_HEAD ? reply_size(msg, len) : -1;
    if (!token && bytes > 0) /* bytes without a reply to carry them (M2) */
        bytes = -1;
    struct reply_head *r = NULL;
    if (token && !(r = malloc(sizeof *r + (bytes > 0 ? (size_t)bytes : 0))) && bytes > 0)
        r = malloc(sizeof *r), bytes = -2; /* no memory for the reply's bytes: the origin learns it */
    if (bytes >= 0) {
        carry_out(msg, len, r ? (char *)(r + 1) : NULL);
        remora_ucx_served();
    } else {
        remora_log(REMORA_LOG_ERROR, "a malformed RMA message (%zu bytes) was dropped", len);
    }
    free(aligned);
    if (!token)
        return;
    if (!r || !reply_ep) {
        remora_log(REMORA_LOG_ERROR, "cannot reply to an RMA message: its origin will wait");
        free(r);
        return;
    }
    r->token = token;
    r->status = bytes >= 0 ? REMORA_S_OK : bytes == -2 ? REMORA_S_NO_MEM : REMORA_S_INVALID; /* on the wire: the code */
    if (!remora_ok(send_owned(reply_ep, AM_REPLY, r, sizeof *r + (bytes > 0 ? (size_t)bytes : 0), 0, NULL)))
        remora_log(REMORA_LOG_ERROR, "cannot send the reply to an RMA message: its origin will wait");
}

/* ---- the origin: a reply ----------------------------------------------------- */

static void handle_reply(const char *msg, size_t len)
{
    struct reply_head h;
    if (len < sizeof h)
        return;
    memcpy(&h, msg, sizeof h);
    struct inflight *f = (struct inflight *)(uintptr_t)h.token;
    const char *data = msg + sizeof h, *end = msg + len;
    remora_status_t st = remora_status_of_code((int)h.status);
    for (size_t k = 0; k < f->ndst && remora_ok(st); k++) {
        const struct dest *d = &f->dst[k];
        for (uint32_t i = 0; i < d->count && data + d->len <= end; i++, data += d->len)
            memcpy(d->local + d->stride * (int64_t)i, data, d->len);
    }
    if (remora_ok(f->p->status))
        f->p->status = st;
    f->p->waiting--;
    free(f->dst);
    free(f);
}

/* ---- receiving ------------------------------------------------------------------ */

/* A message that came by rendezvous, received into buf. */
struct rndv_recv {
    void *buf;
    ucp_ep_h reply_ep;
    int target;
};

static void handle(int target, const char *msg, size_t len, ucp_ep_h reply_ep)
{
    if (target)
        handle_ops(msg, len, reply_ep);
    else
        handle_reply(msg, len);
}

static void rndv_finish(struct rndv_recv *rv, ucs_status_t status, size_t length)
{
    if (status == UCS_OK)
        handle(rv->target, rv->buf, length, rv->reply_ep);
    else
        remora_log(REMORA_LOG_ERROR, "receiving an RMA message failed: %s", remora_ucx.ucs_status_string(status));
    free(rv->buf);
    free(rv);
}

static void rndv_done(void *request, ucs_status_t status, size_t length, void *arg)
{
    rndv_finish(arg, status, length);
    remora_ucx.ucp_request_free(request);
}

/* arg: the instance whose worker received it (the target worker: requests).
 * Senders force the eager protocol (M1); a rendezvous message is still taken,
 * handled when its data is here. */
static ucs_status_t receive(void *arg, const void *header, size_t header_length, void *data, size_t length,
                            const ucp_am_recv_param_t *param)
{
    (void)header, (void)header_length;
    struct instance *in = arg;
    int target = in->id < 0;
    ucp_ep_h reply_ep = (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) ? param->reply_ep : NULL;
    if (!(param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
        handle(target, data, length, reply_ep);
        return UCS_OK;
    }
    remora_log(REMORA_LOG_WARN, "an RMA message came by rendezvous: its order with later ones is not kept");
    struct rndv_recv *rv = malloc(sizeof *rv);
    void *buf = malloc(length ? length : 1);
    if (!rv || !buf) {
        free(rv);
        free(buf);
        remora_log(REMORA_LOG_ERROR, "no memory to receive an RMA message of %zu bytes", length);
        return UCS_OK;
    }
    *rv = (struct rndv_recv){buf, reply_ep, target};
    ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
                               .cb.recv_am = rndv_done,
                               .user_data = rv};
    ucs_status_ptr_t r = remora_ucx.ucp_am_recv_data_nbx(in->worker, data, buf, length, &prm);
    if (!UCS_PTR_IS_PTR(r))
        rndv_finish(rv, UCS_PTR_STATUS(r), length);
    return UCS_INPROGRESS;
}

remora_status_t remora_msg_worker_init(struct instance *in)
{
    ucp_am_handler_param_t prm = {
        .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                      UCP_AM_HANDLER_PARAM_FIELD_ARG | UCP_AM_HANDLER_PARAM_FIELD_FLAGS,
        .id = in->id < 0 ? AM_OPS : AM_REPLY,
        .cb = receive,
        .arg = in,
        .flags = UCP_AM_FLAG_WHOLE_MSG,
    };
    return remora_ucx.ucp_worker_set_am_recv_handler(in->worker, &prm) == UCS_OK ? REMORA_OK : REMORA_ERR_NO_MEM;
}
