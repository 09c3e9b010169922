/* params.c - the flat parameter store (see params.h). */
#include "models/params.h"
#include "core/error.h"
#include "core/rng.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

bl_params *bl_params_new(void)
{
    bl_params *p = calloc(1, sizeof *p);
    if (!p) return BL_FAILP("params: out of memory");
    p->refs = 1;
    return p;
}

bl_params *bl_params_ref(bl_params *p)
{
    if (p) p->refs++;
    return p;
}

void bl_params_free(bl_params *p)
{
    if (!p || --p->refs > 0) return;
    free(p->t);
    free(p->info);
    free(p->values);
    free(p->grads);
    free(p->m);
    free(p->v);
    free(p->grad_none);
    free(p);
}

int bl_params_declare(bl_params *p, const char *name, int ndim, const int *shape,
                      bl_init_kind init, float init_a)
{
    if (p->finished) return bl_fail("params: cannot declare '%s' after the store is finished", name);
    if (strlen(name) >= BL_PARAM_NAME_MAX) return bl_fail("params: name '%s' is too long", name);
    if (bl_params_index(p, name) >= 0) return bl_fail("params: '%s' declared twice", name);
    size_t numel;
    if (ndim < 1) return bl_fail("params: '%s' needs at least one dimension", name);
    if (bl_shape_check(name, ndim, shape, &numel) < 0) return -1;
    if (p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 64;
        bl_tensor *t = realloc(p->t, (size_t)cap * sizeof *t);
        if (!t) return bl_fail("params: out of memory");
        p->t = t;
        bl_param_info *info = realloc(p->info, (size_t)cap * sizeof *info);
        if (!info) return bl_fail("params: out of memory");
        p->info = info;
        p->cap = cap;
    }
    bl_tensor *t = &p->t[p->n];
    memset(t, 0, sizeof *t);
    t->ndim = ndim;
    for (int i = 0; i < ndim; i++) t->shape[i] = shape[i];
    t->numel = numel;
    bl_param_info *in = &p->info[p->n];
    snprintf(in->name, sizeof in->name, "%s", name);
    in->init = init;
    in->init_a = init_a;
    in->offset = p->total;
    p->total += numel;
    return p->n++;
}

static float *alloc_floats(size_t n)
{
    void *mem = NULL;
    if (posix_memalign(&mem, 64, (n ? n : 1) * sizeof(float)) != 0) return NULL;
    memset(mem, 0, (n ? n : 1) * sizeof(float));
    return mem;
}

int bl_params_finish(bl_params *p, uint64_t seed)
{
    if (p->finished) return bl_fail("params: already finished");
    p->values = alloc_floats(p->total);
    p->grads = alloc_floats(p->total);
    if (!p->values || !p->grads) return bl_fail("params: out of memory for %zu parameters", p->total);
    for (int i = 0; i < p->n; i++) {
        p->t[i].data = p->values + p->info[i].offset;
        p->t[i].grad = p->grads + p->info[i].offset;
        p->t[i].name = p->info[i].name;
    }
    p->finished = 1;
    bl_params_init(p, seed);
    return 0;
}

void bl_params_init(bl_params *p, uint64_t seed)
{
    for (int i = 0; i < p->n; i++) {
        bl_tensor *t = &p->t[i];
        const bl_param_info *in = &p->info[i];
        bl_rng r;
        bl_rng_named(&r, seed, in->name);
        switch (in->init) {
        case BL_INIT_ZERO: bl_tensor_fill(t, 0.0f); break;
        case BL_INIT_ONE: bl_tensor_fill(t, 1.0f); break;
        case BL_INIT_UNIFORM: bl_rng_fill_uniform(&r, t->data, t->numel, -in->init_a, in->init_a); break;
        case BL_INIT_NORMAL: bl_rng_fill_normal(&r, t->data, t->numel, 0.0f, in->init_a); break;
        case BL_INIT_CONST: bl_tensor_fill(t, in->init_a); break;
        }
    }
}

int bl_params_alloc_moments(bl_params *p)
{
    if (!p->m) p->m = alloc_floats(p->total);
    if (!p->v) p->v = alloc_floats(p->total);
    if (!p->m || !p->v) return bl_fail("params: out of memory for the optimizer state");
    return 0;
}

void bl_params_zero_moments(bl_params *p)
{
    if (p->m) memset(p->m, 0, p->total * sizeof(float));
    if (p->v) memset(p->v, 0, p->total * sizeof(float));
}

void bl_params_zero_grad(bl_params *p)
{
    if (p->grads) memset(p->grads, 0, p->total * sizeof(float));
}

int bl_params_index(const bl_params *p, const char *name)
{
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->info[i].name, name) == 0) return i;
    return -1;
}

bl_tensor *bl_params_find(const bl_params *p, const char *name)
{
    int i = bl_params_index(p, name);
    return i >= 0 ? &p->t[i] : NULL;
}

int bl_params_copy_shared(bl_params *dst, const bl_params *src)
{
    int copied = 0;
    for (int i = 0; i < dst->n; i++) {
        const bl_tensor *s = bl_params_find(src, dst->info[i].name);
        if (!s || !bl_same_shape(s, &dst->t[i])) continue;
        memcpy(dst->t[i].data, s->data, s->numel * sizeof(float));
        copied++;
    }
    return copied;
}

/* Length of the module prefix of `name` at `depth` (see params.h). */
static size_t prefix_len(const char *name, int depth)
{
    if (depth <= 0) return strlen(name);
    const char *s = name;
    int level = 0;
    while (*s) {
        const char *dot = strchr(s, '.');
        size_t end = dot ? (size_t)(dot - name) : strlen(name);
        /* a numeric component that follows joins its predecessor: "blocks.0" */
        while (dot && isdigit((unsigned char)dot[1])) {
            const char *e = dot + 1;
            while (isdigit((unsigned char)*e)) e++;
            if (*e != '.' && *e != 0) break;
            end = (size_t)(e - name);
            dot = *e ? e : NULL;
        }
        if (++level == depth || !dot) return end;
        s = dot + 1;
    }
    return strlen(name);
}

int bl_params_groups(const bl_params *p, int depth, bl_param_group **out)
{
    bl_param_group *g = calloc((size_t)(p->n ? p->n : 1), sizeof *g);
    if (!g) return bl_fail("params: out of memory");
    int ng = 0;
    for (int i = 0; i < p->n; i++) {
        const char *name = p->info[i].name;
        size_t len = prefix_len(name, depth);
        int j;
        for (j = 0; j < ng; j++)
            if (strlen(g[j].prefix) == len && strncmp(g[j].prefix, name, len) == 0) break;
        if (j == ng) {
            memcpy(g[ng].prefix, name, len);
            g[ng].prefix[len] = 0;
            ng++;
        }
        g[j].count += p->t[i].numel;
        g[j].ntensors++;
    }
    *out = g;
    return ng;
}

size_t bl_params_count_prefix(const bl_params *p, const char *prefix)
{
    size_t n = 0, len = strlen(prefix);
    for (int i = 0; i < p->n; i++) {
        const char *name = p->info[i].name;
        if (strncmp(name, prefix, len) == 0 && (name[len] == '.' || name[len] == 0))
            n += p->t[i].numel;
    }
    return n;
}
