/* run_output.c — what `pillar run` writes with --output, iterated or not (commands.h). */
#include "tools.h"
#include "src/exec/field_io.h"

#include <stdio.h>
#include <string.h>

/* The command line as one string ("pillar run --stencil hdiff ..."), for the field file's
 * attribute `flags`. Free with xfree. */
static char *command_line(int argc, char **argv)
{
    size_t len = sizeof "pillar run";
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 1;
    char *s = xalloc(len);
    strcpy(s, "pillar run");
    for (int i = 0; i < argc; i++) {
        strcat(s, " ");
        strcat(s, argv[i]);
    }
    return s;
}

int run_write_output(const problem *pb, const options *o, fieldset out, int uns, int steps, int ok,
                     const field_snapshots *snaps, int argc, char **argv)
{
    const stencil_info *si = &stencil_table[pb->s.stencil];
    if (!ok) {
        perr("--output %s: not written, the run failed verification", o->output);
        return -1;
    }
    char *flags = command_line(argc, argv);
    field_write_opts w = {o->output_inputs, flags, steps, 0, snaps};
    int rc = field_write(pb, out, uns, &w, o->output);
    xfree(flags);
    if (rc != 0)
        return -1;
    report_printf("  output    %s:", o->output);
    int first = o->output_inputs || steps ? 0 : si->nin, end = steps ? si->nin : pb->nf;
    for (int k = first; k < end; k++)
        report_printf(" %s", si->field[k]);
    report_printf(" ");
    if (snaps)
        report_printf("[%d]", snaps->n);
    report_printf("[%d][%d] %s", pb->s.nz, field_ncells(pb), prec_name(pb->s.prec));
    if (snaps) { /* the steps of the time axis: all of them, or the first two and the last */
        report_printf(", the states after steps");
        for (int i = 0; i < snaps->n; i++)
            if (snaps->n <= 4 || i < 2 || i == snaps->n - 1)
                report_printf("%s%s%d", i ? ", " : " ",
                              snaps->n > 4 && i == snaps->n - 1 ? "..., " : "", snaps->step[i]);
    } else if (steps)
        report_printf(", the state after %d step%s", steps, steps == 1 ? "" : "s");
    report_printf("\n");
    return 0;
}
