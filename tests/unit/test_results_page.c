/* test_results_page.c - docs/results.md cannot drift from the data under docs/results/runs/.
 *
 * A table on the page is checked when the line before it (blank lines aside) is a marker
 *   <!-- check: runs=DIR table=FILE bench=FILE -->
 * (each key optional; paths relative to docs/results/runs/). Each row names its run by its first
 * `code` span; a column is checked when its header is one of:
 *   params (blocklab), steps (blocklab), spikes (blocklab)   DIR/NAME/metrics.json's params,
 *                                                            steps, number of spikes
 *   val (blocklab)          the last [step, loss] of metrics.json's "val"
 *   val@N (blocklab)        the "val" entry at step N
 *   ms/step (blocklab)      metrics.json's ms_per_step
 *   probe-FD (blocklab)     the compare table FILE's "fd" of the row whose "variant" is NAME
 *   ms (blocklab), ratio (blocklab), ms (PyTorch), ratio (PyTorch)
 *                           the bench FILE's {"bench":"dit_train_step","variant":NAME} line's
 *                           "ms" / "torch_ms", and each over the `baseline` row's
 * A cell holds the number rounded to the decimals the cell shows (thousands commas and *emphasis*
 * ignored), or *running* while the run's file is absent (a committed run must be on the page).
 * The checker is also run on a page made wrong on purpose, which it must reject.
 */
#include <jansson.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../check.h"

static char problem[1024];   /* the first problem the checker found */
static int n_cells;          /* numeric cells checked */

static int fail(const char *fmt, ...)
{
    if (!problem[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(problem, sizeof problem, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static const char *src_dir(void)
{
    const char *s = getenv("BL_SRCDIR");
    return s ? s : ".";
}

/* The JSON file runs/PATH, or NULL when absent (a parse error is a problem). */
static json_t *load_json(const char *runs, const char *path)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", runs, path);
    if (access(p, F_OK) != 0) return NULL;
    json_error_t e;
    json_t *j = json_load_file(p, 0, &e);
    if (!j) fail("%s: %s (line %d)", p, e.text, e.line);
    return j;
}

/* The bench line {"bench":"dit_train_step","variant":name} of the JSON-lines file runs/path. */
static json_t *bench_line(const char *runs, const char *path, const char *name)
{
    char p[4096], line[4096];
    snprintf(p, sizeof p, "%s/%s", runs, path);
    FILE *f = fopen(p, "r");
    if (!f) return NULL;
    json_t *found = NULL;
    while (!found && fgets(line, sizeof line, f)) {
        json_t *j = json_loads(line, 0, NULL);
        const char *b = json_string_value(json_object_get(j, "bench"));
        const char *v = json_string_value(json_object_get(j, "variant"));
        if (b && v && !strcmp(b, "dit_train_step") && !strcmp(v, name)) found = j;
        else json_decref(j);
    }
    fclose(f);
    return found;
}

/* Split a table row "| a | b |" into trimmed cells (in place); returns the count. */
static int split_row(char *row, char **cell, int max)
{
    int n = 0;
    char *p = strchr(row, '|');
    while (p && n < max) {
        char *q = strchr(p + 1, '|');
        if (!q) break;
        *q = '\0';
        char *a = p + 1, *b = q;
        while (*a == ' ') a++;
        while (b > a && (b[-1] == ' ' || b[-1] == '\n')) *--b = '\0';
        cell[n++] = a;
        p = q;
    }
    return n;
}

/* The row's run name: its first `code` span, copied into name. */
static int row_name(char **cell, int n, char *name, size_t size)
{
    for (int i = 0; i < n; i++) {
        const char *a = strchr(cell[i], '`'), *b = a ? strchr(a + 1, '`') : NULL;
        if (b) { snprintf(name, size, "%.*s", (int)(b - a - 1), a + 1); return 0; }
    }
    return -1;
}

/* Compare a cell with value v: the cell's text without commas and '*' must equal v printed
 * with as many decimals as the cell shows. */
static int check_cell(const char *cell, double v, const char *what, const char *name)
{
    char c[128], want[128];
    size_t k = 0;
    for (const char *p = cell; *p && k + 1 < sizeof c; p++)
        if (*p != ',' && *p != '*') c[k++] = *p;
    c[k] = '\0';
    const char *dot = strchr(c, '.');
    int dec = dot ? (int)strlen(dot + 1) : 0;
    snprintf(want, sizeof want, "%.*f", dec, v);
    char *end;
    errno = 0;
    strtod(c, &end);
    if (end == c || *end) return fail("%s of `%s`: cell '%s' is not a number (expected %s)", what, name, cell, want);
    if (strcmp(c, want)) return fail("%s of `%s`: page says %s, the data says %s", what, name, c, want);
    n_cells++;
    return 0;
}

static int is_running(const char *cell) { return strstr(cell, "running") != NULL; }

/* The step of a "val@N (blocklab)" header, or -1. */
static int val_at(const char *hdr)
{
    int step, used = 0;
    if (sscanf(hdr, "val@%d (blocklab)%n", &step, &used) == 1 && used == (int)strlen(hdr)) return step;
    return -1;
}

/* A column header read from metrics.json. */
static int is_metrics_header(const char *hdr)
{
    return !strcmp(hdr, "params (blocklab)") || !strcmp(hdr, "steps (blocklab)") ||
           !strcmp(hdr, "spikes (blocklab)") || !strcmp(hdr, "ms/step (blocklab)") ||
           !strcmp(hdr, "val (blocklab)") || val_at(hdr) >= 0;
}

/* The value of metrics.json m for a column header (is_metrics_header), in *v. 1: found,
 * -1: a problem. */
static int metrics_value(json_t *m, const char *hdr, double *v)
{
    json_t *val = json_object_get(m, "val");
    int step = val_at(hdr);
    if (!strcmp(hdr, "params (blocklab)")) *v = json_number_value(json_object_get(m, "params"));
    else if (!strcmp(hdr, "steps (blocklab)")) *v = json_number_value(json_object_get(m, "steps"));
    else if (!strcmp(hdr, "spikes (blocklab)")) *v = (double)json_array_size(json_object_get(m, "spikes"));
    else if (!strcmp(hdr, "ms/step (blocklab)")) *v = json_number_value(json_object_get(m, "ms_per_step"));
    else if (!strcmp(hdr, "val (blocklab)")) {
        size_t n = json_array_size(val);
        if (!n) return fail("metrics has no val entries");
        *v = json_number_value(json_array_get(json_array_get(val, n - 1), 1));
    } else if (step >= 0) {
        size_t i;
        json_t *e;
        json_array_foreach(val, i, e) {
            if ((int)json_number_value(json_array_get(e, 0)) == step) {
                *v = json_number_value(json_array_get(e, 1));
                return 1;
            }
        }
        return fail("metrics has no val at step %d", step);
    }
    return 1;
}

/* The compare table row (an object with "variant" == name) in the array t. */
static json_t *table_row(json_t *t, const char *name)
{
    size_t i;
    json_t *e;
    json_array_foreach(t, i, e) {
        const char *v = json_string_value(json_object_get(e, "variant"));
        if (v && !strcmp(v, name)) return e;
    }
    return NULL;
}

typedef struct { char runs[512], table[512], bench[512]; } marker;

/* Check one data row against the marker's files. */
static int check_row(const char *runs, const marker *mk, char **hdr, int nh, char **cell, int n)
{
    char name[128], path[1200];
    if (row_name(cell, n, name, sizeof name) < 0) return fail("a checked row names no run in `code`: '%s'", cell[0]);
    json_t *m = NULL, *t = NULL, *b = NULL, *base = NULL;
    if (mk->runs[0]) { snprintf(path, sizeof path, "%s/%s/metrics.json", mk->runs, name); m = load_json(runs, path); }
    if (mk->table[0]) t = load_json(runs, mk->table);
    if (mk->bench[0]) { b = bench_line(runs, mk->bench, name); base = bench_line(runs, mk->bench, "baseline"); }
    int rc = problem[0] ? -1 : 0;
    for (int i = 0; i < n && i < nh && rc == 0; i++) {
        double v = 0;
        int known = 0, have = 0;
        if (mk->runs[0] && is_metrics_header(hdr[i])) {
            known = 1, have = m != NULL;
            if (m && metrics_value(m, hdr[i], &v) < 0) { rc = -1; break; }
        }
        if (!known && !strcmp(hdr[i], "probe-FD (blocklab)")) {
            json_t *r = t ? table_row(t, name) : NULL;
            known = 1, have = r != NULL;
            if (r) v = json_number_value(json_object_get(r, "fd"));
        }
        if (!known && strstr(hdr[i], "(blocklab)") == NULL && strstr(hdr[i], "(PyTorch)") == NULL) continue;
        if (!known) {
            const char *key = strstr(hdr[i], "PyTorch") ? "torch_ms" : "ms";
            int ratio = !strncmp(hdr[i], "ratio ", 6);
            if (strncmp(hdr[i], "ms (", 4) && !ratio) { rc = fail("unknown checked column '%s'", hdr[i]); break; }
            known = 1, have = b && (!ratio || base);
            if (have) {
                v = json_number_value(json_object_get(b, key));
                if (ratio) v /= json_number_value(json_object_get(base, key));
            }
        }
        if (!have) {
            if (!is_running(cell[i])) rc = fail("%s of `%s`: the page says %s but no data file holds it", hdr[i], name, cell[i]);
        } else if (is_running(cell[i])) {
            rc = fail("%s of `%s`: the data is committed but the page still says %s", hdr[i], name, cell[i]);
        } else rc = check_cell(cell[i], v, hdr[i], name);
    }
    json_decref(m);
    json_decref(t);
    json_decref(b);
    json_decref(base);
    return rc;
}

static int parse_marker(const char *line, marker *mk)
{
    const char *p = strstr(line, "<!-- check:");
    if (!p) return 0;
    memset(mk, 0, sizeof *mk);
    p += strlen("<!-- check:");
    char key[16], val[512];
    int used;
    while (sscanf(p, " %15[a-z]=%511s%n", key, val, &used) == 2) {
        if (!strcmp(val, "-->")) break;
        if (!strcmp(key, "runs")) snprintf(mk->runs, sizeof mk->runs, "%s", val);
        else if (!strcmp(key, "table")) snprintf(mk->table, sizeof mk->table, "%s", val);
        else if (!strcmp(key, "bench")) snprintf(mk->bench, sizeof mk->bench, "%s", val);
        else return fail("marker key '%s' is not runs, table or bench", key);
        p += used;
    }
    return 1;
}

/* Check every marked table of the page against the files under runs. Returns the number of
 * tables checked, or -1 with `problem` set. */
static int check_page(const char *page, const char *runs)
{
    FILE *f = fopen(page, "r");
    if (!f) return fail("cannot open %s", page);
    char line[8192], hline[8192];
    char *hdr[64], *cell[64];
    int nh = 0, state = 0, tables = 0;   /* state 0: text, 1: marker seen, 2: header, 3: rows */
    marker mk;
    while (fgets(line, sizeof line, f)) {
        int r = parse_marker(line, &mk);
        if (r < 0) break;
        if (r) { state = 1; continue; }
        if (line[0] != '|') {
            if (state == 3) state = 0;
            if (state == 1 && line[0] != '\n') { fail("a check marker is not followed by a table: '%.60s'", line); break; }
            continue;
        }
        if (state == 1) {
            snprintf(hline, sizeof hline, "%s", line);
            nh = split_row(hline, hdr, 64);
            state = 2;
            tables++;
        } else if (state == 2) state = 3;   /* the | --- | line */
        else if (state == 3) {
            int n = split_row(line, cell, 64);
            if (check_row(runs, &mk, hdr, nh, cell, n) < 0) break;
        }
    }
    fclose(f);
    return problem[0] ? -1 : tables;
}

BL_TEST(page_matches_the_runs)
{
    char page[4096], runs[4096];
    snprintf(page, sizeof page, "%s/docs/results.md", src_dir());
    snprintf(runs, sizeof runs, "%s/docs/results/runs", src_dir());
    if (access(page, R_OK) != 0) SKIP("docs/results.md not found (set BL_SRCDIR)");
    problem[0] = '\0';
    n_cells = 0;
    int tables = check_page(page, runs);
    CHECK(tables >= 0, "%s", problem);
    CHECK(tables >= 4, "only %d tables of docs/results.md are checked (one per experiment at least)", tables);
    printf("# %d tables, %d numeric cells checked\n", tables, n_cells);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) { fputs(text, f); fclose(f); }
}

/* The checker rejects a page that disagrees with its data, and one that keeps *running* after
 * the data is there; it accepts the right one. */
BL_TEST(checker_rejects_a_wrong_page)
{
    char dir[] = "/tmp/bl-results-XXXXXX";
    if (!mkdtemp(dir)) SKIP("no temporary folder");
    char p[4200], page[4200];
    snprintf(p, sizeof p, "%s/exp", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/exp/base", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/exp/base/metrics.json", dir);
    write_file(p, "{\"params\": 1152176, \"steps\": 4000, \"val\": [[0, 1.2], [500, 0.31234], [4000, 0.25618]],"
                  " \"spikes\": [], \"ms_per_step\": 689.35}");
    snprintf(p, sizeof p, "%s/t.json", dir);
    write_file(p, "[{\"variant\": \"base\", \"fd\": 41.27}]");
    snprintf(page, sizeof page, "%s/page.md", dir);
    static const char *pages[][2] = {
        {"| `base` | 1,152,176 | 0.2562 | 0.3123 | 41.27 | 689.4 | 0 |\n", NULL},
        {"| `base` | 1,152,176 | 0.2563 | 0.3123 | 41.27 | 689.4 | 0 |\n", "val (blocklab) of `base`: page says 0.2563"},
        {"| `base` | 1,152,176 | 0.2562 | 0.3124 | 41.27 | 689.4 | 0 |\n", "val@500"},
        {"| `base` | 1,152,177 | 0.2562 | 0.3123 | 41.27 | 689.4 | 0 |\n", "params"},
        {"| `base` | 1,152,176 | *running* | 0.3123 | 41.27 | 689.4 | 0 |\n", "still says"},
        {"| `base` | 1,152,176 | 0.2562 | 0.3123 | 41.28 | 689.4 | 0 |\n", "probe-FD"},
        {"| `base` | 1,152,176 | 0.2562 | 0.3123 | 41.27 | 689.4 | 1 |\n", "spikes"},
    };
    for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text, "<!-- check: runs=exp table=t.json -->\n\n"
                 "| run | params (blocklab) | val (blocklab) | val@500 (blocklab) | probe-FD (blocklab) | ms/step (blocklab) | spikes (blocklab) |\n"
                 "|---|---|---|---|---|---|---|\n%s\ntext\n", pages[i][0]);
        write_file(page, text);
        problem[0] = '\0';
        int t = check_page(page, dir);
        if (!pages[i][1]) CHECK(t == 1, "the right page was rejected: %s", problem);
        else CHECK(t < 0 && strstr(problem, pages[i][1]), "page %zu: expected a problem with '%s', got '%s'", i,
                   pages[i][1], problem);
    }
    /* a run whose data is absent may say *running*, and must not show a number */
    write_file(page, "<!-- check: runs=exp -->\n| run | val (blocklab) |\n|---|---|\n| `other` | *running* |\n");
    problem[0] = '\0';
    CHECK(check_page(page, dir) == 1, "%s", problem);
    write_file(page, "<!-- check: runs=exp -->\n| run | val (blocklab) |\n|---|---|\n| `other` | 0.25 |\n");
    problem[0] = '\0';
    CHECK(check_page(page, dir) < 0 && strstr(problem, "no data file"), "got '%s'", problem);
    /* bench ratios */
    snprintf(p, sizeof p, "%s/b.jsonl", dir);
    write_file(p, "{\"bench\":\"dit_train_step\",\"variant\":\"baseline\",\"ms\":200.0,\"torch_ms\":400.0}\n"
                  "{\"bench\":\"dit_train_step\",\"variant\":\"qk\",\"ms\":250.0,\"torch_ms\":500.0}\n");
    write_file(page, "<!-- check: bench=b.jsonl -->\n| v | ms (blocklab) | ratio (blocklab) | ratio (PyTorch) |\n"
                     "|---|---|---|---|\n| `qk` | 250.0 | 1.25 | 1.25 |\n");
    problem[0] = '\0';
    CHECK(check_page(page, dir) == 1, "%s", problem);
    write_file(page, "<!-- check: bench=b.jsonl -->\n| v | ms (blocklab) | ratio (blocklab) | ratio (PyTorch) |\n"
                     "|---|---|---|---|\n| `qk` | 250.0 | 1.25 | 1.20 |\n");
    problem[0] = '\0';
    CHECK(check_page(page, dir) < 0 && strstr(problem, "ratio (PyTorch)"), "got '%s'", problem);
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) printf("# could not remove %s\n", dir);
}

int main(void)
{
    RUN(checker_rejects_a_wrong_page);
    RUN(page_matches_the_runs);
    return bl_test_done();
}
