/* cmd_info.c — `pillar info`: its help and flags; the statistics are pillar_tool_info's. */
#include "commands.h"

static const help_part info_help[] = {
    {"usage: pillar info [flags]\n"
     "\n"
     "Describes a grid and its neighbour tables: cells, halo, paddings, and for each storage\n"
     "(chasing / non-chasing x uncompressed / compressed) the entries stored, their ratio to the\n"
     "uncompressed table, the number of patterns and the share of cells on the most frequent one\n"
     "(the columns of thesis Table 6.7). The storage picked by --storage/--compress is marked *.\n"
     "\n", 0},
    {NULL, HELP_MAIN | HELP_ALWAYS},
    {"\n"
     "example: pillar info --size 512x512x64 --layout rowmajor --compress\n", 0},
    {NULL, 0}};

int cmd_info(int argc, char **argv)
{
    cli_args a;
    int rc = cli_parse(&a, CMD_INFO, info_help, argc, argv);
    if (rc != 0)
        return CLI_EXIT(rc);
    return pillar_tool_info(&a.o);
}
