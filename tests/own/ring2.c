/* ring2.c — a radius-2 graph body that walks its neighbours' rings through nested GNB (and GNB2)
 * with weights that depend on the position in the ring: the offset tables of every storage and
 * the lattice twin must name the same cells as the lists (tests/test_own.c, test_own_gpu.c). */
#pragma pillar stencil(ring2) kind(graph) in(in) out(out) radius(2)
#pragma pillar body
T s = (T)0;
for (int k = 0; k < GDEG(c); k++) {
    const int n = GNB(c, k);
    for (int j = 0; j < GDEG(n); j++)
        s += GLD(in, GNB(n, j)) * (T)(j + 1) - GLD(in, GNB2(c, k, j));
    s = s * (T)0.5 + GLD(in, n);
}
GST(out, c, s);
