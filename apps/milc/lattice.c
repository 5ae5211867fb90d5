/* My block of the 4D lattice: coordinates, the hops to the 8 neighbouring
 * sites, the faces exchanged with the neighbouring ranks, the staggered
 * phases, and the fields that depend on global site indices only. */
#include <stdlib.h>

#include "milc.h"

static void site_coords(const struct lattice *lat, int site, int c[NDIM])
{
    for (int mu = 0; mu < NDIM; mu++) {
        c[mu] = site % lat->local[mu];
        site /= lat->local[mu];
    }
}

/* the place of a site in the faces perpendicular to mu: its other three
 * coordinates, the lowest dimension fastest (the same on both sides of a face) */
static int face_index(const struct lattice *lat, const int c[NDIM], int mu)
{
    int k = 0;
    for (int nu = NDIM - 1; nu >= 0; nu--)
        if (nu != mu)
            k = k * lat->local[nu] + c[nu];
    return k;
}

static int rank_of(const int coord[NDIM], const int dims[NDIM]) /* row-major, as MPI_Cart_create */
{
    int r = 0;
    for (int mu = 0; mu < NDIM; mu++)
        r = r * dims[mu] + coord[mu];
    return r;
}

static void find_neighbours(struct lattice *lat)
{
    for (int mu = 0; mu < NDIM; mu++)
        for (int side = FORWARD; side <= BACKWARD; side++) {
            int c[NDIM];
            for (int nu = 0; nu < NDIM; nu++)
                c[nu] = lat->coord[nu];
            c[mu] = (c[mu] + (side == FORWARD ? 1 : lat->dims[mu] - 1)) % lat->dims[mu];
            lat->neighbour[direction(mu, side)] = rank_of(c, lat->dims);
        }
}

/* eta_mu(x) = (-1)^(x_0 + ... + x_{mu-1}) in global coordinates: it does not
 * depend on x_mu, so the hop x -> x - mu carries the same phase as x - mu -> x */
static double half_eta(const struct lattice *lat, const int c[NDIM], int mu)
{
    int sum = 0;
    for (int nu = 0; nu < mu; nu++)
        sum += lat->coord[nu] * lat->local[nu] + c[nu];
    return sum % 2 ? -0.5 : 0.5;
}

static void build_hops(struct lattice *lat, int halo)
{
    int stride = 1;
    for (int mu = 0; mu < NDIM; mu++) {
        const int len = lat->local[mu], fw = direction(mu, FORWARD), bw = direction(mu, BACKWARD);
        for (int site = 0; site < lat->volume; site++) {
            int c[NDIM];
            site_coords(lat, site, c);
            const int k = face_index(lat, c, mu);
            if (c[mu] == 0)
                lat->send_face[fw][k] = site;
            if (c[mu] == len - 1)
                lat->send_face[bw][k] = site;
            if (c[mu] < len - 1)
                lat->hop[site][fw] = site + stride;
            else
                lat->hop[site][fw] = halo ? -1 - k : site - (len - 1) * stride;
            if (c[mu] > 0)
                lat->hop[site][bw] = site - stride;
            else
                lat->hop[site][bw] = halo ? -1 - k : site + (len - 1) * stride;
            lat->half_eta[site][mu] = half_eta(lat, c, mu);
        }
        stride *= len;
    }
}

static void split_sites(struct lattice *lat)
{
    for (int site = 0; site < lat->volume; site++) {
        int local = 1;
        for (int d = 0; d < NDIR; d++)
            local &= lat->hop[site][d] >= 0;
        if (local)
            lat->interior[lat->ninterior++] = site;
        else
            lat->boundary[lat->nboundary++] = site;
    }
}

void lattice_init(struct lattice *lat, MPI_Comm comm, const int local[NDIM], const int dims[NDIM], int halo)
{
    lat->comm = comm;
    MPI_Comm_rank(comm, &lat->rank);
    lat->volume = 1;
    for (int mu = 0; mu < NDIM; mu++) {
        lat->local[mu] = local[mu];
        lat->dims[mu] = dims[mu];
        lat->global[mu] = local[mu] * dims[mu];
        lat->volume *= local[mu];
    }
    for (int mu = NDIM - 1, r = lat->rank; mu >= 0; mu--) {
        lat->coord[mu] = r % dims[mu];
        r /= dims[mu];
    }
    find_neighbours(lat);
    for (int d = 0; d < NDIR; d++) {
        lat->face_sites[d] = lat->volume / local[d / 2];
        lat->send_face[d] = malloc(sizeof(int) * (size_t)lat->face_sites[d]);
    }
    lat->hop = malloc(sizeof *lat->hop * (size_t)lat->volume);
    lat->half_eta = malloc(sizeof *lat->half_eta * (size_t)lat->volume);
    build_hops(lat, halo);
    lat->interior = malloc(sizeof(int) * (size_t)lat->volume);
    lat->boundary = malloc(sizeof(int) * (size_t)lat->volume);
    lat->ninterior = lat->nboundary = 0;
    split_sites(lat);
}

void lattice_free(struct lattice *lat)
{
    for (int d = 0; d < NDIR; d++)
        free(lat->send_face[d]);
    free(lat->hop);
    free(lat->half_eta);
    free(lat->interior);
    free(lat->boundary);
}

int64_t lattice_global_index(const struct lattice *lat, int site)
{
    int c[NDIM];
    site_coords(lat, site, c);
    int64_t g = 0;
    for (int mu = NDIM - 1; mu >= 0; mu--)
        g = g * lat->global[mu] + lat->coord[mu] * lat->local[mu] + c[mu];
    return g;
}

/* the start of the random stream of one field at one site: the global index
 * and the field (the links 0..3, the source 4) hashed by splitmix64's
 * finalizer, so that the streams of neighbouring sites and fields do not
 * overlap */
static uint64_t seed_of(int64_t global_index, int field)
{
    uint64_t z = (uint64_t)global_index * (NDIM + 1) + (uint64_t)field + 1;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void lattice_links(const struct lattice *lat, su3_matrix (*links)[NDIM])
{
    for (int site = 0; site < lat->volume; site++)
        for (int mu = 0; mu < NDIM; mu++)
            su3_random(seed_of(lattice_global_index(lat, site), mu), &links[site][mu]);
}

void lattice_source(const struct lattice *lat, su3_vector *b)
{
    for (int site = 0; site < lat->volume; site++) {
        uint64_t seed = seed_of(lattice_global_index(lat, site), NDIM);
        for (int i = 0; i < NCOLOR; i++) {
            double re = random_uniform(&seed);
            b[site].c[i] = re + I * random_uniform(&seed);
        }
    }
}
