/* route.c — the one decision tree of an iterated run (route.h). */
#include "route.h"

route_t engine_route(const route_in *in, int *ooc_out)
{
    int ooc = in->ooc == OOC_ON ||
              (in->ooc == OOC_AUTO && in->budget && in->need > (double)in->budget);
    if (ooc_out)
        *ooc_out = ooc;
    if (in->ranks)
        return ROUTE_RANKS;
    if (!in->gpu)
        return ooc || in->kernel_steps > 1 ? ROUTE_CPU_CHUNKS : ROUTE_CPU;
    int persistent = in->persistent == PERSIST_ON ||
                     (in->persistent == PERSIST_AUTO && !ooc && in->persist_picks);
    if (persistent && !ooc)
        return ROUTE_PERSISTENT;
    return ooc ? ROUTE_STREAMED : ROUTE_IN_CORE;
}

const char *engine_route_name(route_t r)
{
    static const char *const names[] = {"over MPI ranks", "CPU", "CPU in chunks",
                                        "persistent", "in core", "streamed"};
    return (unsigned)r < sizeof names / sizeof names[0] ? names[r] : "?";
}
