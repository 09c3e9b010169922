/* test_suggest.c - "did you mean" (core/suggest.h): the optimal-string-alignment distance on
 * pairs worked out by hand, and which names are offered, in which order. */
#include "core/suggest.h"
#include "../check.h"
#include <string.h>

BL_TEST(distances)
{
    /* kitten -> sitting: k->s, e->i, +g (Levenshtein's classic example) */
    CHECK(bl_edit_distance("kitten", "sitting", 5) == 3, "kitten");
    /* a swap of neighbours is one edit (Damerau): trian -> train */
    CHECK(bl_edit_distance("trian", "train", 5) == 1, "trian");
    /* OSA, not full Damerau: ca -> abc is 3 (no edit of a swapped pair) */
    CHECK(bl_edit_distance("ca", "abc", 5) == 3, "ca");
    CHECK(bl_edit_distance("", "abc", 5) == 3 && bl_edit_distance("abc", "abc", 0) == 0, "edges");
    /* past max: any value over it */
    CHECK(bl_edit_distance("kitten", "sitting", 1) > 1, "early stop");
}

BL_TEST(offers)
{
    static const char *const names[] = { "train", "rain", "trains", "show", "sample", NULL };
    bl_suggest sg;
    char buf[160];
    bl_suggest_init(&sg, "trian");
    bl_suggest_list(&sg, names);
    /* train (1: a swap), then rain (a swap and a deletion) and trains (a swap and an insertion), 2 each, in the order given */
    CHECK(!strcmp(bl_suggest_text(&sg, buf, sizeof buf), "; did you mean 'train', 'rain' or 'trains'?"), "%s", buf);
    bl_suggest_init(&sg, "sohw");
    bl_suggest_list(&sg, names);
    CHECK(!strcmp(bl_suggest_text(&sg, buf, sizeof buf), "; did you mean 'show'?"), "%s", buf);
    /* a short word takes one edit at most, and nothing far */
    bl_suggest_init(&sg, "xyz");
    bl_suggest_list(&sg, names);
    CHECK(!strcmp(bl_suggest_text(&sg, buf, sizeof buf), ""), "%s", buf);
    /* the word itself is no suggestion */
    bl_suggest_init(&sg, "show");
    bl_suggest_list(&sg, names);
    CHECK(sg.n == 0, "%d", sg.n);
}

int main(void)
{
    RUN(distances);
    RUN(offers);
    return bl_test_done();
}
