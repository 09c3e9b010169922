/* ops_loss.c - embedding lookup and the two losses, forward and backward (see ops.h).
 *
 * Formulas (torch.nn.functional.embedding, cross_entropy, mse_loss; llm.c crossentropy_*):
 *   embedding      y[i, :] = W[id_i, :]                     dW[id_i, :] += dy[i, :]
 *   cross_entropy  L = mean_{r counted} (ls_r - (z[r, t_r] - m_r))   dz[r, j] += dL/C (softmax_j - [j = t_r])
 *                  with m_r = max_j z[r, j], ls_r = log sum_j exp(z[r, j] - m_r), softmax_j =
 *                  exp((z[r, j] - m_r) - ls_r): the max is subtracted before anything else, so
 *                  logits of any magnitude (1e18) lose nothing to m_r + ls_r rounding back to m_r
 *   mse            L = mean (p - t)^2                       dp += dL 2 (p - t) / n, dt -= the same
 */
#include "core/ops.h"
#include "core/ops_internal.h"
#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------
 * embedding: w [V, D], ids[n] -> [n, D]
 */
typedef struct {
    const int *ids;         /* the caller's, valid until backward */
} embedding_args;

static void embedding_backward(bl_node *n)
{
    bl_tensor *w = n->in[0], *y = n->out;
    if (!w->grad) return;
    embedding_args a;
    BL_NODE_LOAD(n, a);
    const int *ids = a.ids;
    size_t D = (size_t)w->shape[1];
    /* serial: the same id may appear twice */
    for (int i = 0; i < y->shape[0]; i++) {
        float *dw = w->grad + (size_t)ids[i] * D;
        const float *dy = y->grad + (size_t)i * D;
        for (size_t j = 0; j < D; j++) dw[j] += dy[j];
    }
}

bl_tensor *bl_embedding(bl_graph *g, bl_tensor *w, const int *ids, int n)
{
    if (bl_ops_need("embedding", "weight", w)) return NULL;
    if (w->ndim != 2) return BL_FAILP("embedding: weight must be 2-D [V, D], got %s", BL_SHP(w));
    if (n < 1) return BL_FAILP("embedding: need at least 1 id, got %d", n);
    if (!ids) return BL_FAILP("embedding: ids are missing (NULL)");
    int V = w->shape[0], D = w->shape[1];
    for (int i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= V)
            return BL_FAILP("embedding: id %d at position %d is out of range for weight %s "
                            "(0 <= id < %d)", ids[i], i, BL_SHP(w), V);
    bl_tensor *y = bl_graph_tensor(g, 2, (int[]){n, D}, BL_WANTS_GRAD(g, w));
    if (!y) return NULL;
    for (int i = 0; i < n; i++)
        memcpy(y->data + (size_t)i * D, w->data + (size_t)ids[i] * D, (size_t)D * sizeof(float));
    bl_node *nd = bl_graph_node(g, BL_OP_EMBEDDING, embedding_backward, y);
    if (nd) {
        nd->in[0] = w;
        BL_NODE_SAVE(nd, ((embedding_args){ids}));
    }
    return y;
}

/* ---------------------------------------------------------------------------------------
 * cross_entropy: logits [N, V] (or [..., V], rows flattened), targets[N] -> []
 * save[0] = mx [N] (each row's max), save[1] = ls [N] (log sum exp(z - mx) of each row),
 */
typedef struct {
    const int *targets;     /* the caller's, valid until backward; -1 = ignored */
    int count;              /* rows counted in the mean */
} cross_entropy_args;

static void cross_entropy_backward(bl_node *n)
{
    bl_tensor *z = n->in[0], *y = n->out, *mx = n->save[0], *ls = n->save[1];
    cross_entropy_args a;
    BL_NODE_LOAD(n, a);
    if (!z->grad || a.count == 0) return;
    const int *t = a.targets;
    size_t V = (size_t)z->shape[z->ndim - 1], rows = z->numel / V;
    float s = y->grad[0] / (float)a.count;
#pragma omp parallel for schedule(static) if (z->numel > BL_PAR_MIN)
    for (size_t r = 0; r < rows; r++) {
        if (t[r] < 0) continue;  /* ignore_index = -1 */
        const float *zr = z->data + r * V;
        float *dz = z->grad + r * V;
        for (size_t j = 0; j < V; j++)
            dz[j] += s * expf((zr[j] - mx->data[r]) - ls->data[r]);                 /* softmax */
        dz[t[r]] -= s;                                                           /* - onehot */
    }
}

bl_tensor *bl_cross_entropy(bl_graph *g, bl_tensor *logits, const int *targets)
{
    if (bl_ops_need("cross_entropy", "logits", logits)) return NULL;
    if (logits->ndim < 1)
        return BL_FAILP("cross_entropy: logits must be [N, V], got a scalar");
    if (!targets) return BL_FAILP("cross_entropy: targets are missing (NULL)");
    int V = logits->shape[logits->ndim - 1];
    size_t rows = logits->numel / (size_t)V;
    int count = 0;
    for (size_t r = 0; r < rows; r++) {
        if (targets[r] == -1) continue;
        if (targets[r] < 0 || targets[r] >= V)
            return BL_FAILP("cross_entropy: target %d at row %zu is out of range for logits %s "
                            "(0 <= target < %d, or -1 to ignore)", targets[r], r,
                            BL_SHP(logits), V);
        count++;
    }
    bl_tensor *y = bl_graph_tensor(g, 0, NULL, BL_WANTS_GRAD(g, logits));
    bl_tensor *mxs = y ? bl_graph_tensor(g, 1, (int[]){(int)rows}, 0) : NULL;
    bl_tensor *lss = mxs ? bl_graph_tensor(g, 1, (int[]){(int)rows}, 0) : NULL;
    if (!lss) return NULL;
    double total = 0;
#pragma omp parallel for schedule(static) reduction(+ : total) if (logits->numel > BL_PAR_MIN)
    for (size_t r = 0; r < rows; r++) {
        const float *zr = logits->data + r * (size_t)V;
        float mx = zr[0];
        for (int j = 1; j < V; j++) mx = zr[j] > mx ? zr[j] : mx;
        double sum = 0;
        for (int j = 0; j < V; j++) sum += expf(zr[j] - mx);
        double ls = log(sum);
        mxs->data[r] = mx;
        lss->data[r] = (float)ls;
        if (targets[r] >= 0) total += ls - ((double)zr[targets[r]] - mx);
    }
    /* every row ignored: PyTorch returns nan (0/0); we return 0 so a padded batch trains on */
    y->data[0] = count ? (float)(total / count) : 0.0f;
    bl_node *n = bl_graph_node(g, BL_OP_CROSS_ENTROPY, cross_entropy_backward, y);
    if (n) {
        n->in[0] = logits;
        n->save[0] = mxs;
        n->save[1] = lss;
        BL_NODE_SAVE(n, ((cross_entropy_args){targets, count}));
    }
    return y;
}

/* ---------------------------------------------------------------------------------------
 * mse: pred, target of one shape -> []
 */
static void mse_backward(bl_node *n)
{
    bl_tensor *p = n->in[0], *t = n->in[1], *y = n->out;
    float s = 2.0f * y->grad[0] / (float)p->numel;
    float *dp = p->grad, *dt = t->grad;
#pragma omp parallel for schedule(static) if (p->numel > BL_PAR_MIN)
    for (size_t i = 0; i < p->numel; i++) {
        float d = s * (p->data[i] - t->data[i]);
        if (dp) dp[i] += d;
        if (dt) dt[i] -= d;
    }
}

bl_tensor *bl_mse(bl_graph *g, bl_tensor *pred, bl_tensor *target)
{
    if (bl_ops_need("mse", "pred", pred) || bl_ops_need("mse", "target", target)) return NULL;
    if (!bl_same_shape(pred, target))
        return BL_FAILP("mse: pred %s and target %s must have the same shape", BL_SHP(pred),
                        BL_SHP(target));
    bl_tensor *y = bl_graph_tensor(g, 0, NULL, BL_WANTS_GRAD(g, pred, target));
    if (!y) return NULL;
    double sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum) if (pred->numel > BL_PAR_MIN)
    for (size_t i = 0; i < pred->numel; i++) {
        double d = (double)pred->data[i] - target->data[i];
        sum += d * d;
    }
    y->data[0] = (float)(sum / (double)pred->numel);
    bl_node *n = bl_graph_node(g, BL_OP_MSE, mse_backward, y);
    if (n) { n->in[0] = pred; n->in[1] = target; }
    return y;
}
