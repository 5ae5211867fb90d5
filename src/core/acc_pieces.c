/* A call as pieces of target memory and as packed element arrays: the
 * gathering step of every accumulate that takes the general path (not the
 * fast paths of acc_fast.h).  The dispatcher (accumulate.c) gathers the
 * target layout into pieces (runs, where the owner carries the call out:
 * acc_owner.c) before it chooses the protocol, and conveys origin and result
 * buffers to and from element arrays in typemap order. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/acc_call.h"
#include "core/datatype.h"

static remora_status_t add_piece(struct acc *a, uint64_t pos, uint64_t len, size_t at, size_t *cap)
{
    if (a->np && a->p[a->np - 1].pos + a->p[a->np - 1].len == pos && a->p[a->np - 1].at + a->p[a->np - 1].len == at) {
        a->p[a->np - 1].len += len; /* continues the last one on both sides */
    } else {
        if (a->np == *cap) {
            size_t ncap = *cap * 2;
            struct piece *np = a->p == &a->one ? malloc(sizeof *np * ncap) : realloc(a->p, sizeof *np * ncap);
            if (!np)
                return REMORA_ERR_NO_MEM;
            if (a->p == &a->one)
                np[0] = a->one;
            a->p = np;
            *cap = ncap;
        }
        a->p[a->np++] = (struct piece){pos, len, at, 1, 0};
    }
    a->lo = pos < a->lo ? pos : a->lo;
    a->hi = pos + len > a->hi ? pos + len : a->hi;
    return REMORA_OK;
}

/* Elements of a layout made of one basic type, one by one: the displacement
 * of each element's start (for types whose elements have holes). */
struct elems {
    struct remora_dt_cursor c;
    MPI_Aint disp, left, dsz, first;
};

static void elems_init(struct elems *e, const struct remora_dt *t, MPI_Count count, const struct remora_dt *bt)
{
    remora_dt_cursor_init(&e->c, t, count);
    e->left = 0;
    e->dsz = bt->size;
    e->first = bt->nblocks ? bt->blocks[0].disp : 0;
}

static int elems_next(struct elems *e, MPI_Aint *disp)
{
    if (!e->left && !(e->left = remora_dt_cursor_next(&e->c, LONG_MAX, &e->disp)))
        return 0;
    *disp = e->disp - e->first;
    for (MPI_Aint need = e->dsz; need > 0;) {
        if (!e->left && !(e->left = remora_dt_cursor_next(&e->c, LONG_MAX, &e->disp)))
            return 0;
        MPI_Aint take = need < e->left ? need : e->left;
        e->disp += take;
        e->left -= take;
        need -= take;
    }
    return 1;
}

/* Copy one element's data (its blocks, not its holes) from src to dst. */
static void copy_element(char *dst, const char *src, const struct remora_dt *bt)
{
    for (size_t i = 0; i < bt->nblocks; i++)
        memcpy(dst + bt->blocks[i].disp, src + bt->blocks[i].disp, (size_t)bt->blocks[i].len);
}

/* A target layout of equal blocks at one stride (a strided datatype) as one
 * run, for the owner: a million 4-byte blocks are one piece, not a million. */
static int gather_run(struct acc *a)
{
    struct remora_dt_run r;
    if (a->holes || a->tt->contiguous || !a->tt->nblocks ||
        !remora_dt_as_run(a->tt, a->tcount, a->tt->size * (MPI_Aint)a->tcount, a->tt->blocks[0].len, &r) ||
        r.n < 2 || r.n > UINT32_MAX)
        return 0;
    uint64_t len = (uint64_t)a->tt->blocks[0].len, pos = a->t.off + (uint64_t)r.first,
             last = pos + (uint64_t)(r.stride * (r.n - 1));
    a->one = (struct piece){pos, len, 0, (uint32_t)r.n, r.stride};
    a->p = &a->one;
    a->np = 1;
    a->lo = pos < last ? pos : last;
    a->hi = (pos > last ? pos : last) + len;
    return 1;
}

/* The pieces of the target layout (a->p, a->np, a->lo, a->hi); runs: where
 * the owner carries the call out (pieces may be runs). */
remora_status_t remora_acc_gather(struct acc *a, int runs)
{
    size_t cap = 1;
    remora_status_t st = REMORA_OK;
    if (runs && gather_run(a))
        return REMORA_OK;
    a->p = &a->one;
    a->np = 0;
    a->lo = UINT64_MAX;
    a->hi = 0;
    if (a->holes) {
        struct elems e;
        elems_init(&e, a->tt, a->tcount, a->bt);
        MPI_Aint d;
        uint64_t len = (uint64_t)(a->bt->true_lb + a->bt->true_extent); /* its data ends there: no trailing padding */
        for (size_t k = 0; remora_ok(st) && elems_next(&e, &d); k++)
            st = add_piece(a, a->t.off + (uint64_t)d, len, k * a->esz, &cap);
    } else {
        struct remora_dt_cursor c;
        remora_dt_cursor_init(&c, a->tt, a->tcount);
        MPI_Aint d, len;
        size_t at = 0;
        while (remora_ok(st) && (len = remora_dt_cursor_next(&c, LONG_MAX, &d)) > 0) {
            st = add_piece(a, a->t.off + (uint64_t)d, (uint64_t)len, at, &cap);
            at += (size_t)len;
        }
    }
    return st;
}

/* Elements of (buf, count, t) as an array of elements (stride a->esz) in
 * typemap order: for holes-free types the bytes packed, otherwise element by
 * element.  to_buf copies the other way (results). */
void remora_acc_convey(const struct acc *a, char *buf, MPI_Count count, const struct remora_dt *t, char *array,
                   int to_buf)
{
    if (a->holes) {
        struct elems e;
        elems_init(&e, t, count, a->bt);
        MPI_Aint d;
        for (size_t k = 0; elems_next(&e, &d); k++)
            to_buf ? copy_element(remora_buf_at(buf, d), array + k * a->esz, a->bt)
                   : copy_element(array + k * a->esz, remora_buf_at(buf, d), a->bt);
        return;
    }
    struct remora_dt_cursor c;
    remora_dt_cursor_init(&c, t, count);
    MPI_Aint d, len;
    size_t pos = 0;
    while ((len = remora_dt_cursor_next(&c, LONG_MAX, &d)) > 0) {
        to_buf ? memcpy(remora_buf_at(buf, d), array + pos, (size_t)len)
               : memcpy(array + pos, remora_buf_at(buf, d), (size_t)len);
        pos += (size_t)len;
    }
}
