/* Neighbour tables: look-ups through every storage equal the grid's relations; compression
 * statistics on 512x512 row-major (a handful of patterns, the top one >= 90% of cells). */
#include "check.h"
#include "storage/nbtable.h"
#include "storage/staging.h"

/* Every slot of every inner cell names the cell its relation reaches; halos hold no own cell. */
static void check_staging(const ugrid *g, int B)
{
    staging s;
    staging_build(&s, g, B, REL_ALL);
    CHECK(s.nblocks == (s.n + B - 1) / B, "blocks");
    for (int j = 0; j < s.n; j++) {
        int b = j / B, first = g->nhalo + b * B;
        for (int r = 0; r < NREL2; r++) {
            int slot = s.loc[(size_t)r * s.n + j];
            int cell = slot < B ? first + slot : s.cells[s.start[b] + slot - B];
            CHECK(slot < B + (s.start[b + 1] - s.start[b]), "slot %d out of block %d", slot, b);
            CHECK(cell == ugrid_follow(g, g->nhalo + j, r), "%s B=%d cell %d relation %s: slot %d",
                  layout_name[g->layout], B, j, rel_name[r], slot);
        }
    }
    for (int b = 0; b < s.nblocks; b++)
        for (int k = s.start[b]; k < s.start[b + 1]; k++) {
            int first = g->nhalo + b * B, c = s.cells[k];
            CHECK(c < first || c >= first + B, "block %d lists its own cell %d as halo", b, c);
            CHECK(k == s.start[b] || s.cells[k - 1] < c, "halo list of block %d not ascending", b);
        }
    staging_free(&s);
}

int main(void)
{
    for (int lay = 0; lay < LAYOUT_COUNT; lay++) {
        ugrid g;
        ugrid_emulate(&g, 37, 33, 2, 2, (layout_t)lay, 8, 3);
        for (int storage = 0; storage < 4; storage++) {
            nbtable t;
            nbtable_build(&t, &g, storage >> 1, storage & 1);
            nbview v = nbtable_view(&t);
            CHECK(t.nrel == (t.chasing ? NREL1 : NREL2), "nrel");
            for (int c = g.nhalo; c < g.nxy; c++)
                for (int r = -1; r < NREL2; r++) {
                    int want = r < 0 ? c : ugrid_follow(&g, c, r);
                    int got = c + nb_offset(v, t.chasing, t.compressed, r, c);
                    CHECK(got == want, "%s storage %d cell %d relation %d: %d != %d",
                          layout_name[lay], storage, c, r, got, want);
                }
            if (t.compressed) {
                CHECK(t.ntab == t.npat && t.npat < g.nxy, "compressed rows %d", t.ntab);
                CHECK(nbtable_entries(&t) == (size_t)t.npat * t.nrel, "entries");
            } else {
                CHECK(nbtable_ratio(&t) == 1.0, "uncompressed ratio");
            }
            nbtable_free(&t);
        }
        check_staging(&g, 32);
        check_staging(&g, 96);
        ugrid_free(&g);
    }

    ugrid g;
    ugrid_emulate(&g, 512, 512, 64, 2, LAYOUT_ROWMAJOR, 32, 0);
    for (int chasing = 0; chasing <= 1; chasing++) {
        nbtable t;
        nbtable_build(&t, &g, chasing, 1);
        printf("512x512 rowmajor %s compressed: %d patterns, %zu entries, ratio %.5f, top %.1f%%\n",
               chasing ? "chasing" : "nonchasing", t.npat, nbtable_entries(&t), nbtable_ratio(&t),
               100 * nbtable_top_share(&t));
        CHECK(t.npat < g.nxy / 50, "%d patterns is not a handful", t.npat);
        CHECK(nbtable_top_share(&t) >= 0.90, "top pattern covers %.3f", nbtable_top_share(&t));
        CHECK(nbtable_ratio(&t) < 0.02, "ratio %g", nbtable_ratio(&t));
        /* thesis Table 6.7 lists 2,054 (chasing, 97.7%) and 4,093 (non-chasing, 96.9%) */
        CHECK(t.npat == (chasing ? 2054 : 4093), "thesis Table 6.7 pattern count, got %d", t.npat);
        nbtable_free(&t);
    }
    ugrid_free(&g);
    /* z-curve compresses worse than row-major, as in thesis Table 6.7 */
    ugrid z;
    ugrid_emulate(&z, 512, 512, 64, 2, LAYOUT_ZCURVE_W, 32, 0);
    nbtable tz;
    nbtable_build(&tz, &z, 1, 1);
    printf("512x512 zcurve-w chasing compressed: %d patterns, top %.1f%%\n", tz.npat,
           100 * nbtable_top_share(&tz));
    CHECK(nbtable_top_share(&tz) < 0.9 && tz.npat > 4, "zcurve-w compression statistics");
    nbtable_free(&tz);
    ugrid_free(&z);
    return check_done("test_tables");
}
