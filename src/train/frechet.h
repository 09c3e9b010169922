/* frechet.h - the Fréchet distance between two sets of feature vectors (the FD of FID).
 *
 * Each set is summarised by a Gaussian: its mean mu and its unbiased covariance S (divided by
 * n - 1, as numpy.cov). The Fréchet (2-Wasserstein) distance between N(mu1, S1) and N(mu2, S2)
 * is (Dowson & Landau 1982; Heusel et al. 2017, "GANs Trained by a Two Time-Scale Update Rule
 * Converge to a Local Nash Equilibrium", the FID):
 *
 *     FD = |mu1 - mu2|^2 + Tr(S1 + S2 - 2 (S1^1/2 S2 S1^1/2)^1/2)
 *
 * computed here in double precision with symmetric eigen-decompositions only (LAPACKE_dsyevd),
 * never a general matrix square root:
 *     S1 = V diag(l) V^T            ->  R = S1^1/2 = V diag(sqrt(max(l, 0))) V^T
 *     M  = R S2 R (symmetrised)     ->  Tr M^1/2 = sum sqrt(max(eig(M), 0))
 * (pytorch-fid's fid_score.py uses scipy.linalg.sqrtm(S1 S2) instead; the trace is the same
 * because S1 S2 and R S2 R are similar matrices.) Singular covariances (fewer samples than
 * features) are fine.
 *
 * Errors: -1 (int) or a negative value (double) with "frechet: ..." in bl_error(); nothing here
 * prints or aborts.
 */
#ifndef BL_FRECHET_H
#define BL_FRECHET_H

#include "core/tensor.h"

/* Mean mu [d] and unbiased covariance cov [d, d] (row-major, divided by n - 1) of the n rows of
 * x [n, d] (float), accumulated in double. Errors: n < 2 or d < 1, a NaN or infinite feature
 * (naming its row and column). Returns 0 or -1. */
int bl_frechet_stats(const float *x, int n, int d, double *mu, double *cov);

/* FD between N(mu1, cov1) and N(mu2, cov2) in d dimensions (cov row-major [d, d], symmetric
 * positive semi-definite). Errors: d < 1, a non-finite value, a covariance that is not symmetric
 * (|S - S^T| > 1e-9 of its largest entry) or has an eigenvalue below -1e-8 of its largest one,
 * LAPACK failure. Rounding may leave a result a hair below zero; it is returned as 0.
 * Returns FD >= 0, or -1 with the error set. */
double bl_frechet_from_stats(int d, const double *mu1, const double *cov1, const double *mu2,
                             const double *cov2);

/* FD between the feature sets x [n1, d] and y [n2, d] (2-D float tensors): statistics of each
 * with bl_frechet_stats, then bl_frechet_from_stats. Errors: not 2-D, feature counts differ,
 * n < 2, NaN in a feature. Returns FD >= 0, or -1 with the error set. */
double bl_frechet_distance(const bl_tensor *x, const bl_tensor *y);

#endif
