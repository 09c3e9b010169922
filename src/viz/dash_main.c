/* dash_main.c - dash_demo: the dashboard with the demo trainer (for trying the keys and for
 * tests/dash.sh).  usage: dash_demo [steps [delay_ms [exam_ms]]] (an exam every 25 steps
 * takes exam_ms, default 0).  Prints one line after the terminal is
 * restored: "dash_demo: quit at step N", "dash_demo: interrupted at step N" or an error. */
#include "viz/dash.h"
#include "core/error.h"
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    bl_dash_demo demo;
    long step;
} counter;

static int step_and_count(void *ctx, const bl_dash_view *v, bl_dash_frame *f)
{
    counter *c = ctx;
    int r = bl_dash_demo_step(&c->demo, v, f);
    c->step = f->step;
    return r;
}

int main(int argc, char **argv)
{
    setlocale(LC_ALL, "");
    long steps = argc > 1 ? atol(argv[1]) : 1000;
    int delay = argc > 2 ? atoi(argv[2]) : 20;
    counter c = {0};
    if (bl_dash_demo_init(&c.demo, steps, delay)) {
        fprintf(stderr, "dash_demo: %s\n", bl_error());
        return 2;
    }
    c.demo.exam_ms = argc > 3 && atoi(argv[3]) > 0 ? atoi(argv[3]) : 0;
    int r = bl_dash_run(step_and_count, &c, NULL);
    bl_dash_demo_free(&c.demo);
    if (r < 0) {
        fprintf(stderr, "dash_demo: %s\n", bl_error());
        return 1;
    }
    printf("dash_demo: %s at step %ld\n", r == 1 ? "interrupted" : "quit", c.step);
    return 0;
}
