/* Window attributes: user keyvals and the predefined MPI_WIN_* attributes. */
#ifndef REMORA_CORE_ATTR_H
#define REMORA_CORE_ATTR_H

#include <mpi.h>

struct remora_win;

/* How the delete callback of a keyval made through a host's Fortran binding
 * is called (mpi/fortran_attr.c): `user_fn` is the user's subroutine, `value`
 * the attribute, `fortran_value` whether it was set from Fortran. */
typedef int remora_delete_thunk(void *thunk_arg, void *user_fn, MPI_Win handle, int fortran_handle, int keyval,
                                void *value, int fortran_value, void *extra_state);

struct remora_keyval {
    MPI_Win_copy_attr_function *copy_fn;  /* windows are never copied; kept for the record */
    MPI_Win_delete_attr_function *delete_fn;
    void *extra_state;
    remora_delete_thunk *thunk;  /* NULL: delete_fn is a C function */
    void *thunk_arg;
    int refs;      /* 1 for the user's handle + 1 per attribute set with it */
    int in_use;    /* slot allocated */
};

struct remora_keyval_table {
    struct remora_keyval *v;
    int n, cap;
};

/* One attribute value on one window. */
struct remora_attr {
    int keyval;
    int fortran_value; /* set from Fortran: value is an INTEGER(KIND=MPI_ADDRESS_KIND) */
    void *value;
    struct remora_attr *next;
};

/* A window's attributes (struct remora_win.attr), attr.c's. */
struct remora_win_attrs {
    struct remora_attr *list;      /* the user's, in order of setting */
    /* the values the predefined attributes point to (MPI_WIN_SIZE, ...),
     * copied from the window when asked for */
    MPI_Aint size;
    int disp_unit, flavor, model;
};

/* Keyval numbers live far from every host's predefined attribute keys. */
#define REMORA_KEYVAL_BASE 0x52000000

int remora_keyval_create(MPI_Win_copy_attr_function *copy_fn, MPI_Win_delete_attr_function *delete_fn,
                         void *extra_state, int *keyval);
int remora_keyval_free(int *keyval);
/* Calls keyval's delete callback through `thunk` from now on; MPI_ERR_KEYVAL
 * if keyval is not one of Remora's. */
int remora_keyval_set_thunk(int keyval, remora_delete_thunk *thunk, void *thunk_arg);
void remora_keyval_table_destroy(struct remora_keyval_table *t);

/* Predefined keys are answered from the window itself; user keys from its list.
 * Return MPI_SUCCESS or an error class (MPI_ERR_KEYVAL, MPI_ERR_OTHER for a
 * delete callback's failure, ...). */
int remora_attr_set(struct remora_win *w, int keyval, void *value, int fortran_value);
int remora_attr_get(struct remora_win *w, int keyval, void *value, int *flag);
/* As Fortran sees attributes (INTEGER(KIND=MPI_ADDRESS_KIND)): the predefined
 * ones by value (MPI_WIN_SIZE the size itself, MPI_WIN_BASE the address), a
 * user's as the value set. */
int remora_attr_get_value(struct remora_win *w, int keyval, MPI_Aint *value, int *flag);
int remora_attr_delete(struct remora_win *w, int keyval);
/* MPI_Win_free: delete every attribute, calling delete callbacks in order of setting. */
int remora_attr_delete_all(struct remora_win *w);

#endif
