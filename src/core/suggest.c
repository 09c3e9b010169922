/* suggest.c - "did you mean" (suggest.h). */
#include "core/suggest.h"
#include <stdio.h>
#include <string.h>

int bl_edit_distance(const char *a, const char *b, int max)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 64 || m > 64) return max + 1;       /* names are short; a long word matches none */
    if ((n > m ? n - m : m - n) > (size_t)max) return max + 1;
    int d[65][65];
    for (size_t i = 0; i <= n; i++) d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++) d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++) {
        int row_min = max + 1;
        for (size_t j = 1; j <= m; j++) {
            int cost = a[i - 1] != b[j - 1];
            int v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v) v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
            if (v < row_min) row_min = v;
        }
        if (row_min > max) return max + 1;
    }
    return d[n][m];
}

void bl_suggest_init(bl_suggest *sg, const char *word)
{
    memset(sg, 0, sizeof *sg);
    sg->word = word;
}

void bl_suggest_add(bl_suggest *sg, const char *name)
{
    if (!name || !sg->word || !strcmp(name, sg->word)) return;
    for (int i = 0; i < sg->n; i++)
        if (!strcmp(sg->best[i], name)) return;
    int len = (int)strlen(sg->word);
    int max = len <= 4 ? 1 : 2;
    if (max >= len) max = len - 1;
    if (max < 1) return;
    int d = bl_edit_distance(sg->word, name, max);
    if (d > max) return;
    int at = sg->n;
    while (at > 0 && sg->dist[at - 1] > d) at--;
    if (at >= 3) return;
    int last = sg->n < 3 ? sg->n : 2;
    for (int i = last; i > at; i--) {
        sg->best[i] = sg->best[i - 1];
        sg->dist[i] = sg->dist[i - 1];
    }
    sg->best[at] = name;
    sg->dist[at] = d;
    if (sg->n < 3) sg->n++;
}

void bl_suggest_list(bl_suggest *sg, const char *const *names)
{
    for (; names && *names; names++) bl_suggest_add(sg, *names);
}

const char *bl_suggest_text(const bl_suggest *sg, char *buf, size_t n)
{
    if (!n) return buf;
    buf[0] = '\0';
    if (!sg->n) return buf;
    size_t k = (size_t)snprintf(buf, n, "; did you mean ");
    for (int i = 0; i < sg->n && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s'%s'", i == 0 ? "" : i == sg->n - 1 ? " or " : ", ", sg->best[i]);
    if (k < n) snprintf(buf + k, n - k, "?");
    return buf;
}
