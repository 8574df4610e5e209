/* graph_meshes.h — meshes of any cells for the tests of graphlap's on-chip schedule (the CPU
 * emulation in test_persist_onchip_emul, the kernels in test_persist_onchip): hexagons and
 * triangles, bounded and periodic, a refined patch and the cubed sphere. */
#ifndef PILLAR_GRAPH_MESHES_H
#define PILLAR_GRAPH_MESHES_H

#include "grids/mesh.h"

typedef struct {
    const char *name;
    mesh_gen_spec spec;
} graph_case;

/* spec: kind, nx, ny, n, nlevels, window, seed, periodic, refine */
static const graph_case graph_cases[] = {
    {"hexagons", {MESH_HEXAGONS, 23, 17, 0, 3, 0, 1, 0, 0}},
    {"hexagons (periodic)", {MESH_HEXAGONS, 16, 12, 0, 3, 0, 1, 1, 0}},
    {"triangles", {MESH_TRIANGLES, 13, 11, 0, 3, 0, 1, 0, 0}},
    {"refined patch", {MESH_REFINED, 21, 21, 0, 3, 0, 1, 0, 7}},
    {"cubed sphere n=7", {MESH_CUBED_SPHERE, 0, 0, 7, 3, 0, 1, 0, 0}},
};
enum { NGRAPH_CASES = sizeof graph_cases / sizeof graph_cases[0] };

#endif
