/* upwind.c — one first-order upwind advection step of a tracer q by a velocity (u, v) given in
 * each cell's own W/E/S/N frame (a stencil file of your own, docs/own-stencil.md):
 *   q'(c) = q(c) − u⁺·(q(c) − q(W c)) − u⁻·(q(E c) − q(c)) − v⁺·(q(c) − q(S c)) − v⁻·(q(N c) − q(c))
 * with u⁺ = max(u, 0), u⁻ = min(u, 0) (Courant numbers: |u| + |v| <= 1 keeps it monotone).
 * Iterated, the tracer moves with the flow: q <- q'. */
#pragma pillar stencil(upwind) kind(quad) framed
#pragma pillar in(q, u, v) out(qn)
#pragma pillar radius(1)
#pragma pillar carry(q <- qn)
#pragma pillar range(u: 0.2, 0.2, 0) range(v: -0.1, 0.2, 0)
#pragma pillar summary("first-order upwind advection of q by (u, v), radius 1")

/* helpers of the preamble: macros (they expand inside the body) */
#define POS(a) ((a) > (T)0 ? (a) : (T)0)
#define NEG(a) ((a) < (T)0 ? (a) : (T)0)

#pragma pillar body
const T qc = LD(q, C), uc = LD(u, C), vc = LD(v, C);
T d = POS(uc) * (qc - LD(q, W)) + NEG(uc) * (LD(q, E) - qc);
d = d + (POS(vc) * (qc - LD(q, S)) + NEG(vc) * (LD(q, N) - qc));
ST(qn, qc - d);
