/* functions_io.c - torch.save(obj, f) and torch.load(f) of a notebook's checkpoint cell, on
 * safetensors files (train/safetensors.h): torch.save(m.state_dict(), "m.safetensors") and
 * m.load_state_dict(torch.load("m.safetensors")) (modellab.c) round-trip a model's weights, and
 * PyTorch reads the file with safetensors.torch.load_file. blocklab writes no pickle: a name
 * that does not end in .safetensors is refused rather than given bytes torch.load cannot read. */
#include "repl/repl.h"
#include "core/error.h"
#include "train/safetensors.h"
#include <stdlib.h>
#include <string.h>

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && !strcmp(s + n - k, tail);
}

/* The file argument v (standing at pos): a string ending in .safetensors, or NULL + error. */
static const char *file_arg(bl_callargs *a, const bl_value *v, bl_pos pos)
{
    const char *who = !strcmp(a->fname, "torch_save") ? "torch.save" : "torch.load";
    if (v->kind != BL_V_STR) {
        bl_fail("%s: the file must be a string, got a %s", who, bl_val_kind_name(v));
        bl_session_errat(a->s, pos);
        return NULL;
    }
    if (!ends_with(v->str, ".safetensors")) {
        bl_fail("%s: '%s': blocklab writes and reads safetensors, not pickle: name the file .safetensors "
                "(PyTorch: safetensors.torch.load_file / save_file)", who, v->str);
        bl_session_errat(a->s, pos);
        return NULL;
    }
    return v->str;
}

int bl_state_entry(const bl_value *d, int i, const char *who)
{
    if (d->keys[i]->kind != BL_V_STR)
        return bl_fail("%s: key %d is a %s: a state_dict's names are strings", who, i, bl_val_kind_name(d->keys[i]));
    if (d->items[i]->kind != BL_V_TENSOR)
        return bl_fail("%s: '%s' holds a %s, not a tensor", who, d->keys[i]->str, bl_val_kind_name(d->items[i]));
    return 0;
}

/* torch.save(obj, f): obj a dict {name: tensor} (a state_dict) written to f, atomically. None. */
static bl_value *f_save(bl_callargs *a)
{
    static const char *const keys[] = { "obj", "f", NULL };
    bl_value *v[2];
    bl_pos pos[2];
    if (bl_kw_only(a, keys) < 0 || bl_pos_or_kw(a, keys, 2, v, pos) < 0) return NULL;
    if (!v[0] || !v[1]) return BL_FAILP("torch.save: needs obj and f (torch.save(m.state_dict(), \"m.safetensors\"))");
    const bl_value *d = v[0];
    const char *path = file_arg(a, v[1], pos[1]);
    if (!path) return NULL;
    if (d->kind != BL_V_DICT || d->n == 0) {
        bl_fail("torch.save: saves a dict of tensors such as m.state_dict(), got %s%s",
                d->kind == BL_V_DICT ? "an empty dict" : "a ", d->kind == BL_V_DICT ? "" : bl_val_kind_name(d));
        bl_session_errat(a->s, pos[0]);
        return NULL;
    }
    const char **names = malloc((size_t)d->n * sizeof *names);
    const bl_tensor **ts = malloc((size_t)d->n * sizeof *ts);
    int rc = names && ts ? 0 : bl_fail("torch.save: out of memory");
    for (int i = 0; rc == 0 && i < d->n; i++) {
        if ((rc = bl_state_entry(d, i, "torch.save")) < 0) break;
        names[i] = d->keys[i]->str, ts[i] = d->items[i]->t;
    }
    if (rc == 0) rc = bl_st_write(path, d->n, names, ts, 0, NULL, NULL);
    free(names);
    free(ts);
    if (rc < 0) {
        bl_error_as("torch.save", NULL);
        bl_session_errat(a->s, a->pos);
        return NULL;
    }
    return bl_val_none();
}

/* torch.load(f): the tensors of safetensors file f as a dict {name: tensor}, in the file's
 * order. map_location= and weights_only= are taken and change nothing (tensors live on the CPU
 * and a safetensors file holds only weights). */
static bl_value *f_load(bl_callargs *a)
{
    static const char *const keys[] = { "f", "map_location", "weights_only", NULL };
    bl_value *v[1];
    bl_pos pos[1];
    if (bl_kw_only(a, keys) < 0 || bl_pos_or_kw(a, keys, 1, v, pos) < 0) return NULL;
    for (int j = 0; j < a->nk; j++) a->kused[j] = 1;
    if (!v[0]) return BL_FAILP("torch.load: needs f, the file (torch.load(\"m.safetensors\"))");
    const char *path = file_arg(a, v[0], pos[0]);
    if (!path) return NULL;
    bl_st_file *f = bl_st_read(path);
    /* a checkpoint of `save` also holds its run's AdamW moments (optim.m.*, optim.v.*): the
     * weights alone, the state_dict load_state_dict takes */
    const char *fmt = f ? bl_st_meta(f, "format") : NULL;
    int ckpt = fmt && !strncmp(fmt, "blocklab-checkpoint", 19);
    bl_value *d = f ? bl_val_dict(f->n) : NULL;
    for (int i = 0; d && i < f->n; i++) {
        if (ckpt && !strncmp(f->tensors[i].name, "optim.", 6)) continue;
        bl_tensor *t = bl_st_need_values(f, &f->tensors[i]) < 0 ? NULL : bl_tensor_copy(&f->tensors[i]);
        if (!t || bl_val_dict_set(d, bl_val_str(f->tensors[i].name), bl_val_tensor(t)) < 0) {
            bl_val_unref(d);
            d = NULL;
        }
    }
    bl_st_free(f);
    if (!d) {
        bl_error_as("torch.load", NULL);
        bl_session_errat(a->s, pos[0]);
    }
    return d;
}

const bl_function bl_io_functions[] = {
    { "torch_save", "torch_save(obj, f)",
      "torch.save: a dict of tensors (m.state_dict()) into safetensors file f.\n"
      "The file is written atomically and must be named .safetensors (blocklab writes no\n"
      "pickle); PyTorch reads it with safetensors.torch.load_file. torch.save(m.state_dict(),\n"
      "\"m.safetensors\") then m.load_state_dict(torch.load(\"m.safetensors\")) restores m.",
      f_save },
    { "torch_load", "torch_load(f, map_location=None, weights_only=True)",
      "torch.load: the tensors of safetensors file f as a dict {name: tensor}.\n"
      "In the file's order; map_location= and weights_only= change nothing (the tensors are on\n"
      "the CPU, the file holds weights only). A checkpoint of `save` gives its weights (its\n"
      "optimizer moments optim.* left out); a PyTorch save_file(m.state_dict()) loads alike.", f_load },
    { NULL, NULL, NULL, NULL },
};
