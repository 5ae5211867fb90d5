/* Window properties: user keyvals (create, set, get, delete; the delete
 * callback runs on delete_attr, on overwrite and at MPI_Win_free, with the
 * extra_state given; free_keyval), names (default, set, get), info
 * (MPI_Win_get_info returns a new object the caller frees; set_info),
 * MPI_Win_get_group, error handlers (create, set, get, call; a user handler
 * gets the window and the code; MPI_ERRORS_RETURN; freeing a handler that is
 * set keeps it working), MPI_Win_c2f / MPI_Win_f2c. */
#include <string.h>

#include "mtest.h"

static int deletes, copies;
static MPI_Win handler_win;
static int handler_code, handler_calls;

static int delete_fn(MPI_Win win, int keyval, void *value, void *extra)
{
    (void)win;
    (void)keyval;
    MTEST_CHECK(extra == &deletes, "delete callback: extra_state %p", extra);
    MTEST_CHECK(value == (void *)&copies || value == (void *)&handler_code, "delete callback: value %p", value);
    deletes++;
    return MPI_SUCCESS;
}

static void handler(MPI_Win *win, int *code, ...)
{
    handler_win = *win;
    handler_code = *code;
    handler_calls++;
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
    char *base;
    MPI_Win win;
    MTEST_MPI(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));

    mtest_set_context("keyvals");
    int key;
    MTEST_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, delete_fn, &key, &deletes));
    void *got;
    int flag;
    MTEST_MPI(MPI_Win_get_attr(win, key, &got, &flag));
    MTEST_CHECK(!flag, "an attribute never set is found");
    MTEST_MPI(MPI_Win_set_attr(win, key, &copies));
    MTEST_MPI(MPI_Win_get_attr(win, key, &got, &flag));
    MTEST_CHECK(flag && got == &copies, "attribute value");
    MTEST_MPI(MPI_Win_set_attr(win, key, &handler_code)); /* overwrite: deletes the old value */
    MTEST_EQ(deletes, 1, "delete callbacks after an overwrite");
    MTEST_MPI(MPI_Win_delete_attr(win, key));
    MTEST_EQ(deletes, 2, "delete callbacks after delete_attr");
    MTEST_MPI(MPI_Win_get_attr(win, key, &got, &flag));
    MTEST_CHECK(!flag, "a deleted attribute is found");
    MTEST_MPI(MPI_Win_set_attr(win, key, &copies));
    MTEST_MPI(MPI_Win_free_keyval(&key));
    MTEST_CHECK(key == MPI_KEYVAL_INVALID, "free_keyval does not reset the keyval");

    mtest_set_context("names");
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MTEST_MPI(MPI_Win_get_name(win, name, &len));
    MTEST_CHECK(len == (int)strlen(name), "default name length");
    MTEST_MPI(MPI_Win_set_name(win, "remora test window"));
    MTEST_MPI(MPI_Win_get_name(win, name, &len));
    MTEST_CHECK(!strcmp(name, "remora test window") && len == 18, "name '%s' (%d)", name, len);

    mtest_set_context("info");
    MPI_Info info, info2;
    MTEST_MPI(MPI_Win_get_info(win, &info));
    MTEST_CHECK(info != MPI_INFO_NULL, "MPI_Win_get_info gives MPI_INFO_NULL");
    MPI_Info_create(&info2);
    MPI_Info_set(info2, "no_locks", "false");
    MTEST_MPI(MPI_Win_set_info(win, info2));
    MPI_Info_free(&info2);
    MPI_Info_free(&info);
    MTEST_MPI(MPI_Win_get_info(win, &info));
    MPI_Info_free(&info);

    mtest_set_context("group");
    MPI_Group g, wg;
    MTEST_MPI(MPI_Win_get_group(win, &g));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int cmp;
    MPI_Group_compare(g, wg, &cmp);
    MTEST_CHECK(cmp == MPI_IDENT, "window group is not the communicator's");
    MPI_Group_free(&g);
    MPI_Group_free(&wg);

    mtest_set_context("error handlers");
    MPI_Errhandler eh, cur;
    MTEST_MPI(MPI_Win_get_errhandler(win, &cur));
    MTEST_CHECK(cur == MPI_ERRORS_ARE_FATAL, "default window error handler is not MPI_ERRORS_ARE_FATAL");
    /* predefined handlers are not freed: Open MPI 4.1 corrupts its heap then */
    MTEST_MPI(MPI_Win_create_errhandler(handler, &eh));
    MTEST_MPI(MPI_Win_set_errhandler(win, eh));
    MTEST_MPI(MPI_Errhandler_free(&eh)); /* still set: must keep working */
    MTEST_MPI(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    MTEST_CHECK(handler_calls == 1 && handler_win == win && handler_code == MPI_ERR_OTHER,
                "user handler: %d calls, code %d", handler_calls, handler_code);
    long x = 0;
    int rc = MPI_Put(&x, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win); /* outside an epoch */
    if (rc != MPI_SUCCESS || handler_calls > 1) /* a host may not detect it */
        MTEST_CHECK(handler_calls == 2 && handler_win == win, "user handler not called for an RMA error (%d calls)",
                    handler_calls);
    else
        MTEST_CHECK(!mtest.remora, "Remora: a put outside an epoch did not call the handler");
    /* a handle MPI_Win_get_errhandler gave out is freed on its own; the window keeps the handler */
    int calls = handler_calls;
    MTEST_MPI(MPI_Win_get_errhandler(win, &cur));
    MTEST_MPI(MPI_Errhandler_free(&cur));
    MTEST_CHECK(cur == MPI_ERRHANDLER_NULL, "MPI_Errhandler_free did not reset the handle");
    MTEST_MPI(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    MTEST_CHECK(handler_calls == calls + 1, "the window lost its handler when a handle of it was freed");
    MTEST_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MTEST_MPI(MPI_Win_get_errhandler(win, &cur));
    MTEST_CHECK(cur == MPI_ERRORS_RETURN, "error handler after set");

    mtest_set_context("c2f / f2c");
    MPI_Fint f = MPI_Win_c2f(win);
    MTEST_CHECK(MPI_Win_f2c(f) == win, "MPI_Win_f2c(MPI_Win_c2f(win)) != win");

    deletes = 0;
    MTEST_MPI(MPI_Win_free(&win));
    MTEST_EQ(deletes, 1, "delete callbacks at MPI_Win_free");
    return mtest_finish();
}
