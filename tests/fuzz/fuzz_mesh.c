/* fuzz_mesh.c — fuzz target of the mesh reader (input format in fuzz_mesh.h). Built with
 * libFuzzer as `fuzz_mesh` (PILLAR_FUZZ=ON) and, with any compiler, into the replay test. */
#include "fuzz_mesh.h"

#include "grids/mesh.h"
#include "base/common.h"
#include "src/io/mesh_io.h"
#include "storage/ell.h"
#include "storage/nbtable.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const fz_root_attr_name[FZ_ROOT_ATTR_COUNT] = {"pillar_mesh_version", "nlevels", "kind"};
const char *const fz_dataset_name[FZ_DATASET_COUNT] = {"/neighbours", "/coordinates", "/patch_xy",
                                                        "/partition"};
const char *const fz_dset_attr_name[FZ_DSET_ATTR_COUNT] = {"nx", "ny", "nparts"};

/* ---- decoding a structured input ---- */

typedef struct {
    const uint8_t *p, *end;
} bytes;

static unsigned take_u8(bytes *b) { return b->p < b->end ? *b->p++ : 0xff; }

/* A little-endian value of n bytes, sign-extended. */
static long long take_int(bytes *b, int n)
{
    unsigned long long v = 0;
    for (int i = 0; i < n; i++)
        v |= (unsigned long long)take_u8(b) << (8 * i);
    if (n < 8 && (v >> (8 * n - 1)) & 1)
        v |= ~0ull << (8 * n);
    return (long long)v;
}

static hid_t file_type(unsigned code)
{
    switch (code % FZ_TYPE_COUNT) {
    case FZ_I32LE: return H5Tcopy(H5T_STD_I32LE);
    case FZ_I8: return H5Tcopy(H5T_STD_I8LE);
    case FZ_U8: return H5Tcopy(H5T_STD_U8LE);
    case FZ_I16BE: return H5Tcopy(H5T_STD_I16BE);
    case FZ_I64LE: return H5Tcopy(H5T_STD_I64LE);
    case FZ_U64BE: return H5Tcopy(H5T_STD_U64BE);
    case FZ_F64LE: return H5Tcopy(H5T_IEEE_F64LE);
    case FZ_F32BE: return H5Tcopy(H5T_IEEE_F32BE);
    default: {
        hid_t t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, sizeof(long long));
        return t;
    }
    }
}

/* Writes n values (long long, or their bytes for a string type) into an attribute or dataset. */
static void write_values(hid_t obj, int is_attr, hid_t type, const long long *v)
{
    hid_t mem = H5Tget_class(type) == H5T_STRING ? H5Tcopy(type) : H5Tcopy(H5T_NATIVE_LLONG);
    if (is_attr)
        H5Awrite(obj, mem, v);
    else
        H5Dwrite(obj, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    H5Tclose(mem);
}

static void put_attr(hid_t obj, const char *name, bytes *b)
{
    hid_t type = file_type(take_u8(b));
    unsigned space = take_u8(b) % 4;
    hsize_t n = space == 2 ? 2 : 1;
    hid_t sp = space == 0 ? H5Screate(H5S_SCALAR)
                          : space == 3 ? H5Screate(H5S_NULL) : H5Screate_simple(1, &n, NULL);
    long long v[2] = {0, 0};
    for (unsigned i = 0; i < (space == 3 ? 0 : n); i++)
        v[i] = take_int(b, 8);
    if (H5Aexists(obj, name) > 0)
        H5Adelete(obj, name);
    hid_t a = H5Acreate2(obj, name, type, sp, H5P_DEFAULT, H5P_DEFAULT);
    if (a >= 0) {
        if (space != 3)
            write_values(a, 1, type, v);
        H5Aclose(a);
    }
    H5Sclose(sp);
    H5Tclose(type);
}

/* Returns the new dataset (or -1 when it cannot be made); *too_big when it exceeds the limit. */
static hid_t put_dataset(hid_t file, const char *name, bytes *b, int *too_big)
{
    hid_t type = file_type(take_u8(b));
    unsigned layout = take_u8(b);
    int rank = (int)(layout % 4);
    hsize_t dims[3] = {1, 1, 1}, chunk[3] = {1, 1, 1};
    size_t n = 1;
    for (int i = 0; i < rank; i++) {
        dims[i] = (hsize_t)take_int(b, 2) & 0xffff;
        chunk[i] = dims[i] < 1 ? 1 : dims[i] > 64 ? 64 : dims[i];
        n *= dims[i];
        if (n > FZ_MAX_ELEMENTS) {
            *too_big = 1;
            H5Tclose(type);
            return -1;
        }
    }
    int width = 1 << (take_u8(b) % 4);
    long long *v = xalloc(sizeof(long long) * (n ? n : 1));
    for (size_t i = 0; i < n; i++)
        v[i] = take_int(b, width);
    hid_t sp = rank ? H5Screate_simple(rank, dims, NULL) : H5Screate(H5S_SCALAR);
    hid_t pl = H5Pcreate(H5P_DATASET_CREATE);
    if (rank && (layout & 12)) {
        H5Pset_chunk(pl, rank, chunk);
        if (layout & 8)
            H5Pset_deflate(pl, 1);
    }
    if (H5Lexists(file, name, H5P_DEFAULT) > 0)
        H5Ldelete(file, name, H5P_DEFAULT);
    hid_t d = H5Dcreate2(file, name, type, sp, H5P_DEFAULT, pl, H5P_DEFAULT);
    if (d >= 0 && n)
        write_values(d, 0, type, v);
    H5Pclose(pl);
    H5Sclose(sp);
    H5Tclose(type);
    xfree(v);
    return d;
}

static void put_object(hid_t file, const char *name, unsigned kind)
{
    if (H5Lexists(file, name, H5P_DEFAULT) > 0)
        H5Ldelete(file, name, H5P_DEFAULT);
    if (kind % 2 == 0) {
        hid_t g = H5Gcreate2(file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (g >= 0)
            H5Gclose(g);
    } else {
        H5Lcreate_soft("/nowhere", file, name, H5P_DEFAULT, H5P_DEFAULT);
    }
}

/* Builds the file the records describe; returns its image (xalloc'd) or NULL when skipped. */
static void *build_image(const uint8_t *data, size_t size, size_t *image_size)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_core(fapl, 65536, 0); /* in memory only: nothing is written to disk */
    hid_t file = H5Fcreate("fuzz-structured.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (file < 0)
        return NULL;
    bytes b = {size ? data + 1 : data, data + size};
    hid_t last = -1;
    int too_big = 0;
    while (b.p < b.end && !too_big) {
        unsigned tag = take_u8(&b) % FZ_TAG_COUNT, name = take_u8(&b);
        if (tag == FZ_ROOT_ATTR) {
            put_attr(file, fz_root_attr_name[name % FZ_ROOT_ATTR_COUNT], &b);
        } else if (tag == FZ_DATASET) {
            if (last >= 0)
                H5Dclose(last);
            last = put_dataset(file, fz_dataset_name[name % FZ_DATASET_COUNT], &b, &too_big);
        } else if (tag == FZ_DSET_ATTR) {
            put_attr(last >= 0 ? last : file, fz_dset_attr_name[name % FZ_DSET_ATTR_COUNT], &b);
        } else {
            if (last >= 0)
                H5Dclose(last);
            last = -1;
            put_object(file, fz_dataset_name[name % FZ_DATASET_COUNT], take_u8(&b));
        }
    }
    if (last >= 0)
        H5Dclose(last);
    void *image = NULL;
    ssize_t len = too_big || H5Fflush(file, H5F_SCOPE_GLOBAL) < 0
                      ? -1
                      : H5Fget_file_image(file, NULL, 0);
    if (len > 0) {
        image = xalloc((size_t)len);
        if (H5Fget_file_image(file, image, (size_t)len) != len) {
            xfree(image);
            image = NULL;
        }
        *image_size = (size_t)len;
    }
    H5Fclose(file);
    return image;
}

/* ---- what a run computes from a loaded mesh, each checked against the mesh ---- */

static void fail(const char *what)
{
    fprintf(stderr, "fuzz_mesh: %s\n", what);
    abort();
}

static void check_permutation(const int *v, int n, const char *what)
{
    unsigned char *seen = xalloc((size_t)n);
    for (int i = 0; i < n; i++) {
        if (v[i] < 0 || v[i] >= n || seen[v[i]])
            fail(what);
        seen[v[i]] = 1;
    }
    xfree(seen);
}

/* The grid of the mesh: halo cells first, a permutation of the cells, the mesh's relations. */
static void check_grid(const mesh *m, int radius, const int *order, const unsigned char *halo)
{
    ugrid g;
    ugrid_from_mesh(&g, m, radius, m->nlevels, order);
    int n = m->ncells;
    check_permutation(g.mesh_cell, n, "ugrid_from_mesh: mesh_cell is not a permutation");
    for (int c = 0; c < n; c++) {
        if (halo[g.mesh_cell[c]] != (c < g.nhalo))
            fail("ugrid_from_mesh: halo cells are not first");
        for (int r = 0; r < NREL1 && !m->adj; r++) {
            int d = g.nbr[r * n + c], want = m->nbr[4 * g.mesh_cell[c] + r];
            if ((d < 0 ? -1 : g.mesh_cell[d]) != want)
                fail("ugrid_from_mesh: a relation differs from the mesh's");
        }
    }
    if (m->adj) { /* a general mesh: the neighbour lists of graphlap, each the mesh's row */
        ell_table t;
        ell_build(&t, &g);
        for (int c = 0; c < n; c++) {
            const int *row = mesh_row(m, g.mesh_cell[c]);
            int j = 0;
            for (int e = 0; e < mesh_sides(m, g.mesh_cell[c]); e++)
                if (row[e] >= 0) {
                    if (j >= t.deg[c] || t.nb[(size_t)j * n + c] < 0 ||
                        g.mesh_cell[t.nb[(size_t)j * n + c]] != row[e])
                        fail("ell_build: a neighbour list differs from the mesh's row");
                    j++;
                }
            if (j != t.deg[c])
                fail("ell_build: a degree differs from the mesh's row");
        }
        ell_free(&t);
        ugrid_free(&g);
        return;
    }
    for (int chasing = 0; chasing < 2; chasing++) {
        nbtable t;
        nbtable_build(&t, &g, chasing, 1);
        if (t.npat < 1 || t.npat > n || t.top_count < 1)
            fail("nbtable_build: pattern counts out of range");
        nbtable_free(&t);
    }
    ugrid_free(&g);
}

static void exercise(const mesh *m)
{
    char err[512];
    if (mesh_check(m, err, sizeof err) != 0)
        fail("mesh_read accepted a mesh that mesh_check refuses");
    int n = m->ncells;
    long hist[MESH_MAXDEG + 1], total = 0;
    mesh_histogram(m, hist);
    for (int k = 0; k <= MESH_MAXDEG; k++)
        total += hist[k];
    if (total != n)
        fail("mesh_histogram does not count every cell once");
    if (!m->adj && mesh_corners(m) < 0) /* W/E/S/N relations only */
        fail("mesh_corners is negative");
    unsigned char *halo1 = xalloc((size_t)n), *halo2 = xalloc((size_t)n);
    int n1 = mesh_halo(m, 1, halo1), n2 = mesh_halo(m, 2, halo2);
    for (int c = 0; c < n; c++) {
        n1 -= halo1[c];
        n2 -= halo2[c];
        if (halo1[c] > halo2[c])
            fail("mesh_halo: a halo cell of radius 1 is inner at radius 2");
    }
    if (n1 || n2)
        fail("mesh_halo: the count differs from the marked cells");
    check_grid(m, 1, NULL, halo1);
    check_grid(m, 2, NULL, halo2);
    if (n <= 2048) { /* METIS stays fast at this size */
        int *order = xalloc(sizeof(int) * (size_t)n);
        if (mesh_locality_order(m, 8, order, NULL) > 0) {
            check_permutation(order, n, "mesh_locality_order: not a permutation");
            check_grid(m, 2, order, halo2);
        }
        xfree(order);
    }
    int finite = m->coord != NULL; /* --layout zcurve refuses the others, with a message */
    for (size_t i = 0; finite && i < (size_t)n * (size_t)m->ncoord; i++)
        finite = isfinite(m->coord[i]);
    if (finite) {
        int *order = xalloc(sizeof(int) * (size_t)n);
        if (mesh_zcurve_order(m, FZ_FILE_NAME, order) != 0)
            fail("mesh_zcurve_order refused finite coordinates");
        check_permutation(order, n, "mesh_zcurve_order: not a permutation");
        check_grid(m, 2, order, halo2);
        xfree(order);
    }
    xfree(halo1);
    xfree(halo2);
}

fz_outcome fuzz_mesh_input(const uint8_t *data, size_t size)
{
    const void *image = data + 1;
    size_t image_size = size ? size - 1 : 0;
    void *built = NULL;
    if (size == 0 || data[0] != FZ_IMAGE) {
        built = build_image(data, size, &image_size);
        if (!built)
            return FZ_SKIPPED;
        image = built;
    }
    mesh m;
    int rc = mesh_read_image(image, image_size, FZ_FILE_NAME, &m);
    xfree(built);
    if (H5Fget_obj_count((hid_t)H5F_OBJ_ALL, H5F_OBJ_ALL) != 0)
        fail("the reader left HDF5 files or objects open");
    if (rc != 0) {
        if (m.ncells || m.nbr || m.adj || m.sides || m.coord || m.xy || m.part)
            fail("mesh_read refused the file but left the mesh non-empty");
        return FZ_REFUSED;
    }
    exercise(&m);
    mesh_free(&m);
    return FZ_LOADED;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_mesh_input(data, size);
    return 0;
}
