/* loaded.c — the compiled code of stencils loaded at run time, one entry per slot. */
#include "loaded.h"

#include <string.h>

static loaded_code table[ST_USER_SLOTS];

void loaded_set(stencil_t s, const loaded_code *c)
{
    if (stencil_is_user(s) && s < ST_COUNT + ST_USER_SLOTS)
        table[s - ST_COUNT] = *c;
}

const loaded_code *loaded_get(stencil_t s)
{
    if (!stencil_is_user(s) || s >= ST_COUNT + ST_USER_SLOTS)
        return NULL;
    return &table[s - ST_COUNT];
}
