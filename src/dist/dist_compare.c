/* dist_compare.c - compare's runs spread over the ranks; rank 0 gathers (see dist.h). */
#include "config.h"
#include "dist/dist.h"
#include "core/error.h"
#include "core/fileio.h"
#include "train/compare.h"
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef HAVE_MPI
#include <mpi.h>
#endif

static int seq;                 /* which comparison this is (the same count on every rank) */

#ifdef HAVE_MPI
static double *heard, *gap;     /* per rank: when rank 0 last heard it, the longest silence */
static MPI_Request beat_q = MPI_REQUEST_NULL;
static char beat_buf[64];
static int stop_sent;
static int alone;              /* a stop check timed out: no more collectives in this comparison */
static const bl_compare *cur;
/* The stop check is taken every `every` rounds, agreed at each check from the slowest rank's
 * round time so that checks come about every BL_CHECK_S seconds: a check every round made every
 * step wait for the slowest rank's (on a busy machine most of a compare's time on 2 ranks). Each
 * check is a nonblocking MPI_Iallreduce posted at one check and read at the next, so a rank
 * waits only for one more than a check behind it (a blocking check every 0.1 s still made the
 * ranks wait for each other's jitter at every check). */
#define BL_CHECK_S 0.1
static int every, left;         /* rounds between checks; rounds to the next one */
static int stop_mine;           /* this rank was interrupted since the last check */
static double since;            /* when the last check ended */
static double begun;            /* when this comparison began */


static int owner(int i) { return i % bl_dist_size(); }

static void heard_from(int k)
{
    double t = bl_dist_now();
    if (heard[k] > 0 && t - heard[k] > gap[k]) gap[k] = t - heard[k];
    heard[k] = t;
}

/* Rank 0: take every waiting progress message. */
static void drain_beats(void)
{
    int src;
    while (bl_dist_pending(-1, BL_TAG_BEAT, &src)) {
        free(bl_dist_recv(src, BL_TAG_BEAT, 0, NULL));
        heard_from(src);
    }
}

/* The check posted at the last check and its buffers, which must stay put until it completes; its
 * answer is read at the next check. check_out: one was posted and not yet read (check_q turns
 * MPI_REQUEST_NULL as soon as a test finds it complete, which differs between the ranks). */
static MPI_Request check_q = MPI_REQUEST_NULL;
static int check_out;
static int check_mine[3], check_all[3];
static double check_t0;         /* when it was posted */
static int check_step;          /* the step it was posted before (for the error message) */

/* Wait for the check in flight. 0; -1 when a rank is gone (then this rank goes on alone: no
 * more collectives in this comparison, the gather names the lost rank). */
static int settle(void)
{
    if (!check_out) return 0;
    check_out = 0;
    char what[96];
    snprintf(what, sizeof what, "stop check of compare step %d", check_step);
    if (bl_dist_wait_idle(&check_q, check_t0, what) == 0) return 0;
    if (bl_dist_rank() == 0) {
        fprintf(stderr, "compare: %s; the other ranks go on alone\n", bl_error());
        fflush(stderr);
    }
    bl_clear_error();
    alone = 1;
    return -1;
}

void bl_dist_compare_begin(bl_compare *c)
{
    seq++;
    int n = bl_dist_size();
    if (n < 2) return;
    if (!heard) {
        heard = calloc((size_t)n, sizeof *heard);
        gap = calloc((size_t)n, sizeof *gap);
    }
    for (int k = 0; heard && k < n; k++) heard[k] = bl_dist_now(), gap[k] = 0;
    stop_sent = 0;
    every = left = 1;
    stop_mine = 0;
    since = begun = bl_dist_now();
    alone = bl_dist_lost();
    if (!alone) settle();       /* a check the last comparison left in flight (it broke off) */
    cur = c;
    for (int i = 0; i < c->n; i++) c->r[i].remote = owner(i) != bl_dist_rank();
    /* stale stop messages of an earlier comparison */
    while (bl_dist_rank() > 0 && bl_dist_pending(0, BL_TAG_STOP, NULL)) free(bl_dist_recv(0, BL_TAG_STOP, 0, NULL));
}

void bl_dist_compare_beat(void)
{
    bl_dist_alive();    /* rank 0 (measuring, say): the others hear it lives */
    if (bl_dist_size() < 2 || bl_dist_rank() == 0) return;
    int done = 0;
    MPI_Test(&beat_q, &done, MPI_STATUS_IGNORE);
    if (!done) return;                      /* the last one is still on its way */
    int len = snprintf(beat_buf, sizeof beat_buf, "%d %d", seq, cur ? cur->done : 0);
    MPI_Isend(beat_buf, len, MPI_BYTE, 0, BL_TAG_BEAT, MPI_COMM_WORLD, &beat_q);
}

/* The old way, once a rank is lost (no more collectives): rank 0 tells the others to stop. */
static int poll_alone(int interrupted)
{
    if (bl_dist_rank() == 0) {
        drain_beats();
        if (interrupted && !stop_sent) {
            char msg[32];
            int len = snprintf(msg, sizeof msg, "%d", seq);
            for (int k = 1; k < bl_dist_size(); k++)
                if (!bl_dist_dead(k) && bl_dist_send(k, BL_TAG_STOP, msg, (size_t)len) < 0) bl_clear_error();
            stop_sent = 1;
        }
        return interrupted;
    }
    bl_dist_compare_beat();
    while (bl_dist_pending(0, BL_TAG_STOP, NULL)) {
        char *m = bl_dist_recv(0, BL_TAG_STOP, 0, NULL);
        if (m && atoi(m) == seq) interrupted = 1;
        free(m);
    }
    return interrupted;
}

int bl_dist_compare_poll(bl_compare *c, int interrupted, int live)
{
    if (bl_dist_size() < 2) return interrupted ? 1 : live ? 0 : 2;
    /* rank 0 says it lives; the others end the job when it has been silent for the timeout
     * (between checks, and after one failed, nothing else would notice) */
    bl_dist_watch(begun);
    if (alone) {
        if (poll_alone(interrupted)) return 1;
        return live ? 0 : 2;
    }
    if (bl_dist_rank() == 0) drain_beats();
    else bl_dist_compare_beat();
    stop_mine |= interrupted != 0;
    if (check_q != MPI_REQUEST_NULL) {      /* libnbc moves a nonblocking collective on only in MPI calls */
        int done = 0;
        if (MPI_Test(&check_q, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) done = 0;
    }
    if (--left > 0) return 0;   /* the same rounds on every rank: between two checks */
    /* every rank, at a check: the answer of the check posted at the last one (whether some rank
     * was stopped, whether some rank still trains, the slowest round), then the next check is
     * posted and this rank trains on while it travels. So a rank waits here only when another is
     * more than a check behind, not for the slowest rank at every check (lock-step). */
    double us = (bl_dist_now() - since) / every * 1e6;
    int rc = 0;
    if (check_out) {
        if (settle() < 0) return bl_dist_compare_poll(c, stop_mine, live);
        double next = check_all[2] > 0 ? BL_CHECK_S * 1e6 / check_all[2] : 1;
        every = next < 1 ? 1 : next > 64 ? 64 : (int)next;
        rc = check_all[0] ? 1 : check_all[1] ? 0 : 2;
    }
    /* no check is posted that no later one would read: after a stop, or when the next would
     * come after the last step (every rank takes the same rounds, so all post alike) */
    if (rc == 0 && c->done + every >= c->steps) every = c->steps - 1 - c->done;
    left = every;
    since = bl_dist_now();
    if (rc != 0 || every < 1) return rc;
    check_mine[0] = stop_mine;
    check_mine[1] = live > 0;
    check_mine[2] = us < 1e9 ? (int)us : 1000000000;
    check_t0 = bl_dist_now();
    check_step = c->done + 1;
    check_out = 1;
    if (MPI_Iallreduce(check_mine, check_all, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &check_q) != MPI_SUCCESS) {
        check_q = MPI_REQUEST_NULL;
        check_out = 0;
        bl_dist_mark_dead(-1);
        if (bl_dist_rank() == 0) {
            fprintf(stderr, "compare: the stop check of compare step %d failed: a rank died; the other ranks go on "
                    "alone\n", check_step);
            fflush(stderr);
        }
        alone = 1;
        return bl_dist_compare_poll(c, stop_mine, live);
    }
    return 0;
}

int bl_dist_compare_save(const bl_compare *c, const char *dir)
{
    int was = bl_fileio_discard(0);     /* a rank's own runs are published by that rank */
    int rc = bl_compare_save(c, dir);
    bl_fileio_discard(was);
    return rc;
}

static json_t *num_or_null(double x) { return isnan(x) ? json_null() : json_real(x); }
static double num_of(const json_t *j) { return json_is_number(j) ? json_number_value(j) : NAN; }

/* {"seq", "done", "runs": [{"i", "failed", "error", "val", "fd", "metrics"}]} of the runs this
 * rank holds (not remote); done < 0 when it trained none. */
static char *pack(const bl_compare *c, int done)
{
    json_t *runs = json_array();
    for (int i = 0; i < c->n; i++) {
        const bl_cmp_run *r = &c->r[i];
        if (r->remote) continue;
        json_t *o = json_pack("{s:i, s:i, s:s}", "i", i, "failed", r->failed, "error", r->error);
        json_object_set_new(o, "val", num_or_null(r->val));
        json_object_set_new(o, "fd", num_or_null(r->fd));
        if (r->run) json_object_set_new(o, "metrics", bl_metrics_to_json(&r->run->metrics));
        json_array_append_new(runs, o);
    }
    json_t *j = json_pack("{s:i, s:i, s:o}", "seq", seq, "done", done, "runs", runs);
    char *s = j ? json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(j);
    return s;
}

/* Take the runs of a packed message into c; *done = its done. -1 on a malformed message or
 * another comparison's (seq). */
static int unpack(bl_compare *c, const char *msg, int *done)
{
    json_t *j = json_loads(msg, 0, NULL);
    if (!j || json_integer_value(json_object_get(j, "seq")) != seq) {
        json_decref(j);
        return -1;
    }
    *done = (int)json_integer_value(json_object_get(j, "done"));
    size_t k;
    json_t *o;
    json_array_foreach(json_object_get(j, "runs"), k, o) {
        int i = (int)json_integer_value(json_object_get(o, "i"));
        if (i < 0 || i >= c->n) continue;
        bl_cmp_run *r = &c->r[i];
        r->failed = (int)json_integer_value(json_object_get(o, "failed"));
        snprintf(r->error, sizeof r->error, "%s", json_string_value(json_object_get(o, "error")) ?: "");
        r->val = num_of(json_object_get(o, "val"));
        r->fd = num_of(json_object_get(o, "fd"));
        json_t *m = json_object_get(o, "metrics");
        if (m && r->run && bl_metrics_from_json(&r->run->metrics, m) == 0)
            r->run->opt.step = r->run->metrics.steps;
        r->remote = 0;
    }
    json_decref(j);
    return 0;
}

int bl_dist_compare_gather(bl_compare *c, FILE *out)
{
    if (bl_dist_size() < 2) return 0;
    if (!alone) settle();       /* none in flight unless the round loop broke off */
    int n = bl_dist_size(), me = bl_dist_rank();
    int mine = 0;
    for (int i = 0; i < c->n; i++) mine += !c->r[i].remote;
    int done = mine ? c->done : -1;
    if (me > 0) {
        char *msg = pack(c, done);
        if (!msg) return bl_fail("compare: out of memory");
        int rc = bl_dist_send(0, BL_TAG_RESULT, msg, strlen(msg));
        free(msg);
        if (rc < 0) return -1;
        char *all;
        do {    /* rank 0's answer to this comparison (a stale one is skipped) */
            all = bl_dist_recv(0, BL_TAG_ALL, 0, NULL);
            if (!all) return -1;
            int d, ok = unpack(c, all, &d) == 0;
            free(all);
            if (ok) {
                c->done = d;
                break;
            }
        } while (1);
        cur = NULL;
        return 0;
    }
    unsigned char *got = calloc((size_t)n, 1);
    if (!got) return bl_fail("compare: out of memory");
    for (int k = 1; k < n; k++) heard[k] = bl_dist_now();     /* the silence counts from here */
    int best = done;
    for (;;) {
        drain_beats();
        int src, left = 0;
        while (bl_dist_pending(-1, BL_TAG_RESULT, &src)) {
            char *m = bl_dist_recv(src, BL_TAG_RESULT, 0, NULL);
            int d;
            if (m && unpack(c, m, &d) == 0) {
                got[src] = 1;
                if (d > best) best = d;
            }
            free(m);
        }
        for (int k = 1; k < n; k++) {
            if (got[k] || bl_dist_dead(k)) continue;
            double limit = bl_dist_timeout();
            if (10 * gap[k] > limit) limit = 10 * gap[k];
            if (bl_dist_now() - heard[k] <= limit) {
                left++;
                continue;
            }
            bl_dist_mark_dead(k);
            char names[512] = "";
            for (int i = 0; i < c->n; i++) {
                if (owner(i) != k) continue;
                bl_cmp_run *r = &c->r[i];
                r->failed = 1;
                r->remote = 0;
                r->val = r->fd = NAN;
                snprintf(r->error, sizeof r->error, "rank %d (%s) died or hangs: nothing from it for %.0f s", k,
                         bl_dist_host(k), limit);
                size_t l = strlen(names);
                snprintf(names + l, sizeof names - l, "%s%s", l ? ", " : "", r->name);
            }
            fprintf(out, "compare: rank %d (%s) sent nothing for %.0f s (BLOCKLAB_MPI_TIMEOUT): it died or hangs; "
                    "%s%s\n", k, bl_dist_host(k), limit, *names ? "its runs are lost: " : "it held no run",
                    names);
        }
        if (!left) break;
        bl_dist_nap();
    }
    free(got);
    for (int i = 0; i < c->n; i++)
        if (c->r[i].failed && owner(i) != 0 && !bl_dist_dead(owner(i)))
            fprintf(out, "compare: %s stopped: %s\n", c->r[i].name, c->r[i].error);
    c->done = best < 0 ? c->done : best;
    char *all = pack(c, c->done);
    if (!all) return bl_fail("compare: out of memory");
    for (int k = 1; k < n; k++)
        if (!bl_dist_dead(k) && bl_dist_send(k, BL_TAG_ALL, all, strlen(all)) < 0) bl_clear_error();
    free(all);
    cur = NULL;
    return 0;
}
#else
void bl_dist_compare_begin(bl_compare *c) { (void)c; seq++; }
int bl_dist_compare_poll(bl_compare *c, int interrupted, int live)
{
    (void)c;
    return interrupted ? 1 : live ? 0 : 2;
}
void bl_dist_compare_beat(void) {}
int bl_dist_compare_save(const bl_compare *c, const char *dir) { return bl_compare_save(c, dir); }
int bl_dist_compare_gather(bl_compare *c, FILE *out) { (void)c, (void)out; return 0; }
#endif
