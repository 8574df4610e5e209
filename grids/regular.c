/* regular.c — the regular grid: row-major with paddings a, b, c (thesis eq. 4.1-4.2). */
#include "grid.h"

static long round_up(long v, long m) { return (v + m - 1) / m * m; }

rgrid rgrid_make(int nx, int ny, int nz, int halo, size_t elem)
{
    rgrid g;
    int align = (int)(32 / elem); /* elements per 32 bytes */
    g.nx = nx;
    g.ny = ny;
    g.nz = nz;
    g.halo = halo;
    g.a = (align - halo % align) % align;
    g.ystride = (int)round_up(nx + g.a, align);
    g.zstride = round_up((long)g.ystride * ny, align);
    g.len = (size_t)g.zstride * (size_t)nz;
    return g;
}
