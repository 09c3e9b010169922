/* progress.c - the rate meter and the duration format (see progress.h). */
#include "viz/progress.h"
#include "core/fmt.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *bl_fmt_duration(char *buf, size_t n, double seconds)
{
    if (!n) return buf;
    if (!isfinite(seconds) || seconds < 0 || seconds > 3.6e12) {   /* past a billion hours: no number */
        snprintf(buf, n, "?");
        return buf;
    }
    long long s = (long long)seconds, h = s / 3600, m = s / 60 % 60;
    if (h) snprintf(buf, n, "%lld:%02lld:%02lld", h, m, s % 60);
    else snprintf(buf, n, "%lld:%02lld", m, s % 60);
    return buf;
}

void bl_fmt_val(char *buf, size_t n, double loss, long at, long step)
{
    if (!n) return;
    buf[0] = 0;
    if (at < 0) return;
    if (at == step) bl_snprintf(buf, n, "  val %.4f", loss);
    else bl_snprintf(buf, n, "  val %.4f @%ld", loss, at);
}

void bl_rate_start(bl_rate *r, double now, long step)
{
    memset(r, 0, sizeof *r);
    r->since = now;
    r->running = 1;
    r->start_step = r->last_step = step;
}

double bl_rate_active(const bl_rate *r, double now)
{
    return r->active + (r->running ? now - r->since : 0);
}

void bl_rate_pause(bl_rate *r, double now, int paused)
{
    if (paused && r->running) {
        r->active += now - r->since;
        r->running = 0;
    } else if (!paused && !r->running) {
        r->since = now;
        r->running = 1;
    }
}

void bl_rate_exam(bl_rate *r, double seconds, int in_clock)
{
    if (!(seconds >= 0) || !isfinite(seconds)) return;
    if (in_clock) r->active -= seconds;
    r->exam_s += seconds;
    r->exams++;
}

double bl_rate_step(bl_rate *r, double now, long step)
{
    double a = bl_rate_active(r, now);
    r->last_step = step;
    r->last_at = a;
    if (!r->marked) {   /* the first step starts the first window */
        r->marked = 1;
        r->mark_at = a;
        r->mark_step = step;
    } else if (a - r->mark_at >= BL_RATE_WINDOW) {
        r->rate = (double)(step - r->mark_step) / (a - r->mark_at);
        r->mark_at = a;
        r->mark_step = step;
    }
    return bl_rate_now(r);
}

double bl_rate_overall(const bl_rate *r)
{
    return r->last_step > r->start_step && r->last_at > 0 ? (double)(r->last_step - r->start_step) / r->last_at : 0;
}

double bl_rate_now(const bl_rate *r)
{
    return r->rate > 0 ? r->rate : bl_rate_overall(r);
}

double bl_rate_exam_mean(const bl_rate *r)
{
    return r->exams ? r->exam_s / r->exams : 0;
}

double bl_rate_eta(const bl_rate *r, long steps_left, long exams_left)
{
    double rate = bl_rate_now(r);
    if (rate <= 0) return -1;
    return (steps_left > 0 ? steps_left / rate : 0) + (exams_left > 0 ? exams_left * bl_rate_exam_mean(r) : 0);
}

/* ---- status line ---- */

int bl_status_rows(const bl_status_line *st, int cols)
{
    if (cols < 1 || st->len <= cols) return 1;
    return (st->len + cols - 1) / cols;
}

void bl_status_draw(bl_status_line *st, FILE *out, int cols, const char *line)
{
    int cuts = getenv("XTERM_VERSION") && !getenv("TMUX") && !getenv("STY");
    int up = cuts ? 0 : bl_status_rows(st, cols) - 1;
    if (up > 0) fprintf(out, "\r\033[%dA\033[J%s", up, line);
    else fprintf(out, "\r%s\033[K", line);
    int n = 0;
    for (const char *c = line; *c; c++) n += ((unsigned char)*c & 0xC0) != 0x80;   /* UTF-8 characters */
    st->len = n;
}
