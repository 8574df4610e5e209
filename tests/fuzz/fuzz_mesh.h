/* fuzz_mesh.h — the mesh reader's fuzz target (fuzz_mesh.c) and the input format it decodes.
 *
 * An input is either an HDF5 file image or a description of one:
 *
 *   'R' IMAGE             IMAGE is read as an HDF5 file (HDF5's parser and our reader)
 *   anything else         a structured input: byte 0 is ignored, then records, each a tag byte
 *                         (taken modulo FZ_TAG_COUNT) and its payload, are written as objects
 *                         into a valid in-memory HDF5 file, which is then read (our validation)
 *
 * Records (all integers little-endian; a payload cut short reads as -1 bytes):
 *   FZ_ROOT_ATTR   u8 name (fz_root_attr_name)  ATTR      attribute of the root group
 *   FZ_DATASET     u8 name (fz_dataset_name)    DATASET   dataset in the root group
 *   FZ_DSET_ATTR   u8 name (fz_dset_attr_name)  ATTR      attribute of the last dataset (else root)
 *   FZ_OBJECT      u8 name (fz_dataset_name)    u8 kind   a group (kind even) or a dangling soft
 *                                                         link (kind odd) under a dataset's name
 *   ATTR     u8 type (fz_type), u8 space (0 scalar, 1 one element, 2 two elements, 3 null),
 *            one i64 per element
 *   DATASET  u8 type (fz_type), u8 layout (rank = layout % 4, rank 0 = scalar; layout & 4:
 *            chunked, & 8: deflated), one u16 per dimension, u8 width (values of 1 << (width % 4)
 *            bytes, sign-extended), one value per element
 * String types take the 8 bytes of each value as the characters. */
#ifndef PILLAR_FUZZ_MESH_H
#define PILLAR_FUZZ_MESH_H

#include <stddef.h>
#include <stdint.h>

#define FZ_IMAGE 'R'
#define FZ_MAX_ELEMENTS 65536 /* larger structured datasets are skipped */

enum { FZ_ROOT_ATTR, FZ_DATASET, FZ_DSET_ATTR, FZ_OBJECT, FZ_TAG_COUNT };
enum { FZ_VERSION, FZ_NLEVELS, FZ_KIND, FZ_ROOT_ATTR_COUNT };
enum { FZ_NEIGHBOURS, FZ_COORDINATES, FZ_PATCH_XY, FZ_PARTITION, FZ_DATASET_COUNT };
enum { FZ_NX, FZ_NY, FZ_NPARTS, FZ_DSET_ATTR_COUNT };
enum { FZ_I32LE, FZ_I8, FZ_U8, FZ_I16BE, FZ_I64LE, FZ_U64BE, FZ_F64LE, FZ_F32BE, FZ_STR8, FZ_TYPE_COUNT };

extern const char *const fz_root_attr_name[FZ_ROOT_ATTR_COUNT];
extern const char *const fz_dataset_name[FZ_DATASET_COUNT];
extern const char *const fz_dset_attr_name[FZ_DSET_ATTR_COUNT];

/* The name that stands for the file in the reader's messages. */
#define FZ_FILE_NAME "fuzz-input"

typedef enum {
    FZ_SKIPPED, /* a structured input that could not be built (too large, HDF5 refused it) */
    FZ_LOADED,  /* read, checked, and every derived computation agreed with the mesh */
    FZ_REFUSED  /* refused by the reader (which printed why), the mesh left empty */
} fz_outcome;

/* Decodes one input, reads it and, when it loads, runs the checks and derived computations of a
 * run on it (histogram, corners, halos of radius 1 and 2, grids, tables, METIS order for small
 * meshes). A violated property aborts with a message. */
fz_outcome fuzz_mesh_input(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
