/* cache_dir.h — pillar's cache folder and the files in it, checked as ssh checks ~/.ssh.
 *
 * The cache holds what pillar trusts without asking: compiled stencils it loads and runs
 * (src/jit/), plans whose settings its runs take (src/tune/). So the folder must be the user's
 * and writable by no one else, and so must every folder above it (root's, or writable by others
 * only when sticky, as /tmp); a file is read only when it is a regular file (never through a
 * symbolic link) that is the user's and writable by no one else. `what` names the cache in
 * messages ("stencil cache", "plan cache"). */
#ifndef PILLAR_CACHE_DIR_H
#define PILLAR_CACHE_DIR_H

#include <stddef.h>

/* The cache folder into out (n bytes), created if missing (mode 0700): $PILLAR_CACHE_DIR, else
 * $XDG_CACHE_HOME/pillar, else $HOME/.cache/pillar; then sub ("plans"; NULL or "": none) under
 * it. Every folder of the chain checked (above); the temporary files of dead processes in the
 * folder removed (file_sweep_stale). 0, or -1 with a message naming the folder and what is
 * wrong. */
int cache_dir(char *out, size_t n, const char *sub, const char *what);

/* mkdir -p of path; the folders it creates are the user's alone (0700). 0 or -1 with a message. */
int cache_make_dirs(const char *path, const char *what);

/* Opens a file of the cache to read: never through a symbolic link, never blocking (a FIFO is
 * refused, not waited on), and only a regular file that is the user's and writable by no one
 * else. The descriptor; -2 when there is no such file; -1 after a message naming it and what is
 * wrong. */
int cache_open_trusted(const char *path, const char *what);

/* 1 if path is a regular file (not a link) that is the user's and writable by no one else. */
int cache_file_trusted(const char *path);

/* Writes text to path whole (src/io/files.h: a temporary file renamed when complete), mode 0600,
 * never through a link. 0 or -1 with a message. */
int cache_write(const char *path, const char *text);

#endif
