/* Median, mean, standard deviation, minimum and maximum of the repeats. */
#include <math.h>
#include <stdlib.h>

#include "rmamt.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct stats summarize(double *v, int n)
{
    struct stats s = {0};
    if (n <= 0)
        return s;
    qsort(v, (size_t)n, sizeof *v, cmp);
    s.min = v[0];
    s.max = v[n - 1];
    s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    for (int i = 0; i < n; i++)
        s.mean += v[i] / n;
    for (int i = 0; i < n; i++)
        s.stddev += (v[i] - s.mean) * (v[i] - s.mean);
    s.stddev = n > 1 ? sqrt(s.stddev / (n - 1)) : 0;
    return s;
}
