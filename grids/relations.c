/* relations.c — names and lattice displacements of the NREL2 horizontal relations (grid.h). */
#include "grid.h"

const char *const rel_name[NREL2] = {"W",  "E",  "S",  "N",  "WW", "EW", "SW", "NW", "WE", "EE",
                                     "SE", "NE", "WS", "ES", "SS", "NS", "WN", "EN", "SN", "NN"};
const int rel_dx[NREL2] = REL_DX_INIT;
const int rel_dy[NREL2] = REL_DY_INIT;
