/* minimd's neighbour lists (link cells) and Lennard-Jones forces.  Half
 * lists: a pair of local atoms is listed once (j > i); a local atom and a
 * ghost are listed on one of the two ranks only, the one that sees the ghost
 * above the local atom (z, then y, then x of the displacement): the other
 * rank sees the displacement reversed.  Forces on ghosts go back to their
 * owners by the reverse communication. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "minimd.h"

static int above(const double dx[3]) /* the displacement points "up" */
{
    return dx[2] > 0 || (dx[2] == 0 && (dx[1] > 0 || (dx[1] == 0 && dx[0] > 0)));
}

void neighbour_build(const struct domain *d, const struct atoms *a, struct neighbours *nb)
{
    const int nall = a->nlocal + a->nghost;
    /* cells of at least cutneigh over my box and its ghost layer */
    int nc[3];
    double origin[3], size[3];
    for (int k = 0; k < 3; k++) {
        double extent = d->hi[k] - d->lo[k] + 2 * d->cutneigh;
        nc[k] = (int)(extent / d->cutneigh);
        if (nc[k] < 1)
            nc[k] = 1;
        origin[k] = d->lo[k] - d->cutneigh;
        size[k] = extent / nc[k];
    }
    const int ncells = nc[0] * nc[1] * nc[2];
    int *cell_of = malloc(sizeof(int) * (size_t)(nall ? nall : 1)), *start = calloc((size_t)ncells + 1, sizeof(int)),
        *members = malloc(sizeof(int) * (size_t)(nall ? nall : 1));
    for (int i = 0; i < nall; i++) {
        int c[3];
        for (int k = 0; k < 3; k++) {
            c[k] = (int)floor((a->x[3 * i + k] - origin[k]) / size[k]);
            c[k] = c[k] < 0 ? 0 : c[k] >= nc[k] ? nc[k] - 1 : c[k];
        }
        cell_of[i] = (c[2] * nc[1] + c[1]) * nc[0] + c[0];
        start[cell_of[i] + 1]++;
    }
    for (int c = 0; c < ncells; c++)
        start[c + 1] += start[c];
    int *fill = malloc(sizeof(int) * (size_t)ncells);
    memcpy(fill, start, sizeof(int) * (size_t)ncells);
    for (int i = 0; i < nall; i++) /* in atom order: the lists do not depend on timing */
        members[fill[cell_of[i]]++] = i;

    if (nb->cap_start < a->nlocal + 1) {
        nb->cap_start = a->nlocal + 1;
        nb->start = minimd_grow(nb->start, sizeof(int) * (size_t)nb->cap_start);
    }
    const double cut2 = d->cutneigh * d->cutneigh;
    int n = 0;
    for (int i = 0; i < a->nlocal; i++) {
        nb->start[i] = n;
        const double *xi = &a->x[3 * i];
        int ci = cell_of[i], cx = ci % nc[0], cy = ci / nc[0] % nc[1], cz = ci / (nc[0] * nc[1]);
        for (int z = cz - 1; z <= cz + 1; z++)
            for (int y = cy - 1; y <= cy + 1; y++)
                for (int x = cx - 1; x <= cx + 1; x++) {
                    if (x < 0 || y < 0 || z < 0 || x >= nc[0] || y >= nc[1] || z >= nc[2])
                        continue;
                    int c = (z * nc[1] + y) * nc[0] + x;
                    for (int m = start[c]; m < start[c + 1]; m++) {
                        int j = members[m];
                        const double dx[3] = {a->x[3 * j] - xi[0], a->x[3 * j + 1] - xi[1], a->x[3 * j + 2] - xi[2]};
                        if (j < a->nlocal ? j <= i : !above(dx))
                            continue;
                        if (dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2] >= cut2)
                            continue;
                        if (n == nb->cap_list) {
                            nb->cap_list = 2 * nb->cap_list + 1024;
                            nb->list = minimd_grow(nb->list, sizeof(int) * (size_t)nb->cap_list);
                        }
                        nb->list[n++] = j;
                    }
                }
    }
    nb->start[a->nlocal] = n;
    free(cell_of);
    free(start);
    free(members);
    free(fill);
}

double force_compute(const struct domain *d, struct atoms *a, const struct neighbours *nb)
{
    const double cut2 = d->cutforce * d->cutforce;
    double pe = 0.0;
    memset(a->f, 0, sizeof(double) * 3 * (size_t)(a->nlocal + a->nghost));
    for (int i = 0; i < a->nlocal; i++) {
        const double *xi = &a->x[3 * i];
        double *fi = &a->f[3 * i];
        for (int m = nb->start[i]; m < nb->start[i + 1]; m++) {
            int j = nb->list[m];
            double dx = xi[0] - a->x[3 * j], dy = xi[1] - a->x[3 * j + 1], dz = xi[2] - a->x[3 * j + 2];
            double r2 = dx * dx + dy * dy + dz * dz;
            if (r2 >= cut2)
                continue;
            double sr2 = 1.0 / r2, sr6 = sr2 * sr2 * sr2, fpair = 48.0 * sr6 * (sr6 - 0.5) * sr2;
            fi[0] += dx * fpair;
            fi[1] += dy * fpair;
            fi[2] += dz * fpair;
            a->f[3 * j] -= dx * fpair;
            a->f[3 * j + 1] -= dy * fpair;
            a->f[3 * j + 2] -= dz * fpair;
            pe += 4.0 * sr6 * (sr6 - 1.0);
        }
    }
    return pe;
}

void neighbour_free(struct neighbours *nb)
{
    free(nb->start);
    free(nb->list);
    memset(nb, 0, sizeof *nb);
}
