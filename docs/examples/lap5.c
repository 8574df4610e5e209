/* lap5.c — the 5-point Laplacian as a stencil file of your own (docs/own-stencil.md):
 *   out(c) = 4·in(c) − (in(W c) + in(E c) + in(S c) + in(N c))
 * and, iterated, a step of the heat equation in <- in − out/8. */
#pragma pillar stencil(lap5) kind(quad)
#pragma pillar in(in) out(out)
#pragma pillar radius(1)
#pragma pillar carry(in <- out) fold(s - v / (T)8)
#pragma pillar summary("5-point Laplacian (a stencil file)")
#pragma pillar body
T sum = ((LD(in, W) + LD(in, E)) + LD(in, S)) + LD(in, N); // left to right, as lap does
ST(out, FOLD(LD(in, C), (T)4 * LD(in, C) - sum));
