/* loop_comm.c — a loop of pillar_step(1) over pillar_set_comm (pillar partitions the whole
 * lattice; every rank gives the whole grid and state) beside one pillar_step(T). */
#include <pillar.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int nx = 512, ny = 512, nz = 16;

static pillar_ctx *open_handle(void)
{
    pillar_ctx *ctx;
    pillar_create(&ctx);
    int n = nx * ny, *nbr = malloc(sizeof(int) * 4 * (size_t)n);
    for (int c = 0; c < n; c++) {
        int x = c % nx, y = c / nx;
        nbr[4 * c] = x > 0 ? c - 1 : -1;
        nbr[4 * c + 1] = x < nx - 1 ? c + 1 : -1;
        nbr[4 * c + 2] = y > 0 ? c - nx : -1;
        nbr[4 * c + 3] = y < ny - 1 ? c + nx : -1;
    }
    double *v = malloc(sizeof(double) * (size_t)n * nz);
    for (int i = 0; i < n * nz; i++)
        v[i] = (double)((i * 7) % 31) / 31.0;
    if (pillar_set_option(ctx, "stencil", "laplap") || pillar_set_option(ctx, "backend", "cpu") ||
        pillar_grid_quad(ctx, n, nz, nbr) || pillar_set_comm(ctx, (int)MPI_Comm_c2f(MPI_COMM_WORLD)) ||
        pillar_setup(ctx) || pillar_set_field(ctx, "in", v, (size_t)n * nz)) {
        fprintf(stderr, "loop_comm: %s\n", pillar_last_error(ctx));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    free(v);
    free(nbr);
    return ctx;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, T = 20;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    pillar_ctx *ctx = open_handle();
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int t = 0; t < T; t++)
        if (pillar_step(ctx, 1))
            MPI_Abort(MPI_COMM_WORLD, 1);
    double loop = (MPI_Wtime() - t0) / T;
    pillar_destroy(ctx);
    ctx = open_handle();
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    if (pillar_step(ctx, T))
        MPI_Abort(MPI_COMM_WORLD, 1);
    double once = (MPI_Wtime() - t0) / T;
    pillar_destroy(ctx);
    if (rank == 0)
        printf("%.3f %.3f\n", loop * 1e3, once * 1e3);
    MPI_Finalize();
    return 0;
}
