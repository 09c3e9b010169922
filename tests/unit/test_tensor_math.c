/* test_tensor_math.c - NumPy broadcasting, unary ops, reductions (biased var), torch.matmul
 * shapes and values, allclose, and the errors, all against hand-computed numbers. */
#include "core/error.h"
#include "core/tensor.h"
#include "core/tensor_math.h"
#include "../check.h"

/* t with values start, start + 1, ... */
static bl_tensor *arange(float start, int ndim, const int *shape)
{
    bl_tensor *t = bl_tensor_new(ndim, shape);
    for (size_t i = 0; i < t->numel; i++) t->data[i] = start + (float)i;
    return t;
}
#define AR(start, ...) \
    arange((start), (int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int)), (int[]){__VA_ARGS__})

static int shape_is(const bl_tensor *t, int ndim, const int *s)
{
    if (!t || t->ndim != ndim) return 0;
    for (int i = 0; i < ndim; i++) if (t->shape[i] != s[i]) return 0;
    return 1;
}
#define SHAPE_IS(t, ...) \
    shape_is((t), (int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int)), (int[]){__VA_ARGS__})

BL_TEST(test_broadcast)
{
    /* a [3, 1, 2] + b [4, 2] -> [3, 4, 2]; r[i][j][k] = a[i][0][k] + b[j][k] */
    bl_tensor *a = AR(0, 3, 1, 2), *b = AR(100, 4, 2);
    bl_tensor *r = bl_binary(BL_ADD, a, b);
    CHECK(SHAPE_IS(r, 3, 4, 2), "shape");
    int bad = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 2; k++)
                bad += r->data[(i * 4 + j) * 2 + k] != (float)(i * 2 + k) + (float)(100 + j * 2 + k);
    CHECK(bad == 0, "%d wrong elements", bad);
    bl_tensor_free(r);
    /* scalar (0-D) on either side: 3 * x + 1 and 1 / x */
    bl_tensor *three = bl_tensor_scalar(3), *one = bl_tensor_scalar(1);
    bl_tensor *t = bl_binary(BL_MUL, b, three), *u = bl_binary(BL_ADD, t, one);
    CHECK(SHAPE_IS(u, 4, 2) && u->data[5] == 3 * 105 + 1, "3 x + 1");
    bl_tensor *v = bl_binary(BL_DIV, one, b), *w = bl_binary(BL_SUB, one, b);
    CHECK_CLOSE(v->data[2], 1.0 / 102, 1e-9);
    CHECK(w->data[2] == -101, "1 - x");
    /* column [4, 1] times row [1, 3] -> outer product [4, 3] */
    bl_tensor *col = AR(1, 4, 1), *row = AR(1, 1, 3), *op = bl_binary(BL_MUL, col, row);
    CHECK(SHAPE_IS(op, 4, 3) && op->data[3 * 3 + 2] == 4 * 3, "outer product");
    int nd, out[BL_MAXDIM];
    CHECK(bl_broadcast_shape("x", a, b, &nd, out) == 0 && nd == 3 && out[1] == 4, "broadcast shape");
    bl_tensor *all[] = {a, b, three, one, t, u, v, w, col, row, op};
    for (int i = 0; i < 11; i++) bl_tensor_free(all[i]);
}

BL_TEST(test_unary)
{
    bl_tensor *x = bl_tensor_from(1, (int[]){4}, (float[]){-4, 0, 1, 4});
    bl_tensor *n = bl_unary(BL_NEG, x), *a = bl_unary(BL_ABS, x), *s = bl_unary(BL_SQRT, x);
    bl_tensor *e = bl_unary(BL_EXP, x), *l = bl_unary(BL_LOG, x);
    CHECK(n->data[0] == 4 && a->data[0] == 4 && s->data[3] == 2, "neg abs sqrt");
    CHECK(isnan(s->data[0]), "sqrt(-4) = nan");
    CHECK_CLOSE(e->data[2], 2.718281828, 1e-6);
    CHECK(isinf(l->data[1]) && l->data[1] < 0, "log 0 = -inf");
    CHECK_CLOSE(l->data[3], 1.386294361, 1e-6);
    bl_tensor *all[] = {x, n, a, s, e, l};
    for (int i = 0; i < 6; i++) bl_tensor_free(all[i]);
}

BL_TEST(test_reductions)
{
    /* x [2, 3] = [[0, 1, 2], [3, 4, 5]] */
    bl_tensor *x = AR(0, 2, 3);
    bl_tensor *s0 = bl_reduce_dim(BL_SUM, x, 0, 0), *m1 = bl_reduce_dim(BL_MEAN, x, -1, 1);
    CHECK(SHAPE_IS(s0, 3) && s0->data[0] == 3 && s0->data[2] == 7, "sum over dim 0");
    CHECK(SHAPE_IS(m1, 2, 1) && m1->data[0] == 1 && m1->data[1] == 4, "mean keepdim");
    /* biased variance of [0, 1, 2] = 2/3; std = sqrt(2/3); rms of [3, 4, 5] = sqrt(50/3) */
    bl_tensor *v = bl_reduce_dim(BL_VAR, x, 1, 0), *sd = bl_reduce_dim(BL_STD, x, 1, 0);
    bl_tensor *r = bl_reduce_dim(BL_RMS, x, 1, 0);
    CHECK_CLOSE(v->data[0], 2.0 / 3.0, 1e-7);
    CHECK_CLOSE(sd->data[1], sqrt(2.0 / 3.0), 1e-7);
    CHECK_CLOSE(r->data[1], sqrt(50.0 / 3.0), 1e-6);
    bl_tensor *mn = bl_reduce_dim(BL_MIN, x, 0, 0), *mx = bl_reduce_all(BL_MAX, x);
    bl_tensor *tot = bl_reduce_all(BL_SUM, x), *va = bl_reduce_all(BL_VAR, x);
    CHECK(mn->data[1] == 1 && mx->ndim == 0 && mx->data[0] == 5 && tot->data[0] == 15, "min max sum");
    CHECK_CLOSE(va->data[0], 35.0 / 12.0, 1e-6);   /* var of 0..5 = (n^2 - 1) / 12 */
    /* middle dim of a 3-D tensor: mean(x, dim=1) of x [2, 3, 2] */
    bl_tensor *y = AR(0, 2, 3, 2), *ym = bl_reduce_dim(BL_MEAN, y, 1, 0);
    CHECK(SHAPE_IS(ym, 2, 2) && ym->data[0] == 2 && ym->data[3] == 9, "middle dim");
    /* 1-D reduced without keepdim is 0-D */
    bl_tensor *z = AR(1, 4), *zs = bl_reduce_dim(BL_SUM, z, 0, 0);
    CHECK(zs && zs->ndim == 0 && zs->data[0] == 10, "0-D result");
    /* nan propagates through max */
    z->data[2] = NAN;
    bl_tensor *zn = bl_reduce_all(BL_MAX, z);
    CHECK(isnan(zn->data[0]), "max with nan");
    CHECK(bl_reduce_dim(BL_SUM, x, 2, 0) == NULL, "dim 2 of a 2-D tensor accepted");
    CHECK_ERR("sum: dimension 2 is out of range for a 2-D tensor");
    CHECK(bl_reduce_dim(BL_MEAN, x, -3, 0) == NULL, "dim -3 accepted");
    CHECK_ERR("mean: dimension -3");
    bl_tensor *all[] = {x, s0, m1, v, sd, r, mn, mx, tot, va, y, ym, z, zs, zn};
    for (int i = 0; i < 15; i++) bl_tensor_free(all[i]);
}

/* reference a [.., M, K] @ b [K, N] element (i, j) of batch offset ao, bo */
static float ref(const bl_tensor *a, size_t ao, const bl_tensor *b, size_t bo, int i, int j, int K, int N)
{
    double s = 0;
    for (int k = 0; k < K; k++) s += (double)a->data[ao + (size_t)i * K + k] * b->data[bo + (size_t)k * N + j];
    return (float)s;
}

BL_TEST(test_matmul)
{
    bl_tensor *v3 = AR(1, 3), *w3 = AR(2, 3);
    bl_tensor *dot = bl_tensor_matmul(v3, w3);                       /* 1*2 + 2*3 + 3*4 */
    CHECK(dot && dot->ndim == 0 && dot->data[0] == 20, "dot");
    bl_tensor *m = AR(0, 2, 3), *mv = bl_tensor_matmul(m, v3);      /* [2, 3] @ [3] -> [2] */
    CHECK(SHAPE_IS(mv, 2) && mv->data[0] == 8 && mv->data[1] == 26, "matrix @ vector");
    bl_tensor *k = AR(0, 3, 4), *vm = bl_tensor_matmul(v3, k);      /* [3] @ [3, 4] -> [4] */
    CHECK(SHAPE_IS(vm, 4) && vm->data[0] == 0 + 8 + 24, "vector @ matrix");
    /* batched with broadcast: a [2, 1, 3, 4] @ b [5, 4, 2] -> [2, 5, 3, 2] */
    bl_tensor *a = AR(0, 2, 1, 3, 4), *b = AR(-20, 5, 4, 2), *r = bl_tensor_matmul(a, b);
    CHECK(SHAPE_IS(r, 2, 5, 3, 2), "broadcast batch shape");
    int bad = 0;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 5; j++)
            for (int p = 0; p < 3; p++)
                for (int q = 0; q < 2; q++)
                    bad += r->data[((i * 5 + j) * 3 + p) * 2 + q] != ref(a, (size_t)i * 12, b, (size_t)j * 8, p, q, 4, 2);
    CHECK(bad == 0, "%d wrong elements", bad);
    /* 3-D @ 2-D (shared) and 1-D @ 3-D */
    bl_tensor *c = bl_tensor_matmul(a, k);
    CHECK(c == NULL, "[2, 1, 3, 4] @ [3, 4] accepted");
    CHECK_ERR("matmul: a [2, 1, 3, 4] has 4 columns but b [3, 4] has 3 rows");
    bl_tensor *s = AR(0, 2, 3), *d = bl_tensor_matmul(b, s);
    CHECK(SHAPE_IS(d, 5, 4, 3), "3-D @ 2-D");
    bl_tensor *x4 = AR(1, 4), *e = bl_tensor_matmul(x4, b);          /* [4] @ [5, 4, 2] -> [5, 2] */
    CHECK(SHAPE_IS(e, 5, 2) && e->data[3] == ref(x4, 0, b, 8, 0, 1, 4, 2), "1-D @ 3-D");
    /* errors */
    CHECK(bl_tensor_matmul(v3, x4) == NULL, "dot of [3] and [4] accepted");
    CHECK_ERR("matmul: a [3] has 3 columns but b [4] has 4 rows");
    bl_tensor *p = AR(0, 3, 2, 4), *q = AR(0, 2, 4, 5);
    CHECK(bl_tensor_matmul(p, q) == NULL, "batch 3 vs 2 accepted");
    CHECK_ERR("matmul: batch dims of a [3, 2, 4] and b [2, 4, 5] cannot be broadcast");
    bl_tensor *sc = bl_tensor_scalar(2);
    CHECK(bl_tensor_matmul(sc, v3) == NULL, "scalar accepted");
    CHECK_ERR("at least 1 dimension");
    bl_tensor *all[] = {v3, w3, dot, m, mv, k, vm, a, b, r, s, d, x4, e, p, q, sc};
    for (int i = 0; i < 17; i++) bl_tensor_free(all[i]);
}

BL_TEST(test_allclose)
{
    bl_tensor *a = AR(1, 2, 3), *b = bl_tensor_copy(a), *row = AR(1, 3);
    CHECK(bl_allclose(a, b, 0, 0) == 1, "equal");
    b->data[4] += 1e-4f;
    CHECK(bl_allclose(a, b, 1e-5f, 1e-8f) == 0, "1e-4 off at rtol 1e-5");
    CHECK(bl_allclose(a, b, 1e-3f, 0) == 1, "1e-4 off at rtol 1e-3");
    b->data[4] = NAN;
    CHECK(bl_allclose(a, b, 1, 1) == 0, "nan is not close");
    CHECK(bl_allclose(row, a, 0, 0) == 0, "row vs [2, 3] differ in row 2");
    CHECK(bl_allclose(row, row, 0, 0) == 1, "row vs itself");
    bl_tensor *c = AR(0, 2);
    CHECK(bl_allclose(a, c, 0, 0) == -1, "[2, 3] vs [2] accepted");
    CHECK_ERR("allclose: shapes [2, 3] and [2] cannot be broadcast");
    CHECK(bl_binary(BL_ADD, a, c) == NULL, "add [2, 3] + [2] accepted");
    CHECK_ERR("add: shapes [2, 3] and [2] cannot be broadcast");
    CHECK(bl_binary(BL_DIV, a, NULL) == NULL, "NULL accepted");
    CHECK_ERR("div: missing operand");
    bl_tensor *all[] = {a, b, row, c};
    for (int i = 0; i < 4; i++) bl_tensor_free(all[i]);
}

/* the REPL's `x = randn(4, 64, 128) * 3 + 1; mean(x, dim=-1); var(x, dim=1, keepdim)` */
BL_TEST(test_repl_example)
{
    bl_tensor *x = bl_tensor_new3(4, 64, 128);
    for (size_t i = 0; i < x->numel; i++) x->data[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;
    bl_tensor *three = bl_tensor_scalar(3), *one = bl_tensor_scalar(1);
    bl_tensor *t = bl_binary(BL_MUL, x, three), *y = bl_binary(BL_ADD, t, one);
    bl_tensor *m = bl_reduce_dim(BL_MEAN, y, -1, 0), *v = bl_reduce_dim(BL_VAR, y, 1, 1);
    CHECK(SHAPE_IS(m, 4, 64) && SHAPE_IS(v, 4, 1, 128), "shapes");
    double worst = 0;
    for (int b = 0; b < 4; b++)
        for (int r = 0; r < 64; r += 9) {
            double s = 0;
            for (int c = 0; c < 128; c++) s += 3.0 * x->data[(b * 64 + r) * 128 + c] + 1;
            worst = fmax(worst, fabs(m->data[b * 64 + r] - s / 128));
        }
    for (int b = 0; b < 4; b++)
        for (int c = 0; c < 128; c += 13) {
            double s = 0, s2 = 0;
            for (int r = 0; r < 64; r++) s += 3.0 * x->data[(b * 64 + r) * 128 + c] + 1;
            for (int r = 0; r < 64; r++) {
                double d = 3.0 * x->data[(b * 64 + r) * 128 + c] + 1 - s / 64;
                s2 += d * d;
            }
            worst = fmax(worst, fabs(v->data[b * 128 + c] - s2 / 64));
        }
    CHECK(worst < 1e-5, "reduction error %g", worst);
    bl_tensor *all[] = {x, three, one, t, y, m, v};
    for (int i = 0; i < 7; i++) bl_tensor_free(all[i]);
}

int main(void)
{
    RUN(test_broadcast);
    RUN(test_unary);
    RUN(test_reductions);
    RUN(test_matmul);
    RUN(test_allclose);
    RUN(test_repl_example);
    return bl_test_done();
}
