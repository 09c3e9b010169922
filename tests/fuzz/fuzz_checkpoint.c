/* fuzz_checkpoint.c - the checkpoint reader (train/checkpoint.h): a safetensors file whose
 * metadata (config, run, history) is checked before a model is made from it. The seeds are
 * tiny checkpoints blocklab wrote, so mutations reach the metadata. */
#include "train/checkpoint.h"
#include "models/model.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    bl_ckpt_info info;
    memset(&info, 0, sizeof info);
    bl_model *m = bl_checkpoint_load(fuzz_file("c.safetensors", data, n), &info);
    if (m) bl_model_free(m);
    bl_ckpt_info_clear(&info);
    return 0;
}
