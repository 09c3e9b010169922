/* frechet.c - Fréchet distance of two Gaussians fitted to feature sets (see frechet.h). */
#include "train/frechet.h"
#include "core/error.h"
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* rows of x centred and converted to double at a time (bounds the scratch memory) */
#define FD_CHUNK 4096

int bl_frechet_stats(const float *x, int n, int d, double *mu, double *cov)
{
    if (n < 2) return bl_fail("frechet: need at least 2 feature vectors for a covariance, got %d", n);
    if (d < 1) return bl_fail("frechet: feature size must be at least 1, got %d", d);
    memset(mu, 0, (size_t)d * sizeof *mu);
    for (int i = 0; i < n; i++) {
        const float *row = x + (size_t)i * d;
        for (int j = 0; j < d; j++) {
            if (!isfinite(row[j]))
                return bl_fail("frechet: feature %d of vector %d is %g", j, i, (double)row[j]);
            mu[j] += row[j];
        }
    }
    for (int j = 0; j < d; j++) mu[j] /= n;

    int rows = n < FD_CHUNK ? n : FD_CHUNK;
    double *xc = malloc((size_t)rows * d * sizeof *xc);
    if (!xc) return bl_fail("frechet: out of memory for %d x %d centred features", rows, d);
    /* cov = sum over chunks of Xc^T Xc (upper triangle), then / (n - 1) */
    for (int i0 = 0; i0 < n; i0 += rows) {
        int m = n - i0 < rows ? n - i0 : rows;
        for (int i = 0; i < m; i++)
            for (int j = 0; j < d; j++)
                xc[(size_t)i * d + j] = x[(size_t)(i0 + i) * d + j] - mu[j];
        cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, d, m, 1.0 / (n - 1), xc, d,
                    i0 == 0 ? 0.0 : 1.0, cov, d);
    }
    free(xc);
    for (int i = 0; i < d; i++)
        for (int j = 0; j < i; j++) cov[(size_t)i * d + j] = cov[(size_t)j * d + i];
    return 0;
}

/* Check that cov [d, d] is finite, symmetric and positive semi-definite; its eigenvalues go to w
 * and, when vecs is set, its eigenvectors to the columns of a (a [d, d] scratch). */
static int eig_checked(const char *what, int d, const double *cov, double *a, double *w, int vecs)
{
    double big = 0;
    for (size_t i = 0; i < (size_t)d * d; i++) {
        if (!isfinite(cov[i]))
            return bl_fail("frechet: %s[%zu, %zu] is %g", what, i / d, i % d, cov[i]);
        if (fabs(cov[i]) > big) big = fabs(cov[i]);
    }
    for (int i = 0; i < d; i++)
        for (int j = 0; j < i; j++) {
            double diff = fabs(cov[(size_t)i * d + j] - cov[(size_t)j * d + i]);
            if (diff > 1e-9 * big)
                return bl_fail("frechet: %s is not symmetric ([%d, %d] and [%d, %d] differ by %g)",
                               what, i, j, j, i, diff);
        }
    memcpy(a, cov, (size_t)d * d * sizeof *a);
    lapack_int info = LAPACKE_dsyevd(LAPACK_ROW_MAJOR, vecs ? 'V' : 'N', 'U', d, a, d, w);
    if (info != 0) return bl_fail("frechet: dsyevd failed on %s (info %d)", what, (int)info);
    /* eigenvalues come in ascending order */
    double top = fabs(w[d - 1]) > fabs(w[0]) ? fabs(w[d - 1]) : fabs(w[0]);
    if (w[0] < -1e-8 * top)
        return bl_fail("frechet: %s is not positive semi-definite (eigenvalue %g, largest %g)", what,
                       w[0], top);
    return 0;
}

double bl_frechet_from_stats(int d, const double *mu1, const double *cov1, const double *mu2,
                             const double *cov2)
{
    if (d < 1) return bl_fail("frechet: feature size must be at least 1, got %d", d);
    size_t dd = (size_t)d * d;
    double *buf = malloc((3 * dd + d) * sizeof *buf);
    if (!buf) return bl_fail("frechet: out of memory for %d x %d matrices", d, d);
    double *v = buf, *r = buf + dd, *t = buf + 2 * dd, *w = buf + 3 * dd;
    double fd = -1;

    double dmu = 0, tr = 0;
    for (int i = 0; i < d; i++) {
        if (!isfinite(mu1[i]) || !isfinite(mu2[i])) {
            bl_fail("frechet: mean %d is %g and %g", i, mu1[i], mu2[i]);
            goto out;
        }
        dmu += (mu1[i] - mu2[i]) * (mu1[i] - mu2[i]);
        tr += cov1[(size_t)i * d + i] + cov2[(size_t)i * d + i];
    }
    /* check cov2 first (its eigenvalues only), then decompose cov1 = V diag(w) V^T */
    if (eig_checked("cov2", d, cov2, v, w, 0) || eig_checked("cov1", d, cov1, v, w, 1)) goto out;
    /* R = S1^1/2 = V diag(sqrt w) V^T = (V diag(w^1/4)) (V diag(w^1/4))^T */
    for (int j = 0; j < d; j++) {
        double s = w[j] > 0 ? sqrt(sqrt(w[j])) : 0;
        for (int i = 0; i < d; i++) v[(size_t)i * d + j] *= s;
    }
    cblas_dsyrk(CblasRowMajor, CblasUpper, CblasNoTrans, d, d, 1.0, v, d, 0.0, r, d);
    for (int i = 0; i < d; i++)
        for (int j = 0; j < i; j++) r[(size_t)i * d + j] = r[(size_t)j * d + i];
    /* M = R S2 R, symmetrised against rounding */
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, d, d, d, 1.0, r, d, cov2, d, 0.0, t, d);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, d, d, d, 1.0, t, d, r, d, 0.0, v, d);
    for (int i = 0; i < d; i++)
        for (int j = 0; j < i; j++) {
            double s = 0.5 * (v[(size_t)i * d + j] + v[(size_t)j * d + i]);
            v[(size_t)i * d + j] = v[(size_t)j * d + i] = s;
        }
    lapack_int info = LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'N', 'U', d, v, d, w);
    if (info != 0) {
        bl_fail("frechet: dsyevd failed on S1^1/2 S2 S1^1/2 (info %d)", (int)info);
        goto out;
    }
    double tr_sqrt = 0;
    for (int i = 0; i < d; i++)
        if (w[i] > 0) tr_sqrt += sqrt(w[i]);
    fd = dmu + tr - 2 * tr_sqrt;
    if (fd < 0) fd = 0;
out:
    free(buf);
    return fd;
}

double bl_frechet_distance(const bl_tensor *x, const bl_tensor *y)
{
    char b1[64], b2[64];
    if (!x || !y) return bl_fail("frechet: missing feature set");
    if (x->ndim != 2 || y->ndim != 2)
        return bl_fail("frechet: feature sets must be 2-D [n, d], got %s and %s",
                       bl_shape_str(x, b1, sizeof b1), bl_shape_str(y, b2, sizeof b2));
    int d = x->shape[1];
    if (y->shape[1] != d)
        return bl_fail("frechet: feature sets have %d and %d features (%s and %s)", d,
                       y->shape[1], bl_shape_str(x, b1, sizeof b1), bl_shape_str(y, b2, sizeof b2));
    size_t dd = (size_t)d * d;
    double *buf = malloc((2 * dd + 2 * (size_t)d) * sizeof *buf);
    if (!buf) return bl_fail("frechet: out of memory for %d x %d covariances", d, d);
    double *mu1 = buf, *mu2 = buf + d, *c1 = buf + 2 * d, *c2 = c1 + dd;
    double fd = -1;
    if (bl_frechet_stats(x->data, x->shape[0], d, mu1, c1) == 0 &&
        bl_frechet_stats(y->data, y->shape[0], d, mu2, c2) == 0)
        fd = bl_frechet_from_stats(d, mu1, c1, mu2, c2);
    free(buf);
    return fd;
}
