/* modules.c - torch, torch.nn.functional (F), torch.nn and math as prefixes of blocklab's
 * functions (see modules.h). */
#include "repl/modules.h"
#include "repl/didyoumean.h"
#include "core/error.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The functions that stand only under their own module (torch.optim.AdamW, not torch.AdamW). */
static const char *const optim_names[] = { "SGD", "Adam", "AdamW", NULL };
static const char *const utils_names[] = { "clip_grad_norm_", NULL };
static const char *const sched_names[] = { NULL };
static const char *const init_names[] = { "normal_", "uniform_", "zeros_", "ones_", "constant_", NULL };     /* none: a loop sets the groups' lr */

/* Each module: its full name (as `import` writes it), the short name code uses, and whether
 * blocklab's functions stand under it (torch.nn holds only nn.functional, nn.utils): all of them
 * but those of an `only` list, or only those of its own list. */
static const struct { const char *full, *name; int funcs; const char *const *only; } modules[] = {
    { "torch", "torch", 1, NULL },
    { "torch.nn.functional", "F", 1, NULL },
    { "torch.nn", "nn", 0, NULL },
    { "math", "math", 1, NULL },
    { "torch.optim", "optim", 1, optim_names },
    { "torch.nn.utils", "utils", 1, utils_names },
    { "torch.optim.lr_scheduler", "lr_scheduler", 1, sched_names },
    { "torch.nn.init", "init", 1, init_names },
};
#define NMOD (sizeof modules / sizeof *modules)

static int in_list(const char *const *l, const char *name)
{
    for (; l && *l; l++)
        if (!strcmp(*l, name)) return 1;
    return 0;
}

/* torch's names that blocklab's commands hold at the prompt (`save`, `load`): torch.save is
 * the builtin torch_save */
static const char *const torch_renamed[] = { "save", "load", NULL };

/* The builtin `name` when it stands under module i, else NULL. */
static const bl_function *module_function(int i, const char *name)
{
    if (!modules[i].funcs) return NULL;
    if (!strcmp(modules[i].full, "torch") && in_list(torch_renamed, name)) {
        char full[32];
        snprintf(full, sizeof full, "torch_%s", name);
        return bl_function_find(full);
    }
    if (modules[i].only) return in_list(modules[i].only, name) ? bl_function_find(name) : NULL;
    if (in_list(optim_names, name) || in_list(utils_names, name) || in_list(init_names, name)) return NULL;
    return bl_function_find(name);
}

static int find(const char *full)
{
    for (size_t i = 0; i < NMOD; i++)
        if (!strcmp(modules[i].full, full)) return (int)i;
    return -1;
}

/* The module index e names, or -1 (a variable of the name hides it). */
static int module_index(bl_session *s, const bl_ast *e)
{
    if (e->kind == BL_N_NAME) {
        if (bl_session_get(s, e->str)) return -1;
        for (size_t i = 0; i < NMOD; i++)
            if (!strcmp(modules[i].name, e->str)) return (int)i;
        return -1;
    }
    if (e->kind != BL_N_FIELD ||
        (strcmp(e->str, "functional") && strcmp(e->str, "nn") && strcmp(e->str, "optim") && strcmp(e->str, "utils") &&
         strcmp(e->str, "lr_scheduler") && strcmp(e->str, "init")))
        return -1;
    int up = module_index(s, e->a);
    if (up < 0) return -1;
    char full[64];
    snprintf(full, sizeof full, "%s.%s", modules[up].full, e->str);
    return find(full);
}

const char *bl_module_of(bl_session *s, const bl_ast *e)
{
    int i = module_index(s, e);
    return i < 0 ? NULL : modules[i].name;
}

int bl_module_import(const char *module, const char *as)
{
    int i = find(module);
    if (i >= 0) {
        if (as && strcmp(as, modules[i].name))
            return bl_fail("import: blocklab knows %s as %s (import %s as %s)", module, modules[i].name, module,
                           modules[i].name);
        return 0;
    }
    const char *dot = strrchr(module, '.');     /* from torch import randn: a function */
    char up[64];
    snprintf(up, sizeof up, "%.*s", dot ? (int)(dot - module) : 0, module);
    if (dot && (i = find(up)) >= 0) {
        /* from torch import no_grad: for with no_grad(): and @no_grad() (parser.c) */
        if (!strcmp(up, "torch") && (!strcmp(dot + 1, "no_grad") || !strcmp(dot + 1, "inference_mode"))) {
            if (as && strcmp(as, dot + 1))
                return bl_fail("import: blocklab's %s keeps its name (from torch import %s)", dot + 1, dot + 1);
            return 0;
        }
        if (!module_function(i, dot + 1))
            return bl_fail("ImportError: blocklab has no '%s' in %s (help functions lists its functions)", dot + 1, up);
        if (as && strcmp(as, dot + 1))
            return bl_fail("import: blocklab's function %s keeps its name (from %s import %s)", dot + 1, up, dot + 1);
        return 0;
    }
    return bl_fail("ModuleNotFoundError: blocklab has no module '%s' (it has torch, torch.nn.functional as F, "
                   "torch.optim, torch.nn.utils and math: torch.randn, F.softmax and math.sqrt call its own "
                   "functions)", module);
}

/* The builtin MODULE.name stands for, or NULL + error at e. */
static const bl_function *function_of(bl_session *s, const bl_ast *e, int i)
{
    const bl_function *f = module_function(i, e->str);
    if (f) return f;
    if (modules[i].only && !*modules[i].only) {
        bl_fail("%s.%s: blocklab has no learning-rate schedulers: set each group's lr in the loop, as nanoGPT's "
                "get_lr (for g in opt.param_groups: g[\"lr\"] = lr)", modules[i].full, e->str);
        bl_session_errat(s, e->pos);
        return NULL;
    }
    if (modules[i].only) {
        char has[128] = "";
        for (const char *const *n = modules[i].only; *n; n++)
            snprintf(has + strlen(has), sizeof has - strlen(has), "%s%s", n == modules[i].only ? "" : ", ", *n);
        bl_fail("%s.%s: blocklab has no %s.%s (it has %s)", modules[i].full, e->str, modules[i].full, e->str, has);
        bl_session_errat(s, e->pos);
        return NULL;
    }
    if (modules[i].funcs && (in_list(optim_names, e->str) || in_list(utils_names, e->str) || in_list(init_names, e->str))) {
        bl_fail("%s.%s: it is %s.%s", modules[i].name, e->str, in_list(optim_names, e->str) ? "torch.optim"
                : in_list(utils_names, e->str) ? "torch.nn.utils" : "torch.nn.init", e->str);
        bl_session_errat(s, e->pos);
        return NULL;
    }
    char dym[160] = "";
    if (modules[i].funcs) bl_dym_names(s, e->str, BL_DYM_FUNCS, dym, sizeof dym);
    if (modules[i].funcs)
        bl_fail("%s.%s: blocklab has no function %s%s (help functions lists them)", modules[i].name, e->str, e->str, dym);
    else
        bl_fail("%s.%s: blocklab has no torch.nn layers (F.X and torch.X call its functions; `model` builds "
                "networks)", modules[i].name, e->str);
    bl_session_errat(s, e->pos);
    return NULL;
}

bl_value *bl_module_call(bl_session *s, const bl_ast *e)
{
    const bl_function *f = function_of(s, e, module_index(s, e->a));
    if (!f) return NULL;
    bl_ast c = *e;
    c.kind = BL_N_CALL;
    c.str = f->name;
    c.num = 1;      /* F.rms_norm is torch's even beside a def rms_norm */
    c.a = NULL;
    return bl_eval(s, &c);
}

bl_value *bl_module_field(bl_session *s, const bl_ast *e)
{
    static const struct { const char *name; double x; } constants[] = {
        { "pi", M_PI }, { "e", M_E }, { "tau", 2 * M_PI }, { "inf", INFINITY }, { "nan", NAN },
    };
    int i = module_index(s, e->a);
    for (size_t k = 0; modules[i].funcs && !modules[i].only && k < sizeof constants / sizeof *constants; k++)
        if (!strcmp(e->str, constants[k].name)) return bl_val_num(constants[k].x);
    const char *dt = !strcmp(modules[i].full, "torch") ? bl_dtype_name(e->str) : NULL;
    if (dt) return bl_val_str(dt);      /* torch.long: "torch.int64", what dtype= takes */
    const bl_function *f = function_of(s, e, i);
    if (f) {
        bl_fail("'%s.%s' is a function: call it, as %s", modules[i].name, e->str, f->synopsis);
        bl_session_errat(s, e->pos);
    }
    return NULL;
}
