/* Collectives in shared memory, for groups (teams, active sets) whose PEs all
 * map each other's heaps: no MPI call, no system call unless a PE sleeps.
 *
 * Each such group has a *slot* at the same place in the head of every
 * member's heap (heap.h): a flag per dissemination round and two data areas.
 * Every write goes *into* the other PE's memory (push), and every PE waits
 * only on words of its own slot, so a waiter can sleep on its own doorbell
 * (wait.c) and be woken by the writer.
 *
 * S1 (sync): collective e is the dissemination barrier on flags: in round k,
 *    PE i stores e into flag k of PE i + 2^k (mod n) and waits until its own
 *    flag k is >= e.  Only PE i - 2^k writes flag k of PE i, and the values
 *    it writes only grow, so a flag already at e + 1 also releases e.  After
 *    ceil(log2 n) rounds every PE has arrived, and everything each wrote
 *    before arriving is visible (release/acquire along the rounds).
 *    On an oversubscribed node (more PEs than cores) each round needs its
 *    partner scheduled, so there S1 is central instead: every PE adds 1 to
 *    flag 0 of rank 0 (after collective e it holds e * n), and the PE that
 *    brings it to e * n stores e into flag 1 of every PE, which each waits
 *    for: one wake-up per PE (8 PEs on 2 cores: 9.3 us per barrier against
 *    14.2 us).  The group agrees on the choice when it is made; the environment
 *    may force either (REMORA_SHMEM_BARRIER=central|dissemination).
 * S2 (data areas): collective e uses area e % 2.  A PE writes area e % 2 of
 *    another PE for collective e + 2 only after the barrier of e + 1, which
 *    the other PE enters only after it has read area e % 2 for collective e.
 * S3 (reuse): after a PE's last collective on a group returns, nobody writes
 *    into its slot any more (every write to it was awaited), so detach can
 *    clear the flags and a later group may take the slot.
 *
 * S4 (dest): no PE writes into another's dest before that PE has entered
 * the collective (the program may still be reading or preparing it until
 * then, as it may with MPI's collectives).  So broadcasts and fcollects that
 * fit an area go through the areas (one S1, then each PE copies into its
 * own dest); larger ones, collect and alltoall move after an S1 that every
 * PE entered: then the data is put into dest directly (a copy into the
 * mapped heap, or CMA for static data), and a second S1 tells every PE it
 * has all.
 * Reductions and scans push each PE's part into the members' areas (S2
 * guards them), wait once, and reduce locally in rank order, so every PE
 * computes bit-identical results. */
#include <stdatomic.h>
#include <string.h>

#include "core/spin.h"
#include "shmem/coll.h"
#include "shmem/ctx.h"
#include "shmem/heap.h"
#include "shmem/ops.h"
#include "shmem/state.h"

struct slot {
    struct {
        _Atomic uint64_t epoch;
        char pad[56];
    } flag[REMORA_SHMEM_COLL_ROUNDS];
    char area[2][REMORA_SHMEM_COLL_AREA];
};
_Static_assert(sizeof(struct slot) == REMORA_SHMEM_COLL_SLOT_BYTES, "heap.h's slot size");

/* Parts of reductions are 16-byte aligned (the widest element: long double,
 * double complex), so a group has at most AREA / 16 PEs. */
#define PART_ALIGN 16
#define MAX_PES (REMORA_SHMEM_COLL_AREA / PART_ALIGN)

static struct slot *slot_at(int world_pe, int slot)
{
    return (struct slot *)(remora_shmem.view[world_pe] + REMORA_SHMEM_DOORBELL_BYTES) + slot;
}

/* ---- slots ------------------------------------------------------------------------ */
/* Bit i: slot i belongs to a group of this PE.  Groups are made by any thread. */
static _Atomic uint32_t taken;

/* Takes up to `want` free slots at once (so that two threads attaching at once
 * never offer the same slot) and returns them. */
static uint32_t take_free(int want)
{
    uint32_t old = atomic_load(&taken), pick;
    do {
        uint32_t free_slots = ~old;
        pick = 0;
        for (int i = 0; i < want && free_slots; i++) {
            uint32_t lowest = free_slots & -free_slots;
            pick |= lowest;
            free_slots &= ~lowest;
        }
    } while (!atomic_compare_exchange_weak(&taken, &old, old | pick));
    return pick;
}

static void give_back(uint32_t slots) { atomic_fetch_and(&taken, ~slots); }

void remora_shmem_coll_shm_attach(struct remora_shmem_coll_shm *s, MPI_Comm comm, const int *world_pe, int n)
{
    *s = (struct remora_shmem_coll_shm){.slot = -1, .world_pe = world_pe};
    /* each PE offers the lowest 8 slots free here; the group takes the lowest
     * offered by all (and bit 32 stays when no PE is oversubscribed) */
    uint32_t offered = n <= MAX_PES ? take_free(8) : 0;
    enum remora_shmem_barrier_choice b = remora_ctx.config.shmem_barrier;
    int central = b == REMORA_SHMEM_BARRIER_CENTRAL || (b == REMORA_SHMEM_BARRIER_AUTO && remora_ctx.oversubscribed);
    uint64_t mine = offered | (uint64_t)!central << 32, common = 0;
    if (PMPI_Allreduce(&mine, &common, 1, MPI_UINT64_T, MPI_BAND, comm) != MPI_SUCCESS)
        remora_shmem_abort("shmem team", "the host MPI could not agree on a collective slot");
    if ((uint32_t)common) {
        s->slot = __builtin_ctz((uint32_t)common);
        s->central = !(common >> 32);
        offered &= ~(1u << s->slot);
    }
    give_back(offered);
}

void remora_shmem_coll_shm_detach(struct remora_shmem_coll_shm *s)
{
    if (s->slot < 0)
        return;
    struct slot *mine = slot_at(remora_shmem.my_pe, s->slot);
    for (int k = 0; k < REMORA_SHMEM_COLL_ROUNDS; k++)
        atomic_store_explicit(&mine->flag[k].epoch, 0, memory_order_relaxed);
    give_back(1u << s->slot);
    s->slot = -1;
}

/* ---- S1 ---------------------------------------------------------------------------- */
static void arrive_and_wait(const struct remora_shmem_group *g, uint64_t e)
{
    const struct remora_shmem_coll_shm *s = g->shm;
    struct slot *mine = slot_at(remora_shmem.my_pe, s->slot);
    struct remora_doorbell *bell = (struct remora_doorbell *)remora_shmem.heap.base;
    if (s->central) {
        _Atomic uint64_t *arrivals = &slot_at(s->world_pe[0], s->slot)->flag[0].epoch;
        if (atomic_fetch_add_explicit(arrivals, 1, memory_order_seq_cst) + 1 == e * (uint64_t)g->n)
            for (int j = 0; j < g->n; j++) { /* the last to arrive releases everyone */
                atomic_exchange_explicit(&slot_at(s->world_pe[j], s->slot)->flag[1].epoch, e, memory_order_seq_cst);
                remora_shmem_ring(s->world_pe[j]);
            }
        REMORA_WAIT_UNTIL(bell, atomic_load_explicit(&mine->flag[1].epoch, memory_order_acquire) >= e);
        return;
    }
    for (int k = 0, d = 1; d < g->n; k++, d *= 2) {
        int to = s->world_pe[(g->me + d) % g->n];
        /* a seq_cst read-modify-write, as the doorbell's protocol asks of the change */
        atomic_exchange_explicit(&slot_at(to, s->slot)->flag[k].epoch, e, memory_order_seq_cst);
        remora_shmem_ring(to);
        REMORA_WAIT_UNTIL(bell, atomic_load_explicit(&mine->flag[k].epoch, memory_order_acquire) >= e);
    }
}

void remora_shmem_shm_sync(const struct remora_shmem_group *g) { arrive_and_wait(g, ++g->shm->epoch); }

/* Area e % 2 of the group's PE j (S2). */
static char *area(const struct remora_shmem_group *g, int j, uint64_t e)
{
    return slot_at(g->shm->world_pe[j], g->shm->slot)->area[e % 2];
}

/* ---- data into the program's arrays -------------------------------------------------- */
/* len bytes from src to dest at the group's PE j (here: a copy, unless in place). */
static void put_to(const struct remora_shmem_group *g, int j, void *dest, const void *src, size_t len)
{
    if (j == g->me) {
        if (dest != src)
            memmove(dest, src, len);
        return;
    }
    remora_shmem_put("shmem collective", &remora_shmem_ctx_default, dest, src, len, g->shm->world_pe[j], 0);
}

void remora_shmem_shm_broadcast(const struct remora_shmem_group *g, void *dest, const void *source, size_t bytes,
                                int root, int root_too)
{
    if (bytes <= REMORA_SHMEM_COLL_AREA) { /* through the areas: one wait */
        uint64_t e = ++g->shm->epoch;
        if (g->me == root) {
            for (int j = 0; j < g->n; j++)
                if (j != root)
                    memcpy(area(g, j, e), source, bytes);
            if (root_too && dest != source)
                memmove(dest, source, bytes);
        }
        arrive_and_wait(g, e);
        if (g->me != root)
            memcpy(dest, area(g, g->me, e), bytes);
        return;
    }
    remora_shmem_shm_sync(g); /* S4 */
    if (g->me == root)
        for (int j = 0; j < g->n; j++)
            if (j != root || root_too)
                put_to(g, j, dest, source, bytes);
    remora_shmem_shm_sync(g);
}

void remora_shmem_shm_collect(const struct remora_shmem_group *g, void *dest, const void *source, size_t bytes,
                              int fixed)
{
    size_t at = (size_t)g->me * bytes;
    if (fixed && (size_t)g->n * bytes <= REMORA_SHMEM_COLL_AREA) { /* through the areas: one wait */
        uint64_t e = ++g->shm->epoch;
        for (int j = 0; j < g->n; j++)
            memcpy(area(g, j, e) + at, source, bytes);
        arrive_and_wait(g, e);
        memcpy(dest, area(g, g->me, e), (size_t)g->n * bytes);
        return;
    }
    if (fixed) {
        remora_shmem_shm_sync(g); /* S4 */
    } else { /* where this PE's block goes: the sizes of the blocks before it (S2; the wait is S4's) */
        uint64_t e = ++g->shm->epoch, mine = bytes;
        for (int j = 0; j < g->n; j++)
            memcpy(area(g, j, e) + (size_t)g->me * sizeof mine, &mine, sizeof mine);
        arrive_and_wait(g, e);
        const uint64_t *size = (const uint64_t *)area(g, g->me, e);
        at = 0;
        for (int j = 0; j < g->me; j++)
            at += size[j];
    }
    for (int j = 0; j < g->n; j++)
        put_to(g, j, (char *)dest + at, source, bytes);
    remora_shmem_shm_sync(g);
}

void remora_shmem_shm_alltoalls(const struct remora_shmem_group *g, void *dest, const void *source, ptrdiff_t dst,
                                ptrdiff_t sst, size_t nelems, size_t elem)
{
    remora_shmem_shm_sync(g); /* S4 */
    for (int j = 0; j < g->n; j++) {
        char *to = (char *)dest + (size_t)g->me * nelems * (size_t)dst * elem;
        const char *from = (const char *)source + (size_t)j * nelems * (size_t)sst * elem;
        if (dst == 1 && sst == 1)
            put_to(g, j, to, from, nelems * elem);
        else
            remora_shmem_iput("shmem_alltoalls", &remora_shmem_ctx_default, to, from, dst, sst, elem, 1, nelems,
                              g->shm->world_pe[j]);
    }
    remora_shmem_shm_sync(g);
}

/* ---- reductions and scans ------------------------------------------------------------ */
/* In parts that fit the area: each PE's part goes to the members that need it
 * (reduction: all; scan: itself and those after it, or only those after it
 * when exclusive), then each PE reduces what it holds, in rank order. */
void remora_shmem_shm_reduce(const struct remora_shmem_group *g, void *dest, const void *source, size_t nelems,
                             MPI_Datatype type, size_t elem, MPI_Op op, int scan, int exclusive)
{
    size_t stride = REMORA_SHMEM_COLL_AREA / (size_t)g->n / PART_ALIGN * PART_ALIGN, per = stride / elem;
    int from = scan ? g->me + exclusive : 0, upto = !scan ? g->n : exclusive ? g->me : g->me + 1;
    for (size_t off = 0; off < nelems;) {
        size_t count = nelems - off < per ? nelems - off : per, len = count * elem;
        uint64_t e = ++g->shm->epoch;
        for (int j = from; j < g->n; j++)
            memcpy(area(g, j, e) + (size_t)g->me * stride, (const char *)source + off * elem, len);
        arrive_and_wait(g, e);
        const char *held = area(g, g->me, e);
        char *out = (char *)dest + off * elem;
        if (upto == 0) /* exclusive scan at rank 0: zeros (every type's zero is all bits clear) */
            memset(out, 0, len);
        else
            memcpy(out, held, len);
        for (int j = 1; j < upto; j++) /* the others go on: failing alone would leave them waiting */
            if (PMPI_Reduce_local(held + (size_t)j * stride, out, (int)count, type, op) != MPI_SUCCESS)
                remora_shmem_abort("shmem reduction", "the host MPI could not apply the operation");
        off += count;
    }
}
