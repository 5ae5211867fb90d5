/* Under the stripes without an image: the call straight between origin,
 * result and target memory mapped here.  Chosen by the dispatcher
 * (accumulate.c: run) while it holds the stripes of the call's bytes
 * (acc_stripes.h), for one span mapped here in the atomicity domain:
 *   plain     no lock-free call at the target yet (state 0), elements
 *             without holes, no compare: plain loads and stores;
 *   direct16  otherwise, one contiguous piece of whole 16-byte words whose
 *             elements do not straddle them: word by word with 16-byte
 *             atomic loads, stores and compare-and-swaps.
 * Every other call under the stripes runs on an image (acc_image.c). */
#include <stdint.h>
#include <string.h>

#include "core/acc_call.h"
#include "core/acc_elem.h"
#include "transport/mapped.h"

/* Simpler still, for one contiguous piece of such words whose elements do
 * not straddle them: the call word by word between the origin, the result
 * and the target, without an image (ARMCI-MPI's rows). */
char *remora_acc_direct16_at(const struct acc *a)
{
    if (a->np != 1 || a->holes || a->compare || a->esz > 16 || 16 % a->esz || a->p[0].len % 16 ||
        !remora_mapped_load16_ok() || !remora_mapped_cas16_ok())
        return NULL;
    char *to = mapped_span(a);
    if (!to)
        return NULL;
    to += a->p[0].pos - a->t.few[0].lo;
    return (uintptr_t)to % 16 ? NULL : to;
}

void remora_acc_direct16(const struct acc *a, char *to)
{
    const char *o = a->origin;
    char *r = a->result;
    uint64_t len = a->p[0].len;
    if (a->op == REMORA_OP_REPLACE && !r) {
        for (uint64_t off = 0; off < len; off += 16) {
            uint64_t v[2];
            memcpy(v, o + off, 16);
            remora_mapped_store16(to + off, v);
        }
    } else if (a->op == REMORA_OP_NO_OP) { /* several words: read until two reads agree (run_image) */
        for (uint64_t changed = 1; changed;) {
            for (uint64_t off = 0; off < len; off += 16) {
                uint64_t v[2];
                remora_mapped_load16(to + off, v);
                memcpy(r + off, v, 16);
            }
            changed = 0;
            for (uint64_t off = 0; len > 16 && off < len; off += 16) {
                uint64_t v[2], was[2];
                remora_mapped_load16(to + off, v);
                memcpy(was, r + off, 16);
                changed |= (v[0] ^ was[0]) | (v[1] ^ was[1]);
            }
        }
    } else {
        for (uint64_t off = 0; off < len; off += 16) {
            uint64_t e[2], n[2];
            remora_mapped_load16(to + off, e);
            do {
                memcpy(n, a->op == REMORA_OP_REPLACE ? o + off : (const char *)e, 16);
                if (a->op != REMORA_OP_REPLACE)
                    a->kernel(n, o + off, 16 / a->esz);
            } while (!remora_mapped_cas16(to + off, e, n));
            if (r)
                memcpy(r + off, e, 16);
        }
    }
}

/* Under the stripes while no lock-free call runs (state 0), on one span
 * mapped here, elements without holes: the call with plain loads and stores
 * (base: the address of the span's first position). */
char *remora_acc_plain_base(const struct acc *a)
{
    return !a->holes && !a->compare ? mapped_span(a) : NULL;
}

void remora_acc_plain(const struct acc *a, char *base)
{
    for (size_t i = 0; i < a->np; i++) {
        const struct piece *p = &a->p[i];
        plain_bytes(base + (p->pos - a->t.few[0].lo), a->origin ? a->origin + p->at : NULL,
                    a->result ? a->result + p->at : NULL, p->len, a->op, a->kernel, a->esz);
    }
}
