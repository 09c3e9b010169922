/* op.h - the identity of every op: one enum and one name table (ggml's GGML_OP / GGML_OP_NAME).
 *
 * A graph node (core/graph.h) records which op made it as a bl_op; the name is what errors,
 * `help`, tests and the prompt's autograd (grad_fn=<name>) show. An op with two kernels keeps
 * one identity: bl_add (trailing broadcast) and bl_binary_op(BL_ADD) (NumPy broadcast) are both
 * BL_OP_ADD; pow with a tensor or a constant exponent is BL_OP_POW.
 *
 * The binary, unary and reduction blocks follow the order of bl_binop, bl_unop and bl_reduce
 * (core/tensor_math.h), so BL_OP_OF_BINOP(BL_MUL) == BL_OP_MUL (op.c checks the ends at compile
 * time, tests/unit/test_ops every name).
 *
 * To add an op: one X(...) row here, its kernels, its tests (docs/design.md lists the files).
 */
#ifndef BL_OP_H
#define BL_OP_H

/* X(ENUM_SUFFIX, "name") for every op, grouped by the file that implements it */
#define BL_OP_LIST(X)                                                                            \
    /* core/ops_linear.c */                                                                      \
    X(LINEAR, "linear") X(LINEAR_ADD, "linear_add") X(LINEAR_GELU, "linear_gelu")                \
    X(LINEAR_DROPOUT_ADD, "linear_dropout_add") X(MLP_GELU_ADD, "mlp_gelu_add")                  \
    X(MATMUL, "matmul")                                                                          \
    /* core/ops_loss.c */                                                                        \
    X(EMBEDDING, "embedding") X(CROSS_ENTROPY, "cross_entropy") X(MSE, "mse")                    \
    /* core/ops_shape.c */                                                                       \
    X(INDEX, "index") X(TRANSPOSE, "transpose") X(INDEX_PUT, "index_put")                      \
    /* core/ops_math.c and core/tensor_math.c: binary (order of bl_binop) */                     \
    X(ADD, "add") X(SUB, "sub") X(MUL, "mul") X(DIV, "div") X(POW, "pow")                        \
    X(MAXIMUM, "maximum") X(MINIMUM, "minimum") X(FLOOR_DIVIDE, "floor_divide")                  \
    X(REMAINDER, "remainder") X(EQ, "eq") X(NE, "ne") X(LT, "lt") X(LE, "le") X(GT, "gt")        \
    X(GE, "ge")                                                                                  \
    /* unary (order of bl_unop) */                                                               \
    X(NEG, "neg") X(ABS, "abs") X(SQRT, "sqrt") X(EXP, "exp") X(LOG, "log") X(SIN, "sin")        \
    X(COS, "cos") X(TAN, "tan") X(TANH, "tanh") X(SIGMOID, "sigmoid") X(SIGN, "sign")            \
    X(FLOOR, "floor") X(CEIL, "ceil") X(ERF, "erf")                                              \
    /* reductions (order of bl_reduce) */                                                        \
    X(SUM, "sum") X(MEAN, "mean") X(VAR, "var") X(STD, "std") X(RMS, "rms") X(MIN, "min")        \
    X(MAX, "max")                                                                                \
    X(CLAMP, "clamp") X(CUMSUM, "cumsum") X(TOPK, "topk") X(WHERE, "where")                      \
    X(MASKED_FILL, "masked_fill") X(TRIU, "triu") X(TRIL, "tril") X(CAT, "cat")                  \
    /* core/ops_pointwise.c */                                                                   \
    X(SCALE, "scale") X(GELU, "gelu") X(SILU, "silu") X(SOFTMAX, "softmax")                      \
    X(DROPOUT, "dropout")                                                                        \
    /* nn/norms.c */                                                                             \
    X(LAYERNORM, "layernorm") X(RMSNORM, "rmsnorm") X(QK_NORM, "qk_norm")                        \
    X(LAYERNORM_MODULATE, "layernorm_modulate") X(RMSNORM_MODULATE, "rmsnorm_modulate")          \
    /* nn/heads.c, nn/adaln.c, nn/mlp.c */                                                       \
    X(SPLIT_HEADS, "split_heads") X(MERGE_HEADS, "merge_heads") X(MODULATE, "modulate")          \
    X(SLICE, "slice") X(SWIGLU, "swiglu") X(LINEAR_SWIGLU, "linear_swiglu")                      \
    /* nn/attention.c, nn/rope.c, nn/qkv.c, nn/patch.c */                                        \
    X(ATTENTION, "attention") X(ROPE, "rope") X(QKV_PREPARE, "qkv_prepare")                      \
    X(PATCH_EMBED, "patch_embed") X(UNPATCHIFY, "unpatchify") X(POS2D, "pos2d")

#define BL_OP_ENUM_(e, s) BL_OP_##e,
typedef enum { BL_OP_LIST(BL_OP_ENUM_) BL_OP_COUNT } bl_op;
#undef BL_OP_ENUM_

/* The op of bl_binop / bl_unop / bl_reduce value k (core/tensor_math.h). */
#define BL_OP_OF_BINOP(k) ((bl_op)(BL_OP_ADD + (int)(k)))
#define BL_OP_OF_UNOP(k) ((bl_op)(BL_OP_NEG + (int)(k)))
#define BL_OP_OF_REDUCE(k) ((bl_op)(BL_OP_SUM + (int)(k)))

/* "linear", "qk_norm", ...; "?" for a value outside the enum. */
const char *bl_op_name(bl_op op);
/* The name of op BL_OP_e, as kernels start their error messages: BL_OPN(LINEAR) is "linear". */
#define BL_OPN(e) bl_op_name(BL_OP_##e)
/* The op named `name`, or -1 when none is (a test's filter, a name typed at the prompt). */
int bl_op_lookup(const char *name);

#endif
