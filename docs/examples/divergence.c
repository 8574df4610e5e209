/* divergence.c — the discrete divergence of an edge flux on a general mesh (triangles,
 * hexagons, mixed polygons), a stencil file of your own (docs/own-stencil.md):
 *   div(c) = Σ_{n ∈ N(c)} (phi(n) − phi(c)) · kappa(c)
 * the flux across the edge (c, n) taken as the difference of a potential phi, scaled by a
 * per-cell coefficient kappa; the sum runs over c's neighbours in the order of the mesh. */
#pragma pillar stencil(divergence) kind(graph)
#pragma pillar in(phi, kappa) out(div)
#pragma pillar radius(1)
#pragma pillar range(kappa: 1, 0.5, 0)
#pragma pillar summary("divergence of the flux phi(n) - phi(c) over the edges, any polygons")
#pragma pillar body
const T pc = GLD(phi, c);
T sum = (T)0;
for (int j = 0; j < GDEG(c); j++)
    sum += GLD(phi, GNB(c, j)) - pc;
GST(div, c, sum * GLD(kappa, c));
