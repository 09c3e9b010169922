/* dash_demo.c - a fake trainer for the dashboard (see dash.h): deterministic numbers that look
 * like a small character model learning, so the dashboard can be tried and tested without one. */
#include "viz/dash.h"
#include "core/error.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char demo_text[] = "to be, or not to be, that is the question";

int bl_dash_demo_init(bl_dash_demo *d, long total, int delay_ms)
{
    memset(d, 0, sizeof *d);
    if (total < 1) return bl_fail("dash demo: steps must be >= 1, got %ld", total);
    if (delay_ms < 0) return bl_fail("dash demo: delay must be >= 0 ms, got %d", delay_ms);
    d->total = total;
    d->delay_ms = delay_ms;
    d->layers = 4, d->heads = 4, d->tokens = 24;
    d->rng = 12345u;
    int T = d->tokens;
    d->attn = malloc((size_t)T * T * sizeof *d->attn);
    d->labels_buf = malloc((size_t)T * 2);
    d->labels = malloc((size_t)T * sizeof *d->labels);
    for (int i = 0; i < 3; i++) d->stats[i] = malloc((size_t)T * sizeof *d->stats[i]);
    if (!d->attn || !d->labels_buf || !d->labels || !d->stats[0] || !d->stats[1] || !d->stats[2]) {
        bl_dash_demo_free(d);
        return bl_fail("dash demo: out of memory");
    }
    for (int i = 0; i < T; i++) {
        d->labels_buf[2 * i] = demo_text[i];
        d->labels_buf[2 * i + 1] = 0;
        d->labels[i] = &d->labels_buf[2 * i];
    }
    return 0;
}

void bl_dash_demo_free(bl_dash_demo *d)
{
    free(d->attn);
    free(d->labels_buf);
    free(d->labels);
    for (int i = 0; i < 3; i++) free(d->stats[i]);
    memset(d, 0, sizeof *d);
}

/* uniform in [-0.5, 0.5) from a 32-bit LCG (Numerical Recipes constants) */
static float noise(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (float)(*s >> 8) / 16777216.0f - 0.5f;
}

/* sleep ms milliseconds, all of them: a signal (a resize's SIGWINCH) does not cut a step short */
static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

int bl_dash_demo_step(void *ctx, const bl_dash_view *view, bl_dash_frame *fr)
{
    bl_dash_demo *d = ctx;
    int T = d->tokens;
    if (!view->peek) {
        if (fr->step >= d->total) return 1;
        if (d->delay_ms > 0) sleep_ms(d->delay_ms);
        fr->step++;
        double s = (double)fr->step;
        fr->loss = 2.2 * exp(-s / 120.0) + 1.1 + 0.35 * noise(&d->rng) * exp(-s / 400.0);
        fr->val_loss = fr->step % 25 == 0 ? 2.2 * exp(-s / 120.0) + 1.2 : NAN;
        if (fr->step % 25 == 0 && d->exam_ms > 0) {   /* the exam takes time too */
            struct timespec t0, t1;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            sleep_ms(d->exam_ms);
            clock_gettime(CLOCK_MONOTONIC, &t1);
            fr->exam_s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
        }
        fr->lr = 3e-3 * fmin(1.0, s / 50.0);
    }
    fr->total = d->total;
    fr->exams_left = d->total / 25 - fr->step / 25;
    fr->n_layers = d->layers;
    fr->n_heads = d->heads;
    snprintf(fr->title, sizeof fr->title, "demo (fake trainer, %d layers x %d heads)", d->layers, d->heads);
    /* causal attention: head h looks back h tokens, layer l is broader; sharper with training */
    double sharp = 0.3 + 2.5 * (1 - exp(-(double)fr->step / 150.0));
    double width = 1.0 + view->layer;
    for (int i = 0; i < T; i++) {
        double z = 0;
        for (int j = 0; j < T; j++) {
            double a = j > i ? 0 : exp(-sharp * fabs((double)(i - j) - view->head) / width);
            d->attn[i * T + j] = (float)a;
            z += a;
        }
        for (int j = 0; j < T; j++) d->attn[i * T + j] /= (float)z;
    }
    fr->attn = d->attn;
    fr->attn_rows = fr->attn_cols = T;
    fr->attn_labels = d->labels;
    /* per-token statistics of a residual stream before and after an RMSNorm */
    for (int t = 0; t < T; t++) {
        double grow = 1.0 + 0.02 * fr->step / (1.0 + view->layer);
        d->stats[0][t] = (float)(0.2 * sin(0.5 * t + view->layer));
        d->stats[1][t] = (float)(grow * (1.0 + 0.5 * sin(0.3 * t + 1.0)));
        d->stats[2][t] = 1.0f;
    }
    fr->nstats = 3;
    fr->stat_n = T;
    fr->stat_name[0] = "mean";
    fr->stat_name[1] = "rms before norm";
    fr->stat_name[2] = "rms after norm";
    for (int i = 0; i < 3; i++) fr->stat[i] = d->stats[i];
    fr->stat_title = "per-token mean and rms";
    return 0;
}
