/* Window attributes and keyvals.
 * Predefined keys (MPI_WIN_BASE, _SIZE, _DISP_UNIT, _CREATE_FLAVOR, _MODEL) are
 * answered from the window; user keys live in a list per window, in setting
 * order.  A keyval freed by the user stays valid while attributes use it. */
#include <stdint.h>
#include <stdlib.h>

#include "core/attr.h"
#include "core/win.h"
#include "core/engine.h"

static struct remora_keyval *keyval_at(int keyval)
{
    struct remora_keyval_table *t = &remora_core.keyvals;
    int i = keyval - REMORA_KEYVAL_BASE;
    if (i < 0 || i >= t->n || !t->v[i].in_use)
        return NULL;
    return &t->v[i];
}

int remora_keyval_create(MPI_Win_copy_attr_function *copy_fn, MPI_Win_delete_attr_function *delete_fn,
                         void *extra_state, int *keyval)
{
    struct remora_keyval_table *t = &remora_core.keyvals;
    pthread_mutex_lock(&remora_core.lock);
    int i;
    for (i = 0; i < t->n && t->v[i].in_use; i++)
        ;
    if (i == t->n) {
        if (t->n == t->cap) {
            int cap = t->cap ? 2 * t->cap : 16;
            struct remora_keyval *v = realloc(t->v, sizeof *v * (size_t)cap);
            if (!v) {
                pthread_mutex_unlock(&remora_core.lock);
                return remora_err(MPI_ERR_NO_MEM, "keyval table");
            }
            t->v = v;
            t->cap = cap;
        }
        t->n++;
    }
    t->v[i] = (struct remora_keyval){copy_fn, delete_fn, extra_state, NULL, NULL, 1, 1};
    *keyval = REMORA_KEYVAL_BASE + i;
    pthread_mutex_unlock(&remora_core.lock);
    return MPI_SUCCESS;
}

/* Drop one reference; caller holds remora_core.lock. */
static void keyval_unref(struct remora_keyval *k)
{
    if (--k->refs == 0)
        k->in_use = 0;
}

int remora_keyval_free(int *keyval)
{
    pthread_mutex_lock(&remora_core.lock);
    struct remora_keyval *k = keyval_at(*keyval);
    if (!k || k->refs <= 0) {
        pthread_mutex_unlock(&remora_core.lock);
        return remora_err(MPI_ERR_KEYVAL, "keyval %d is not a window keyval", *keyval);
    }
    keyval_unref(k);
    pthread_mutex_unlock(&remora_core.lock);
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

int remora_keyval_set_thunk(int keyval, remora_delete_thunk *thunk, void *thunk_arg)
{
    pthread_mutex_lock(&remora_core.lock);
    struct remora_keyval *k = keyval_at(keyval);
    if (k) {
        k->thunk = thunk;
        k->thunk_arg = thunk_arg;
    }
    pthread_mutex_unlock(&remora_core.lock);
    return k ? MPI_SUCCESS : MPI_ERR_KEYVAL;
}

void remora_keyval_table_destroy(struct remora_keyval_table *t)
{
    free(t->v);
    t->v = NULL;
    t->n = t->cap = 0;
}

static int predefined(int keyval)
{
    return keyval == MPI_WIN_BASE || keyval == MPI_WIN_SIZE || keyval == MPI_WIN_DISP_UNIT ||
           keyval == MPI_WIN_CREATE_FLAVOR || keyval == MPI_WIN_MODEL;
}

/* Run the delete callback of attribute a (not unlinked here). */
static int call_delete(struct remora_win *w, struct remora_attr *a)
{
    pthread_mutex_lock(&remora_core.lock);
    struct remora_keyval *k = keyval_at(a->keyval);
    MPI_Win_delete_attr_function *fn = k ? k->delete_fn : NULL;
    void *extra = k ? k->extra_state : NULL;
    remora_delete_thunk *thunk = k ? k->thunk : NULL;
    void *thunk_arg = k ? k->thunk_arg : NULL;
    pthread_mutex_unlock(&remora_core.lock);
    if (!fn || (!thunk && fn == MPI_WIN_NULL_DELETE_FN))
        return MPI_SUCCESS;
    MPI_Win handle = w->handle;
    int rc = thunk ? thunk(thunk_arg, (void *)fn, handle, w->index, a->keyval, a->value, a->fortran_value, extra)
                   : fn(handle, a->keyval, a->value, extra);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : remora_err(rc, "an attribute delete callback returned %d", rc);
}

static struct remora_attr **find(struct remora_win *w, int keyval)
{
    struct remora_attr **pp = &w->attr.list;
    while (*pp && (*pp)->keyval != keyval)
        pp = &(*pp)->next;
    return pp;
}

int remora_attr_set(struct remora_win *w, int keyval, void *value, int fortran_value)
{
    if (predefined(keyval))
        return remora_err(MPI_ERR_KEYVAL, "predefined window attributes cannot be set");
    pthread_mutex_lock(&remora_core.lock);
    struct remora_keyval *k = keyval_at(keyval);
    if (k && k->refs > 0)
        k->refs++;
    pthread_mutex_unlock(&remora_core.lock);
    if (!k)
        return remora_err(MPI_ERR_KEYVAL, "keyval %d is not a window keyval", keyval);

    struct remora_attr **pp = find(w, keyval);
    if (*pp) { /* replacing: the old value's delete callback runs first */
        int rc = call_delete(w, *pp);
        pthread_mutex_lock(&remora_core.lock);
        keyval_unref(keyval_at(keyval)); /* the old value's reference */
        pthread_mutex_unlock(&remora_core.lock);
        if (rc != MPI_SUCCESS)
            return rc;
        (*pp)->value = value;
        (*pp)->fortran_value = fortran_value;
        return MPI_SUCCESS;
    }
    struct remora_attr *a = malloc(sizeof *a);
    if (!a)
        return remora_err(MPI_ERR_NO_MEM, "attribute");
    *a = (struct remora_attr){keyval, fortran_value, value, NULL};
    *pp = a; /* appended: deletion at free runs in setting order */
    return MPI_SUCCESS;
}

int remora_attr_get(struct remora_win *w, int keyval, void *value, int *flag)
{
    void **out = value;
    *flag = 1;
    if (keyval == MPI_WIN_BASE) {
        *out = remora_win_user_base(w);
    } else if (keyval == MPI_WIN_SIZE) {
        w->attr.size = w->size;
        *out = &w->attr.size;
    } else if (keyval == MPI_WIN_DISP_UNIT) {
        w->attr.disp_unit = w->disp_unit;
        *out = &w->attr.disp_unit;
    } else if (keyval == MPI_WIN_CREATE_FLAVOR) {
        w->attr.flavor = w->flavor;
        *out = &w->attr.flavor;
    } else if (keyval == MPI_WIN_MODEL) {
        w->attr.model = w->model;
        *out = &w->attr.model;
    } else {
        pthread_mutex_lock(&remora_core.lock);
        int known = keyval_at(keyval) != NULL;
        pthread_mutex_unlock(&remora_core.lock);
        if (!known)
            return remora_err(MPI_ERR_KEYVAL, "keyval %d is not a window keyval", keyval);
        struct remora_attr *a = *find(w, keyval);
        *flag = a != NULL;
        if (a)
            *out = a->value;
    }
    return MPI_SUCCESS;
}

int remora_attr_get_value(struct remora_win *w, int keyval, MPI_Aint *value, int *flag)
{
    void *v = NULL;
    int rc = remora_attr_get(w, keyval, &v, flag);
    if (rc != MPI_SUCCESS || !*flag)
        return rc;
    if (keyval == MPI_WIN_SIZE)
        *value = *(MPI_Aint *)v;
    else if (keyval == MPI_WIN_DISP_UNIT || keyval == MPI_WIN_CREATE_FLAVOR || keyval == MPI_WIN_MODEL)
        *value = *(int *)v;
    else
        *value = (MPI_Aint)(uintptr_t)v; /* MPI_WIN_BASE's address, or the value a user set */
    return MPI_SUCCESS;
}

/* Unlink and free attribute *pp after its delete callback succeeded. */
static int delete_at(struct remora_win *w, struct remora_attr **pp)
{
    struct remora_attr *a = *pp;
    int rc = call_delete(w, a);
    if (rc != MPI_SUCCESS)
        return rc;
    *pp = a->next;
    pthread_mutex_lock(&remora_core.lock);
    struct remora_keyval *k = keyval_at(a->keyval);
    if (k)
        keyval_unref(k);
    pthread_mutex_unlock(&remora_core.lock);
    free(a);
    return MPI_SUCCESS;
}

int remora_attr_delete(struct remora_win *w, int keyval)
{
    if (predefined(keyval))
        return remora_err(MPI_ERR_KEYVAL, "predefined window attributes cannot be deleted");
    pthread_mutex_lock(&remora_core.lock);
    int known = keyval_at(keyval) != NULL;
    pthread_mutex_unlock(&remora_core.lock);
    if (!known)
        return remora_err(MPI_ERR_KEYVAL, "keyval %d is not a window keyval", keyval);
    struct remora_attr **pp = find(w, keyval);
    return *pp ? delete_at(w, pp) : MPI_SUCCESS; /* nothing set: nothing to delete */
}

int remora_attr_delete_all(struct remora_win *w)
{
    while (w->attr.list) {
        int rc = delete_at(w, &w->attr.list);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}
