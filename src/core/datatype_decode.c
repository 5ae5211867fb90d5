/* Decoding a datatype into the blocks of one element (see datatype.h), from
 * the host's envelope and contents, combiner by combiner, following the
 * definitions of the MPI standard (chapter 5). */
#include <stdlib.h>
#include <string.h>

#include "core/datatype_decode.h"

struct builder {
    struct remora_dt_block *b;
    size_t n, cap;
    MPI_Datatype basic;   /* the leaf type seen so far (MPI_DATATYPE_NULL: none yet) */
    int mixed;            /* leaves of different types                              */
    int err;
};

/* Room for `more` blocks beyond B->n; 0 (and B->err) when out of memory. */
static int reserve(struct builder *B, size_t more)
{
    if (B->err)
        return 0;
    if (more <= B->cap - B->n)
        return 1;
    size_t cap = B->cap ? 2 * B->cap : 8;
    if (cap - B->n < more)
        cap = B->n + more;
    struct remora_dt_block *nb = realloc(B->b, cap * sizeof *nb);
    if (!nb) {
        B->err = MPI_ERR_NO_MEM;
        return 0;
    }
    B->b = nb;
    B->cap = cap;
    return 1;
}

static void emit(struct builder *B, MPI_Aint disp, MPI_Aint len)
{
    if (len <= 0 || B->err)
        return;
    if (B->n && B->b[B->n - 1].disp + B->b[B->n - 1].len == disp) {
        B->b[B->n - 1].len += len; /* adjacent in typemap order: one block */
        return;
    }
    if (reserve(B, 1))
        B->b[B->n++] = (struct remora_dt_block){disp, len};
}

static void note_leaf(struct builder *B, MPI_Datatype t)
{
    if (B->basic == MPI_DATATYPE_NULL)
        B->basic = t;
    else if (B->basic != t)
        B->mixed = 1;
}

/* Append child's blocks shifted by disp, and its leaves. */
static void append(struct builder *B, const struct builder *child, MPI_Aint disp)
{
    for (size_t i = 0; i < child->n; i++)
        emit(B, disp + child->b[i].disp, child->b[i].len);
    if (child->mixed)
        B->mixed = 1;
    if (child->basic != MPI_DATATYPE_NULL)
        note_leaf(B, child->basic);
}

static int decode(MPI_Datatype t, struct builder *B);

static MPI_Aint extent_of(MPI_Datatype t)
{
    MPI_Aint lb, ext;
    PMPI_Type_get_extent(t, &lb, &ext);
    return ext;
}

/* A predefined (or f90 parameterised) type: one block, or two for the
 * value-index pairs whose parts do not touch (MPI_DOUBLE_INT: 8 + pad + 4). */
static int decode_named(MPI_Datatype t, struct builder *B)
{
    int size;
    MPI_Aint lb, ext;
    if (PMPI_Type_size(t, &size) != MPI_SUCCESS || PMPI_Type_get_extent(t, &lb, &ext) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    note_leaf(B, t);
    if (size == ext || size < (int)sizeof(int)) {
        emit(B, lb, size);
    } else { /* { T value; int index; }: the index sits at the value's size rounded to int alignment */
        MPI_Aint vsize = size - (MPI_Aint)sizeof(int);
        MPI_Aint ioff = (vsize + (MPI_Aint)_Alignof(int) - 1) / (MPI_Aint)_Alignof(int) * (MPI_Aint)_Alignof(int);
        emit(B, 0, vsize);
        emit(B, ioff, (MPI_Aint)sizeof(int));
    }
    return MPI_SUCCESS;
}

/* count copies of child at disp0, disp0 + step, ...; the room for all at
 * once (a vector of a million ints: one allocation, not twenty), a child of
 * one block (vectors of a basic type) without a call per copy, and copies
 * back to back as one block (MPI_Type_contiguous of a million ints took 3 ms
 * of merging one int at a time). */
static void repeat(struct builder *B, const struct builder *child, MPI_Aint count, MPI_Aint disp0, MPI_Aint step)
{
    if (count <= 0)
        return;
    if (child->n != 1) {
        if (reserve(B, child->n * (size_t)count))
            for (MPI_Aint i = 0; i < count && !B->err; i++)
                append(B, child, disp0 + i * step);
        return;
    }
    MPI_Aint len = child->b[0].len, first = disp0 + child->b[0].disp;
    if (step == len) /* back to back: contiguous, a vector's blocklength */
        emit(B, first, len * count);
    else if (reserve(B, (size_t)count))
        for (MPI_Aint i = 0; i < count; i++)
            emit(B, first + i * step, len);
    append(B, &(struct builder){.basic = child->basic, .mixed = child->mixed}, 0); /* its leaves */
}

/* Global indices of one dimension owned by process coordinate c (darray). */
static MPI_Aint *darray_indices(int g, int distrib, int darg, int p, int c, MPI_Aint *n)
{
    MPI_Aint *idx = malloc(sizeof(MPI_Aint) * (size_t)(g > 0 ? g : 1));
    *n = 0;
    if (!idx)
        return NULL;
    if (distrib == MPI_DISTRIBUTE_NONE) {
        for (int i = 0; i < g; i++)
            idx[(*n)++] = i;
    } else if (distrib == MPI_DISTRIBUTE_BLOCK) {
        int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
        for (MPI_Aint i = (MPI_Aint)c * b; i < (MPI_Aint)(c + 1) * b && i < g; i++)
            idx[(*n)++] = i;
    } else { /* MPI_DISTRIBUTE_CYCLIC(b): blocks of b dealt round-robin */
        int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        for (MPI_Aint start = (MPI_Aint)c * b; start < g; start += (MPI_Aint)p * b)
            for (MPI_Aint i = start; i < start + b && i < g; i++)
                idx[(*n)++] = i;
    }
    return idx;
}

/* Elements at the product of per-dimension offsets, in typemap order: with C
 * order the last dimension varies fastest, with Fortran order the first. */
static void grid(struct builder *B, const struct builder *child, int ndims, MPI_Aint *const *offs,
                 const MPI_Aint *n, int c_order)
{
    MPI_Aint *i = calloc((size_t)ndims * 2, sizeof *i), *count = i + ndims;
    if (!i) {
        B->err = MPI_ERR_NO_MEM;
        return;
    }
    for (int d = 0; d < ndims; d++)
        if ((count[d] = n[d]) == 0) {
            free(i);
            return;
        }
    /* When the fastest dimension's elements lie back to back (a subarray of
     * a contiguous child: ARMCI-MPI's strided transfers are subarrays of
     * MPI_BYTE), each of its rows is one block, not one per element. */
    int fast = c_order ? ndims - 1 : 0;
    MPI_Aint row = 0;
    if (child->n == 1) {
        int back_to_back = 1;
        for (MPI_Aint k = 1; k < n[fast] && back_to_back; k++)
            back_to_back = offs[fast][k] - offs[fast][k - 1] == child->b[0].len;
        if (back_to_back) {
            row = child->b[0].len * n[fast];
            count[fast] = 1;
        }
    }
    for (;;) {
        MPI_Aint disp = 0;
        for (int d = 0; d < ndims; d++)
            disp += offs[d][i[d]];
        if (row)
            emit(B, disp + child->b[0].disp, row);
        else
            append(B, child, disp);
        int d = fast, step = c_order ? -1 : 1;
        for (; d >= 0 && d < ndims; d += step) {
            if (++i[d] < count[d])
                break;
            i[d] = 0;
        }
        if (d < 0 || d >= ndims || B->err)
            break;
    }
    if (row) /* the leaves, which append notes */
        append(B, &(struct builder){.basic = child->basic, .mixed = child->mixed}, 0);
    free(i);
}

/* Byte stride of each dimension of a global array of `sizes` elements of ext bytes. */
static void strides(int ndims, const int *sizes, int c_order, MPI_Aint ext, MPI_Aint *stride)
{
    MPI_Aint s = ext;
    for (int k = 0; k < ndims; k++) {
        int d = c_order ? ndims - 1 - k : k;
        stride[d] = s;
        s *= sizes[d];
    }
}

static void decode_subarray(struct builder *B, const struct builder *child, const int *ints, MPI_Aint ext)
{
    int ndims = ints[0];
    const int *sizes = ints + 1, *subsizes = ints + 1 + ndims, *starts = ints + 1 + 2 * ndims;
    int c_order = ints[1 + 3 * ndims] == MPI_ORDER_C;
    MPI_Aint *stride = malloc(sizeof(MPI_Aint) * (size_t)ndims), *n = malloc(sizeof(MPI_Aint) * (size_t)ndims);
    MPI_Aint **offs = calloc((size_t)ndims, sizeof *offs);
    int ok = stride && n && offs;
    if (ok)
        strides(ndims, sizes, c_order, ext, stride);
    for (int d = 0; ok && d < ndims; d++) {
        n[d] = subsizes[d];
        ok = (offs[d] = malloc(sizeof(MPI_Aint) * (size_t)(subsizes[d] > 0 ? subsizes[d] : 1))) != NULL;
        for (int k = 0; ok && k < subsizes[d]; k++)
            offs[d][k] = (MPI_Aint)(starts[d] + k) * stride[d];
    }
    if (ok)
        grid(B, child, ndims, offs, n, c_order);
    else
        B->err = MPI_ERR_NO_MEM;
    for (int d = 0; offs && d < ndims; d++)
        free(offs[d]);
    free(offs);
    free(stride);
    free(n);
}

static void decode_darray(struct builder *B, const struct builder *child, const int *ints, MPI_Aint ext)
{
    int rank = ints[1], ndims = ints[2];
    const int *gsizes = ints + 3, *distribs = ints + 3 + ndims, *dargs = ints + 3 + 2 * ndims,
              *psizes = ints + 3 + 3 * ndims;
    int c_order = ints[3 + 4 * ndims] == MPI_ORDER_C;
    MPI_Aint *stride = malloc(sizeof(MPI_Aint) * (size_t)ndims), *n = malloc(sizeof(MPI_Aint) * (size_t)ndims);
    MPI_Aint **offs = calloc((size_t)ndims, sizeof *offs);
    int ok = stride && n && offs;
    if (ok)
        strides(ndims, gsizes, c_order, ext, stride);
    /* the process grid is row-major whatever the array's order */
    for (int d = ndims - 1, r = rank; ok && d >= 0; d--) {
        int coord = r % psizes[d];
        r /= psizes[d];
        ok = (offs[d] = darray_indices(gsizes[d], distribs[d], dargs[d], psizes[d], coord, &n[d])) != NULL;
        for (MPI_Aint k = 0; ok && k < n[d]; k++)
            offs[d][k] *= stride[d];
    }
    if (ok)
        grid(B, child, ndims, offs, n, c_order);
    else
        B->err = MPI_ERR_NO_MEM;
    for (int d = 0; offs && d < ndims; d++)
        free(offs[d]);
    free(offs);
    free(stride);
    free(n);
}

/* The envelope's arrays, and the children decoded. */
struct contents {
    int ni, na, nd, combiner;
    int *ints;
    MPI_Aint *aints;
    MPI_Datatype *types;
};

static int get_contents(MPI_Datatype t, struct contents *c)
{
    memset(c, 0, sizeof *c);
    if (PMPI_Type_get_envelope(t, &c->ni, &c->na, &c->nd, &c->combiner) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    if (c->combiner == MPI_COMBINER_NAMED)
        return MPI_SUCCESS;
    c->ints = malloc(sizeof(int) * (size_t)(c->ni + 1));
    c->aints = malloc(sizeof(MPI_Aint) * (size_t)(c->na + 1));
    c->types = malloc(sizeof(MPI_Datatype) * (size_t)(c->nd + 1));
    if (!c->ints || !c->aints || !c->types)
        return MPI_ERR_NO_MEM;
    if (PMPI_Type_get_contents(t, c->ni, c->na, c->nd, c->ints, c->aints, c->types) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    return MPI_SUCCESS;
}

/* Types returned by MPI_Type_get_contents are new references unless predefined. */
static void free_contents(struct contents *c)
{
    for (int i = 0; c->types && i < c->nd; i++) {
        int ni, na, nd, comb;
        if (PMPI_Type_get_envelope(c->types[i], &ni, &na, &nd, &comb) == MPI_SUCCESS && comb != MPI_COMBINER_NAMED)
            PMPI_Type_free(&c->types[i]);
    }
    free(c->ints);
    free(c->aints);
    free(c->types);
}

static int decode_child(MPI_Datatype t, struct builder *child)
{
    memset(child, 0, sizeof *child);
    child->basic = MPI_DATATYPE_NULL;
    return decode(t, child);
}

static void builder_free(struct builder *B) { free(B->b); }

/* One combiner with one child type (all but struct). */
static int decode_one(const struct contents *c, struct builder *B)
{
    struct builder ch;
    int rc = decode_child(c->types[0], &ch);
    if (rc != MPI_SUCCESS) {
        builder_free(&ch);
        return rc;
    }
    MPI_Aint ext = extent_of(c->types[0]);
    const int *I = c->ints;
    const MPI_Aint *A = c->aints;
    switch (c->combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED: /* lb and extent show in MPI_Type_get_extent of the type itself */
        append(B, &ch, 0);
        break;
    case MPI_COMBINER_CONTIGUOUS:
        repeat(B, &ch, I[0], 0, ext);
        break;
    case MPI_COMBINER_VECTOR:
        for (int i = 0; i < I[0]; i++)
            repeat(B, &ch, I[1], (MPI_Aint)i * I[2] * ext, ext);
        break;
    case MPI_COMBINER_HVECTOR:
        for (int i = 0; i < I[0]; i++)
            repeat(B, &ch, I[1], i * A[0], ext);
        break;
    case MPI_COMBINER_INDEXED:
        for (int i = 0; i < I[0]; i++)
            repeat(B, &ch, I[1 + i], (MPI_Aint)I[1 + I[0] + i] * ext, ext);
        break;
    case MPI_COMBINER_HINDEXED:
        for (int i = 0; i < I[0]; i++)
            repeat(B, &ch, I[1 + i], A[i], ext);
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
        for (int i = 0; i < I[0]; i++)
            repeat(B, &ch, I[1], (MPI_Aint)I[2 + i] * ext, ext);
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (int i = 0; i < I[0]; i++)
            repeat(B, &ch, I[1], A[i], ext);
        break;
    case MPI_COMBINER_SUBARRAY:
        decode_subarray(B, &ch, I, ext);
        break;
    case MPI_COMBINER_DARRAY:
        decode_darray(B, &ch, I, ext);
        break;
    default:
        rc = MPI_ERR_TYPE;
    }
    /* the child's leaves even when repeated 0 times: a type of size 0 still
     * has a basic type (accumulates compare them) */
    if (ch.mixed)
        B->mixed = 1;
    if (ch.basic != MPI_DATATYPE_NULL)
        note_leaf(B, ch.basic);
    builder_free(&ch);
    return rc;
}

static int decode_struct(const struct contents *c, struct builder *B)
{
    for (int i = 0; i < c->ints[0] && !B->err; i++) {
        struct builder ch;
        int rc = decode_child(c->types[i], &ch);
        if (rc == MPI_SUCCESS)
            repeat(B, &ch, c->ints[1 + i], c->aints[i], extent_of(c->types[i]));
        builder_free(&ch);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

static int decode(MPI_Datatype t, struct builder *B)
{
    struct contents c;
    int rc = get_contents(t, &c);
    if (rc == MPI_SUCCESS) {
        switch (c.combiner) {
        case MPI_COMBINER_NAMED:
        case MPI_COMBINER_F90_REAL:
        case MPI_COMBINER_F90_COMPLEX:
        case MPI_COMBINER_F90_INTEGER:
            rc = decode_named(t, B);
            break;
        case MPI_COMBINER_STRUCT:
            rc = decode_struct(&c, B);
            break;
        default:
            rc = decode_one(&c, B);
        }
    }
    free_contents(&c);
    return rc != MPI_SUCCESS ? rc : B->err;
}

/* dt's blocks (all of one length) in maximal regular runs, stored in out
 * unless it is NULL; returns how many. */
static size_t walk_runs(const struct remora_dt *dt, struct remora_dt_run *out)
{
    size_t n = 0;
    struct remora_dt_run r = {0, 0, 0};
    for (size_t b = 0; b < dt->nblocks; b++) {
        if (remora_dt_run_add(&r, dt->blocks[b].disp))
            continue;
        if (out)
            out[n] = r;
        n++;
        r = (struct remora_dt_run){dt->blocks[b].disp, 0, 1};
    }
    if (r.n && out)
        out[n] = r;
    return n + (r.n != 0);
}

/* block_len, and the runs of an element where they pay (datatype.h). */
static void find_runs(struct remora_dt *dt)
{
    dt->block_len = dt->nblocks ? dt->blocks[0].len : 0;
    for (size_t b = 1; b < dt->nblocks && dt->block_len; b++)
        if (dt->blocks[b].len != dt->block_len)
            dt->block_len = 0;
    dt->nruns = 0;
    dt->runs = NULL;
    if (!dt->block_len || dt->nblocks < 4 || dt->run_stride)
        return;
    size_t n = walk_runs(dt, NULL);
    if (2 * n <= dt->nblocks && (dt->runs = malloc(n * sizeof *dt->runs)) != NULL)
        dt->nruns = walk_runs(dt, dt->runs);
}

int remora_dt_decode(MPI_Datatype type, struct remora_dt *dt)
{
    memset(dt, 0, sizeof *dt);
    int size;
    if (type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    dt->size = size;
    PMPI_Type_get_extent(type, &dt->lb, &dt->extent);
    PMPI_Type_get_true_extent(type, &dt->true_lb, &dt->true_extent);
    struct builder B = {.basic = MPI_DATATYPE_NULL};
    int rc = decode(type, &B);
    if (rc != MPI_SUCCESS) {
        builder_free(&B);
        return rc;
    }
    dt->blocks = B.b;
    dt->nblocks = B.n;
    dt->basic = B.mixed ? MPI_DATATYPE_NULL : B.basic;
    if (dt->basic != MPI_DATATYPE_NULL) {
        int bs;
        PMPI_Type_size(dt->basic, &bs);
        dt->basic_size = bs;
    }
    dt->contiguous = dt->size == 0 || (B.n == 1 && B.b[0].len == dt->size && dt->extent == dt->size &&
                                        B.b[0].disp == dt->true_lb);
    /* Blocks of one length at one stride (vectors, transposes' columns). */
    dt->run_stride = 0;
    if (B.n >= 2) {
        MPI_Aint step = B.b[1].disp - B.b[0].disp;
        size_t i = 1;
        while (i < B.n && B.b[i].len == B.b[0].len && B.b[i].disp - B.b[i - 1].disp == step)
            i++;
        if (i == B.n && step != 0)
            dt->run_stride = step;
    }
    find_runs(dt);
    return MPI_SUCCESS;
}
