/* Results as a table for people, CSV or JSON for scripts (fields in
 * bench/rmamt/README.md). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "rmamt.h"

/* The MPI library's version, first line, without characters CSV or JSON mind. */
static const char *library(void)
{
    static char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(v, &len);
    v[strcspn(v, "\n\r,")] = 0;
    for (char *p = v; *p; p++)
        if (*p == '"' || *p == '\\')
            *p = ' ';
    return v;
}

/* 1 when Remora serves this process's RMA (it exports remora_active). */
static int remora(void)
{
    int (*active)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "remora_active");
    return active && active();
}

static const char *what(const struct options *o)
{
    return o->bench == B_TWOSIDED ? pattern_name(o->pattern) : op_name(o->op);
}

void output_points(const struct options *o, const struct point *p, int n, FILE *f)
{
    const char *sync = o->bench == B_TWOSIDED ? "isend_irecv" : sync_name(o->sync);
    const char *win = o->bench == B_TWOSIDED ? "-" : win_name(o->win);
    switch (o->format) {
    case F_TABLE:
        fprintf(f, "# rmamt %s  sync %s  op %s  window %s  %s%s\n", bench_name(o->bench), sync, what(o), win,
                library(), remora() ? "  (RMA by Remora)" : "");
        fprintf(f, "%8s %10s %14s %12s %12s %12s %12s %12s %s\n", "threads", "size", "metric", "median", "mean",
                "stddev", "min", "max", "verified");
        for (int i = 0; i < n; i++)
            fprintf(f, "%8d %10zu %14s %12.3f %12.3f %12.3f %12.3f %12.3f %s\n", p[i].threads, p[i].size, p[i].metric,
                    p[i].s.median, p[i].s.mean, p[i].s.stddev, p[i].s.min, p[i].s.max,
                    !o->verify ? "off" : p[i].errors ? "FAILED" : "yes");
        break;
    case F_CSV:
        fprintf(f, "benchmark,sync,op,window,threads,size,iterations,repeat,metric,median,mean,stddev,min,max,"
                   "verified,errors,remora,library\n");
        for (int i = 0; i < n; i++)
            fprintf(f, "%s,%s,%s,%s,%d,%zu,%ld,%d,%s,%.6g,%.6g,%.6g,%.6g,%.6g,%s,%ld,%d,%s\n", bench_name(o->bench),
                    sync, what(o), win, p[i].threads, p[i].size, o->iterations, o->repeat, p[i].metric, p[i].s.median,
                    p[i].s.mean, p[i].s.stddev, p[i].s.min, p[i].s.max, !o->verify ? "off" : p[i].errors ? "no" : "yes",
                    p[i].errors, remora(), library());
        break;
    case F_JSON:
        fprintf(f, "{\"benchmark\": \"%s\", \"sync\": \"%s\", \"op\": \"%s\", \"window\": \"%s\", \"iterations\": %ld, "
                   "\"repeat\": %d, \"remora\": %s, \"library\": \"%s\", \"results\": [",
                bench_name(o->bench), sync, what(o), win, o->iterations, o->repeat, remora() ? "true" : "false",
                library());
        for (int i = 0; i < n; i++)
            fprintf(f, "%s\n  {\"threads\": %d, \"size\": %zu, \"metric\": \"%s\", \"median\": %.6g, \"mean\": %.6g, "
                       "\"stddev\": %.6g, \"min\": %.6g, \"max\": %.6g, \"verified\": \"%s\", \"errors\": %ld}",
                    i ? "," : "", p[i].threads, p[i].size, p[i].metric, p[i].s.median, p[i].s.mean, p[i].s.stddev,
                    p[i].s.min, p[i].s.max, !o->verify ? "off" : p[i].errors ? "no" : "yes", p[i].errors);
        fprintf(f, "\n]}\n");
        break;
    }
}
