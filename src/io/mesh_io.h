/* mesh_io.h — mesh files (HDF5, schema in docs/mesh-format.md). */
#ifndef PILLAR_MESH_IO_H
#define PILLAR_MESH_IO_H

#include "grids/mesh.h"

/* Reads and checks a mesh. Returns 0, or -1 after a message naming the file, the dataset or
 * attribute and the first bad cell; m is then empty. */
int mesh_read(const char *path, mesh *m);

/* The same from an HDF5 file image of size bytes in memory (the fuzz tests); name stands for the
 * file in messages. */
int mesh_read_image(const void *image, size_t size, const char *name, mesh *m);

/* Writes a mesh: to a temporary file next to path, renamed over path only when complete.
 * Returns 0, or -1 after a message (no file is left behind). */
int mesh_write(const char *path, const mesh *m);

#endif
