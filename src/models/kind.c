/* kind.c - the per-kind table (see kind.h). */
#include "models/kind.h"
#include "models/model_internal.h"

static const bl_kind kinds[] = {
    [BL_MODEL_DIT] = { BL_MODEL_DIT, "dit", "TinyDiT", "images", "images", "shapes", "shapes", 0, 1,
                       bl_dit_declare, bl_dit_setup },
    [BL_MODEL_GPT] = { BL_MODEL_GPT, "gpt", "TinyGPT", "tokens", "windows", "text", "the built-in text", 1, 2,
                       bl_gpt_declare, bl_gpt_setup },
};

const bl_kind *bl_kind_of(bl_model_kind kind)
{
    return (unsigned)kind < sizeof kinds / sizeof kinds[0] ? &kinds[kind] : &kinds[BL_MODEL_DIT];
}

int bl_kind_unit_per_item(const bl_config *cfg) { return bl_kind_of(cfg->kind)->text ? cfg->context : 1; }
