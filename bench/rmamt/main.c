/* rmamt SUBCOMMAND [options]: runs every (threads, size) point --repeat
 * times and prints the statistics (see usage() in cli.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rmamt.h"

static const char *metric_of(const struct options *o)
{
    enum bench b = o->bench;
    if (b == B_TWOSIDED)
        b = o->pattern == P_LATENCY ? B_LATENCY : o->pattern == P_BANDWIDTH ? B_BANDWIDTH : B_MSGRATE;
    return b == B_LATENCY ? "latency_us" : b == B_BANDWIDTH ? "bandwidth_MBps" : "msgrate_Mmsgs";
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
    struct options o;
    char err[256];
    int perr = parse_options(argc, argv, &o, err, sizeof err);
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (perr) {
        if (rank == 0) {
            fprintf(stderr, "rmamt: %s\n", err);
            usage(stderr);
        }
        MPI_Finalize();
        return 2;
    }
    int maxthreads = 0;
    for (int i = 0; i < o.nthreads; i++)
        maxthreads = o.threads[i] > maxthreads ? o.threads[i] : maxthreads;
    const char *problem = NULL;
    if (size < 2)
        problem = "needs at least 2 ranks";
    else if ((maxthreads > 1 || o.thread_per_neighbor) && provided < MPI_THREAD_MULTIPLE)
        problem = "more than one thread needs MPI_THREAD_MULTIPLE, which this MPI does not provide";
    if (problem) {
        if (rank == 0)
            fprintf(stderr, "rmamt: %s\n", problem);
        MPI_Finalize();
        return 2;
    }
    if (o.timeout > 0)
        watchdog_start(o.timeout);
    if (o.inject_hang && rank == 1) {
        watchdog_doing("rank 1 hanging on purpose (--inject-hang)");
        for (;;)
            pause();
    }
    FILE *out = stdout;
    if (rank == 0 && o.output && !(out = fopen(o.output, "w"))) {
        perror(o.output);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int npoints = o.nthreads * o.nsizes, k = 0, failed = 0;
    struct point *points = calloc((size_t)npoints, sizeof *points);
    double *samples = malloc(sizeof *samples * (size_t)o.repeat);
    int progress = rank == 0 && isatty(2);
    for (int ti = 0; ti < o.nthreads; ti++)
        for (int si = 0; si < o.nsizes; si++, k++) {
            struct point *p = &points[k];
            p->threads = o.threads[ti];
            p->size = o.sizes[si];
            p->metric = metric_of(&o);
            for (int rep = 0; rep < o.repeat; rep++) {
                watchdog_doing("running %s (sync %s, op %s) with %d threads, %zu bytes, repeat %d",
                               bench_name(o.bench), sync_name(o.sync), op_name(o.op), p->threads, p->size, rep + 1);
                if (progress)
                    fprintf(stderr, "\r[%d/%d] threads %d size %zu repeat %d   ", k + 1, npoints, p->threads,
                            p->size, rep + 1);
                long errors = 0;
                samples[rep] = o.bench == B_TWOSIDED ? run_twosided(&o, p->threads, p->size, &errors)
                                                     : run_onesided(&o, p->threads, p->size, &errors);
                if (errors < 0) {
                    if (rank == 0)
                        fprintf(stderr, "rmamt: cannot create the %s window\n", win_name(o.win));
                    MPI_Abort(MPI_COMM_WORLD, 2);
                }
                p->errors += errors;
            }
            p->s = summarize(samples, o.repeat);
            failed |= p->errors != 0;
        }
    if (progress)
        fprintf(stderr, "\n");
    watchdog_doing("finishing");
    if (rank == 0) {
        output_points(&o, points, npoints, out);
        if (out != stdout)
            fclose(out);
        if (failed)
            fprintf(stderr, "rmamt: VERIFICATION FAILED (see the first mismatches above)\n");
    }
    free(points);
    free(samples);
    MPI_Finalize();
    return failed ? 1 : 0;
}
