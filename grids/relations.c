/* relations.c — names and geometry of the 12 horizontal relations. */
#include "grid.h"

const char *const rel_name[NREL2] = {"W", "E", "S", "N", "WW", "EE", "SS", "NN",
                                     "SW", "NW", "SE", "NE"};
const int rel_dx[NREL2] = {-1, 1, 0, 0, -2, 2, 0, 0, -1, -1, 1, 1};
const int rel_dy[NREL2] = {0, 0, -1, 1, 0, 0, -2, 2, -1, 1, -1, 1};
const int rel_first[NREL2] = {R_W, R_E, R_S, R_N, R_W, R_E, R_S, R_N, R_W, R_W, R_E, R_E};
const int rel_second[NREL2] = {-1, -1, -1, -1, R_W, R_E, R_S, R_N, R_S, R_N, R_S, R_N};
