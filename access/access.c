/* access.c — the access strategy table of access.h. */
#include "access.h"

#include "../base/common.h"

#include <string.h>

#ifdef PILLAR_HAVE_CUDA
#define PILLAR_ACC_KERNELS(k) &k##_kernels
#define PILLAR_ACC_UPLOAD_1(k) k##_kernels_upload
#define PILLAR_ACC_GKERNELS_1(k) &k##_gkernels
#else
#define PILLAR_ACC_KERNELS(k) NULL
#define PILLAR_ACC_UPLOAD_1(k) NULL
#define PILLAR_ACC_GKERNELS_1(k) NULL
#endif
#define PILLAR_ACC_GKERNELS_0(k) NULL
#define PILLAR_ACC_UPLOAD_0(k) NULL
#define PILLAR_ACC_ROW_(E, nm, k, up, lev, shape, smem, staging, graph, iterated, twin, su, sr,  \
                        summary)                                                                  \
    {nm, summary, LEVELS_##lev, SHAPE_##shape, SMEM_##smem, staging, graph, iterated, ACC_##twin, \
     {PILLAR_LIST su}, {PILLAR_LIST sr}, PILLAR_ACC_KERNELS(k), PILLAR_ACC_GKERNELS_##graph(k),     \
     PILLAR_ACC_UPLOAD_##up(k)},
const access_desc access_table[ACC_COUNT] = {PILLAR_ACCESS(PILLAR_ACC_ROW_)};

#define PILLAR_ACC_NAME_(E, nm, ...) nm,
const char *const access_name[ACC_COUNT] = {PILLAR_ACCESS(PILLAR_ACC_NAME_)};
#define PILLAR_ACC_SUMMARY_(E, nm, k, up, lev, shape, smem, staging, graph, iterated, twin, su,  \
                            sr, summary)                                                          \
    summary,
const char *const access_summary[ACC_COUNT] = {PILLAR_ACCESS(PILLAR_ACC_SUMMARY_)};

int access_parse(const char *s, access_t *out)
{
    for (int i = 0; i < ACC_COUNT; i++)
        if (strcmp(s, access_name[i]) == 0) {
            *out = (access_t)i;
            return 0;
        }
    return -1;
}

const access_desc *access_get(access_t a)
{
    if ((int)a < 0 || a >= ACC_COUNT) {
        perr("access strategy %d: no such strategy (there are %d)", (int)a, (int)ACC_COUNT);
        return NULL;
    }
    return &access_table[a];
}
