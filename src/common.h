/* common.h — the helpers every part of pillar uses live in base/common.h, below grids/,
 * storage/, stencils/ and access/; src/ includes them under their old name. */
#ifndef PILLAR_SRC_COMMON_H
#define PILLAR_SRC_COMMON_H
#include "../base/common.h"
#endif
