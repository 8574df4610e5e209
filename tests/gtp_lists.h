/* gtp_lists.h — the graph body's names (stencils/graphlap.h) over the graph two-pass lists of
 * storage/gtwopass.h, for the tests that run access/graph_twopass.cu's two passes on the CPU. In
 * scope where a body expands: s (the lists), ne (their entry stride, nent or 1), i (the entry),
 * ecell and edeg (its cell and degree), e (its place in its block), buf (the block's Laplacians,
 * one per entry) and lev (the level's offset); the includer defines GTP_BASE, the lists' first
 * cell (the slots of own cell c are at c - GTP_BASE). */
#ifndef PILLAR_TEST_GTP_LISTS_H
#define PILLAR_TEST_GTP_LISTS_H

#include "stencils/graph_undef.h"
#define GAT(q) ((q) + lev)
#define GOUT(q) GAT(q)
#define GDEG(q) edeg
#define GNB(q, j) ((q) + s->ent[(size_t)(2 + (j)) * ne + i])
#define GFOR(k, lo, d) for (int k = (lo); k < (d); k++)
#define GLAP(q) buf[q]
#define GTP_SLOT(k) ((uint32_t)s->slot[(size_t)((k) / 2) * (size_t)s->n + (size_t)(ecell - GTP_BASE)])
#define GLNB(c, k) ((int)(((k)&1) ? GTP_SLOT(k) >> 16 : GTP_SLOT(k) & 0xffffu))
#define GSELF(c) e

#endif
