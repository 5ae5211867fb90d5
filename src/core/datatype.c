/* Datatype layouts: the cache, cursors and the paired walk (see datatype.h).
 *
 * Derived types carry their layout in an attribute (keyval made on first use;
 * the delete callback frees the layout when the type is freed; MPI_Type_dup
 * does not copy it, so a duplicate is decoded anew).  Predefined types, which
 * take no attributes everywhere, are kept in a list owned by the library.
 * Decoding happens once per type, under remora_core.dt_cache.lock; lookups do not lock. */
#include <stdlib.h>
#include <string.h>

#include "core/datatype.h"
#include "core/datatype_decode.h"
#include "core/predefined_types.h"
#include "core/engine.h"
#include "runtime/log.h"

_Static_assert(REMORA_PREDEFINED_TYPE_COUNT <= REMORA_DT_BY_ID, "the layout cache by type id is too small");

static void dt_free(struct remora_dt *dt)
{
    if (dt) {
        free(dt->blocks);
        free(dt->runs);
        free(dt);
    }
}

static int delete_fn(MPI_Datatype type, int keyval, void *value, void *extra)
{
    (void)type, (void)keyval, (void)extra;
    dt_free(value);
    return MPI_SUCCESS;
}

static int is_named(MPI_Datatype type)
{
    int ni, na, nd, combiner;
    return PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) == MPI_SUCCESS && combiner == MPI_COMBINER_NAMED;
}

/* Predefined types: a list searched under the lock (only slow paths get here). */
static const struct remora_dt *named_lookup(MPI_Datatype type)
{
    struct remora_dt_cache *c = &remora_core.dt_cache;
    for (int i = 0; i < c->nnamed; i++)
        if (c->named_handle[i] == type)
            return c->named[i];
    return NULL;
}

static int named_insert(MPI_Datatype type, struct remora_dt *dt)
{
    struct remora_dt_cache *c = &remora_core.dt_cache;
    if (c->nnamed == c->cap_named) {
        int cap = c->cap_named ? 2 * c->cap_named : 64;
        MPI_Datatype *h = realloc(c->named_handle, sizeof *h * (size_t)cap);
        if (h)
            c->named_handle = h;
        struct remora_dt **d = realloc(c->named, sizeof *d * (size_t)cap);
        if (d)
            c->named = d;
        if (!h || !d)
            return MPI_ERR_NO_MEM;
        c->cap_named = cap;
    }
    c->named_handle[c->nnamed] = type;
    c->named[c->nnamed++] = dt;
    return MPI_SUCCESS;
}

/* Whether a derived type was committed.  The hosts keep that to themselves,
 * but their MPI_Pack of no element refuses an uncommitted type (MPI_ERR_TYPE,
 * both hosts), on a communicator of Remora's own that returns errors.  Asked
 * at a type's first use only: a committed type stays committed, and layouts
 * are cached for committed types alone.
 * Intel MPI 2021.19 (abi flavour) aborts in that MPI_Pack whatever handler
 * the communicator, MPI_COMM_SELF or MPI_COMM_WORLD has (tried: it raises
 * argument errors found before the communicator on a fatal handler of its
 * own; tests/handlers/errhandlers fails over it alone for the same reason):
 * there nothing can be asked, and the type is taken as the program gives
 * it.  c->lock held. */
static int host_pack_aborts(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    PMPI_Get_library_version(v, &len);
    return strstr(v, "Intel(R) MPI") != NULL;
}

static int committed(struct remora_dt_cache *c, MPI_Datatype type)
{
    if (!c->probe_made) {
        c->probe_made = 1;
        c->probe = MPI_COMM_NULL;
        if (host_pack_aborts() || PMPI_Comm_dup(MPI_COMM_SELF, &c->probe) != MPI_SUCCESS) {
            c->probe = MPI_COMM_NULL;
            remora_log(REMORA_LOG_INFO, "the host cannot tell uncommitted datatypes: they are not refused");
        } else {
            PMPI_Comm_set_errhandler(c->probe, MPI_ERRORS_RETURN);
        }
    }
    if (c->probe == MPI_COMM_NULL)
        return 1; /* no way to ask: the type as the program gives it */
    char b = 0;
    int pos = 0;
    return PMPI_Pack(&b, 0, type, &b, 1, &pos, c->probe) == MPI_SUCCESS;
}

/* Decode and cache; caller holds dt_lock. */
static int decode_and_cache(MPI_Datatype type, int named, const struct remora_dt **out)
{
    struct remora_dt_cache *c = &remora_core.dt_cache;
    if (!named && !committed(c, type))
        return MPI_ERR_TYPE;
    struct remora_dt *dt = malloc(sizeof *dt);
    if (!dt)
        return MPI_ERR_NO_MEM;
    int rc = remora_dt_decode(type, dt);
    if (rc == MPI_SUCCESS)
        rc = named ? named_insert(type, dt) : PMPI_Type_set_attr(type, c->keyval, dt) == MPI_SUCCESS ? MPI_SUCCESS : MPI_ERR_TYPE;
    if (rc != MPI_SUCCESS) {
        dt_free(dt);
        return rc;
    }
    *out = dt;
    return MPI_SUCCESS;
}

int remora_dt_get(MPI_Datatype type, const struct remora_dt **out)
{
    struct remora_dt_cache *c = &remora_core.dt_cache;
    if (type == MPI_DATATYPE_NULL)
        return MPI_ERR_TYPE;
    const struct remora_type_entry *e = remora_type_lookup(&remora_core.types, type);
    if (e && (*out = atomic_load_explicit(&c->by_id[e->id], memory_order_acquire)))
        return MPI_SUCCESS;
    int named = is_named(type), found = 0, rc = MPI_SUCCESS;
    void *value;
    if (!named && atomic_load_explicit(&c->keyval_made, memory_order_acquire) &&
        PMPI_Type_get_attr(type, c->keyval, &value, &found) == MPI_SUCCESS && found) {
        *out = value;
        return MPI_SUCCESS;
    }
    pthread_mutex_lock(&c->lock);
    if (!atomic_load_explicit(&c->keyval_made, memory_order_relaxed)) {
        if (PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, delete_fn, &c->keyval, NULL) != MPI_SUCCESS)
            rc = MPI_ERR_INTERN;
        else
            atomic_store_explicit(&c->keyval_made, 1, memory_order_release);
    }
    if (rc == MPI_SUCCESS) {
        if (named)
            found = (*out = named_lookup(type)) != NULL;
        else if (PMPI_Type_get_attr(type, c->keyval, &value, &found) != MPI_SUCCESS)
            rc = MPI_ERR_TYPE;
        else if (found)
            *out = value;
        if (rc == MPI_SUCCESS && !found)
            rc = decode_and_cache(type, named, out);
        if (rc == MPI_SUCCESS && named && e)
            atomic_store_explicit(&c->by_id[e->id], *out, memory_order_release);
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}

void remora_dt_finalize(void)
{
    struct remora_dt_cache *c = &remora_core.dt_cache;
    for (int i = 0; i < c->nnamed; i++)
        dt_free(c->named[i]);
    free(c->named);
    free(c->named_handle);
    c->named = NULL;
    c->named_handle = NULL;
    c->nnamed = c->cap_named = 0;
    for (int i = 0; i < REMORA_DT_BY_ID; i++)
        atomic_store_explicit(&c->by_id[i], NULL, memory_order_relaxed);
    if (c->probe_made) {
        if (c->probe != MPI_COMM_NULL)
            PMPI_Comm_free(&c->probe);
        c->probe_made = 0;
    }
    if (atomic_load(&c->keyval_made)) {
        PMPI_Type_free_keyval(&c->keyval);
        atomic_store(&c->keyval_made, 0);
    }
}

/* ---- cursors -------------------------------------------------------------------- */

int remora_dt_as_run(const struct remora_dt *t, MPI_Count count, MPI_Aint bytes, MPI_Aint len, struct remora_dt_run *r)
{
    if (t->contiguous)
        *r = (struct remora_dt_run){t->true_lb, len, bytes / len};
    else if (t->blocks[0].len != len)
        return 0;
    else if (t->nblocks == 1)
        *r = (struct remora_dt_run){t->blocks[0].disp, t->extent, count};
    else if (t->run_stride && (count == 1 || t->extent == t->run_stride * (MPI_Aint)t->nblocks))
        *r = (struct remora_dt_run){t->blocks[0].disp, t->run_stride, (MPI_Aint)t->nblocks * count};
    else
        return 0;
    return 1;
}

int remora_dt_runs(const struct remora_dt *t, MPI_Count count, MPI_Aint len,
                   int (*fn)(const struct remora_dt_run *run, MPI_Aint index, void *arg), void *arg)
{
    if (t->block_len != len)
        return -1;
    MPI_Aint index = 0;
    for (MPI_Count e = 0; e < count && t->nruns; e++) /* an element's runs, known */
        for (size_t i = 0; i < t->nruns; index += t->runs[i].n, i++) {
            struct remora_dt_run r = t->runs[i];
            r.first += (MPI_Aint)e * t->extent;
            int st = fn(&r, index, arg);
            if (st)
                return st;
        }
    if (t->nruns)
        return 0;
    struct remora_dt_run r = {0, 0, 0}; /* else found over all the elements' blocks */
    for (MPI_Count e = 0; e < count; e++)
        for (size_t b = 0; b < t->nblocks; b++) {
            MPI_Aint d = (MPI_Aint)e * t->extent + t->blocks[b].disp;
            if (remora_dt_run_add(&r, d))
                continue;
            int st = fn(&r, index, arg);
            if (st)
                return st;
            index += r.n;
            r = (struct remora_dt_run){d, 0, 1};
        }
    return r.n ? fn(&r, index, arg) : 0;
}

void remora_dt_cursor_init(struct remora_dt_cursor *c, const struct remora_dt *t, MPI_Aint count)
{
    c->t = t;
    c->count = t->size ? count : 0;
    c->elem = 0;
    c->block = 0;
    c->done = 0;
}

MPI_Aint remora_dt_cursor_next(struct remora_dt_cursor *c, MPI_Aint max, MPI_Aint *disp)
{
    const struct remora_dt *t = c->t;
    if (c->elem >= c->count || max <= 0)
        return 0;
    if (t->contiguous) { /* all elements are one run */
        MPI_Aint total = c->count * t->size, left = total - c->done, len = left < max ? left : max;
        *disp = t->true_lb + c->done;
        c->done += len;
        if (c->done == total)
            c->elem = c->count;
        return len;
    }
    const struct remora_dt_block *b = &t->blocks[c->block];
    MPI_Aint left = b->len - c->done, len = left < max ? left : max;
    *disp = c->elem * t->extent + b->disp + c->done;
    c->done += len;
    if (c->done == b->len) {
        c->done = 0;
        if (++c->block == t->nblocks) {
            c->block = 0;
            c->elem++;
        }
    }
    return len;
}

int remora_dt_pair_walk(const struct remora_dt *o, MPI_Aint ocount, const struct remora_dt *t, MPI_Aint tcount,
                        int (*fn)(MPI_Aint odisp, MPI_Aint tdisp, MPI_Aint len, void *arg), void *arg)
{
    if (o->size * ocount != t->size * tcount)
        return MPI_ERR_TYPE;
    struct remora_dt_cursor co, ct;
    remora_dt_cursor_init(&co, o, ocount);
    remora_dt_cursor_init(&ct, t, tcount);
    MPI_Aint od = 0, td = 0, ol = 0, tl = 0;
    for (;;) {
        if (!ol && !(ol = remora_dt_cursor_next(&co, (MPI_Aint)1 << 62, &od)))
            return 0;
        if (!tl && !(tl = remora_dt_cursor_next(&ct, (MPI_Aint)1 << 62, &td)))
            return 0;
        MPI_Aint len = ol < tl ? ol : tl;
        int rc = fn(od, td, len, arg);
        if (rc)
            return rc;
        od += len;
        td += len;
        ol -= len;
        tl -= len;
    }
}
