/* make_seeds.c — writes the seed inputs of the mesh fuzzer (format in fuzz_mesh.h) into a
 * directory: generated meshes (regular, cubed sphere, shuffled, rotated, partitioned) as
 * structured inputs in several storage types and as raw HDF5 images, and hand-made bad files,
 * one per rule of docs/mesh-format.md.
 *
 * usage: make_seeds DIR */
#include "fuzz_mesh.h"

#include "grids/mesh.h"
#include "base/common.h"
#include "src/io/mesh_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    unsigned char *p;
    size_t n, cap;
} out_buf;

static void put_u8(out_buf *b, unsigned v)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 4096;
        b->p = realloc(b->p, b->cap);
    }
    b->p[b->n++] = (unsigned char)v;
}

static void put_int(out_buf *b, long long v, int width)
{
    for (int i = 0; i < width; i++)
        put_u8(b, (unsigned)((unsigned long long)v >> (8 * i)) & 0xff);
}

static void put_attr(out_buf *b, int tag, int name, int type, int space, long long v)
{
    put_u8(b, tag);
    put_u8(b, name);
    put_u8(b, type);
    put_u8(b, space);
    for (int i = 0; i < (space == 3 ? 0 : space == 2 ? 2 : 1); i++)
        put_int(b, v, 8);
}

/* Dataset `name` of rank 1 (d1 = 0) or 2 holding v[0 .. d0*max(d1,1)), values 4 bytes wide. */
static void put_dataset(out_buf *b, int name, int type, int chunked, long d0, long d1, const int *v)
{
    put_u8(b, FZ_DATASET);
    put_u8(b, name);
    put_u8(b, type);
    put_u8(b, (d1 ? 2 : 1) | (chunked ? 12 : 0));
    put_int(b, d0, 2);
    if (d1)
        put_int(b, d1, 2);
    put_u8(b, 2); /* 4-byte values */
    for (long i = 0; i < d0 * (d1 ? d1 : 1); i++)
        put_int(b, v[i], 4);
}

/* A structured input of the mesh; `type` is the storage type of its integer datasets. */
static void encode_mesh(out_buf *b, const mesh *m, int type, int chunked)
{
    put_u8(b, 'S');
    put_attr(b, FZ_ROOT_ATTR, FZ_VERSION, FZ_I32LE, 0, MESH_FORMAT_VERSION);
    put_attr(b, FZ_ROOT_ATTR, FZ_NLEVELS, FZ_I32LE, 0, m->nlevels);
    put_dataset(b, FZ_NEIGHBOURS, type, chunked, m->ncells, 4, m->nbr);
    if (m->xy) {
        put_dataset(b, FZ_PATCH_XY, type, chunked, m->ncells, 2, m->xy);
        put_attr(b, FZ_DSET_ATTR, FZ_NX, FZ_I32LE, 0, m->nx);
        put_attr(b, FZ_DSET_ATTR, FZ_NY, FZ_I32LE, 0, m->ny);
    }
    if (m->part) {
        put_dataset(b, FZ_PARTITION, type, chunked, m->ncells, 0, m->part);
        put_attr(b, FZ_DSET_ATTR, FZ_NPARTS, FZ_I32LE, 0, m->nparts);
    }
}

static const char *dir;

static void save(const char *name, const out_buf *b)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b->p, 1, b->n, f) != b->n || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
}

/* The mesh as a raw image: 'R' and the bytes mesh_write puts into a file. */
static void save_image(const char *name, const mesh *m)
{
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s/.image.h5", dir);
    if (mesh_write(tmp, m) != 0)
        exit(1);
    FILE *f = fopen(tmp, "rb");
    out_buf b = {0};
    put_u8(&b, FZ_IMAGE);
    for (int c; (c = getc(f)) != EOF;)
        put_u8(&b, (unsigned)c);
    fclose(f);
    remove(tmp);
    save(name, &b);
    free(b.p);
}

static void generate(mesh *m, mesh_kind kind, int nx, int ny, int n, int window, int nparts)
{
    mesh_gen_spec s = {kind, nx, ny, n, 3, window, 7, 0, 0};
    if (mesh_generate(m, &s) != 0)
        exit(1);
    if (nparts) {
        m->nparts = nparts;
        m->part = xalloc(sizeof(int) * (size_t)m->ncells);
        if (mesh_partition(m, nparts, m->part) != 0)
            exit(1);
    }
}

static void good_seeds(void)
{
    static const struct {
        const char *name;
        mesh_kind kind;
        int nx, ny, n, window, nparts;
    } meshes[] = {
        {"regular-4x4", MESH_REGULAR, 4, 4, 0, 0, 0},
        {"regular-7x5", MESH_REGULAR, 7, 5, 0, 0, 0},
        {"regular-1x1", MESH_REGULAR, 1, 1, 0, 0, 0},
        {"regular-6x6-parts", MESH_REGULAR, 6, 6, 0, 0, 3},
        {"sphere-2", MESH_CUBED_SPHERE, 0, 0, 2, 0, 0},
        {"sphere-3", MESH_CUBED_SPHERE, 0, 0, 3, 0, 0},
        {"sphere-4-parts", MESH_CUBED_SPHERE, 0, 0, 4, 0, 5},
        {"shuffled-8x6", MESH_SHUFFLED, 8, 6, 0, 4, 0},
        {"rotated-8x8", MESH_ROTATED, 8, 8, 0, 4, 0},
    };
    static const struct {
        const char *suffix;
        int type, chunked;
    } storage[] = {{"i32", FZ_I32LE, 0}, {"i8", FZ_I8, 0}, {"i64-chunked", FZ_I64LE, 1}};
    for (size_t i = 0; i < sizeof meshes / sizeof meshes[0]; i++) {
        mesh m;
        generate(&m, meshes[i].kind, meshes[i].nx, meshes[i].ny, meshes[i].n, meshes[i].window,
                 meshes[i].nparts);
        char name[128];
        for (size_t k = 0; k < sizeof storage / sizeof storage[0]; k++) {
            if (k && i % 3 != k) /* every mesh in i32, a third of them in each other type */
                continue;
            out_buf b = {0};
            encode_mesh(&b, &m, storage[k].type, storage[k].chunked);
            snprintf(name, sizeof name, "seed-%s-%s", meshes[i].name, storage[k].suffix);
            save(name, &b);
            free(b.p);
        }
        if (i % 2 == 0) {
            snprintf(name, sizeof name, "seed-image-%s", meshes[i].name);
            save_image(name, &m);
        }
        mesh_free(&m);
    }
}

/* A 3x1 strip W-E (nbr: its neighbours, NULL = the valid ones) as a structured input. */
static void strip(out_buf *b, int nlevels_type, long long nlevels, const int *nbr, long rows,
                  long cols)
{
    static const int good[12] = {-1, 1, -1, -1, 0, 2, -1, -1, 1, -1, -1, -1};
    put_u8(b, 'S');
    put_attr(b, FZ_ROOT_ATTR, FZ_VERSION, FZ_I32LE, 0, MESH_FORMAT_VERSION);
    put_attr(b, FZ_ROOT_ATTR, FZ_NLEVELS, nlevels_type, 0, nlevels);
    put_dataset(b, FZ_NEIGHBOURS, FZ_I32LE, 0, rows, cols, nbr ? nbr : good);
}

/* Saves b as seed `name` and empties it for the next one. */
static void save_next(const char *name, out_buf *b)
{
    save(name, b);
    b->n = 0;
}

static void bad_seeds(void)
{
    static const int out_of_range[12] = {-1, 1, -1, -1, 0, 2, -1, -1, 1, 99, -1, -1};
    static const int asymmetric[12] = {-1, 1, -1, -1, 0, 2, -1, -1, -1, -1, -1, -1};
    static const int self[12] = {-1, 1, -1, -1, 0, 2, -1, -1, 1, 2, -1, -1};
    static const int xy_twice[6] = {0, 0, 1, 0, 1, 0}, part[3] = {0, 5, 0};
    static const struct {
        const char *name;
        int nlevels_type;
        long long nlevels;
        const int *nbr;
        long rows, cols;
    } strips[] = {
        {"bad-nlevels-0", FZ_I32LE, 0, NULL, 3, 4},
        {"bad-nlevels-float", FZ_F64LE, 4, NULL, 3, 4},
        {"bad-nlevels-string", FZ_STR8, 0x34, NULL, 3, 4},
        {"bad-nlevels-huge", FZ_I64LE, 1LL << 40, NULL, 3, 4},
        {"bad-out-of-range", FZ_I32LE, 4, out_of_range, 3, 4},
        {"bad-asymmetric", FZ_I32LE, 4, asymmetric, 3, 4},
        {"bad-own-neighbour", FZ_I32LE, 4, self, 3, 4},
        {"bad-rank1", FZ_I32LE, 4, NULL, 12, 0},
        {"bad-three-columns", FZ_I32LE, 4, NULL, 4, 3},
        {"bad-empty", FZ_I32LE, 4, NULL, 0, 4},
    };
    out_buf b = {0};
    for (size_t i = 0; i < sizeof strips / sizeof strips[0]; i++) {
        strip(&b, strips[i].nlevels_type, strips[i].nlevels, strips[i].nbr, strips[i].rows,
              strips[i].cols);
        save_next(strips[i].name, &b);
    }
    /* the valid strip with one more record that breaks it */
    strip(&b, FZ_I32LE, 4, NULL, 3, 4);
    put_attr(&b, FZ_ROOT_ATTR, FZ_VERSION, FZ_I32LE, 2, 1);
    save_next("bad-version-two-values", &b);
    strip(&b, FZ_I32LE, 4, NULL, 3, 4);
    put_attr(&b, FZ_ROOT_ATTR, FZ_VERSION, FZ_I32LE, 3, 0);
    save_next("bad-version-null", &b);
    for (int kind = 0; kind < 2; kind++) {
        strip(&b, FZ_I32LE, 4, NULL, 3, 4);
        put_u8(&b, FZ_OBJECT);
        put_u8(&b, FZ_NEIGHBOURS);
        put_u8(&b, kind);
        save_next(kind ? "bad-neighbours-dangling-link" : "bad-neighbours-group", &b);
    }
    strip(&b, FZ_I32LE, 4, NULL, 3, 4);
    put_dataset(&b, FZ_COORDINATES, FZ_F64LE, 0, 2, 2, xy_twice);
    save_next("bad-coordinates-rows", &b);
    strip(&b, FZ_I32LE, 4, NULL, 3, 4);
    put_dataset(&b, FZ_COORDINATES, FZ_STR8, 0, 3, 2, xy_twice);
    save_next("bad-coordinates-string", &b);
    for (int bad_ny = 0; bad_ny < 2; bad_ny++) { /* two cells at (1,0); or no ny */
        strip(&b, FZ_I32LE, 4, NULL, 3, 4);
        put_dataset(&b, FZ_PATCH_XY, FZ_I32LE, 0, 3, 2, xy_twice);
        put_attr(&b, FZ_DSET_ATTR, FZ_NX, FZ_I32LE, 0, 3);
        if (!bad_ny)
            put_attr(&b, FZ_DSET_ATTR, FZ_NY, FZ_I32LE, 0, 1);
        save_next(bad_ny ? "bad-patch-no-ny" : "bad-patch-twice", &b);
    }
    for (int nparts = 0; nparts < 3; nparts += 2) { /* cell 1 in part 5 of 2; or 0 parts */
        strip(&b, FZ_I32LE, 4, NULL, 3, 4);
        put_dataset(&b, FZ_PARTITION, FZ_I32LE, 0, 3, 0, part);
        put_attr(&b, FZ_DSET_ATTR, FZ_NPARTS, nparts ? FZ_I32LE : FZ_U64BE, 0, nparts);
        save_next(nparts ? "bad-partition" : "bad-partition-nparts-0", &b);
    }
    for (const char *t = "Rjust text\n"; *t; t++)
        put_u8(&b, (unsigned char)*t);
    save_next("bad-not-hdf5", &b);
    free(b.p);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_seeds DIR\n");
        return 2;
    }
    dir = argv[1];
    good_seeds();
    bad_seeds();
    return 0;
}
