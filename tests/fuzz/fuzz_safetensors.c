/* fuzz_safetensors.c - the safetensors reader (train/safetensors.h) on any file. */
#include "train/safetensors.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    bl_st_file *f = bl_st_read(fuzz_file("t.safetensors", data, n));
    bl_st_free(f);
    return 0;
}
