/* graph_checks.h — what the CPU tests of the graph stencils share: each CPU path (offset tables,
 * neighbour lists, the lattice twin where the mesh has one) against a reference, bit for bit. */
#ifndef PILLAR_GRAPH_CHECKS_H
#define PILLAR_GRAPH_CHECKS_H

#include "check.h"
#include "src/exec/cpu_exec.h"
#include "src/exec/runner.h"
#include "src/exec/verify.h"

static void expect_exact(const problem *pb, fieldset out, int uns, fieldset ref, const char *what,
                         const char *name)
{
    verify_result v = uns ? verify_compare_cells(pb, out, ref) : verify_compare(pb, out, 0, ref, 1);
    char line[256];
    verify_describe(pb, &v, 1, line, sizeof line);
    CHECK(verify_ok(pb, &v, 1), "%s on %s, %s order, %s %s, %s: %s", what, name,
          mesh_order_name[pb->mesh_order], pb->s.chasing ? "chasing" : "nonchasing",
          pb->s.compressed ? "compressed" : "uncompressed", prec_name(pb->s.prec), line);
}

/* cpu_run_gtable, cpu_run_unstructured and (lattice twin) cpu_run_regular == ref (on the
 * unstructured grid). */
static void expect_paths(const problem *pb, fieldset ref, const char *name)
{
    fieldset out = runner_outputs(pb, 1);
    cpu_run_gtable(pb, out);
    expect_exact(pb, out, 1, ref, "offset tables", name);
    runner_free_outputs(pb, &out);
    out = runner_outputs(pb, 1);
    cpu_run_unstructured(pb, out);
    expect_exact(pb, out, 1, ref, "neighbour lists", name);
    runner_free_outputs(pb, &out);
    if (problem_has_lattice(pb)) {
        out = runner_outputs(pb, 0);
        cpu_run_regular(pb, out);
        expect_exact(pb, out, 0, ref, "lattice twin", name);
        runner_free_outputs(pb, &out);
    }
}

#endif
