/* files.h — files on disk: an input path is checked before any library opens it, and an output
 * file appears under its name only once it is complete.
 *
 * Inputs. HDF5, Gmsh and every other reader open a path themselves; given a FIFO, a device or a
 * directory they block, read garbage or fail with a message about something else. So every
 * input path goes through file_input_check first: it must name an existing, readable, regular,
 * non-empty file.
 *
 * Outputs. A file is written under the hidden temporary name DIR/.NAME.tmp-PID and renamed to
 * NAME when complete, so NAME is never half-written. A process killed while writing leaves its
 * temporary file; the next write of NAME in DIR (any pillar command) removes every such file
 * whose process no longer exists, before it starts. (An unnamed O_TMPFILE file linked at the
 * end would leave nothing at all, but HDF5 resolves the name it creates and cannot create a
 * file under /proc/self/fd/N.) */
#ifndef PILLAR_FILES_H
#define PILLAR_FILES_H

#include <stddef.h>

/* Whether path names an existing, readable, non-empty regular file (symbolic links followed).
 * `what` names the kind of file in the message ("mesh file"). Returns 0, or -1 after a message
 * "PATH: ..." saying what the path is instead (missing, a directory, a FIFO, a device, empty,
 * unreadable). Never opens the path. */
int file_input_check(const char *path, const char *what);

/* What the readers (HDF5: h5_util.c, netCDF: nc_read.c) allocate for what an input declares:
 * the values read from one file, 8 bytes each in memory, may take IO_FREE_BYTES together;
 * beyond that, at most IO_STORED_RATIO times the bytes the file stores (a few hundred bytes of
 * compressed or unwritten data would otherwise make pillar allocate gigabytes). */
#define IO_FREE_BYTES (64.0 * 1024 * 1024)
#define IO_STORED_RATIO 256.0

/* A file a command reads, named for messages: {"sphere.h5", "mesh file"}. */
typedef struct {
    const char *path; /* NULL: not given, skipped */
    const char *what;
} file_named;

/* Whether the output `path` (`what`: "--output", "OUT") is a different file from each of the n
 * inputs: compared by device and inode, so a hard link or a symbolic link to an input is that
 * input. An output that does not exist yet is none of them. Every command that writes calls it
 * before it reads or writes anything. Returns 0, or -1 after a message "WHAT PATH names the
 * INPUT-WHAT INPUT-PATH ..." (the caller exits 2: a bad command line). */
int file_output_distinct(const char *path, const char *what, const file_named *in, int n);

/* An output file being written. */
typedef struct {
    char *path;   /* the final name */
    char *tmp;    /* the name to write to: DIR/.NAME.tmp-PID */
} file_out;

/* Starts writing path: fills o (tmp is the name to create the contents under, e.g. with
 * H5Fcreate or fopen "w"). Returns 0, or -1 after a message (directory missing or not
 * writable); o then holds nothing to release. */
int file_out_begin(file_out *o, const char *path);

/* Puts the finished contents under o->path (replacing a file of that name) and releases o.
 * Returns 0, or -1 after a message; then nothing is left under either name. */
int file_out_commit(file_out *o);

/* Why writing o failed, when it is the disk: "no space left on device (DIR is full)" or "disk
 * quota exceeded", from err (the errno of the failed write, which libraries do not always keep)
 * or else from the file system of o's directory having no free block; NULL otherwise. */
const char *file_out_full(const file_out *o, int err);

/* Removes from dir every temporary file of a process that no longer exists: .NAME.tmp-PID, and
 * .NAME.tmp-PID.SUFFIX (a compiler's log next to it), whatever NAME. For a folder only pillar
 * writes (the stencil cache), where each name is written rarely, so that file_out_begin's removal
 * of NAME's own temporary files would leave the others for ever. */
void file_sweep_stale(const char *dir);

/* Drops the contents and releases o; nothing is left behind. */
void file_out_abort(file_out *o);

#endif
