/* graph_acc.cuh — defines the graph body's names (stencils/graphlap.h) from the accessor set
 * GRAPH_ACC names (access/graph_kernels.cuh). Included once per choice, so no include guard. */
#include "../stencils/graph_undef.h"
#undef GCELL
#if GRAPH_ACC == GRAPH_ACC_STAGED || GRAPH_ACC == GRAPH_ACC_STAGED_LATTICE
#define GAT(q) (q) /* a slot of the block's shared-memory copy */
#define GOUT(q) gi /* the global index of the thread's own cell */
/* the thread's own cell (the body asks for coefficients of no other) */
#if GRAPH_ACC == GRAPH_ACC_STAGED
#define GCELL(q) (P.c0 + jj)
#else
#define GCELL(q) (y * P.lat_w + x)
#endif
#else
#define GAT(q) ((q) + lev)
#define GOUT(q) GAT(q)
#define GCELL(q) (q)
#endif
#if GRAPH_ACC == GRAPH_ACC_NAIVE
#define GDEG(q) GN_DEG(q)
#define GNB(q, j) GN_NB(q, j)
#define GDEG2(c, k) GN_DEG2(c, k)
#define GNB2(c, k, j) GN_NB2(c, k, j)
#define GFOR(k, lo, d) GRAPH_FOR_PLAIN(k, lo, d)
#define GFOR2(k, lo, d) GRAPH_FOR_PLAIN(k, lo, d)
#elif GRAPH_ACC == GRAPH_ACC_RING
#define GDEG(q) GG_DEG(q)
#define GNB(q, j) GG_NB(q, j)
#define GDEG2(c, k) GG_DEG2(c, k)
#define GNB2(c, k, j) GG_NB2(c, k, j)
#define GFOR(k, lo, d) GFOR_UNROLLED(k, lo, d)
#define GFOR2(k, lo, d) GRAPH_FOR_PLAIN(k, lo, d)
#elif GRAPH_ACC == GRAPH_ACC_STAGED
#define GDEG(q) GS_E(0)
#define GNB(q, j) GS_E(1 + (j))
#define GDEG2(c, k) GS_E((1 + (k)) * GT_W1)
#define GNB2(c, k, j) GS_E((1 + (k)) * GT_W1 + 1 + (j))
#define GFOR(k, lo, d) GRAPH_FOR_PLAIN(k, lo, d)
#define GFOR2(k, lo, d) GRAPH_FOR_PLAIN(k, lo, d)
#elif GRAPH_ACC == GRAPH_ACC_LATTICE || GRAPH_ACC == GRAPH_ACC_STAGED_LATTICE
#define GDEG(q) GL_DEG(q)
#define GNB(q, j) GL_NB(q, j)
#define GDEG2(c, k) GL_DEG(c)
#define GNB2(c, k, j) GL_NB2(c, k, j)
#define GFOR(k, lo, d) GFOR_CONST(k, lo, d)
#define GFOR2(k, lo, d) GFOR_CONST(k, lo, d)
#else
#error "GRAPH_ACC names no accessor set"
#endif
