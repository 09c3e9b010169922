/* op.c - the op name table (see op.h). */
#include "core/op.h"
#include "core/tensor_math.h"
#include <string.h>

#define BL_OP_NAME_(e, s) s,
static const char *const op_names[BL_OP_COUNT] = {BL_OP_LIST(BL_OP_NAME_)};
#undef BL_OP_NAME_

/* the blocks of op.h follow tensor_math.h's enums: both ends of each */
_Static_assert(BL_OP_OF_BINOP(BL_ADD) == BL_OP_ADD && BL_OP_OF_BINOP(BL_GE) == BL_OP_GE, "binop block");
_Static_assert(BL_OP_OF_UNOP(BL_NEG) == BL_OP_NEG && BL_OP_OF_UNOP(BL_ERF) == BL_OP_ERF, "unop block");
_Static_assert(BL_OP_OF_REDUCE(BL_SUM) == BL_OP_SUM && BL_OP_OF_REDUCE(BL_MAX) == BL_OP_MAX, "reduce block");

const char *bl_op_name(bl_op op) { return (unsigned)op < BL_OP_COUNT ? op_names[op] : "?"; }

int bl_op_lookup(const char *name)
{
    for (int i = 0; name && i < BL_OP_COUNT; i++)
        if (!strcmp(op_names[i], name)) return i;
    return -1;
}
