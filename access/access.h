/* access.h — the access strategies (SPEC §4) by name. Each has an unstructured form and a
 * regular-grid twin; the kernels that implement them live in access/kernels.cuh. */
#ifndef PILLAR_ACCESS_H
#define PILLAR_ACCESS_H

typedef enum {
    ACC_NAIVE,       /* one thread per cell, every neighbour looked up at every use */
    ACC_IDXVAR,      /* one thread per cell, each neighbour looked up once into a register */
    ACC_SHARED,      /* lowest-z thread per plane cell writes the indices to shared memory */
    ACC_SHARED_WARP, /* the same through warp shuffles instead of shared memory */
    ACC_ZLOOP,       /* one thread per pillar, indices looked up once, loop over all levels */
    ACC_ZLOOP_SLICED,/* one thread per slice of m levels of a pillar */
    ACC_STAGED,      /* a block's cells and their halo staged in shared memory, level by level */
    ACC_COUNT
} access_t;

extern const char *const access_name[ACC_COUNT];
extern const char *const access_summary[ACC_COUNT];
int access_parse(const char *s, access_t *out); /* 0 on success */

#endif
