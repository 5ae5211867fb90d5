/* What foMPI's application motifs (hashtable, dsde, fft3d, milc) share: the
 * times of their phases and the one result line per mode that
 * scripts/motifs-compare reads.
 *
 *   struct motif_times t = {0};
 *   double t0 = MPI_Wtime(); ...; motif_phase(&t, "insert", MPI_Wtime() - t0);
 *   motif_report(MPI_COMM_WORLD, "hashtable", "rma", &t, verdict);
 *
 * With --repeat R, a motif times R runs and reports the median one:
 *   motif_report(comm, ..., &runs[motif_median_run(comm, runs, R, NULL)], verdict);
 *
 * prints on rank 0, each time the maximum over the ranks, in seconds:
 *
 *   hashtable mode=rma np=4 time=1.234e-03 insert=1.0e-03 sync=2.3e-04 verify=ok
 *
 * time= is the sum of the phases; verify= is ok, FAILED or off (not asked). */
#ifndef MOTIF_H
#define MOTIF_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MOTIF_MAX_PHASES = 8 };
enum motif_verdict { MOTIF_UNCHECKED = -1, MOTIF_FAILED = 0, MOTIF_OK = 1 };

struct motif_times {
    int n;
    const char *name[MOTIF_MAX_PHASES]; /* string literals */
    double seconds[MOTIF_MAX_PHASES];
};

/* adds seconds to the phase called name (created at its first use) */
static inline void motif_phase(struct motif_times *t, const char *name, double seconds)
{
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->name[i], name) == 0) {
            t->seconds[i] += seconds;
            return;
        }
    if (t->n < MOTIF_MAX_PHASES) {
        t->name[t->n] = name;
        t->seconds[t->n++] = seconds;
    }
}

/* the time= motif_report prints for a run: its phases' maxima over the ranks,
 * summed (collective) */
static inline double motif_time(MPI_Comm comm, const struct motif_times *t)
{
    double worst[MOTIF_MAX_PHASES], total = 0;
    MPI_Allreduce(t->seconds, worst, t->n, MPI_DOUBLE, MPI_MAX, comm);
    for (int i = 0; i < t->n; i++)
        total += worst[i];
    return total;
}

/* the run of runs[0 .. n-1] whose time= is the median (the upper one when n
 * is even), the same on every rank; its time in *seconds if not NULL
 * (collective) */
static inline int motif_median_run(MPI_Comm comm, const struct motif_times *runs, int n, double *seconds)
{
    double *time = malloc(sizeof *time * (size_t)n);
    int median = 0;
    for (int r = 0; r < n; r++)
        time[r] = motif_time(comm, &runs[r]);
    for (int r = 0; r < n; r++) {
        int place = 0; /* r's place in the sorted order, ties by index */
        for (int q = 0; q < n; q++)
            place += time[q] < time[r] || (time[q] == time[r] && q < r);
        if (place == n / 2)
            median = r;
    }
    if (seconds)
        *seconds = time[median];
    free(time);
    return median;
}

/* the result line (collective over comm: every rank must call it with the same
 * phases in the same order); returns 0 when the verdict is not MOTIF_FAILED on
 * any rank, else 1, for the exit status */
static inline int motif_report(MPI_Comm comm, const char *motif, const char *mode,
                               const struct motif_times *t, enum motif_verdict verdict)
{
    double worst[MOTIF_MAX_PHASES];
    int rank, size, v = verdict, vmin;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Reduce(t->seconds, worst, t->n, MPI_DOUBLE, MPI_MAX, 0, comm);
    MPI_Allreduce(&v, &vmin, 1, MPI_INT, MPI_MIN, comm);
    if (rank == 0) {
        double total = 0;
        for (int i = 0; i < t->n; i++)
            total += worst[i];
        printf("%s mode=%s np=%d time=%.6e", motif, mode, size, total);
        for (int i = 0; i < t->n; i++)
            printf(" %s=%.6e", t->name[i], worst[i]);
        printf(" verify=%s\n", vmin == MOTIF_FAILED ? "FAILED" : vmin == MOTIF_OK ? "ok" : "off");
        fflush(stdout);
    }
    return vmin == MOTIF_FAILED;
}

#endif
