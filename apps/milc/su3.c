/* The SU(3) kernels (the complex 3x3 matrix times a colour vector) and the
 * deterministic random numbers the links and the source are made of. */
#include <math.h>

#include "milc.h"

void su3_mul(const su3_matrix *u, const su3_vector *v, su3_vector *out)
{
    for (int i = 0; i < NCOLOR; i++)
        out->c[i] = u->e[i][0] * v->c[0] + u->e[i][1] * v->c[1] + u->e[i][2] * v->c[2];
}

void su3_adj_mul(const su3_matrix *u, const su3_vector *v, su3_vector *out)
{
    for (int i = 0; i < NCOLOR; i++)
        out->c[i] = conj(u->e[0][i]) * v->c[0] + conj(u->e[1][i]) * v->c[1] + conj(u->e[2][i]) * v->c[2];
}

/* splitmix64: one stream per seed, whatever the decomposition */
double random_uniform(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53 - 0.5;
}

static double complex dot(const double complex a[NCOLOR], const double complex b[NCOLOR]) /* a^dagger b */
{
    return conj(a[0]) * b[0] + conj(a[1]) * b[1] + conj(a[2]) * b[2];
}

static void normalize(double complex a[NCOLOR])
{
    double norm = sqrt(creal(dot(a, a)));
    for (int i = 0; i < NCOLOR; i++)
        a[i] /= norm;
}

/* Gram-Schmidt of two random rows; the third row is the complex conjugate
 * of their cross product, which makes U unitary with det U = 1 */
void su3_random(uint64_t seed, su3_matrix *u)
{
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < NCOLOR; i++) {
            double re = random_uniform(&seed);
            u->e[r][i] = re + I * random_uniform(&seed);
        }
    normalize(u->e[0]);
    double complex overlap = dot(u->e[0], u->e[1]);
    for (int i = 0; i < NCOLOR; i++)
        u->e[1][i] -= overlap * u->e[0][i];
    normalize(u->e[1]);
    for (int i = 0; i < NCOLOR; i++) {
        int j = (i + 1) % NCOLOR, k = (i + 2) % NCOLOR;
        u->e[2][i] = conj(u->e[0][j] * u->e[1][k] - u->e[0][k] * u->e[1][j]);
    }
}

double su3_defect(const su3_matrix *u)
{
    double worst = 0.0;
    for (int i = 0; i < NCOLOR; i++)
        for (int j = 0; j < NCOLOR; j++) {
            double complex uu = dot(u->e[j], u->e[i]); /* (U U^dagger)_ij = sum_k U_ik conj(U_jk) */
            worst = fmax(worst, cabs(uu - (i == j)));
        }
    double complex det = u->e[0][0] * (u->e[1][1] * u->e[2][2] - u->e[1][2] * u->e[2][1]) -
                         u->e[0][1] * (u->e[1][0] * u->e[2][2] - u->e[1][2] * u->e[2][0]) +
                         u->e[0][2] * (u->e[1][0] * u->e[2][1] - u->e[1][1] * u->e[2][0]);
    return fmax(worst, cabs(det - 1.0));
}
