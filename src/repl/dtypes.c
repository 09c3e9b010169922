/* dtypes.c - torch's dtype names at the prompt (torch.long, torch.float32, torch.bool, ...) and
 * the dtype= keyword of the tensor factories, on blocklab's one storage type: every tensor holds
 * float32 (DESIGN.md), so an integer dtype rounds the values toward zero (whole numbers, exact up
 * to 2^24, as x.long() does) and torch.bool makes a mask (x != 0, as x.bool()); a float dtype
 * changes nothing. torch.tensor(encode(text), dtype=torch.long) and torch.zeros((1, 1),
 * dtype=torch.long), nanoGPT's lines, run as written. */
#include "repl/repl.h"
#include "core/error.h"
#include <math.h>
#include <string.h>

/* torch's attribute, its canonical name (what torch prints), and its kind */
enum { DT_FLOAT, DT_INT, DT_BOOL };
static const struct { const char *attr, *name; int kind; } dtypes[] = {
    { "float32", "torch.float32", DT_FLOAT }, { "float", "torch.float32", DT_FLOAT },
    { "float64", "torch.float64", DT_FLOAT }, { "double", "torch.float64", DT_FLOAT },
    { "float16", "torch.float16", DT_FLOAT }, { "half", "torch.float16", DT_FLOAT },
    { "bfloat16", "torch.bfloat16", DT_FLOAT },
    { "int64", "torch.int64", DT_INT }, { "long", "torch.int64", DT_INT },
    { "int32", "torch.int32", DT_INT }, { "int", "torch.int32", DT_INT },
    { "int16", "torch.int16", DT_INT }, { "short", "torch.int16", DT_INT },
    { "int8", "torch.int8", DT_INT }, { "uint8", "torch.uint8", DT_INT },
    { "bool", "torch.bool", DT_BOOL },
};
#define NDT (sizeof dtypes / sizeof *dtypes)

const char *bl_dtype_name(const char *attr)
{
    for (size_t i = 0; i < NDT; i++)
        if (!strcmp(dtypes[i].attr, attr)) return dtypes[i].name;
    return NULL;
}

int bl_dtype_of(const bl_value *v)
{
    if (v->kind == BL_V_STR) {
        const char *s = strncmp(v->str, "torch.", 6) ? v->str : v->str + 6;
        for (size_t i = 0; i < NDT; i++)
            if (!strcmp(dtypes[i].attr, s)) return dtypes[i].kind;
    }
    return -1;
}

/* The kind of dtype value v, or -1 + error. */
static int dtype_kind(const bl_value *v)
{
    int k = bl_dtype_of(v);
    if (k >= 0) return k;
    return bl_fail("dtype= takes torch's dtypes: torch.float32, torch.long (int64), torch.int32, torch.bool, ... "
                   "(blocklab holds every tensor as float32: an integer dtype rounds toward zero)");
}

/* The functions that make a tensor from numbers or a shape (dtype= is theirs). */
static int factory(const char *f)
{
    static const char *const names[] = { "tensor", "zeros", "ones", "full", "arange", "randint", "zeros_like",
                                         "ones_like", "full_like", "linspace", "randn", "rand", "eye", NULL };
    for (const char *const *n = names; *n; n++)
        if (!strcmp(*n, f)) return 1;
    return 0;
}

int bl_dtype_arg(bl_callargs *a, int *kind)
{
    *kind = -1;
    if (!factory(a->fname)) return 0;
    for (int j = 0; j < a->nk; j++) {
        const bl_value *v = a->kv[j];
        if (!strcmp(a->key[j], "device")) {     /* device="cpu": where blocklab's tensors are */
            a->kused[j] = 1;
            if (v->kind == BL_V_NONE || (v->kind == BL_V_STR && (!strcmp(v->str, "cpu") || !strcmp(v->str, "cpu:0"))))
                continue;
            bl_fail("%s: blocklab runs on the CPU only: device= takes \"cpu\" (or leave it out)", a->fname);
            return bl_session_errat(a->s, a->kpos[j]);
        }
        if (strcmp(a->key[j], "dtype")) continue;
        a->kused[j] = 1;
        if (v->kind == BL_V_NONE) continue;
        if ((*kind = dtype_kind(v)) < 0) return bl_session_errat(a->s, a->kpos[j]);
        /* torch draws normals and uniforms in floating point only */
        if (*kind != DT_FLOAT && (!strcmp(a->fname, "randn") || !strcmp(a->fname, "rand"))) {
            bl_fail("%s: draws floating point numbers: dtype= takes torch.float32 (torch.randint draws whole ones)",
                    a->fname);
            return bl_session_errat(a->s, a->kpos[j]);
        }
    }
    return 0;
}

bl_value *bl_dtype_apply(bl_value *r, int kind)
{
    if (kind <= DT_FLOAT || !r || r->kind != BL_V_TENSOR) return r;
    if (r->requires_grad) {
        bl_val_unref(r);
        return BL_FAILP("only tensors of a floating point dtype can require gradients (torch's error)");
    }
    if (r->refs > 1) {      /* tensor(x) of a tensor x may give x itself: a copy, x kept */
        bl_value *c = bl_val_tensor(bl_tensor_copy(r->t));
        bl_val_unref(r);
        if (!c || c->kind != BL_V_TENSOR) return c;
        r = c;
    }
    float *d = r->t->data;
    for (size_t i = 0; i < r->t->numel; i++) {
        if (kind == DT_INT && !isfinite(d[i])) {
            bl_val_unref(r);
            return BL_FAILP("a nan or inf has no integer value (torch's conversion gives an arbitrary one)");
        }
        d[i] = kind == DT_BOOL ? d[i] != 0 : truncf(d[i]) + 0.0f;     /* + 0: no -0 */
    }
    r->is_mask = kind == DT_BOOL;
    return r;
}
