/* tensor.c - construction, views, reshape and transpose of bl_tensor (see tensor.h). */
#include "core/tensor.h"
#include "core/error.h"
#include <stdlib.h>
#include <string.h>

static size_t max_numel = BL_MAX_NUMEL;

size_t bl_tensor_limit(size_t max)
{
    size_t old = max_numel;
    max_numel = max && max < BL_MAX_NUMEL ? max : BL_MAX_NUMEL;
    return old;
}

int bl_shape_check(const char *what, int ndim, const int *shape, size_t *numel)
{
    if (ndim < 0 || ndim > BL_MAXDIM)
        return bl_fail("%s: %d dimensions (at most %d are supported)", what, ndim, BL_MAXDIM);
    double n = 1;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 1)
            return bl_fail("%s: dimension %d has size %d (sizes must be at least 1)", what, i, shape[i]);
        n *= shape[i];
    }
    if (n > (double)max_numel && max_numel == BL_MAX_NUMEL)
        return bl_fail("%s: absurd size (more than %zu elements)", what, (size_t)BL_MAX_NUMEL);
    if (n > (double)max_numel) {
        char sh[96] = "[";
        for (int i = 0; i < ndim; i++)
            snprintf(sh + strlen(sh), sizeof sh - strlen(sh), "%s%d", i ? ", " : "", shape[i]);
        return bl_fail("%s: shape %s] has %.0f elements (%.2f GiB of float32), more than the %zu (%g GiB) "
                       "a tensor may have", what, sh, n, n * 4 / (1 << 30), max_numel,
                       (double)max_numel * 4 / (1 << 30));
    }
    if (numel) *numel = (size_t)n;
    return 0;
}

bl_tensor *bl_tensor_new(int ndim, const int *shape)
{
    size_t n;
    if (bl_shape_check("tensor", ndim, shape, &n) < 0) return NULL;
    bl_tensor *t = calloc(1, sizeof *t);
    float *d = calloc(n, sizeof(float));
    if (!t || !d) {
        free(t); free(d);
        return BL_FAILP("tensor: out of memory allocating %zu floats", n);
    }
    t->data = d;
    t->ndim = ndim;
    for (int i = 0; i < ndim; i++) t->shape[i] = shape[i];
    t->numel = n;
    t->flags = BL_OWNS_DATA | BL_OWNS_STRUCT;
    return t;
}

bl_tensor *bl_tensor_new1(int a) { return bl_tensor_new(1, (int[]){a}); }
bl_tensor *bl_tensor_new2(int a, int b) { return bl_tensor_new(2, (int[]){a, b}); }
bl_tensor *bl_tensor_new3(int a, int b, int c) { return bl_tensor_new(3, (int[]){a, b, c}); }
bl_tensor *bl_tensor_new4(int a, int b, int c, int d) { return bl_tensor_new(4, (int[]){a, b, c, d}); }

bl_tensor *bl_tensor_scalar(float v)
{
    bl_tensor *t = bl_tensor_new(0, NULL);
    if (t) t->data[0] = v;
    return t;
}

bl_tensor *bl_tensor_from(int ndim, const int *shape, const float *data)
{
    bl_tensor *t = bl_tensor_new(ndim, shape);
    if (t) memcpy(t->data, data, t->numel * sizeof(float));
    return t;
}

bl_tensor *bl_tensor_copy(const bl_tensor *src)
{
    return bl_tensor_from(src->ndim, src->shape, src->data);
}

void bl_tensor_free(bl_tensor *t)
{
    if (!t) return;
    if (t->flags & BL_OWNS_DATA) free(t->data);
    if (t->flags & BL_OWNS_GRAD) free(t->grad);
    if (t->flags & BL_OWNS_STRUCT) free(t);
}

int bl_tensor_require_grad(bl_tensor *t)
{
    if (t->grad) return 0;
    t->grad = calloc(t->numel, sizeof(float));
    if (!t->grad) return bl_fail("tensor: out of memory allocating a gradient of %zu floats", t->numel);
    t->flags |= BL_OWNS_GRAD;
    return 0;
}

int bl_tensor_view_as(bl_tensor *view, const bl_tensor *t, int ndim, const int *shape)
{
    int s[BL_MAXDIM];
    int infer = -1;
    size_t known = 1;
    if (ndim < 0 || ndim > BL_MAXDIM)
        return bl_fail("reshape: %d dimensions (at most %d are supported)", ndim, BL_MAXDIM);
    for (int i = 0; i < ndim; i++) {
        s[i] = shape[i];
        if (s[i] == -1) {
            if (infer >= 0) return bl_fail("reshape: only one dimension can be -1");
            infer = i;
        } else if (s[i] < 1) {
            return bl_fail("reshape: dimension %d has size %d", i, s[i]);
        } else {
            known *= (size_t)s[i];
        }
    }
    if (infer >= 0) {
        if (known == 0 || t->numel % known)
            goto bad;
        s[infer] = (int)(t->numel / known);
        known *= (size_t)s[infer];
    }
    if (known != t->numel) goto bad;
    memset(view, 0, sizeof *view);
    view->data = t->data;
    view->grad = t->grad;
    view->grad_lazy = t->grad_lazy;
    view->ndim = ndim;
    for (int i = 0; i < ndim; i++) view->shape[i] = s[i];
    view->numel = t->numel;
    view->name = t->name;
    return 0;
bad:;
    char a[64];
    return bl_fail("reshape: cannot view %s (%zu elements) with %d dimensions of product %zu",
                   bl_shape_str(t, a, sizeof a), t->numel, ndim, known);
}

bl_tensor *bl_tensor_reshape(const bl_tensor *t, int ndim, const int *shape)
{
    bl_tensor v;
    if (bl_tensor_view_as(&v, t, ndim, shape) < 0) return NULL;
    bl_tensor *r = malloc(sizeof *r);
    if (!r) return BL_FAILP("reshape: out of memory");
    *r = v;
    r->flags = BL_OWNS_STRUCT;
    return r;
}

int bl_dim_index(const char *what, const bl_tensor *t, int dim)
{
    int d = dim < 0 ? dim + t->ndim : dim;
    if (d < 0 || d >= t->ndim)
        return bl_fail("%s: dimension %d is out of range for a %d-D tensor", what, dim, t->ndim);
    return d;
}

bl_tensor *bl_tensor_transpose(const bl_tensor *t, int d0, int d1)
{
    int a = bl_dim_index("transpose", t, d0), b;
    if (a < 0) return NULL;
    b = bl_dim_index("transpose", t, d1);
    if (b < 0) return NULL;
    int shape[BL_MAXDIM], perm[BL_MAXDIM];
    for (int i = 0; i < t->ndim; i++) { perm[i] = i; }
    perm[a] = b; perm[b] = a;
    for (int i = 0; i < t->ndim; i++) shape[i] = t->shape[perm[i]];
    bl_tensor *r = bl_tensor_new(t->ndim, shape);
    if (!r) return NULL;
    /* source strides, padded to 4-D */
    size_t st[BL_MAXDIM] = {0}, s = 1;
    for (int i = t->ndim - 1; i >= 0; i--) { st[i] = s; s *= (size_t)t->shape[i]; }
    int ds[BL_MAXDIM] = {1, 1, 1, 1};
    size_t ss[BL_MAXDIM] = {0, 0, 0, 0};
    int off = BL_MAXDIM - t->ndim;
    for (int i = 0; i < t->ndim; i++) { ds[off + i] = shape[i]; ss[off + i] = st[perm[i]]; }
    float *o = r->data;
    for (int i0 = 0; i0 < ds[0]; i0++)
        for (int i1 = 0; i1 < ds[1]; i1++)
            for (int i2 = 0; i2 < ds[2]; i2++) {
                const float *p = t->data + i0 * ss[0] + i1 * ss[1] + i2 * ss[2];
                for (int i3 = 0; i3 < ds[3]; i3++) *o++ = p[i3 * ss[3]];
            }
    return r;
}

int bl_same_shape(const bl_tensor *a, const bl_tensor *b)
{
    if (a->ndim != b->ndim) return 0;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i]) return 0;
    return 1;
}

char *bl_shape_str(const bl_tensor *t, char *buf, size_t n)
{
    size_t used = 0;
    used += (size_t)snprintf(buf, n, "[");
    for (int i = 0; i < t->ndim && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%d", i ? ", " : "", t->shape[i]);
    if (used < n) snprintf(buf + used, n - used, "]");
    return buf;
}

size_t bl_tensor_inner(const bl_tensor *t, int from)
{
    size_t n = 1;
    for (int i = from; i < t->ndim; i++) n *= (size_t)t->shape[i];
    return n;
}

void bl_tensor_fill(bl_tensor *t, float v)
{
    for (size_t i = 0; i < t->numel; i++) t->data[i] = v;
}

void bl_tensor_zero_grad(bl_tensor *t)
{
    if (t->grad) memset(t->grad, 0, t->numel * sizeof(float));
}
