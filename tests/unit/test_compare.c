/* test_compare.c - fair ablations (train/compare.h): the published parameter counts of the six
 * TinyDiT variants (DESIGN.md section 1), shared initial weights and streams (a variant's run is
 * bit-identical to a standalone run of the same config), the seed + 1 noise floor, the gap and
 * its marks worked by hand, metrics.json files, and bad input. */
#include "core/error.h"
#include "data/dataset.h"
#include "models/model.h"
#include "train/checkpoint.h"
#include "train/compare.h"
#include "train/trainer.h"
#include "repl/value.h"
#include "../check.h"
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bl_config tiny(void)
{
    bl_config c = bl_config_default(BL_MODEL_DIT);
    const char *k[] = {"dim", "depth", "heads", "batch", "lr", "eval_every"};
    const char *v[] = {"32", "1", "2", "4", "0.001", "2"};
    if (bl_config_set_many(&c, 6, k, v) < 0) printf("# config: %s\n", bl_error());
    return c;
}

BL_TEST(apply_parses_switch_sets)
{
    bl_config c = bl_config_default(BL_MODEL_DIT);
    CHECK(bl_compare_apply(&c, "norm:rmsnorm,qk_norm:on,mlp=swiglu,pos:rope2d") == 0, "%s", bl_error());
    CHECK(c.norm == BL_NORM_RMSNORM && c.qk_norm == 1 && c.mlp == BL_MLP_SWIGLU && c.pos == BL_POS_ROPE2D,
          "switches not applied");
    bl_config d = bl_config_default(BL_MODEL_DIT);
    CHECK(bl_compare_apply(&d, "") == 0 && bl_compare_apply(&d, "-") == 0 && d.norm == BL_NORM_LAYERNORM, "empty set");
    /* all or nothing */
    CHECK(bl_compare_apply(&d, "norm:rmsnorm,pos:rope") < 0, "rope on a DiT accepted");
    CHECK_ERR("compare: norm:rmsnorm,pos:rope: pos");
    CHECK(d.norm == BL_NORM_LAYERNORM, "a refused set changed the config");
    CHECK(bl_compare_apply(&d, "norm") < 0, "a key without value accepted");
    CHECK_ERR("expected KEY:VALUE, got 'norm'");
    CHECK(bl_compare_apply(&d, "colour:red") < 0, "unknown key accepted");
    CHECK_ERR("colour");
    /* an empty pair (a stray comma) and a key given twice are refused, not skipped or overwritten */
    CHECK(bl_compare_apply(&d, "norm:rmsnorm,") < 0, "a trailing comma accepted");
    CHECK_ERR("compare: norm:rmsnorm,: an empty KEY:VALUE pair (a ',' too many)");
    CHECK(bl_compare_apply(&d, "norm:rmsnorm,,mlp:swiglu") < 0, "an empty pair accepted");
    CHECK(bl_compare_apply(&d, "norm:rmsnorm,norm:layernorm") < 0, "a key given twice accepted");
    CHECK_ERR("compare: norm:rmsnorm,norm:layernorm: norm is given twice");
    CHECK(d.norm == BL_NORM_LAYERNORM, "a refused set changed the config");
}

/* DESIGN.md section 1: the published parameter counts, and seed2 = the reference with seed + 1. */
BL_TEST(published_parameter_counts)
{
    bl_config base = bl_config_default(BL_MODEL_DIT);
    bl_config_set(&base, "batch", "2");
    bl_dataset *ds = bl_data_shapes(0);
    const char *names[] = {"baseline", "rmsnorm", "qknorm", "swiglu", "rope", "all"};
    const char *specs[] = {"", "norm:rmsnorm", "qk_norm:on", "mlp:swiglu", "pos:rope2d",
                           "norm:rmsnorm,qk_norm:on,mlp:swiglu,pos:rope2d"};
    const size_t want[] = {1152176, 1152176, 1152432, 1152344, 1150128, 1150552, 1152176};
    bl_compare *c = bl_compare_new(&base, ds, 2, 6, names, specs, 10);
    CHECK(c != NULL, "%s", bl_error());
    if (c) {
        CHECK(c->n == 7 && !strcmp(c->r[6].name, "seed2") && c->r[6].noise_floor, "seed2 run missing");
        for (int i = 0; i < 7; i++)
            CHECK(bl_model_param_count(c->r[i].model) == want[i], "%s: %zu parameters, expected %zu", c->r[i].name,
                  bl_model_param_count(c->r[i].model), want[i]);
        CHECK(c->r[6].model->cfg.seed == base.seed + 1 && c->r[3].model->cfg.seed == base.seed, "seeds");
        CHECK(c->r[2].model->cfg.steps == 10, "steps not passed to the configs (cosine)");
        /* shared parameters start equal across variants, differ with the seed */
        bl_tensor *a = bl_params_find(c->r[0].model->params, "blocks.0.attn.qkv.weight");
        bl_tensor *b = bl_params_find(c->r[5].model->params, "blocks.0.attn.qkv.weight");
        bl_tensor *s = bl_params_find(c->r[6].model->params, "blocks.0.attn.qkv.weight");
        CHECK(a && b && s && !memcmp(a->data, b->data, a->numel * sizeof(float)), "shared weights differ");
        CHECK(a && s && memcmp(a->data, s->data, a->numel * sizeof(float)), "seed + 1 gave the same weights");
    }
    bl_compare_free(c);
    bl_dataset_free(ds);
}

/* A variant trained round-robin is bit-identical to the same config trained alone with
 * bl_run_train: same data order, noise and t, no cross-talk between the runs. */
BL_TEST(round_robin_equals_standalone_runs)
{
    bl_config base = tiny();
    bl_dataset *ds = bl_data_shapes(0);
    const char *names[] = {"base", "rope"};
    const char *specs[] = {"", "pos:rope2d"};
    bl_compare *c = bl_compare_new(&base, ds, 8, 2, names, specs, 5);
    CHECK(c != NULL, "%s", bl_error());
    if (!c) return;
    for (int k = 0; k < 5; k++) CHECK(bl_compare_round(c) == 3, "round %d: %s", k, bl_error());
    CHECK(bl_compare_round(c) < 0, "a round past the planned steps was taken");
    CHECK_ERR("all 5 steps are done");
    CHECK(bl_compare_finish(c, NULL, 0) == 0, "%s", bl_error());
    for (int i = 0; i < 3; i++) {
        bl_config cfg = base;
        cfg.steps = 5;
        if (i == 1) bl_config_set(&cfg, "pos", "rope2d");
        if (i == 2) cfg.seed = base.seed + 1;
        bl_model *m = bl_model_new(&cfg);
        bl_run *r = bl_run_new(m, ds, 8);
        CHECK(r && bl_run_train(r, 5, NULL, NULL) == 5, "%s", bl_error());
        float v = r ? bl_run_eval(r) : NAN;
        const bl_metrics *cm = &c->r[i].run->metrics;
        CHECK(r && cm->steps == 5 && !memcmp(cm->loss, r->metrics.loss, 5 * sizeof(float)), "%s: losses differ",
              c->r[i].name);
        CHECK(c->r[i].val == v, "%s: val %.9g, alone %.9g", c->r[i].name, c->r[i].val, (double)v);
        /* val at steps 0, 2, 4 (eval_every 2) and the final one at 5 */
        CHECK(cm->nval == 4 && cm->val_step[3] == 5, "%s: %d val points", c->r[i].name, cm->nval);
        bl_run_free(r);
        bl_model_free(m);
    }
    /* the summary by hand */
    bl_cmp_summary s;
    bl_compare_summary(c, &s);
    double gap = fabs(c->r[0].val - c->r[2].val);
    CHECK(s.gap == gap && gap > 0, "gap %g, expected %g", s.gap, gap);
    CHECK(s.row[1].delta == c->r[1].val - c->r[0].val, "delta");
    CHECK(s.row[1].exceeds == (fabs(c->r[1].val - c->r[0].val) > gap), "mark");
    CHECK(s.row[0].speed == 1 && s.row[1].params == bl_model_param_count(c->r[1].model), "speed/params");
    const float *ms = c->r[1].run->metrics.ms;     /* steps 2..5: the first sizes the buffers */
    CHECK_CLOSE(s.row[1].ms_per_step, ((double)ms[1] + ms[2] + ms[3] + ms[4]) / 4, 1e-9);
    CHECK(isnan(s.fd_gap) && !s.row[1].fd_exceeds, "fd not measured, yet marked");
    bl_compare_free(c);
    bl_dataset_free(ds);
}

/* The marks, worked by hand on set values: gap = |0.50 - 0.52| = 0.02. */
BL_TEST(gap_and_marks_by_hand)
{
    bl_config base = tiny();
    bl_dataset *ds = bl_data_shapes(0);
    const char *names[] = {"a", "b", "c"};
    const char *specs[] = {"", "norm:rmsnorm", "mlp:swiglu"};
    bl_compare *c = bl_compare_new(&base, ds, 4, 3, names, specs, 1);
    CHECK(c != NULL, "%s", bl_error());
    if (!c) return;
    double val[4] = {0.50, 0.47, 0.515, 0.52}, fd[4] = {10, 20, 9, 11};
    for (int i = 0; i < 4; i++) c->r[i].val = val[i], c->r[i].fd = fd[i];
    bl_cmp_summary s;
    bl_compare_summary(c, &s);
    CHECK_CLOSE(s.gap, 0.02, 1e-12);
    CHECK_CLOSE(s.fd_gap, 1, 1e-12);
    CHECK(s.row[1].exceeds == 1 && s.row[2].exceeds == 0, "b beyond (0.03 > 0.02), c within (0.015)");
    CHECK(s.row[0].exceeds == 0 && s.row[3].exceeds == 0, "reference and seed2 are never marked");
    CHECK(s.row[1].fd_exceeds == 1 && s.row[2].fd_exceeds == 0, "fd marks");
    CHECK_CLOSE(s.row[1].delta, -0.03, 1e-12);
    /* no steps: no speed */
    CHECK(isnan(s.row[1].ms_per_step), "ms/step before any step");
    bl_compare_free(c);
    bl_dataset_free(ds);
}

BL_TEST(metrics_files)
{
    bl_config base = tiny();
    bl_dataset *ds = bl_data_shapes(0);
    const char *names[] = {"x"};
    const char *specs[] = {"qk_norm:on"};
    bl_compare *c = bl_compare_new(&base, ds, 4, 1, names, specs, 2);
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/bl-test-compare-%d", (int)getpid());
    CHECK(c && bl_compare_round(c) == 2 && bl_compare_round(c) == 2, "%s", bl_error());
    CHECK(c && bl_compare_write(c, dir) == 0, "%s", bl_error());
    const char *who[] = {"x", "seed2"};
    for (int i = 0; i < 2; i++) {
        char p[128];
        snprintf(p, sizeof p, "%s/%s/metrics.json", dir, who[i]);
        json_error_t e;
        json_t *j = json_load_file(p, 0, &e);
        CHECK(j && json_integer_value(json_object_get(j, "steps")) == 2 &&
                  json_array_size(json_object_get(j, "loss")) == 2,
              "%s: %s", p, j ? "wrong content" : e.text);
        json_decref(j);
        unlink(p);
        snprintf(p, sizeof p, "%s/%s", dir, who[i]);
        rmdir(p);
    }
    rmdir(dir);
    CHECK(c && bl_compare_write(c, "/proc/nonexistent/x") < 0, "unwritable folder accepted");
    CHECK_ERR("compare: /proc/nonexistent/x");
    bl_compare_free(c);
    bl_dataset_free(ds);
}

static void remove_run_dir(const char *dir, int n, const char *const *who)
{
    for (int i = 0; i < n; i++) {
        char p[256];
        snprintf(p, sizeof p, "%s/%s/metrics.json", dir, who[i]);
        unlink(p);
        snprintf(p, sizeof p, "%s/%s/checkpoint.safetensors", dir, who[i]);
        unlink(p);
        snprintf(p, sizeof p, "%s/%s", dir, who[i]);
        rmdir(p);
    }
    rmdir(dir);
}

/* Issue 17: a comparison stopped and resumed from its checkpoints gives the numbers of an
 * uninterrupted one: the same losses bit for bit, the same val points and the same table, also
 * when the stop fell between two runs' files (one run saved a step ahead of the others). A
 * folder holding another comparison's runs is refused, naming the key that differs. */
BL_TEST(resume_equals_uninterrupted)
{
    bl_config base = tiny();
    bl_dataset *ds = bl_data_shapes(0);
    const char *names[] = {"base", "rms"};
    const char *specs[] = {"", "norm:rmsnorm"};
    const char *who[] = {"base", "rms", "seed2"};
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/bl-test-resume-%d", (int)getpid());
    bl_compare *a = bl_compare_new(&base, ds, 8, 2, names, specs, 6);
    for (int k = 0; a && k < 6; k++) bl_compare_round(a);
    CHECK(a && bl_compare_finish(a, NULL, 0) == 0, "%s", bl_error());
    /* the stopped one: 2 rounds saved, then run 0 alone saved after a third step */
    bl_compare *b = bl_compare_new(&base, ds, 8, 2, names, specs, 6);
    CHECK(b && bl_compare_make_dir(dir, 2, names) == 0, "%s", bl_error());
    for (int k = 0; b && k < 2; k++) bl_compare_round(b);
    CHECK(b && bl_compare_save(b, dir) == 0, "%s", bl_error());
    if (b) bl_compare_round(b);
    char p0[128];
    snprintf(p0, sizeof p0, "%s/base/checkpoint.safetensors", dir);
    CHECK(b && bl_checkpoint_save(p0, b->r[0].model, b->r[0].run, NULL, 0) == 0, "%s", bl_error());
    bl_compare_free(b);
    /* resumed */
    bl_compare *c = bl_compare_new(&base, ds, 8, 2, names, specs, 6);
    int resumed = -1;
    CHECK(c && bl_compare_resume(c, dir, &resumed) == 0, "%s", bl_error());
    CHECK(resumed == 3 && c && c->done == 2 && bl_run_steps(c->r[0].run) == 3, "resumed %d, done %d", resumed,
          c ? c->done : -1);
    int rounds = 0;
    while (c && c->done < c->steps && bl_compare_round(c) == 3) rounds++;
    CHECK(rounds == 4, "%d rounds after the resume", rounds);
    CHECK(c && bl_compare_finish(c, NULL, 0) == 0, "%s", bl_error());
    for (int i = 0; a && c && i < 3; i++) {
        const bl_metrics *ma = &a->r[i].run->metrics, *mc = &c->r[i].run->metrics;
        CHECK(mc->steps == 6 && !memcmp(ma->loss, mc->loss, 6 * sizeof(float)), "%s: losses differ", who[i]);
        CHECK(ma->nval == mc->nval && !memcmp(ma->val_loss, mc->val_loss, (size_t)ma->nval * sizeof(float)),
              "%s: val points differ", who[i]);
        CHECK(a->r[i].val == c->r[i].val, "%s: val %.9g resumed %.9g", who[i], a->r[i].val, c->r[i].val);
    }
    if (a && c) {
        bl_cmp_summary sa, sc;
        bl_compare_summary(a, &sa);
        bl_compare_summary(c, &sc);
        CHECK(sa.gap == sc.gap && sa.row[1].delta == sc.row[1].delta && sa.row[1].exceeds == sc.row[1].exceeds,
              "tables differ");
    }
    bl_compare_free(c);
    /* another comparison in the same folder: refused, naming the key */
    const char *other[] = {"", "mlp:swiglu"};
    bl_compare *d = bl_compare_new(&base, ds, 8, 2, names, other, 6);
    CHECK(d && bl_compare_resume(d, dir, &resumed) < 0, "another variant's checkpoint accepted");
    CHECK_ERR("rms/checkpoint.safetensors: holds another run (its config differs in norm)");
    bl_compare_free(d);
    bl_compare *e = bl_compare_new(&base, ds, 8, 2, names, specs, 8);
    CHECK(e && bl_compare_resume(e, dir, &resumed) < 0, "a checkpoint of another budget accepted");
    CHECK_ERR("config differs in steps");
    bl_compare_free(e);
    bl_compare_free(a);
    remove_run_dir(dir, 3, who);
    bl_dataset_free(ds);
}

BL_TEST(bad_input)
{
    bl_config base = tiny();
    bl_dataset *ds = bl_data_shapes(0);
    const char *dup[] = {"a", "a"}, *sp[] = {"", ""};
    CHECK(!bl_compare_new(&base, ds, 4, 2, dup, sp, 3), "duplicate names accepted");
    CHECK_ERR("compare: variant 'a' is named twice");
    const char *s2[] = {"seed2"};
    CHECK(!bl_compare_new(&base, ds, 4, 1, s2, sp, 3), "seed2 accepted");
    CHECK_ERR("'seed2' is the name");
    const char *bad[] = {"a-b"};
    CHECK(!bl_compare_new(&base, ds, 4, 1, bad, sp, 3), "bad name accepted");
    CHECK_ERR("variant name 'a-b'");
    const char *ok[] = {"a"};
    CHECK(!bl_compare_new(&base, ds, 4, 1, ok, sp, 0), "0 steps accepted");
    CHECK_ERR("steps must be at least 1, got 0");
    CHECK(!bl_compare_new(&base, ds, 4, 0, ok, sp, 3), "no variants accepted");
    CHECK_ERR("1 to 15 variants, got 0");
    const char *badspec[] = {"dim:33"};
    CHECK(!bl_compare_new(&base, ds, 4, 1, ok, badspec, 3), "bad switch set accepted");
    CHECK_ERR("compare: dim:33:");
    /* a GPT config on image data: the trainer's message, named by the run */
    bl_config g = bl_config_default(BL_MODEL_GPT);
    CHECK(!bl_compare_new(&g, ds, 4, 1, ok, sp, 3), "gpt on images accepted");
    CHECK_ERR("compare: a: TinyGPT needs text, but the data is shapes");
    bl_dataset_free(ds);
}

/* The Markdown table writer (`compare ... > table.md`), against text written by hand. */
BL_TEST(markdown_table)
{
    const char *cols[] = {"variant", "val", "note"};
    bl_table *t = bl_table_new(3, cols);
    const char *r1[] = {"baseline", "0.5", "a|b"}, *r2[] = {"rope", "0.25", "*"};
    CHECK(t && bl_table_add(t, r1) == 0 && bl_table_add(t, r2) == 0, "table");
    if (!t) return;
    t->title = strdup("gap 0.01");
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    bl_table_write_md(t, f);
    fclose(f);
    const char *want = "gap 0.01\n\n"
                       "| variant | val | note |\n"
                       "| --- | ---: | --- |\n"
                       "| baseline | 0.5 | a\\|b |\n"
                       "| rope | 0.25 | * |\n";
    CHECK(!strcmp(buf, want), "got:\n%s", buf);
    free(buf);
    bl_table_free(t);
}

/* probe-FD through a (quickly trained, uncached) probe: a finite distance per TinyDiT run, the
 * fd gap from the seed + 1 run, and the marks follow it. */
BL_TEST(probe_fd_per_run)
{
    bl_config base = tiny();
    bl_dataset *ds = bl_data_shapes(0);
    bl_probe_opts po;
    bl_probe_opts_default(&po);
    po.cache_dir = "";
    po.steps = 2;
    po.batch = 8;
    po.n_eval = 16;
    bl_probe *p = bl_probe_get(ds, &po);
    CHECK(p != NULL, "%s", bl_error());
    const char *names[] = {"a", "rope"};
    const char *specs[] = {"", "pos:rope2d"};
    bl_compare *c = p ? bl_compare_new(&base, ds, 4, 2, names, specs, 1) : NULL;
    if (c) {
        CHECK(bl_compare_round(c) == 3, "%s", bl_error());
        CHECK(bl_compare_finish(c, p, 8) == 0, "%s", bl_error());
        for (int i = 0; i < 3; i++) CHECK(isfinite(c->r[i].fd) && c->r[i].fd >= 0, "%s: fd %g", c->r[i].name, c->r[i].fd);
        bl_cmp_summary s;
        bl_compare_summary(c, &s);
        CHECK(s.fd_gap == fabs(c->r[0].fd - c->r[2].fd), "fd gap");
        CHECK(s.row[1].fd_exceeds == (fabs(c->r[1].fd - c->r[0].fd) > s.fd_gap), "fd mark");
        /* more images than held out: the probe's error, named by the run */
        CHECK(bl_compare_finish(c, p, 20000) < 0, "n beyond the held-out set accepted");
        CHECK_ERR("compare: a: ");
    }
    bl_compare_free(c);
    bl_probe_free(p);
    bl_dataset_free(ds);
}

/* The .json and .csv writers of tables (`compare ... > t.json`, `cmp_table > t.csv`): cells the
 * text shows as numbers in forms JSON does not allow ("+0.0012" for a signed difference, ".5")
 * are written as JSON numbers that json.load reads, counts stay integers, and "-" (no value, the
 * first variant's difference) and nan become null in .json and an empty cell in .csv, so a
 * column of numbers reads as numbers in pandas. */
BL_TEST(json_and_csv_tables)
{
    const char *cols[] = {"variant", "params", "dval", "x", "note"};
    bl_table *t = bl_table_new(5, cols);
    const char *r1[] = {"baseline", "11088", "-", ".5", ""}, *r2[] = {"rms", "11088", "+0.0012", "nan", "*"};
    CHECK(t && bl_table_add(t, r1) == 0 && bl_table_add(t, r2) == 0, "table");
    if (!t) return;
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    bl_table_write_json(t, f);
    fclose(f);
    json_error_t e;
    json_t *j = json_loads(buf, 0, &e);
    CHECK(j != NULL, "not JSON (%s):\n%s", e.text, buf);
    json_t *a = json_array_get(j, 0), *b = json_array_get(j, 1);
    CHECK(json_is_integer(json_object_get(a, "params")) && json_integer_value(json_object_get(a, "params")) == 11088,
          "params is not the integer 11088:\n%s", buf);
    CHECK(json_is_null(json_object_get(a, "dval")) && json_is_real(json_object_get(b, "dval")) &&
          fabs(json_real_value(json_object_get(b, "dval")) - 0.0012) < 1e-12, "dval is not [null, 0.0012]:\n%s", buf);
    CHECK(json_is_real(json_object_get(a, "x")) && json_real_value(json_object_get(a, "x")) == 0.5 &&
          json_is_null(json_object_get(b, "x")), "x is not [0.5, null]:\n%s", buf);
    CHECK(json_is_string(json_object_get(b, "note")) && json_is_string(json_object_get(a, "variant")), "text:\n%s", buf);
    json_decref(j);
    free(buf);
    buf = NULL;
    f = open_memstream(&buf, &n);
    bl_table_write_csv(t, f);
    fclose(f);
    CHECK(!strcmp(buf, "variant,params,dval,x,note\nbaseline,11088,,.5,\nrms,11088,+0.0012,nan,*\n"), "csv:\n%s", buf);
    free(buf);
    bl_table_free(t);
}

int main(void)
{
    RUN(apply_parses_switch_sets);
    RUN(published_parameter_counts);
    RUN(round_robin_equals_standalone_runs);
    RUN(gap_and_marks_by_hand);
    RUN(metrics_files);
    RUN(resume_equals_uninterrupted);
    RUN(bad_input);
    RUN(markdown_table);
    RUN(json_and_csv_tables);
    RUN(probe_fd_per_run);
    return bl_test_done();
}
