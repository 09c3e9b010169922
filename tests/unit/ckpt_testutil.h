/* ckpt_testutil.h - compare two checkpoint files for the unit tests: ckpt_same(a, b, why, n) is 1
 * when they hold the same metadata (every key with the same value, in the same order), the same
 * tensors (names, shapes, values) and the same bytes; else 0 with what differs first in why. */
#ifndef BL_CKPT_TESTUTIL_H
#define BL_CKPT_TESTUTIL_H

#include "core/error.h"
#include "train/safetensors.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ckpt_bytes(const char *path, char **buf, long *n)
{
    FILE *f = fopen(path, "rb");
    *buf = NULL;
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    *n = ftell(f);
    rewind(f);
    *buf = malloc((size_t)*n + 1);
    int ok = *buf && fread(*buf, 1, (size_t)*n, f) == (size_t)*n;
    fclose(f);
    return ok ? 0 : -1;
}

static int ckpt_same(const char *a, const char *b, char *why, size_t n)
{
    bl_st_file *fa = bl_st_read(a), *fb = bl_st_read(b);
    int same = 0;
    why[0] = 0;
    if (!fa || !fb) {
        snprintf(why, n, "read: %s", bl_error());
        goto out;
    }
    for (int i = 0; i < fa->nmeta; i++) {
        const char *v = bl_st_meta(fb, fa->meta_keys[i]);
        if (!v) {
            snprintf(why, n, "%s has no metadata \"%s\" (%s has \"%.60s\")", b, fa->meta_keys[i], a, fa->meta_values[i]);
            goto out;
        }
        if (strcmp(v, fa->meta_values[i])) {
            snprintf(why, n, "metadata \"%s\": \"%.60s\" vs \"%.60s\"", fa->meta_keys[i], fa->meta_values[i], v);
            goto out;
        }
    }
    if (fa->nmeta != fb->nmeta || fa->n != fb->n) {
        snprintf(why, n, "%d vs %d metadata keys, %d vs %d tensors", fa->nmeta, fb->nmeta, fa->n, fb->n);
        goto out;
    }
    for (int i = 0; i < fa->n; i++) {
        const bl_tensor *ta = &fa->tensors[i], *tb = bl_st_get(fb, ta->name);
        if (!tb || !bl_same_shape(ta, tb) || memcmp(ta->data, tb->data, ta->numel * sizeof(float))) {
            snprintf(why, n, "tensor %s %s", ta->name, tb ? "differs" : "is missing");
            goto out;
        }
    }
    char *ba = NULL, *bb = NULL;
    long na = 0, nb = 0;
    if (ckpt_bytes(a, &ba, &na) == 0 && ckpt_bytes(b, &bb, &nb) == 0)
        same = na == nb && !memcmp(ba, bb, (size_t)na);
    if (!same) snprintf(why, n, "the files' bytes differ (%ld vs %ld bytes)", na, nb);
    free(ba);
    free(bb);
out:
    bl_st_free(fa);
    bl_st_free(fb);
    return same;
}

#endif
