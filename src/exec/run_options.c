/* run_options.c — the default settings of a run. */
#include "run_options.h"

#include <string.h>

void options_defaults(options *o)
{
    memset(o, 0, sizeof *o);
    o->spec.stencil = ST_LAPLAP;
    o->spec.prec = PREC_DOUBLE;
    o->spec.nx = 64;
    o->spec.ny = 64;
    o->spec.nz = 16;
    o->spec.halo = 2;
    o->spec.layout = LAYOUT_ZCURVE;
    o->spec.w = 32;
    o->spec.seed = 42;
    o->spec.chasing = 1;
    o->spec.compressed = 0;
    o->access = ACC_IDXVAR;
    o->runs = 10;
    o->zslice = 8;
    o->backend = BACKEND_AUTO;
    o->persist_levels = -1;
}
