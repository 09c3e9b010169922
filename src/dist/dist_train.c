/* dist_train.c - data-parallel training: the batch split over the ranks, gradients averaged with
 * one MPI_Iallreduce per step, weights compared by checksum (see dist.h). */
#include "config.h"
#include "dist/dist.h"
#include "core/error.h"
#include "train/trainer.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef HAVE_MPI
#include <mpi.h>
#endif

static int stopped;
static double last_s, total_s, wait_s;
static double work_t0;      /* when this rank's work toward the next allreduce began */

int bl_dist_train_stopped(void) { return stopped; }

double bl_dist_train_allreduce_s(double *total)
{
    if (total) *total = total_s;
    return last_s;
}

double bl_dist_train_wait_s(void) { return wait_s; }

void bl_dist_train_detach(bl_run *r)
{
    r->shard_lo = r->shard_n = 0;
    r->reduce = NULL;
    r->no_exam = 0;
}

#ifdef HAVE_MPI
static int (*intr)(void);
/* this rank's [w * grads, w * loss, stop, work_0 .. work_{N-1}] (its own work slot filled, the
 * others 0) and the ranks' sum */
static float *buf, *sum;
static size_t cap;

/* Wait for a collective to finish, polling, at most the timeout. -1 + "train: ..." error. */
static int wait_for(MPI_Request *q, const char *what, int step)
{
    char w[96];
    snprintf(w, sizeof w, "%s of step %d", what, step);
    if (bl_dist_wait(q, bl_dist_now(), w) == 0) return 0;
    bl_error_prefix("train");
    return -1;
}

/* FNV-1a over the bytes of n floats. */
static uint64_t checksum(const float *x, size_t n)
{
    const unsigned char *b = (const unsigned char *)x;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n * sizeof(float); i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* Every rank's checksum of the weights after `step` steps must be rank 0's. */
static int check_weights(const bl_run *r, int step)
{
    const bl_params *p = r->model->params;
    int n = bl_dist_size();
    uint64_t mine = checksum(p->values, p->total), *all = calloc((size_t)n, sizeof *all);
    if (!all) return bl_fail("train: out of memory");
    MPI_Request q;
    MPI_Iallgather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, MPI_COMM_WORLD, &q);
    int rc = wait_for(&q, "weight check", step);
    for (int k = 1; rc == 0 && k < n; k++)
        if (all[k] != all[0])
            rc = bl_fail("train: the weights of rank %d (%s) differ from rank 0's after step %d (checksum %016llx, "
                         "not %016llx): the ranks drifted apart; stopped", k, bl_dist_host(k), step,
                         (unsigned long long)all[k], (unsigned long long)all[0]);
    free(all);
    return rc;
}

/* bl_run's reduce hook: buf = [w * grads, w * loss, stop, work], w = this rank's share of the
 * batch; summed over the ranks it is the whole batch's mean gradient and loss, and every rank's
 * seconds of work since the last allreduce (so the wait for the slowest rank is known). */
static int reduce(bl_run *r, float *loss)
{
    bl_params *p = r->model->params;
    size_t n = p->total, ranks = (size_t)bl_dist_size(), len = n + 2 + ranks;
    int step = (int)r->opt.step + 1;
    int every = r->model->cfg.eval_every;
    if (every > 0 && r->opt.step > 0 && r->opt.step % every == 0 && check_weights(r, (int)r->opt.step) < 0)
        return -1;
    if (len > cap) {
        free(buf);
        free(sum);
        buf = malloc(len * sizeof *buf);
        sum = malloc(len * sizeof *sum);
        cap = buf && sum ? len : 0;
        if (!cap) return bl_fail("train: out of memory for the gradient buffers (2 x %zu floats)", len);
    }
    float w = (float)r->shard_n / (float)r->B;
    for (size_t i = 0; i < n; i++) buf[i] = w * p->grads[i];
    buf[n] = w * *loss;
    buf[n + 1] = intr && intr() ? 1.0f : 0.0f;
    double t0 = bl_dist_now();
    int me = bl_dist_rank();
    for (size_t k = 0; k < ranks; k++) buf[n + 2 + k] = 0;
    buf[n + 2 + me] = (float)(t0 - work_t0);
    MPI_Request q;
    /* out of place: Open MPI 4.1's libnbc takes 10x longer in place (measured on 2 ranks, 43 MB:
     * 1.5-1.9 s in place, 0.1-0.2 s out of place, with or without vader's single copy) */
    if (MPI_Iallreduce(buf, sum, (int)len, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &q) != MPI_SUCCESS)
        return bl_fail("train: the allreduce of step %d failed", step);
    if (wait_for(&q, "gradient allreduce", step) < 0) return -1;
    work_t0 = bl_dist_now();
    last_s = work_t0 - t0;
    total_s += last_s;
    float slowest = 0;
    for (size_t k = 0; k < ranks; k++) slowest = sum[n + 2 + k] > slowest ? sum[n + 2 + k] : slowest;
    wait_s += slowest - sum[n + 2 + me];
    memcpy(p->grads, sum, n * sizeof *sum);
    *loss = sum[n];
    stopped = sum[n + 1] > 0;
    return 0;
}

int bl_dist_train_attach(bl_run *r, int (*interrupted)(void))
{
    stopped = 0;
    last_s = total_s = wait_s = 0;
    work_t0 = bl_dist_now();
    int n = bl_dist_size(), k = bl_dist_rank();
    if (n < 2) return 0;
    if (r->B < n)
        return bl_fail("train: a batch of %d cannot be split over %d ranks (set batch=%d or more)", r->B, n, n);
    r->shard_lo = (int)((long)k * r->B / n);
    r->shard_n = (int)((long)(k + 1) * r->B / n) - r->shard_lo;
    r->reduce = reduce;
    r->no_exam = k > 0;
    intr = interrupted;
    return 0;
}
#else
int bl_dist_train_attach(bl_run *r, int (*interrupted)(void))
{
    (void)r, (void)interrupted;
    stopped = 0;
    return 0;
}
#endif
