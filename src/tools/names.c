/* names.c — the names the engine knows, for tools (pillar_names of include/pillar_tools.h), and
 * the defaults of a run's settings. */
#include "tools.h"
#include "src/io/mesh_import.h"

#include <string.h>

/* The registry's stencils, refreshed at each call (stencil files add to them). */
static const char *stencil_names[ST_COUNT + ST_USER_SLOTS];
static const char *strategy_names[ACC_COUNT];
static const char *format_names[MESH_IMPORTER_COUNT];
static const char *const precision_names[] = {"double", "float"};

const char *const *pillar_names(pillar_names_kind kind, int *n)
{
    switch (kind) {
    case PILLAR_NAMES_STENCIL:
        *n = stencil_count();
        for (int k = 0; k < *n; k++)
            stencil_names[k] = stencil_table[k].name;
        return stencil_names;
    case PILLAR_NAMES_STRATEGY:
        *n = ACC_COUNT;
        for (int k = 0; k < ACC_COUNT; k++)
            strategy_names[k] = access_name[k];
        return strategy_names;
    case PILLAR_NAMES_LAYOUT:
        *n = LAYOUT_COUNT;
        return layout_name;
    case PILLAR_NAMES_ORDER:
        *n = MESH_ORDER_COUNT;
        return mesh_order_name;
    case PILLAR_NAMES_PRECISION:
        *n = 2;
        return precision_names;
    case PILLAR_NAMES_FORMAT:
        *n = MESH_IMPORTER_COUNT;
        for (int k = 0; k < MESH_IMPORTER_COUNT; k++)
            format_names[k] = mesh_importers[k].name;
        return format_names;
    case PILLAR_NAMES_MESH_KIND:
        *n = MESH_KIND_COUNT;
        return mesh_kind_name;
    case PILLAR_NAMES_COUNT:
        break;
    }
    *n = 0;
    return NULL;
}

int pillar_name_index(pillar_names_kind kind, const char *name)
{
    int n;
    const char *const *names = pillar_names(kind, &n);
    for (int k = 0; name && k < n; k++)
        if (!strcmp(names[k], name))
            return k;
    return -1;
}

const char *pillar_name_summary(pillar_names_kind kind, int i)
{
    int n;
    pillar_names(kind, &n);
    if (i < 0 || i >= n)
        return "";
    if (kind == PILLAR_NAMES_FORMAT)
        return mesh_importers[i].summary;
    if (kind == PILLAR_NAMES_STRATEGY)
        return access_table[i].summary;
    return "";
}

int pillar_stencil_is_graph(int k)
{
    return k >= 0 && k < stencil_count() && stencil_table[k].graph;
}

int pillar_stencil_quad_count(void) { return ST_QUAD_COUNT; }

void pillar_run_defaults(pillar_run_settings *o) { options_defaults(o); }
