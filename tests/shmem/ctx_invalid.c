/* SHMEM_CTX_INVALID where OpenSHMEM 1.6 defines it: shmem_ctx_quiet,
 * shmem_ctx_fence, shmem_ctx_pe_quiet and shmem_ctx_destroy perform no
 * operation, shmem_ctx_get_team returns nonzero and SHMEM_TEAM_INVALID; the
 * session routines on it do nothing either.  Then the spec's example of
 * shmem_team_create_ctx: contexts on teams of every 2nd and every 3rd PE,
 * SHMEM_CTX_INVALID on the PEs outside a team, and every PE quiets both
 * contexts (at 2 PEs, PE 1 is in no team of every 3rd PE). */
#include "shtest.h"

static void invalid_is_no_op(void)
{
    shmem_ctx_t bad = SHMEM_CTX_INVALID;
    int pes[1] = {shmem_my_pe()};
    shmem_ctx_quiet(bad);
    shmem_ctx_fence(bad);
    shmem_ctx_pe_quiet(bad, pes, 1);
    shmem_ctx_session_start(bad, SHMEM_SESSION_BATCH, NULL, 0);
    shmem_ctx_session_stop(bad);
    shmem_team_t team = SHMEM_TEAM_WORLD;
    SHT_CHECK(shmem_ctx_get_team(bad, &team) != 0, "shmem_ctx_get_team(SHMEM_CTX_INVALID) returned 0");
    SHT_CHECK(team == SHMEM_TEAM_INVALID, "shmem_ctx_get_team(SHMEM_CTX_INVALID) did not give SHMEM_TEAM_INVALID");
    shmem_ctx_destroy(bad);
}

/* The example of shmem_team_create_ctx in the OpenSHMEM 1.6 text, with a check. */
static void spec_example(void)
{
    static int sum;
    static int val;
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_team_t team_2s, team_3s;
    shmem_ctx_t ctx_2s, ctx_3s;
    shmem_team_config_t conf;
    conf.num_contexts = 1;
    long cmask = SHMEM_TEAM_NUM_CONTEXTS;
    sum = 0;
    val = me;
    shmem_barrier_all();
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, &conf, cmask, &team_2s);
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 3, (npes + 2) / 3, &conf, cmask, &team_3s);
    int ret_2s = shmem_team_create_ctx(team_2s, 0, &ctx_2s);
    int ret_3s = shmem_team_create_ctx(team_3s, 0, &ctx_3s);
    if (ret_2s != 0)
        ctx_2s = SHMEM_CTX_INVALID;
    if (ret_3s != 0)
        ctx_3s = SHMEM_CTX_INVALID;
    SHT_CHECK((me % 2 == 0) == (ctx_2s != SHMEM_CTX_INVALID), "context on the team of every 2nd PE");
    SHT_CHECK((me % 3 == 0) == (ctx_3s != SHMEM_CTX_INVALID), "context on the team of every 3rd PE");
    if (ctx_2s != SHMEM_CTX_INVALID) /* PE 0 of the team of every 2nd PE is world PE 0 */
        shmem_ctx_int_atomic_add(ctx_2s, &sum, val, 0);
    if (ctx_3s != SHMEM_CTX_INVALID)
        shmem_ctx_int_atomic_add(ctx_3s, &sum, val, 0);
    shmem_ctx_quiet(ctx_2s); /* SHMEM_CTX_INVALID on some PEs: no operation */
    shmem_ctx_quiet(ctx_3s);
    shmem_barrier_all();
    if (me == 0) {
        int want = 0;
        for (int pe = 0; pe < npes; pe++)
            want += (pe % 2 == 0 ? pe : 0) + (pe % 3 == 0 ? pe : 0);
        SHT_CHECK(sum == want, "the example's sum is %d, not %d", sum, want);
    }
    shmem_ctx_destroy(ctx_2s);
    shmem_ctx_destroy(ctx_3s);
    if (team_2s != SHMEM_TEAM_INVALID)
        shmem_team_destroy(team_2s);
    if (team_3s != SHMEM_TEAM_INVALID)
        shmem_team_destroy(team_3s);
}

int main(void)
{
    shmem_init();
    invalid_is_no_op();
    spec_example();
    return sht_finish("ctx_invalid");
}
