/* kind.c - the per-kind table (see kind.h). */
#include "models/kind.h"
#include "models/model_internal.h"

static const bl_kind kinds[] = {
    [BL_MODEL_DIT] = { BL_MODEL_DIT, "dit", "TinyDiT", "images", "images", "shapes", "shapes", 0, 1, BL_KEY_DIT,
                       1, NULL, NULL, bl_dit_declare, bl_dit_setup },
    [BL_MODEL_GPT] = { BL_MODEL_GPT, "gpt", "TinyGPT", "tokens", "windows", "text", "the built-in text", 1, 2, BL_KEY_GPT,
                       0, "lm_head.weight", "transformer.wte.weight", bl_gpt_declare, bl_gpt_setup },
};

#define NKINDS ((int)(sizeof kinds / sizeof kinds[0]))

const bl_kind *bl_kind_of(bl_model_kind kind)
{
    return (unsigned)kind < NKINDS ? &kinds[kind] : &kinds[BL_MODEL_DIT];
}

const bl_kind *bl_kind_at(int i) { return i >= 0 && i < NKINDS ? &kinds[i] : NULL; }

const bl_kind *bl_kind_with_text(int text)
{
    for (int i = 0; i < NKINDS; i++)
        if (kinds[i].text == text) return &kinds[i];
    return NULL;
}

int bl_kind_unit_per_item(const bl_config *cfg) { return bl_kind_of(cfg->kind)->text ? cfg->context : 1; }
