/* functions_einsum.c - torch.einsum for one or two operands, on the graph ops (permute, view,
 * sum, matmul), so the result is differentiable through their own backward kernels.
 *
 * einsum("bhtd,bhsd->bhts", q, k): each operand's dimensions are named by letters (a-z, A-Z) and
 * "..." (the dimensions the letters leave, aligned from the right). A letter in both operands
 * and in the output is a batch dimension; in both but not in the output it is summed over (the
 * contraction); in one operand only and not in the output it is summed first. Without "->" the
 * output is "..." then the letters that appear once, in alphabetical order (torch's implicit
 * form). Two operands become one batched matrix product (Einstein 1916's summation convention,
 * computed as numpy/torch's einsum does for two operands):
 *     A -> permute [batch, a-only, contracted] -> view [Bt, M, K]
 *     B -> permute [batch, contracted, b-only] -> view [Bt, K, N]
 *     matmul -> [Bt, M, N] -> view [batch, a-only, b-only] -> permute to the output's order.
 * Not supported (an error saying so): a letter twice in one operand (diagonals, "ii->i"), more
 * than two operands, and sizes of 1 broadcasting against larger ones.
 */
#include "repl/functions_math.h"
#include "repl/autograd.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/ops_math.h"
#include <ctype.h>
#include <string.h>

#define NLAB 64     /* 52 letters, then 12 for the dimensions of "..." */

typedef struct {
    int n, lab[BL_MAXDIM];
} subs;

static int label_of(char c) { return islower((unsigned char)c) ? c - 'a' : 26 + c - 'A'; }

/* Parse one operand's subscripts s[0..len) for a tensor of nd dims (nd < 0: the output, with E
 * ellipsis dims). 0 or -1 + error. */
static int parse_subs(const char *s, int len, int nd, int E, subs *o, int *ell, const char *what)
{
    int nlet = 0, dots = -1;
    for (int i = 0; i < len; i++) {
        if (s[i] == '.' && i + 3 <= len && !strncmp(s + i, "...", 3)) {
            if (dots >= 0) return bl_fail("einsum: %s has \"...\" twice", what);
            dots = nlet;
            i += 2;
        } else if (isalpha((unsigned char)s[i])) {
            nlet++;
        } else if (s[i] != ' ') {
            return bl_fail("einsum: '%c' in %s: subscripts are letters a-z, A-Z and \"...\"", s[i], what);
        }
    }
    int e = nd < 0 ? (dots >= 0 ? E : 0) : nd - nlet;
    if (nd >= 0 && (e < 0 || (dots < 0 && e != 0)))
        return bl_fail("einsum: %s has %d subscript%s for a tensor of %d dimension%s", what, nlet, BL_PLURAL(nlet), nd,
                       BL_PLURAL(nd));
    if (nlet + e > BL_MAXDIM) return bl_fail("einsum: %s names more than %d dimensions", what, BL_MAXDIM);
    o->n = 0;
    for (int i = 0; i < len; i++) {
        if (s[i] == '.') {
            for (int k = 0; k < e; k++) o->lab[o->n++] = 52 + k;     /* the caller aligns them */
            i += 2;
        } else if (isalpha((unsigned char)s[i])) {
            o->lab[o->n++] = label_of(s[i]);
        }
    }
    if (ell) *ell = e;
    for (int i = 0; i < o->n; i++)
        for (int j = 0; j < i; j++)
            if (o->lab[i] == o->lab[j] && o->lab[i] < 52)
                return bl_fail("einsum: '%c' twice in %s (diagonals such as \"ii->i\" are not supported)",
                               o->lab[i] < 26 ? 'a' + o->lab[i] : 'A' + o->lab[i] - 26, what);
    return 0;
}

static int find(const subs *s, int lab)
{
    for (int i = 0; i < s->n; i++)
        if (s->lab[i] == lab) return i;
    return -1;
}

/* Sum x (subscripts *s) over the labels not in keep1 nor keep2 (NULL: none); updates *s. */
static bl_tensor *sum_out(bl_graph *g, bl_tensor *x, subs *s, const subs *keep1, const subs *keep2)
{
    for (int i = s->n - 1; x && i >= 0; i--) {
        if (find(keep1, s->lab[i]) >= 0 || (keep2 && find(keep2, s->lab[i]) >= 0)) continue;
        if (s->n == 1) {
            x = bl_reduce_op(g, BL_SUM, x, BL_ALL_DIMS, 0);
        } else {
            x = bl_reduce_op(g, BL_SUM, x, i, 0);
        }
        memmove(s->lab + i, s->lab + i + 1, sizeof(int) * (size_t)(s->n - i - 1));
        s->n--;
    }
    return x;
}

/* x (subscripts *s) permuted to the order of the labels `to` (the same set). */
static bl_tensor *reorder(bl_graph *g, bl_tensor *x, const subs *s, const int *to)
{
    int perm[BL_MAXDIM], same = 1;
    for (int k = 0; k < s->n; k++) {
        perm[k] = find(s, to[k]);
        same &= perm[k] == k;
    }
    return same || s->n < 2 ? x : bl_permute(g, x, perm);
}

static bl_tensor *einsum2(bl_graph *g, bl_tensor *A, subs sa, bl_tensor *B, subs sb, const subs *so)
{
    A = sum_out(g, A, &sa, so, &sb);
    B = A ? sum_out(g, B, &sb, so, &sa) : NULL;
    if (!B) return NULL;
    int bat[BL_MAXDIM], con[BL_MAXDIM], ao[BL_MAXDIM], bo[BL_MAXDIM], nb = 0, nc = 0, na = 0, nbo = 0;
    long Bt = 1, M = 1, K = 1, N = 1;
    for (int i = 0; i < sa.n; i++) {
        int l = sa.lab[i], inb = find(&sb, l) >= 0, ino = find(so, l) >= 0;
        if (inb && ino) bat[nb++] = l, Bt *= A->shape[i];
        else if (inb) con[nc++] = l, K *= A->shape[i];
        else ao[na++] = l, M *= A->shape[i];
    }
    for (int i = 0; i < sb.n; i++)
        if (find(&sa, sb.lab[i]) < 0) bo[nbo++] = sb.lab[i], N *= B->shape[i];
    int ta[BL_MAXDIM], tb[BL_MAXDIM], k = 0;
    for (int i = 0; i < nb; i++) ta[k++] = bat[i];
    for (int i = 0; i < na; i++) ta[k++] = ao[i];
    for (int i = 0; i < nc; i++) ta[k++] = con[i];
    k = 0;
    for (int i = 0; i < nb; i++) tb[k++] = bat[i];
    for (int i = 0; i < nc; i++) tb[k++] = con[i];
    for (int i = 0; i < nbo; i++) tb[k++] = bo[i];
    /* the sizes of the product's dimensions, [batch, a-only, b-only], and its labels */
    subs sp = { 0, { 0 } };
    int shape[BL_MAXDIM];
    for (int i = 0; i < nb; i++) sp.lab[sp.n] = bat[i], shape[sp.n++] = A->shape[find(&sa, bat[i])];
    for (int i = 0; i < na; i++) sp.lab[sp.n] = ao[i], shape[sp.n++] = A->shape[find(&sa, ao[i])];
    for (int i = 0; i < nbo; i++) sp.lab[sp.n] = bo[i], shape[sp.n++] = B->shape[find(&sb, bo[i])];
    A = reorder(g, A, &sa, ta);
    B = A ? reorder(g, B, &sb, tb) : NULL;
    int s3a[3] = { (int)Bt, (int)M, (int)K }, s3b[3] = { (int)Bt, (int)K, (int)N };
    A = B ? bl_graph_view(g, A, 3, s3a) : NULL;
    B = A ? bl_graph_view(g, B, 3, s3b) : NULL;
    bl_tensor *y = B ? bl_matmul(g, A, B) : NULL;
    y = y ? bl_graph_view(g, y, sp.n, shape) : NULL;
    return y ? reorder(g, y, &sp, so->lab) : NULL;
}

/* einsum("spec", a[, b]) */
static bl_value *f_einsum(bl_callargs *a)
{
    if (bl_nargs(a, 2, 3) < 0) return NULL;
    if (a->v[0]->kind != BL_V_STR)
        return BL_FAILP("einsum: the first argument is the subscripts string, e.g. einsum(\"ij,jk->ik\", a, b)");
    const char *spec = a->v[0]->str, *arrow = strstr(spec, "->"), *comma = strchr(spec, ',');
    int nops = a->n - 1;
    const char *lend = arrow ? arrow : spec + strlen(spec);
    if ((nops == 2) != (comma && comma < lend) || (comma && strchr(comma + 1, ',') && strchr(comma + 1, ',') < lend))
        return BL_FAILP("einsum: \"%s\" names %d operand%s, but %d %s given (one to two, split by ',')", spec,
                        comma && comma < lend ? 2 + (strchr(comma + 1, ',') && strchr(comma + 1, ',') < lend) : 1,
                        comma && comma < lend ? "s" : "", nops, nops == 1 ? "is" : "are");
    bl_tensor *x[2] = { NULL, NULL };
    for (int i = 0; i < nops; i++)
        if (!(x[i] = bl_arg_tensor(a, i + 1))) return NULL;
    subs s[2], so;
    int ell[2] = { 0, 0 }, E = 0;
    const char *beg[2] = { spec, comma ? comma + 1 : NULL }, *end[2] = { nops == 2 ? comma : lend, lend };
    for (int i = 0; i < nops; i++) {
        char what[32];
        snprintf(what, sizeof what, "operand %d", i + 1);
        if (parse_subs(beg[i], (int)(end[i] - beg[i]), x[i]->ndim, 0, &s[i], &ell[i], what) < 0) return NULL;
        if (ell[i] > E) E = ell[i];
    }
    for (int i = 0; i < nops; i++)      /* the ellipsis labels aligned from the right */
        for (int k = 0; k < s[i].n; k++)
            if (s[i].lab[k] >= 52) s[i].lab[k] += E - ell[i];
    if (arrow) {
        if (parse_subs(arrow + 2, (int)strlen(arrow + 2), -1, E, &so, NULL, "the output") < 0) return NULL;
        for (int k = 0; k < so.n; k++)
            if (find(&s[0], so.lab[k]) < 0 && (nops < 2 || find(&s[1], so.lab[k]) < 0)) {
                int l = so.lab[k];
                return BL_FAILP("einsum: the output's '%c' is in no operand", l < 26 ? 'a' + l : l < 52 ? 'A' + l - 26 : '.');
            }
        for (int k = 0; k < so.n; k++)
            for (int j = 0; j < k; j++)
                if (so.lab[k] == so.lab[j]) return BL_FAILP("einsum: a subscript twice in the output");
    } else {        /* implicit: "..." then the letters that appear once, sorted */
        so.n = 0;
        for (int k = 0; k < E; k++) so.lab[so.n++] = 52 + k;
        for (int l = 0; l < 52; l++) {
            int c = (find(&s[0], l) >= 0) + (nops == 2 && find(&s[1], l) >= 0);
            if (c == 1) {
                if (so.n == BL_MAXDIM) return BL_FAILP("einsum: the output would have more than %d dimensions", BL_MAXDIM);
                so.lab[so.n++] = l;
            }
        }
    }
    /* a label's sizes agree */
    for (int k = 0; nops == 2 && k < s[0].n; k++) {
        int j = find(&s[1], s[0].lab[k]), l = s[0].lab[k];
        if (j >= 0 && x[0]->shape[k] != x[1]->shape[j]) {
            if (l >= 52) return BL_FAILP("einsum: the \"...\" dimensions differ: %d and %d", x[0]->shape[k], x[1]->shape[j]);
            return BL_FAILP("einsum: '%c' has size %d in operand 1 but %d in operand 2", l < 26 ? 'a' + l : 'A' + l - 26,
                            x[0]->shape[k], x[1]->shape[j]);
        }
    }
    bl_ag ag;
    bl_graph *g = bl_ag_begin(&ag, a);
    if (!g) return NULL;
    bl_tensor *in[2] = { NULL, NULL };
    for (int i = 0; i < nops; i++)
        if (!(in[i] = bl_ag_in(&ag, a->v[i + 1], x[i]))) return bl_ag_end(&ag, NULL);
    bl_tensor *y;
    if (nops == 1) {
        y = sum_out(g, in[0], &s[0], &so, NULL);
        y = y ? reorder(g, y, &s[0], so.lab) : NULL;
    } else {
        y = einsum2(g, in[0], s[0], in[1], s[1], &so);
    }
    return bl_ag_end(&ag, y);
}

const bl_function bl_einsum_functions[] = {
    { "einsum", "einsum(\"ij,jk->ik\", a, b)",
      "Sums of products named by subscripts (torch.einsum).\n"
      "One or two tensors. Letters in both operands and the output are batch dimensions; in\n"
      "both but not the output they are summed over; \"...\" stands for the dimensions the\n"
      "letters leave. Attention scores: einsum(\"bhtd,bhsd->bhts\", q, k); \"ij->ji\"\n"
      "transposes, \"ij->\" sums. Without -> the output is the letters that appear once,\n"
      "sorted. Differentiable (it runs as permute, sum and matmul). Not supported: diagonals\n"
      "(\"ii->i\"), three or more operands, sizes of 1 broadcasting.", f_einsum },
    { NULL, NULL, NULL, NULL },
};
