/* access.c — access strategy names. */
#include "access.h"

#include <string.h>

const char *const access_name[ACC_COUNT] = {"naive", "idxvar", "shared", "shared-warp", "zloop",
                                            "zloop-sliced", "staged"};
const char *const access_summary[ACC_COUNT] = {
    "one thread per cell; every neighbour looked up at every use",
    "one thread per cell; each neighbour looked up once into a register",
    "the block's lowest-z thread per plane cell shares the indices through shared memory",
    "as shared, through warp shuffles (needs block x < 32 dividing 32, z > 1)",
    "one thread per pillar; indices looked up once, loop over all levels",
    "one thread per slice of m levels (--zslice m, default 8); indices looked up once per slice",
    "a block's cells and their halo (per-block lists built once on the host) are copied to shared\n"
    "memory level by level; neighbours are local slots kept in registers (laplap, hdiff)",
};

int access_parse(const char *s, access_t *out)
{
    for (int i = 0; i < ACC_COUNT; i++)
        if (strcmp(s, access_name[i]) == 0) {
            *out = (access_t)i;
            return 0;
        }
    return -1;
}
