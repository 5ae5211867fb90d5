/* The halo's process grid: MPI_Dims_create's 3D factorisation of the world,
 * periodic, and the 26 neighbour directions (6 faces, 12 edges, 8 corners). */
#include "rmamt.h"

static const int offsets[26][3] = {
    {-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1},
    {-1, -1, 0}, {-1, 1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 0, -1}, {-1, 0, 1},
    {1, 0, -1}, {1, 0, 1}, {0, -1, -1}, {0, -1, 1}, {0, 1, -1}, {0, 1, 1},
    {-1, -1, -1}, {-1, -1, 1}, {-1, 1, -1}, {-1, 1, 1}, {1, -1, -1}, {1, -1, 1}, {1, 1, -1}, {1, 1, 1}};

int halo_neighbor(int direction, int sign)
{
    int size, me, dims[3] = {0, 0, 0}, c[3];
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Dims_create(size, 3, dims);
    /* row-major coordinates, as MPI_Cart_create without reordering */
    c[0] = me / (dims[1] * dims[2]);
    c[1] = me / dims[2] % dims[1];
    c[2] = me % dims[2];
    for (int i = 0; i < 3; i++)
        c[i] = ((c[i] + sign * offsets[direction][i]) % dims[i] + dims[i]) % dims[i];
    return (c[0] * dims[1] + c[1]) * dims[2] + c[2];
}
