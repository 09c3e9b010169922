/* test_frechet.c - the Fréchet distance (src/train/frechet.h).
 *
 * Checked against numbers worked out by hand, not against the code: the mean and covariance of
 * three points; FD of diagonal covariances, sum (sqrt a_i - sqrt b_i)^2 + |mu1 - mu2|^2; FD of
 * 2x2 covariances that do not commute, through the 2x2 identities tr sqrt(M) =
 * sqrt(tr M + 2 sqrt(det M)) with tr M = tr(S1 S2) and det M = det S1 det S2; samples of two
 * Gaussians with known parameters against the population FD (within sampling error); a set
 * against itself (0); invariance when both sets are rotated by one orthogonal matrix.
 */
#include "core/error.h"
#include "core/rng.h"
#include "core/tensor.h"
#include "train/frechet.h"
#include "../check.h"

/* x [n, d] = mu + z A^T for standard normal z [n, d], A [d, d] row-major (cov = A A^T). */
static bl_tensor *gaussian(int n, int d, const double *mu, const double *A, uint64_t seed)
{
    bl_tensor *x = bl_tensor_new2(n, d);
    bl_rng r;
    bl_rng_init(&r, seed, 7);
    double z[16];
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < d; k++) z[k] = bl_rng_normal(&r);
        for (int j = 0; j < d; j++) {
            double s = mu[j];
            for (int k = 0; k < d; k++) s += A[j * d + k] * z[k];
            x->data[(size_t)i * d + j] = (float)s;
        }
    }
    return x;
}

/* A fixed 4x4 rotation: the product of Givens rotations in planes (0,1), (2,3), (1,2), (0,3). */
static void rotation4(double *q)
{
    const int planes[4][2] = {{0, 1}, {2, 3}, {1, 2}, {0, 3}};
    const double ang[4] = {0.7, -1.1, 0.4, 2.0};
    memset(q, 0, 16 * sizeof *q);
    for (int i = 0; i < 4; i++) q[i * 4 + i] = 1;
    for (int g = 0; g < 4; g++) {
        int a = planes[g][0], b = planes[g][1];
        double c = cos(ang[g]), s = sin(ang[g]);
        for (int i = 0; i < 4; i++) {
            double qa = q[i * 4 + a], qb = q[i * 4 + b];
            q[i * 4 + a] = c * qa - s * qb;
            q[i * 4 + b] = s * qa + c * qb;
        }
    }
}

/* A random orthogonal d x d matrix: Gram-Schmidt on the rows of a normal matrix. */
static void random_orthogonal(int d, double *q, uint64_t seed)
{
    bl_rng r;
    bl_rng_init(&r, seed, 3);
    for (int i = 0; i < d * d; i++) q[i] = bl_rng_normal(&r);
    for (int i = 0; i < d; i++) {
        for (int k = 0; k < i; k++) {
            double dot = 0;
            for (int j = 0; j < d; j++) dot += q[i * d + j] * q[k * d + j];
            for (int j = 0; j < d; j++) q[i * d + j] -= dot * q[k * d + j];
        }
        double nrm = 0;
        for (int j = 0; j < d; j++) nrm += q[i * d + j] * q[i * d + j];
        for (int j = 0; j < d; j++) q[i * d + j] /= sqrt(nrm);
    }
}

/* y = x Q for x [n, d] */
static bl_tensor *rotate(const bl_tensor *x, const double *q)
{
    int n = x->shape[0], d = x->shape[1];
    bl_tensor *y = bl_tensor_new2(n, d);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < d; j++) {
            double s = 0;
            for (int k = 0; k < d; k++) s += (double)x->data[(size_t)i * d + k] * q[k * d + j];
            y->data[(size_t)i * d + j] = (float)s;
        }
    return y;
}

BL_TEST(test_stats_by_hand)
{
    /* points (1,2), (3,6), (5,4): mean (3,4); deviations (-2,-2), (0,2), (2,0);
     * var = 8/2 = 4 each, cov = 4/2 = 2 (unbiased, n - 1 = 2) */
    const float x[6] = {1, 2, 3, 6, 5, 4};
    double mu[2], cov[4];
    CHECK(bl_frechet_stats(x, 3, 2, mu, cov) == 0, "%s", bl_error());
    CHECK_CLOSE(mu[0], 3, 1e-12);
    CHECK_CLOSE(mu[1], 4, 1e-12);
    CHECK_CLOSE(cov[0], 4, 1e-12);
    CHECK_CLOSE(cov[1], 2, 1e-12);
    CHECK_CLOSE(cov[2], 2, 1e-12);
    CHECK_CLOSE(cov[3], 4, 1e-12);
}

BL_TEST(test_diagonal_closed_form)
{
    /* sum (sqrt a - sqrt b)^2 = (2-1)^2 + (3-1)^2 + (0.5-0.5)^2 + (0-1)^2 = 6; |dmu|^2 = 1+4 = 5 */
    const double a[4] = {4, 9, 0.25, 0}, b[4] = {1, 1, 0.25, 1};
    const double mu1[4] = {1, 0, 2, -1}, mu2[4] = {0, 0, 0, -1};
    double c1[16] = {0}, c2[16] = {0};
    for (int i = 0; i < 4; i++) c1[i * 5] = a[i], c2[i * 5] = b[i];
    CHECK_CLOSE(bl_frechet_from_stats(4, mu1, c1, mu2, c2), 11.0, 1e-12);
    CHECK_CLOSE(bl_frechet_from_stats(4, mu2, c2, mu1, c1), 11.0, 1e-12);
    CHECK_CLOSE(bl_frechet_from_stats(4, mu1, c1, mu1, c1), 0.0, 1e-12);
    /* d = 1: (sqrt 2 - sqrt 8)^2 = 2 + 8 - 2 * 4 = 2, plus (3 - 1)^2 = 4 */
    const double m1 = 3, m2 = 1, s1 = 2, s2 = 8;
    CHECK_CLOSE(bl_frechet_from_stats(1, &m1, &s1, &m2, &s2), 6.0, 1e-12);
}

BL_TEST(test_2x2_non_commuting)
{
    /* S1 S2 != S2 S1 here. For 2x2, M = S1^1/2 S2 S1^1/2 has tr M = tr(S1 S2) and
     * det M = det S1 det S2, and tr sqrt(M) = sqrt(tr M + 2 sqrt(det M)).
     * S1 = [[2, 1], [1, 3]] (det 5), S2 = [[1, -0.5], [-0.5, 2]] (det 1.75),
     * tr(S1 S2) = 2*1 + 1*(-0.5) + 1*(-0.5) + 3*2 = 7. */
    const double c1[4] = {2, 1, 1, 3}, c2[4] = {1, -0.5, -0.5, 2};
    const double mu1[2] = {0.5, -1}, mu2[2] = {-0.5, 1};
    double expect = 1 + 4 + (5 + 3) - 2 * sqrt(7 + 2 * sqrt(5 * 1.75));
    CHECK_CLOSE(bl_frechet_from_stats(2, mu1, c1, mu2, c2), expect, 1e-12);
    CHECK_CLOSE(bl_frechet_from_stats(2, mu2, c2, mu1, c1), expect, 1e-12);
    /* a singular S1 (rank 1): det 0, tr sqrt(M) = sqrt(tr(S1 S2)) */
    const double c3[4] = {1, 2, 2, 4};   /* tr(c3 c2) = 1 - 1 - 1 + 8 = 7 */
    CHECK_CLOSE(bl_frechet_from_stats(2, mu1, c3, mu1, c2), 5 + 3 - 2 * sqrt(7.0), 1e-12);
}

BL_TEST(test_gaussian_samples)
{
    /* S1 = Q diag(a) Q^T, S2 = Q diag(b) Q^T share eigenvectors, so the population FD is
     * |mu1 - mu2|^2 + sum (sqrt a_i - sqrt b_i)^2 = 2 + (1 + 0 + 0.25 + 0.5) = 3.75. */
    const int n = 20000, d = 4;
    const double a[4] = {4, 1, 0.25, 2}, b[4] = {1, 1, 1, 0.5};
    const double mu1[4] = {1, 0, -1, 0.5}, mu2[4] = {0, 0, 0, 0.5};
    double q[16], A1[16], A2[16];
    rotation4(q);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            A1[i * 4 + j] = q[i * 4 + j] * sqrt(a[j]);
            A2[i * 4 + j] = q[i * 4 + j] * sqrt(b[j]);
        }
    bl_tensor *x = gaussian(n, d, mu1, A1, 1), *y = gaussian(n, d, mu2, A2, 2);
    double fd = bl_frechet_distance(x, y);
    /* sampling error: the mean term dominates, sd ~ 2 sqrt(dmu^T (S1 + S2) dmu / n) <= 0.045;
     * the bias tr(S1 + S2) / n is 5e-4 (measured over 40 seeds: mean 3.745, sd 0.038). Allow
     * about 5 sd. */
    CHECK_CLOSE(fd, 3.75, 0.2);
    /* equal parameters, independent samples: only sampling noise (~ d (d+1) / n scale) */
    bl_tensor *x2 = gaussian(n, d, mu1, A1, 3);
    double fd0 = bl_frechet_distance(x, x2);
    CHECK(fd0 >= 0 && fd0 < 0.01, "fd of two samples of one Gaussian = %g", fd0);
    bl_tensor_free(x);
    bl_tensor_free(x2);
    bl_tensor_free(y);
}

BL_TEST(test_self_is_zero)
{
    /* correlated features x = z A with a random A, 300 x 16, and a singular set (10 x 16) */
    const int d = 16;
    double A[256], mu[16];
    bl_rng r;
    bl_rng_init(&r, 5, 1);
    for (int i = 0; i < d * d; i++) A[i] = bl_rng_normal(&r);
    for (int i = 0; i < d; i++) mu[i] = i - 8;
    const int ns[2] = {300, 10};
    for (int c = 0; c < 2; c++) {
        bl_tensor *x = gaussian(ns[c], d, mu, A, 9);
        double mu1[16], cov[256], tr = 0;
        bl_frechet_stats(x->data, ns[c], d, mu1, cov);
        for (int i = 0; i < d; i++) tr += cov[i * d + i];
        double fd = bl_frechet_distance(x, x);
        CHECK(fd >= 0 && fd <= 1e-6 * tr, "n %d: fd(x, x) = %g (trace %g)", ns[c], fd, tr);
        /* the same rows in reverse order: same statistics up to summation order */
        bl_tensor *xr = bl_tensor_new2(ns[c], d);
        for (int i = 0; i < ns[c]; i++)
            memcpy(xr->data + (size_t)i * d, x->data + (size_t)(ns[c] - 1 - i) * d, d * 4);
        fd = bl_frechet_distance(x, xr);
        CHECK(fd >= 0 && fd <= 1e-6 * tr, "n %d: fd(x, reversed x) = %g (trace %g)", ns[c], fd, tr);
        bl_tensor_free(x);
        bl_tensor_free(xr);
    }
}

BL_TEST(test_rotation_invariance)
{
    const int d = 8;
    double A[64], B[64], mu1[8], mu2[8], q[64];
    bl_rng r;
    bl_rng_init(&r, 11, 1);
    for (int i = 0; i < d * d; i++) A[i] = bl_rng_normal(&r), B[i] = 0.5 * bl_rng_normal(&r);
    for (int i = 0; i < d; i++) mu1[i] = bl_rng_normal(&r), mu2[i] = bl_rng_normal(&r);
    bl_tensor *x = gaussian(500, d, mu1, A, 1), *y = gaussian(400, d, mu2, B, 2);
    random_orthogonal(d, q, 4);
    bl_tensor *xq = rotate(x, q), *yq = rotate(y, q);
    double fd = bl_frechet_distance(x, y), fdq = bl_frechet_distance(xq, yq);
    CHECK(fd > 1, "fd = %g should be well above 0", fd);
    CHECK(fabs(fd - fdq) <= 1e-5 * fd, "fd %.12g, rotated %.12g", fd, fdq);
    /* rotating only one set changes it (the check above is not vacuous) */
    double fd1 = bl_frechet_distance(xq, y);
    CHECK(fabs(fd1 - fd) > 1e-2 * fd, "fd %g, one set rotated %g", fd, fd1);
    bl_tensor_free(x);
    bl_tensor_free(y);
    bl_tensor_free(xq);
    bl_tensor_free(yq);
}

BL_TEST(test_errors)
{
    bl_tensor *a = bl_tensor_new2(1, 3), *b = bl_tensor_new2(5, 3), *c = bl_tensor_new2(5, 4);
    bl_tensor *v = bl_tensor_new1(5);
    CHECK(bl_frechet_distance(a, b) < 0, "n = 1 accepted");
    CHECK_ERR("need at least 2 feature vectors for a covariance, got 1");
    CHECK(bl_frechet_distance(b, c) < 0, "feature mismatch accepted");
    CHECK_ERR("feature sets have 3 and 4 features ([5, 3] and [5, 4])");
    CHECK(bl_frechet_distance(b, v) < 0, "1-D accepted");
    CHECK_ERR("must be 2-D [n, d], got [5, 3] and [5]");
    b->data[7] = NAN;
    CHECK(bl_frechet_distance(c, c) >= 0, "%s", bl_error());
    CHECK(bl_frechet_distance(b, b) < 0, "nan accepted");
    CHECK_ERR("frechet: feature 1 of vector 2 is nan");

    const double mu[2] = {0, 0}, id[4] = {1, 0, 0, 1};
    const double asym[4] = {1, 0.5, 0.2, 1}, indef[4] = {1, 0, 0, -1};
    CHECK(bl_frechet_from_stats(2, mu, asym, mu, id) < 0, "asymmetric accepted");
    CHECK_ERR("cov1 is not symmetric ([1, 0] and [0, 1] differ by 0.3)");
    CHECK(bl_frechet_from_stats(2, mu, id, mu, indef) < 0, "indefinite accepted");
    CHECK_ERR("cov2 is not positive semi-definite (eigenvalue -1, largest 1)");
    CHECK(bl_frechet_from_stats(0, mu, id, mu, id) < 0, "d = 0 accepted");
    CHECK_ERR("frechet: feature size must be at least 1, got 0");
    const double nanmu[2] = {0, NAN};
    CHECK(bl_frechet_from_stats(2, nanmu, id, mu, id) < 0, "nan mean accepted");
    CHECK_ERR("frechet: mean 1 is nan and 0");
    bl_tensor_free(a);
    bl_tensor_free(b);
    bl_tensor_free(c);
    bl_tensor_free(v);
}

int main(void)
{
    RUN(test_stats_by_hand);
    RUN(test_diagonal_closed_form);
    RUN(test_2x2_non_commuting);
    RUN(test_gaussian_samples);
    RUN(test_self_is_zero);
    RUN(test_rotation_invariance);
    RUN(test_errors);
    return bl_test_done();
}
