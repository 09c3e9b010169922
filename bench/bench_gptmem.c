/* bench_gptmem.c - TinyGPT at nanoGPT's shakespeare-char size (dim 384, depth 6, heads 6,
 * context 256, dropout 0.2, vocab 65): the time of each of the first training steps, the arena
 * the step takes, where its bytes go by op, and the process's resident memory (issue 18: the
 * first steps in line with the later ones, at most 3 GB resident at batch 64 on one rank).
 *
 * Usage: bench_gptmem [batch] [steps] [tinyshakespeare.txt]  (defaults 64, 5, the built-in text)
 * One JSON object per line: "gpt_step" per step (ms, arena MiB, resident MiB after the step),
 * "gpt_exam" (an exam of 64 windows after them: ms, val loss, resident MiB), then one more step,
 * "gpt_arena_by_op" (MiB of op outputs and of the tensors ops saved for backward, per op, of the
 * last step's tape; the activation grads, planned by backward, are the rest of the arena), "gpt_mem" (max resident MiB from getrusage, loss after the last
 * step as exact hex, for bit-identity checks across builds). No assertions.
 */
#include "core/error.h"
#include "core/graph.h"
#include "data/dataset.h"
#include "models/model.h"
#include "train/trainer.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "bench_util.h"

/* Resident MiB now (/proc/self/statm; 0 where there is none). */
static double rss_mib(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, res = 0;
    if (!f) return 0;
    if (fscanf(f, "%ld %ld", &size, &res) != 2) res = 0;
    fclose(f);
    return (double)res * (double)sysconf(_SC_PAGESIZE) / (1 << 20);
}

/* MiB of one arena tensor's data, 0 for NULL. */
static double t_mib(const bl_tensor *t) { return t ? (double)t->numel * 4 / (1 << 20) : 0; }

int main(int argc, char **argv)
{
    const char *batch = argc > 1 ? argv[1] : "64";
    int steps = argc > 2 ? atoi(argv[2]) : 5;
    bl_dataset *ds = argc > 3 ? bl_data_text(argv[3]) : bl_data_open("text", NULL, 0);
    if (!ds) { fprintf(stderr, "bench_gptmem: %s\n", bl_error()); return 1; }
    bl_config c = bl_config_default(BL_MODEL_GPT);
    char v[16];
    snprintf(v, sizeof v, "%d", ds->vocab_size);
    const char *k[] = {"vocab", "dim", "depth", "heads", "context", "batch", "lr", "dropout", "eval_every"};
    const char *val[] = {v, "384", "6", "6", "256", batch, "0.001", "0.2", "0"};
    if (bl_config_set_many(&c, 9, k, val) < 0) { fprintf(stderr, "bench_gptmem: %s\n", bl_error()); return 1; }
    bl_model *m = bl_model_new(&c);
    bl_run *r = m ? bl_run_new(m, ds, 64) : NULL;   /* an exam of 64 windows */
    if (!r) { fprintf(stderr, "bench_gptmem: %s\n", bl_error()); return 1; }
    float L = 0;
    for (int i = 1; i <= steps; i++) {
        double t0 = now_ms();
        if (bl_run_step(r, &L, NULL) < 0) { fprintf(stderr, "bench_gptmem: %s\n", bl_error()); return 1; }
        printf("{\"bench\":\"gpt_step\",\"batch\":%s,\"step\":%d,\"ms\":%.0f,\"arena_mib\":%.0f,"
               "\"rss_mib\":%.0f,\"loss\":%.6f}\n", batch, i, now_ms() - t0,
               (double)bl_graph_arena_bytes(m->graph) / (1 << 20), rss_mib(), L);
        fflush(stdout);
    }
    /* the exam (one chunk of 64 windows, not recorded) after the steps */
    double t0 = now_ms();
    float vloss = bl_run_eval(r);
    printf("{\"bench\":\"gpt_exam\",\"windows\":64,\"ms\":%.0f,\"val\":%.6f,\"rss_mib\":%.0f}\n",
           now_ms() - t0, vloss, rss_mib());
    if (bl_run_step(r, &L, NULL) < 0) { fprintf(stderr, "bench_gptmem: %s\n", bl_error()); return 1; }
    /* the tape of that last step: outputs and saved tensors by op */
    enum { NOPS = 256 };
    double out[NOPS] = {0}, save[NOPS] = {0};
    int cnt[NOPS] = {0};
    for (int i = 0; i < bl_graph_node_count(m->graph); i++) {
        const bl_node *n = bl_graph_node_at(m->graph, i);
        int o = (int)n->op % NOPS;
        cnt[o]++;
        out[o] += t_mib(n->out);
        for (int j = 0; j < 4; j++) save[o] += t_mib(n->save[j]);
    }
    printf("{\"bench\":\"gpt_arena_by_op\"");
    for (int o = 0; o < NOPS; o++)
        if (cnt[o])
            printf(",\"%s\":{\"n\":%d,\"out_mib\":%.0f,\"saved_mib\":%.0f}", bl_op_name((bl_op)o), cnt[o],
                   out[o], save[o]);
    printf("}\n");
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    union { float f; unsigned u; } bits = {L};
    printf("{\"bench\":\"gpt_mem\",\"batch\":%s,\"steps\":%d,\"max_rss_mib\":%.0f,\"params\":%zu,"
           "\"loss_hex\":\"%08x\"}\n", batch, steps + 1, (double)ru.ru_maxrss / 1024, bl_model_param_count(m), bits.u);
    bl_run_free(r);
    bl_model_free(m);
    bl_dataset_free(ds);
    return 0;
}
