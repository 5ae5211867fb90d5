/* Teams: strided splits (stride 1, 2, 3, negative, 0 with size 1), 2D splits
 * (xrange 2, 3, beyond the team), splits of splits, checked member by member
 * through team_my_pe, team_n_pes and team_translate_pe; SHMEM_TEAM_SHARED
 * (shmem_ptr reaches every member); configurations; contexts made from a
 * team (a put with team PE numbers lands on the right world PE); team_sync,
 * sync_all and barrier_all (completes puts); team_destroy (with a context
 * still alive too); and every invalid input the spec defines a result for. */
#include "coll_util.h"

static int target[128];
static int *heap; /* symmetric heap: mapped by the node's PEs */
static long word;

/* The team must hold world PE pes[i] as its PE i, i < size (pes NULL: this PE is not in it). */
static void check_members(const char *what, shmem_team_t t, const int *pes, int size)
{
    int me = shmem_my_pe(), n = shmem_n_pes(), mine = -1;
    for (int i = 0; pes && i < size; i++)
        if (pes[i] == me)
            mine = i;
    if (mine < 0) {
        EXPECT(t == SHMEM_TEAM_INVALID, "%s: PE %d is not a member but has a team", what, me);
        return;
    }
    if (t == SHMEM_TEAM_INVALID) {
        FAIL("%s: PE %d is a member but has no team", what, me);
        return;
    }
    EXPECT(shmem_team_n_pes(t) == size, "%s: %d PEs, not %d", what, shmem_team_n_pes(t), size);
    EXPECT(shmem_team_my_pe(t) == mine, "%s: my PE is %d, not %d", what, shmem_team_my_pe(t), mine);
    for (int i = 0; i < size; i++)
        EXPECT(wpe(t, i) == pes[i], "%s: PE %d is world PE %d, not %d", what, i, wpe(t, i), pes[i]);
    for (int w = 0; w < n; w++) {
        int want = -1;
        for (int i = 0; i < size; i++)
            if (pes[i] == w)
                want = i;
        EXPECT(shmem_team_translate_pe(SHMEM_TEAM_WORLD, w, t) == want, "%s: world PE %d translates to %d, not %d",
               what, w, shmem_team_translate_pe(SHMEM_TEAM_WORLD, w, t), want);
    }
    EXPECT(shmem_team_translate_pe(t, size, SHMEM_TEAM_WORLD) == -1 && shmem_team_translate_pe(t, -1, t) == -1,
           "%s: a PE outside the team translates", what);
    EXPECT(shmem_team_sync(t) == 0, "%s: shmem_team_sync failed", what);
}

/* Strided splits of parent, whose PE p is world PE pw[p]. */
static void strided(shmem_team_t parent, const int *pw, int pn, int start, int stride, int size)
{
    char what[64];
    snprintf(what, sizeof what, "strided(%d,%d,%d) of %d PEs", start, stride, size, pn);
    shmem_team_t t = (shmem_team_t)&word; /* must be overwritten */
    int rc = shmem_team_split_strided(parent, start, stride, size, NULL, 0, &t);
    EXPECT(rc == 0, "%s: returned %d", what, rc);
    int pes[64];
    for (int i = 0; i < size; i++)
        pes[i] = pw[start + i * stride];
    check_members(what, t, pes, size);
    if (t != SHMEM_TEAM_INVALID)
        shmem_team_destroy(t);
}

static void strided_all(shmem_team_t parent, const int *pw, int pn)
{
    strided(parent, pw, pn, 0, 1, pn);
    strided(parent, pw, pn, 0, 2, (pn + 1) / 2);
    if (pn >= 2)
        strided(parent, pw, pn, 1, 2, pn / 2);
    strided(parent, pw, pn, 0, 3, (pn + 2) / 3);
    if (pn >= 3)
        strided(parent, pw, pn, 2, 3, pn / 3);
    strided(parent, pw, pn, pn - 1, -1, pn);
    strided(parent, pw, pn, pn - 1, -2, (pn + 1) / 2);
    if (pn >= 2)
        strided(parent, pw, pn, pn - 2, -3, (pn - 2) / 3 + 1);
    strided(parent, pw, pn, pn / 2, 0, 1);
    strided(parent, pw, pn, pn - 1, 0, 1);
}

/* (x, y) = (p mod xrange, p div xrange) over the parent's PEs p. */
static void split_2d(shmem_team_t parent, const int *pw, int pn, int xrange)
{
    char what[64];
    shmem_team_t x, y;
    int rc = shmem_team_split_2d(parent, xrange, NULL, 0, &x, NULL, 0, &y);
    EXPECT(rc == 0, "2d(%d) of %d PEs: returned %d", xrange, pn, rc);
    int p = shmem_team_my_pe(parent), px = p % xrange, py = p / xrange, pes[64], k = 0;
    for (int i = py * xrange; i < pn && i < (py + 1) * xrange; i++)
        pes[k++] = pw[i];
    snprintf(what, sizeof what, "2d(%d) of %d PEs: x team %d", xrange, pn, py);
    check_members(what, x, pes, k);
    k = 0;
    for (int i = px; i < pn; i += xrange)
        pes[k++] = pw[i];
    snprintf(what, sizeof what, "2d(%d) of %d PEs: y team %d", xrange, pn, px);
    check_members(what, y, pes, k);
    EXPECT(shmem_team_my_pe(x) == px && shmem_team_my_pe(y) == py, "2d(%d): my PEs are not my coordinates", xrange);
    shmem_team_destroy(x);
    shmem_team_destroy(y);
}

static void invalid_split(const char *what, shmem_team_t parent, int start, int stride, int size,
                          const shmem_team_config_t *config, long mask)
{
    shmem_team_t t = (shmem_team_t)&word;
    int rc = shmem_team_split_strided(parent, start, stride, size, config, mask, &t);
    EXPECT(rc != 0 && t == SHMEM_TEAM_INVALID, "%s: returned %d and %s team", what, rc,
           t == SHMEM_TEAM_INVALID ? "no" : "a");
}

static void invalid_inputs(void)
{
    int n = shmem_n_pes();
    invalid_split("start n", SHMEM_TEAM_WORLD, n, 1, 1, NULL, 0);
    invalid_split("start -1", SHMEM_TEAM_WORLD, -1, 1, 1, NULL, 0);
    invalid_split("size n+1", SHMEM_TEAM_WORLD, 0, 1, n + 1, NULL, 0);
    invalid_split("size 0", SHMEM_TEAM_WORLD, 0, 1, 0, NULL, 0);
    invalid_split("stride 0, size 2", SHMEM_TEAM_WORLD, 0, 0, 2, NULL, 0);
    invalid_split("wrap below 0", SHMEM_TEAM_WORLD, 0, -1, 2, NULL, 0);
    invalid_split("wrap past n-1", SHMEM_TEAM_WORLD, n - 1, 1, 2, NULL, 0);
    invalid_split("stride 2, size n", SHMEM_TEAM_WORLD, 0, 2, n + (n == 1), NULL, 0);
    invalid_split("SHMEM_TEAM_INVALID parent", SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0);
    invalid_split("an unknown config bit", SHMEM_TEAM_WORLD, 0, 1, n, NULL, 1L << 7);
    shmem_team_config_t bad = {.num_contexts = -1};
    /* the members of the new team only see the bad configuration: every PE returns nonzero */
    invalid_split("num_contexts -1 on PE 0", SHMEM_TEAM_WORLD, 0, 1, n, shmem_my_pe() == 0 ? &bad : NULL,
                  shmem_my_pe() == 0 ? SHMEM_TEAM_NUM_CONTEXTS : 0);
    invalid_split("config NULL with a mask", SHMEM_TEAM_WORLD, 0, 1, n, NULL, SHMEM_TEAM_NUM_CONTEXTS);

    shmem_team_t x = (shmem_team_t)&word, y = (shmem_team_t)&word;
    EXPECT(shmem_team_split_2d(SHMEM_TEAM_INVALID, 2, NULL, 0, &x, NULL, 0, &y) != 0 && x == SHMEM_TEAM_INVALID &&
               y == SHMEM_TEAM_INVALID, "2d of SHMEM_TEAM_INVALID made teams");
    x = y = (shmem_team_t)&word;
    EXPECT(shmem_team_split_2d(SHMEM_TEAM_WORLD, 0, NULL, 0, &x, NULL, 0, &y) != 0 && x == SHMEM_TEAM_INVALID &&
               y == SHMEM_TEAM_INVALID, "2d with xrange 0 made teams");

    shmem_team_config_t c;
    EXPECT(shmem_team_sync(SHMEM_TEAM_INVALID) != 0, "team_sync(SHMEM_TEAM_INVALID) returned 0");
    EXPECT(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1 && shmem_team_n_pes(SHMEM_TEAM_INVALID) == -1,
           "team_my_pe/team_n_pes of SHMEM_TEAM_INVALID are not -1");
    EXPECT(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD) == -1 &&
               shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, SHMEM_TEAM_INVALID) == -1 &&
               shmem_team_translate_pe(SHMEM_TEAM_WORLD, n, SHMEM_TEAM_WORLD) == -1,
           "translate_pe with an invalid input is not -1");
    EXPECT(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &c) != 0,
           "get_config(SHMEM_TEAM_INVALID) returned 0");
    EXPECT(shmem_int_sum_reduce(SHMEM_TEAM_INVALID, target, target + 1, 1) != 0 &&
               shmem_int_broadcast(SHMEM_TEAM_INVALID, target, target + 1, 1, 0) != 0 &&
               shmem_int_sum_inscan(SHMEM_TEAM_INVALID, target, target + 1, 1) != 0,
           "a collective on SHMEM_TEAM_INVALID returned 0");
    shmem_ctx_t ctx;
    EXPECT(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &ctx) != 0 && ctx == SHMEM_CTX_INVALID,
           "a context of SHMEM_TEAM_INVALID");
    shmem_team_destroy(SHMEM_TEAM_INVALID); /* no operation */
}

/* Each PE puts its world number into target[t] of team PE t+1 through a
 * context of the reversed team (team PE i is world PE n-1-i): with the team's
 * numbers translated, it lands at world PE n-2-... and nowhere else. */
static void contexts(void)
{
    int n = shmem_n_pes(), me = shmem_my_pe();
    shmem_team_t rev, got;
    shmem_team_config_t cfg = {.num_contexts = 2}, back = {0};
    EXPECT(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &rev) == 0,
           "the reversed team");
    EXPECT(shmem_team_get_config(rev, SHMEM_TEAM_NUM_CONTEXTS, &back) == 0 && back.num_contexts == 2,
           "get_config: num_contexts %d, not 2", back.num_contexts);
    shmem_ctx_t ctx;
    EXPECT(shmem_team_create_ctx(rev, 0, &ctx) == 0, "a context of the reversed team");
    EXPECT(shmem_ctx_get_team(ctx, &got) == 0 && got == rev, "shmem_ctx_get_team is not the reversed team");
    for (int i = 0; i < n; i++)
        target[i] = -1;
    shmem_barrier_all();
    int t = shmem_team_my_pe(rev), next = (t + 1) % n, prev = (t + n - 1) % n;
    shmem_ctx_int_p(ctx, &target[t], me, next);
    shmem_ctx_int_put(ctx, &target[n + t], &me, 1, next);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    for (int i = 0; i < n; i++) {
        int want = i == prev ? n - 1 - prev : -1;
        EXPECT(target[i] == want, "context of the reversed team: target[%d] is %d, not %d", i, target[i], want);
    }
    EXPECT(target[n + prev] == n - 1 - prev, "context of the reversed team: put landed wrong");
    EXPECT(shmem_team_translate_pe(rev, t, SHMEM_TEAM_WORLD) == me, "translate of my own team PE");
    shmem_barrier_all(); /* every PE has read target before the next phase writes it */
    /* a context still alive when its team is destroyed: operations on it are
     * not allowed, destroying it is */
    shmem_team_destroy(rev);
    shmem_ctx_destroy(ctx);
}

/* SHMEM_TEAM_SHARED: the PEs whose memory is mapped here. */
static void shared(void)
{
    int n = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    EXPECT(n >= 1 && shmem_team_my_pe(SHMEM_TEAM_SHARED) >= 0, "SHMEM_TEAM_SHARED has %d PEs", n);
    for (int i = 0; i < n; i++) {
        EXPECT(shmem_team_ptr(SHMEM_TEAM_SHARED, heap, i) != NULL, "team_ptr to SHARED PE %d is NULL", i);
        EXPECT(shmem_ptr(heap, wpe(SHMEM_TEAM_SHARED, i)) != NULL, "shmem_ptr to SHARED PE %d is NULL", i);
    }
    int pw[64];
    for (int i = 0; i < n; i++)
        pw[i] = wpe(SHMEM_TEAM_SHARED, i);
    strided_all(SHMEM_TEAM_SHARED, pw, n);
}

/* barrier_all completes every PE's puts; sync_all orders the phases */
static void barriers(void)
{
    int n = shmem_n_pes(), me = shmem_my_pe();
    for (int round = 1; round <= 3; round++) {
        shmem_int_p(&target[me % 64], round * 100 + me, (me + round) % n);
        shmem_barrier_all();
        int from = (me + n - round % n) % n;
        EXPECT(target[from % 64] == round * 100 + from, "barrier_all round %d: PE %d's put missing", round, from);
        shmem_sync_all();
    }
}

int main(void)
{
    shmem_init();
    int n = shmem_n_pes(), world[64] = {0};
    if (n > 64) {
        FAIL("this test runs on at most 64 PEs");
        return finish("teams");
    }
    for (int i = 0; i < n; i++)
        world[i] = i;
    strided_all(SHMEM_TEAM_WORLD, world, n);
    /* splits of a split: the reversed team and the even PEs as parents */
    shmem_team_t rev, even;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, NULL, 0, &rev);
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &even);
    int rw[64] = {0}, ew[64] = {0};
    for (int i = 0; i < n; i++)
        rw[i] = n - 1 - i, ew[i] = 2 * i;
    strided_all(rev, rw, n);
    if (even != SHMEM_TEAM_INVALID)
        strided_all(even, ew, (n + 1) / 2);
    int xr[] = {1, 2, 3, n + 1};
    for (int k = 0; k < 4; k++) {
        split_2d(SHMEM_TEAM_WORLD, world, n, xr[k]);
        split_2d(rev, rw, n, xr[k]);
        if (even != SHMEM_TEAM_INVALID)
            split_2d(even, ew, (n + 1) / 2, xr[k]);
    }
    shmem_team_destroy(rev);
    if (even != SHMEM_TEAM_INVALID)
        shmem_team_destroy(even);
    heap = shmem_malloc(64);
    shared();
    invalid_inputs();
    contexts();
    barriers();
    /* made and destroyed over and over: nothing runs out */
    for (int i = 0; i < 50; i++) {
        shmem_team_t t;
        EXPECT(shmem_team_split_strided(SHMEM_TEAM_WORLD, i % n, 0, 1, NULL, 0, &t) == 0, "split %d failed", i);
        if (t != SHMEM_TEAM_INVALID)
            shmem_team_destroy(t);
    }
    shmem_free(heap);
    return finish("teams");
}
