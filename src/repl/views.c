/* views.c - what the picture commands share (see views.h): where a command's text goes, and the
 * fixed input of attn and stats: the model run once, the per-layer activations it keeps read
 * back (models/model.h: attn[], tap_in[], tap_norm[]). */
#include "repl/views.h"
#include "core/error.h"
#include "core/fileio.h"
#include "data/dataset.h"
#include "models/tinydit.h"
#include "models/tinygpt.h"
#include "repl/trainstate.h"
#include "viz/canvas.h"
#include "viz/plot.h"
#include <stdlib.h>
#include <string.h>

FILE *bl_cmd_text_out(bl_cmdargs *a)
{
    if (!a->st->redirect || bl_stmt_redirects_to(a->st, ".txt")) {
        if (a->text) return a->text;
        if (!bl_is_terminal(fileno(a->s->out))) return a->s->out;
        a->text = open_memstream(&a->text_buf, &a->text_size);
        return a->text ? a->text : a->s->out;
    }
    static FILE *null;
    if (!null) null = fopen("/dev/null", "w");
    return null ? null : a->s->out;
}

int bl_cmd_text_flush(bl_cmdargs *a)
{
    if (!a->text) return 0;
    fclose(a->text);
    a->text = NULL;
    int width = bl_term_width(a->s->out), rows = 0;
    if (a->text_buf) {
        fwrite(a->text_buf, 1, a->text_size, a->s->out);
        for (char *line = a->text_buf; *line;) {
            char *nl = strchr(line, '\n');
            size_t len = nl ? (size_t)(nl - line) : strlen(line);
            char save = line[len];
            line[len] = 0;
            int cols = bl_utf8_len(line);
            line[len] = save;
            rows += cols > width ? (cols + width - 1) / width : 1;
            line += len + (nl != NULL);
        }
    }
    free(a->text_buf);
    a->text_buf = NULL, a->text_size = 0;
    return rows;
}


/* ---- the fixed input of attn and stats ---- */

void bl_fixed_free(bl_fixed_input *o)
{
    free(o->attn);
    free(o->tin);
    free(o->tnorm);
    free(o->img);
    for (int i = 0; o->labels && i < o->L; i++) free(o->labels[i]);
    free(o->labels);
}

/* TinyDiT's fixed input: validation image 0 of the model's data (repl/trainstate.h; `shapes` with
 * seed 0 when it has none), resized (nearest) and made grey to the model's size and channels,
 * noised to t = 0.5 with fixed noise. */
static int dit_input(const bl_model *m, bl_fixed_input *o, bl_tensor **xt, int index)
{
    int C = m->cfg.channels, S = m->cfg.image_size;
    const bl_train_state *ts = bl_train_find(m);
    bl_dataset *own = NULL;
    const bl_dataset *ds = ts && ts->data && ts->data->kind == BL_DATA_IMAGES && ts->data->n_val > 0
                               ? ts->data
                               : (own = bl_data_shapes(0));
    float *src = ds ? malloc(sizeof(float) * (size_t)(ds->C * ds->H * ds->W)) : NULL;
    o->img = malloc(sizeof(float) * (size_t)(2 * C * S * S));
    *xt = bl_tensor_new4(1, C, S, S);
    int label = -1;
    int rc = src && o->img && *xt ? bl_dataset_val_images(ds, (size_t)index, 1, src, &label) : -1;
    if (rc == 0) {
        bl_rng r;
        bl_rng_named(&r, 0, "attn noise");
        for (int c = 0; c < C; c++)
            for (int y = 0; y < S; y++)
                for (int x = 0; x < S; x++) {
                    int sy = y * ds->H / S, sx = x * ds->W / S;
                    float v = 0;
                    if (C == ds->C) v = src[(c * ds->H + sy) * ds->W + sx];
                    else
                        for (int k = 0; k < ds->C; k++) v += src[(k * ds->H + sy) * ds->W + sx] / (float)ds->C;
                    size_t i = (size_t)(c * S + y) * S + x;
                    o->img[i] = v;
                    o->img[(size_t)C * S * S + i] = (*xt)->data[i] = 0.5f * v + 0.5f * bl_rng_normal(&r);
                }
    }
    o->C = C;
    o->S = S;
    o->gh = o->gw = S / m->cfg.patch;
    if (rc == 0 && ds->class_names && label >= 0 && label < ds->n_classes)
        snprintf(o->desc, sizeof o->desc, "%s %d (%s), t = 0.5", ds->name, index, ds->class_names[label]);
    else if (ds)
        snprintf(o->desc, sizeof o->desc, "%s image %d, t = 0.5", ds->name, index);
    free(src);
    bl_dataset_free(own);
    if (rc < 0 && !bl_error()[0]) bl_fail("attn: out of memory");
    return rc;
}

/* TinyGPT's fixed input: a sentence written with the model's vocabulary (the characters of the
 * text it was trained on, repl/trainstate.h, else of the built-in text when the sizes agree); when
 * the sentence needs a character outside it, or there is no vocabulary, ids 0, 1, 2, ...
 * labelled with their numbers. */
static int gpt_input(const bl_model *m, bl_fixed_input *o, int *ids, int L)
{
    static const char phrase[] = "the cat sat on the mat. the model reads the text and attends to it. ";
    unsigned char vocab[256];
    int nv = 0;
    const bl_train_state *ts = bl_train_find(m);
    if (ts && ts->vocab_size == m->cfg.vocab) {
        nv = ts->vocab_size;
        memcpy(vocab, ts->vocab, (size_t)nv);
    } else {
        bl_dataset *ds = bl_data_text(NULL);
        if (ds && ds->vocab_size == m->cfg.vocab) memcpy(vocab, ds->vocab, (size_t)(nv = ds->vocab_size));
        bl_dataset_free(ds);
        bl_clear_error();
    }
    int ok = nv > 0;
    for (int i = 0; ok && i < L; i++) {
        unsigned char ch = (unsigned char)phrase[i % (sizeof phrase - 1)];
        ids[i] = -1;
        for (int v = 0; v < nv; v++)
            if (vocab[v] == ch) ids[i] = v;
        ok = ids[i] >= 0;
    }
    o->labels = calloc((size_t)L, sizeof *o->labels);
    if (!o->labels) return bl_fail("attn: out of memory");
    for (int i = 0; i < L; i++) {
        char lab[16];
        if (ok) snprintf(lab, sizeof lab, "%c", vocab[ids[i]] == ' ' ? '_' : vocab[ids[i]]);
        else snprintf(lab, sizeof lab, "%d", ids[i] = i % m->cfg.vocab);
        if (!(o->labels[i] = strdup(lab))) return bl_fail("attn: out of memory");
    }
    snprintf(o->desc, sizeof o->desc, ok ? "a fixed sentence of %d characters" : "token ids 0..%d", ok ? L : L - 1);
    return 0;
}

/* Run m once on its fixed input and copy layer `layer`'s attention [H, L, L] and norm taps. */
int bl_fixed_forward(bl_model *m, int layer, int image, bl_fixed_input *o, const char *cmd)
{
    memset(o, 0, sizeof *o);
    int keep = m->keep_attn, rc = 0;
    bl_tensor *xt = NULL;
    int ids[64];
    m->keep_attn = 1;
    if (!bl_kind_of(m->kind)->text) {
        float t = 0.5f;
        rc = dit_input(m, o, &xt, image);
        if (rc == 0 && !bl_dit_forward(m, xt, &t, 0)) rc = -1;
    } else {
        o->L = m->cfg.context < 32 ? m->cfg.context : 32;
        rc = gpt_input(m, o, ids, o->L);
        if (rc == 0 && !bl_gpt_forward(m, ids, 1, o->L, 0)) rc = -1;
    }
    m->keep_attn = keep;
    bl_tensor_free(xt);
    const bl_tensor *at = rc == 0 ? m->attn[layer] : NULL, *ti = m->tap_in[layer], *tn = m->tap_norm[layer];
    if (rc == 0 && (!at || !ti || !tn)) rc = bl_fail("%s: the model kept no activations of layer %d", cmd, layer);
    if (rc == 0) {
        o->H = at->shape[1];
        o->L = at->shape[2];
        o->D = ti->shape[2];
        size_t na = (size_t)o->H * o->L * at->shape[3], nt = (size_t)o->L * o->D;
        o->attn = malloc(sizeof(float) * na);
        o->tin = malloc(sizeof(float) * nt);
        o->tnorm = malloc(sizeof(float) * nt);
        if (!o->attn || !o->tin || !o->tnorm || at->shape[3] != o->L) {
            rc = o->attn && o->tin && o->tnorm ? bl_fail("%s: attention is %d x %d, not square", cmd, o->L, at->shape[3])
                                               : bl_fail("%s: out of memory", cmd);
        } else {
            memcpy(o->attn, at->data, sizeof(float) * na);   /* batch entry 0 */
            memcpy(o->tin, ti->data, sizeof(float) * nt);
            memcpy(o->tnorm, tn->data, sizeof(float) * nt);
        }
    }
    if (rc < 0) bl_fixed_free(o);
    return rc;
}

int bl_layer_word(bl_cmdargs *a, const bl_model *m, long *layer)
{
    return bl_opt_int(a, "layer", 0, 0, m->cfg.depth - 1, layer);
}

/* image=N (TinyDiT: which validation image is the fixed input; 0 by default). */
int bl_image_word(bl_cmdargs *a, const bl_model *m, long *image)
{
    int i = bl_opt_find(a, "image");
    if (i >= 0 && bl_kind_of(m->kind)->text) {
        bl_fail("%s: image= picks TinyDiT's input image; a TinyGPT model reads a fixed text", a->st->name);
        return bl_session_errat(a->s, a->w[i].pos);
    }
    return bl_opt_int(a, "image", 0, 0, 9999, image);
}
