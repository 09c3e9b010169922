/* session.c - variables, history, seed and output redirection of a blocklab session (repl.h). */
#include "repl/repl.h"
#include "repl/modelvars.h"
#include "core/fmt.h"
#include "core/error.h"
#include "core/fileio.h"
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bl_session *bl_session_new(uint64_t seed)
{
    bl_session *s = calloc(1, sizeof *s);
    if (!s) return BL_FAILP("out of memory");
    s->out = stdout;
    s->err = stderr;
    s->file = "<stdin>";
    if (!(s->g = bl_graph_new())) {
        free(s);
        return NULL;
    }
    bl_graph_set_record(s->g, 0);
    bl_session_reseed(s, seed);
    return s;
}

void bl_session_free(bl_session *s)
{
    if (!s) return;
    for (int i = 0; i < s->nvars; i++) {
        free(s->names[i]);
        bl_val_unref(s->vals[i]);
    }
    free(s->names);
    free(s->vals);
    for (int i = 0; i < s->nhist; i++) free(s->hist[i]);
    free(s->hist);
    for (int i = 0; i <= BL_SOURCE_MAX; i++) free(s->chain[i]);
    bl_session_clear_error(s);
    bl_val_unref(s->ret);
    bl_graph_free(s->g);
    free(s);
}

/* A scope: sorted names and their values (the globals of a session, the locals of a call). */
typedef struct {
    int *n, *cap;
    char ***names;
    bl_value ***vals;
} scope;

static int find(scope sc, const char *name)
{
    for (int i = 0; i < *sc.n; i++)
        if (!strcmp((*sc.names)[i], name)) return i;
    return -1;
}

/* The scope that name is assigned in: the current call's locals unless declared global. */
static scope scope_of(bl_session *s, const char *name)
{
    bl_frame *f = s->frame;
    if (f) {
        int global = 0;
        for (int i = 0; i < f->nglobal; i++) global |= !strcmp(f->global[i], name);
        if (!global) return (scope){ &f->nvars, &f->capvars, &f->names, &f->vals };
    }
    return (scope){ &s->nvars, &s->capvars, &s->names, &s->vals };
}

int bl_session_set(bl_session *s, const char *name, bl_value *v)
{
    scope sc = scope_of(s, name);
    int i = find(sc, name);
    if (i >= 0) {
        bl_val_ref(v);
        if (sc.vals == &s->vals) bl_models_rebound(s, (*sc.vals)[i], v);
        bl_val_unref((*sc.vals)[i]);
        (*sc.vals)[i] = v;
        return 0;
    }
    if (*sc.n == *sc.cap) {
        int cap = *sc.cap ? 2 * *sc.cap : 16;
        char **nn = realloc(*sc.names, (size_t)cap * sizeof *nn);
        if (!nn) return bl_fail("out of memory");
        *sc.names = nn;
        bl_value **nv = realloc(*sc.vals, (size_t)cap * sizeof *nv);
        if (!nv) return bl_fail("out of memory");
        *sc.vals = nv;
        *sc.cap = cap;
    }
    char *copy = strdup(name);
    if (!copy) return bl_fail("out of memory");
    /* keep names sorted, so `vars` and completion list them in order */
    char **names = *sc.names;
    bl_value **vals = *sc.vals;
    int at = *sc.n;
    while (at > 0 && strcmp(names[at - 1], name) > 0) at--;
    memmove(names + at + 1, names + at, (size_t)(*sc.n - at) * sizeof *names);
    memmove(vals + at + 1, vals + at, (size_t)(*sc.n - at) * sizeof *vals);
    names[at] = copy;
    vals[at] = bl_val_ref(v);
    (*sc.n)++;
    return 0;
}

bl_value *bl_session_get(bl_session *s, const char *name)
{
    scope sc = scope_of(s, name);
    int i = find(sc, name);
    if (i >= 0) return (*sc.vals)[i];
    if (sc.n == &s->nvars) return NULL;
    sc = (scope){ &s->nvars, &s->capvars, &s->names, &s->vals };  /* globals are readable */
    i = find(sc, name);
    return i < 0 ? NULL : s->vals[i];
}

int bl_session_rebind(bl_session *s, const char *name, bl_value *v)
{
    bl_frame *f = s->frame;
    if (f && find(scope_of(s, name), name) < 0 && find((scope){ &s->nvars, &s->capvars, &s->names, &s->vals }, name) >= 0) {
        s->frame = NULL;    /* a global the function reads: rebound where it is */
        int rc = bl_session_set(s, name, v);
        s->frame = f;
        return rc;
    }
    return bl_session_set(s, name, v);
}

int bl_session_del(bl_session *s, const char *name)
{
    scope sc = scope_of(s, name);
    int i = find(sc, name);
    if (i < 0) return bl_fail("del: no variable '%s'%s", name, sc.n == &s->nvars ? "" : " in this function");
    char **names = *sc.names;
    bl_value **vals = *sc.vals;
    free(names[i]);
    bl_val_unref(vals[i]);
    memmove(names + i, names + i + 1, (size_t)(*sc.n - i - 1) * sizeof *names);
    memmove(vals + i, vals + i + 1, (size_t)(*sc.n - i - 1) * sizeof *vals);
    (*sc.n)--;
    return 0;
}

void bl_session_reseed(bl_session *s, uint64_t seed)
{
    s->seed = seed;
    bl_rng_named(&s->rng, seed, "repl");
}

void bl_session_add_history(bl_session *s, const char *stmt)
{
    if (s->nhist == s->caphist) {
        int cap = s->caphist ? 2 * s->caphist : 64;
        char **nh = realloc(s->hist, (size_t)cap * sizeof *nh);
        if (!nh) return;
        s->hist = nh;
        s->caphist = cap;
    }
    if ((s->hist[s->nhist] = strdup(stmt))) s->nhist++;
}

int bl_session_errat(bl_session *s, bl_pos pos)
{
    if (!s->has_errpos) {
        s->errpos = pos;
        s->has_errpos = 1;
        /* the source the position is in: a function's own, when the error is inside one */
        s->err_src = s->src, s->err_file = s->file, s->err_line = s->src_line;
        if (s->code) s->code->refs++;
        bl_code_unref(s->err_code);
        s->err_code = s->code;
    }
    return -1;
}

void bl_session_clear_error(bl_session *s)
{
    s->has_errpos = 0;
    bl_code_unref(s->err_code);
    s->err_code = NULL;
    free(s->trace);
    s->trace = NULL;
    s->trace_rep = 0;
}

/* ---- writing a value to a file ---- */
/* As numpy.savetxt writes them: a 1-D tensor one value per line (a column, so numpy.loadtxt
 * reads it back as the same 1-D array), a 2-D one a line per row (bl_write_value refuses more
 * dimensions). */
static void tensor_csv(const bl_tensor *t, FILE *f)
{
    size_t cols = t->ndim == 2 ? (size_t)t->shape[1] : 1;
    for (size_t i = 0; i < t->numel; i++)
        bl_fprintf(f, "%.9g%s", (double)t->data[i], (i + 1) % cols ? "," : "\n");
}

/* Elements are float32, so JSON reals (1.0, as json.dumps writes a Python float): a tensor that
 * happens to hold whole numbers still reads back as floats (np.array, torch.tensor). */
static void tensor_json(const bl_tensor *t, int d, size_t off, FILE *f)
{
    if (d == t->ndim) {
        double x = t->data[off];
        char num[32];
        if (x != x || x - x != 0) fputs("null", f);
        else {
            snprintf(num, sizeof num, "%.9g", x);
            fprintf(f, "%s%s", num, strpbrk(num, ".e") ? "" : ".0");
        }
        return;
    }
    size_t inner = bl_tensor_inner(t, d + 1);
    fputc('[', f);
    for (int i = 0; i < t->shape[d]; i++) {
        if (i) fputs(", ", f);
        tensor_json(t, d + 1, off + (size_t)i * inner, f);
    }
    fputc(']', f);
}

/* A number, boolean, string, tensor or list (of those, nested) as JSON; nan and inf become null
 * as in tensor_json. -1 + error, writing stops, on anything else inside a list (a table, a model)
 * or a string that is not valid UTF-8. */
static int value_json(const bl_value *v, FILE *f, const char *path)
{
    switch (v->kind) {
    case BL_V_NUM:
        if (v->num != v->num || v->num - v->num != 0) fputs("null", f);
        else if (v->num == floor(v->num) && fabs(v->num) < 9007199254740992.0)
            fprintf(f, "%.0f", v->num == 0 ? 0.0 : v->num);     /* a count: an integer, every digit */
        else {
            char num[40];
            for (int prec = 9; prec <= 17; prec++) {   /* the shortest form that reads back as it */
                snprintf(num, sizeof num, "%.*g", prec, v->num);
                if (strtod(num, NULL) == v->num) break;
            }
            fputs(num, f);
        }
        return 0;
    case BL_V_BOOL: fputs(v->num ? "true" : "false", f); return 0;
    case BL_V_TENSOR: tensor_json(v->t, 0, 0, f); return 0;
    case BL_V_STR: {
        json_t *j = json_string(v->str);
        char *text = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
        json_decref(j);
        if (!text) return bl_fail("%s: a string is not valid UTF-8, which .json needs", path);
        fputs(text, f);
        free(text);
        return 0;
    }
    case BL_V_LIST:
        fputc('[', f);
        for (int i = 0; i < v->n; i++) {
            if (i) fputs(", ", f);
            if (value_json(v->items[i], f, path) < 0) return -1;
        }
        fputc(']', f);
        return 0;
    default:
        return bl_fail("%s: cannot write a list holding a %s as .json (numbers, strings, booleans, "
                       "tensors and lists only)", path, bl_val_kind_name(v));
    }
}

int bl_write_value(bl_session *s, const bl_value *v, const char *path, const char *cmdline)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return bl_fail("cannot tell the format of '%s': name it .txt, .csv, .json, .md, .png or .svg", path);
    const char *ext = dot + 1;
    if (v->kind == BL_V_HANDLE && v->htype->save) return v->htype->save(v->h, path, cmdline);
    int txt = !strcasecmp(ext, "txt"), csv = !strcasecmp(ext, "csv"), json = !strcasecmp(ext, "json");
    int md = !strcasecmp(ext, "md");
    if (md && v->kind != BL_V_TABLE) return bl_fail("%s: only tables are written as .md, not a %s", path, bl_val_kind_name(v));
    if (!txt && !csv && !json && !md) {
        if (!strcasecmp(ext, "png") || !strcasecmp(ext, "svg"))
            return bl_fail("%s: a %s is not a picture (heatmap(), lineplot() and the plot "
                           "commands make pictures)", path, bl_val_kind_name(v));
        return bl_fail("%s: unknown format '.%s' (use .txt, .csv, .json, .md, .png or .svg)", path, ext);
    }
    int ok = txt || v->kind == BL_V_TABLE || v->kind == BL_V_TENSOR ||
             (json && (v->kind == BL_V_NUM || v->kind == BL_V_BOOL || v->kind == BL_V_STR ||
                       v->kind == BL_V_LIST));
    if (!ok) return bl_fail("%s: cannot write a %s as .%s", path, bl_val_kind_name(v), ext);
    if (csv && v->kind == BL_V_TENSOR && v->t->ndim > 2) {
        /* rows and columns only (numpy.savetxt refuses too): flattening would lose the shape */
        const bl_tensor *t = v->t;
        size_t rows = 1;
        for (int d = 0; d < t->ndim - 1; d++) rows *= (size_t)t->shape[d];
        char shp[64];
        return bl_fail("%s: a .csv file holds a 1-D or 2-D tensor, not %s: reshape it first (e.g. reshape(x, %zu, %d)) "
                       "or write .json, which keeps the shape", path, bl_shape_str(t, shp, sizeof shp), rows,
                       t->shape[t->ndim - 1]);
    }
    bl_atomic_file af;
    if (bl_atomic_open(&af, path) < 0) return -1;
    if (txt) bl_val_print(v, af.f);
    else if (v->kind == BL_V_TABLE) (md ? bl_table_write_md : csv ? bl_table_write_csv : bl_table_write_json)(v->tab, af.f);
    else if (v->kind == BL_V_TENSOR && csv) tensor_csv(v->t, af.f);
    else if (value_json(v, af.f, path) < 0) {
        bl_atomic_abort(&af);   /* the file is left as it was */
        return -1;
    } else
        fputc('\n', af.f);
    (void)s;
    return bl_atomic_commit(&af);
}
