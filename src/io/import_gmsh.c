/* import_gmsh.c — Gmsh meshes through the Gmsh C API (gmshc.h, Debian: libgmsh-dev). Cells are
 * the 2D elements of the mesh, triangles and quadrangles of any order (only their corner nodes
 * matter); two cells are neighbours when they share an edge, i.e. two consecutive corners. An
 * edge of one cell only lies on the boundary; an edge of three or more cells is refused. A mesh
 * of quadrangles only is written as a quad mesh (W/E/S/N from each element's edge order), any
 * other as a general mesh. The corner nodes are kept (node coordinates, cell nodes).
 *
 * An element listed more than once counts once: MSH 2 files list an element once per physical
 * group it belongs to (under a new number each time), and partitioned files list ghost cells
 * (copies of a neighbouring partition's elements) besides the partition's own; any 2D elements
 * with the same corner nodes are one cell, the first listed. A mesh with volume elements
 * (tetrahedra, hexahedra, prisms, pyramids) is refused: it is 3D, and pillar does not cut a
 * volume down to its boundary surface.
 *
 * A mesh file is data. Gmsh's own open chooses a reader by the file's name and first line, and
 * falls back to its script parser (whose `System` command runs shell commands) for anything it
 * does not recognise; names ending in .py, .exe or .gz make it start programs. So pillar checks
 * the file itself first (gmsh_file_check: a regular file named *.msh whose first line is
 * $MeshFormat and whose second is an MSH 2 or 4 version line) and hands Gmsh that same opened
 * file under a name without an extension (/proc/self/fd/N), so only Gmsh's MSH reader sees it. */
#include "mesh_import.h"

#include "base/common.h"
#include "files.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* The MSH header: "$MeshFormat", then "VERSION FILE-TYPE DATA-SIZE" (version 2.x or 4.x,
 * file type 0 = ASCII or 1 = binary, data size 8). Returns 0, or -1 after a message. */
static int msh_header_ok(const char *path, const char *head)
{
    const char *why = NULL;
    if (strncmp(head, "$MeshFormat", 11) != 0 || (head[11] != '\n' && head[11] != '\r'))
        why = "its first line is not $MeshFormat";
    double version = 0;
    int type = -1, size = -1, used = 0;
    const char *line = why ? NULL : strchr(head, '\n');
    if (!why && (!line || sscanf(line + 1, "%lf %d %d%n", &version, &type, &size, &used) != 3))
        why = "its second line is not an MSH version line (VERSION FILE-TYPE DATA-SIZE)";
    else if (!why && !((version >= 2 && version < 3) || (version >= 4 && version < 5)))
        why = "its MSH version is neither 2 nor 4";
    else if (!why && ((type != 0 && type != 1) || size != 8))
        why = "its MSH version line has a file type other than 0/1 or a data size other than 8";
    if (!why)
        return 0;
    perr("%s: not a Gmsh mesh file: %s (pillar reads MSH 2 and 4 meshes, never Gmsh scripts)",
         path, why);
    return -1;
}

int gmsh_file_check(const char *path, int *fd_out)
{
    *fd_out = -1;
    if (file_input_check(path, "Gmsh mesh") != 0)
        return -1;
    size_t len = strlen(path);
    if (len < 4 || strcasecmp(path + len - 4, ".msh") != 0) {
        perr("%s: a Gmsh mesh file must be named *.msh", path);
        return -1;
    }
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        perr("%s: cannot open the Gmsh mesh as a regular file", path);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    char head[256];
    ssize_t n = pread(fd, head, sizeof head - 1, 0);
    head[n > 0 ? n : 0] = 0;
    if (msh_header_ok(path, head) != 0) {
        close(fd);
        return -1;
    }
    *fd_out = fd;
    return 0;
}

int mesh_detect_gmsh(const mesh_probe *p)
{
    return p->nhead > 11 && !memcmp(p->head, "$MeshFormat", 11) &&
           (p->head[11] == '\n' || p->head[11] == '\r');
}

#ifndef PILLAR_HAVE_GMSH

int mesh_import_gmsh(const char *path, mesh_import_opts *o, mesh *m)
{
    (void)o;
    memset(m, 0, sizeof *m);
    int fd; /* the same checks of the file as with Gmsh, so a bad file gets the same message */
    if (gmsh_file_check(path, &fd) != 0)
        return -1;
    close(fd);
    perr("%s: this pillar was built without Gmsh, so it cannot import .msh files (install "
         "libgmsh-dev and configure again)", path);
    return -1;
}

#else

#include <errno.h>
#include <gmshc.h>
#include <sys/wait.h>

/* A node: its tag and position in Gmsh's node arrays. */
typedef struct {
    size_t tag, at;
} node;

static int node_cmp(const void *a, const void *b)
{
    const node *x = a, *y = b;
    return x->tag < y->tag ? -1 : x->tag > y->tag;
}

/* The 2D elements of the current model. */
typedef struct {
    int *types;
    size_t ntypes, **etags, *etags_n, etags_nn, **ntags, *ntags_n, ntags_nn;
    int *corners;  /* corners of each type: 3 or 4 */
    int *per;      /* nodes per element of each type */
    unsigned char *repeat; /* per element, in the order listed: 1 if an earlier one has its
                            * corners */
    long repeats;  /* elements so marked */
} elements;

static void elements_free(elements *e)
{
    for (size_t t = 0; t < e->ntypes; t++) {
        gmshFree(e->etags[t]);
        gmshFree(e->ntags[t]);
    }
    gmshFree(e->types);
    gmshFree(e->etags);
    gmshFree(e->etags_n);
    gmshFree(e->ntags);
    gmshFree(e->ntags_n);
    xfree(e->corners);
    xfree(e->per);
    xfree(e->repeat);
}

/* Reads the 2D elements; counts the cells, refuses element types that are not triangles or
 * quadrangles. Returns the number of cells, or -1 after a message. */
static long read_elements(const char *path, elements *e, int *maxdeg)
{
    int ierr = 0;
    gmshModelMeshGetElements(&e->types, &e->ntypes, &e->etags, &e->etags_n, &e->etags_nn,
                             &e->ntags, &e->ntags_n, &e->ntags_nn, 2, -1, &ierr);
    if (ierr) {
        perr("%s: Gmsh could not list the mesh's 2D elements", path);
        return -1;
    }
    e->corners = xalloc(sizeof(int) * (e->ntypes + 1));
    e->per = xalloc(sizeof(int) * (e->ntypes + 1));
    long n = 0;
    *maxdeg = 0;
    for (size_t t = 0; t < e->ntypes; t++) {
        char *name = NULL;
        double *local = NULL;
        size_t nlocal = 0;
        int dim, order, nodes, primary;
        gmshModelMeshGetElementProperties(e->types[t], &name, &dim, &order, &nodes, &local,
                                          &nlocal, &primary, &ierr);
        gmshFree(local);
        if (ierr || (primary != 3 && primary != 4)) {
            perr("%s: 2D elements of type %d (%s): pillar imports triangles and quadrangles only",
                 path, e->types[t], name ? name : "unknown");
            gmshFree(name);
            return -1;
        }
        gmshFree(name);
        e->corners[t] = primary;
        e->per[t] = nodes;
        *maxdeg = primary > *maxdeg ? primary : *maxdeg;
        n += (long)e->etags_n[t];
    }
    if (n == 0 || n > (1L << 29)) {
        perr("%s: %ld 2D elements: expected 1 to 2^29 triangles or quadrangles", path, n);
        return -1;
    }
    return n;
}

/* A mesh with volume elements is 3D: refused, naming what it holds. 0, or -1 after a message. */
static int refuse_volumes(const char *path)
{
    elements v;
    memset(&v, 0, sizeof v);
    int ierr = 0;
    gmshModelMeshGetElements(&v.types, &v.ntypes, &v.etags, &v.etags_n, &v.etags_nn, &v.ntags,
                             &v.ntags_n, &v.ntags_nn, 3, -1, &ierr);
    char what[256] = "";
    long total = 0;
    for (size_t t = 0; t < v.ntypes; t++) {
        char *name = NULL;
        double *local = NULL;
        size_t nlocal = 0, used = strlen(what);
        int dim, order, nodes, primary, err2 = 0;
        gmshModelMeshGetElementProperties(v.types[t], &name, &dim, &order, &nodes, &local,
                                          &nlocal, &primary, &err2);
        snprintf(what + used, sizeof what - used, "%s%zu volume elements of type %s",
                 t ? ", " : "", v.etags_n[t], !err2 && name ? name : "unknown");
        total += (long)v.etags_n[t];
        gmshFree(name);
        gmshFree(local);
    }
    elements_free(&v);
    if (ierr == 0 && total == 0)
        return 0;
    perr("%s: a 3D (volume) mesh: it holds %s; pillar imports 2D meshes (planar or surface "
         "triangles and quadrangles), not volumes, and does not cut one down to its surface",
         path, ierr ? "volume elements Gmsh could not list" : what);
    return -1;
}

/* Corner nodes of an element, sorted: two elements with equal keys are the same cell. */
typedef struct {
    size_t corner[4];
    long at; /* the element's place in the listing */
} element_key;

static int key_cmp(const void *a, const void *b)
{
    const element_key *x = a, *y = b;
    for (int i = 0; i < 4; i++)
        if (x->corner[i] != y->corner[i])
            return x->corner[i] < y->corner[i] ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* Marks e->repeat for every element (n in all) whose corners an earlier one has. */
static void mark_repeats(elements *e, long n)
{
    element_key *keys = xalloc(sizeof(element_key) * (size_t)n);
    long at = 0;
    for (size_t t = 0; t < e->ntypes; t++)
        for (size_t k = 0; k < e->etags_n[t]; k++, at++) {
            element_key *key = keys + at;
            const size_t *nt = e->ntags[t] + k * (size_t)e->per[t];
            key->at = at;
            for (int i = 0; i < 4; i++) /* a triangle's fourth is 0, never a node tag */
                key->corner[i] = i < e->corners[t] ? nt[i] : 0;
            for (int i = 1; i < 4; i++) /* insertion sort: a triangle's 0 comes first */
                for (int j = i; j > 0 && key->corner[j - 1] > key->corner[j]; j--) {
                    size_t x = key->corner[j];
                    key->corner[j] = key->corner[j - 1];
                    key->corner[j - 1] = x;
                }
        }
    qsort(keys, (size_t)n, sizeof(element_key), key_cmp);
    e->repeat = xalloc((size_t)n);
    e->repeats = 0;
    for (long i = 1; i < n; i++)
        if (memcmp(keys[i].corner, keys[i - 1].corner, sizeof keys[i].corner) == 0) {
            e->repeat[keys[i].at] = 1;
            e->repeats++;
        }
    xfree(keys);
}

/* Node positions by tag: a sorted table to search. Returns 0 or -1 after a message. */
static int read_nodes(const char *path, node **tab, size_t *count, double **xyz)
{
    size_t *tags = NULL, ntags = 0, ncoord = 0, nparam = 0;
    double *param = NULL;
    int ierr = 0;
    gmshModelMeshGetNodes(&tags, &ntags, xyz, &ncoord, &param, &nparam, -1, -1, 0, 0, &ierr);
    gmshFree(param);
    if (ierr || ncoord != 3 * ntags) {
        perr("%s: Gmsh could not list the mesh's nodes", path);
        gmshFree(tags);
        return -1;
    }
    *tab = xalloc(sizeof(node) * (ntags + 1));
    for (size_t i = 0; i < ntags; i++) {
        (*tab)[i].tag = tags[i];
        (*tab)[i].at = i;
    }
    qsort(*tab, ntags, sizeof(node), node_cmp);
    size_t k = 0; /* a node listed twice (partition boundaries) is one node */
    for (size_t i = 0; i < ntags; i++)
        if (k == 0 || (*tab)[i].tag != (*tab)[k - 1].tag)
            (*tab)[k++] = (*tab)[i];
    *count = k;
    gmshFree(tags);
    return 0;
}

/* A mesh of quadrangles only becomes a quad mesh (docs/mesh-format.md): edge i of a Gmsh
 * quadrangle joins its corners i and i+1, counter-clockwise, so edges 0, 1, 2, 3 are the cell's
 * own S, E, N, W (E, N, W, S counter-clockwise, as pillar's generators label them). Labels turn
 * from cell to cell as the elements do; the relations of grids/grid.h hold regardless. */
static void quads_as_quad_mesh(mesh *m)
{
    static const int side_of[4] = {R_S, R_E, R_N, R_W};
    m->nbr = xalloc(sizeof(int) * 4 * (size_t)m->ncells);
    for (int c = 0; c < m->ncells; c++)
        for (int i = 0; i < 4; i++)
            m->nbr[4 * (size_t)c + (size_t)side_of[i]] = m->adj[4 * (size_t)c + (size_t)i];
    xfree(m->adj);
    m->adj = NULL;
    m->maxdeg = 0;
}

/* Builds the mesh from the current Gmsh model: a quad mesh when every element is a quadrangle,
 * else a general one; repeated elements count once; the corner nodes become the mesh's nodes,
 * numbered in order of first use. Returns 0 or -1 after a message. */
static int build(const char *path, mesh *m, long *repeats)
{
    elements e;
    memset(&e, 0, sizeof e);
    node *nodes = NULL;
    double *xyz = NULL;
    int *node_id = NULL;
    size_t nnodes = 0;
    int rc = -1, maxdeg;
    long listed = refuse_volumes(path) == 0 ? read_elements(path, &e, &maxdeg) : -1;
    if (listed < 0 || read_nodes(path, &nodes, &nnodes, &xyz) != 0)
        goto done;
    mark_repeats(&e, listed);
    *repeats = e.repeats;
    long n = listed - e.repeats;
    m->ncells = (int)n;
    m->ncoord = 3;
    m->coord = xalloc(sizeof(double) * 3 * (size_t)n);
    m->node_width = maxdeg;
    m->cell_nodes = xalloc(sizeof(int) * (size_t)maxdeg * (size_t)n);
    memset(m->cell_nodes, 0xff, sizeof(int) * (size_t)maxdeg * (size_t)n);
    node_id = xalloc(sizeof(int) * (nnodes + 1));
    memset(node_id, 0xff, sizeof(int) * (nnodes + 1));
    int c = 0;
    long at = 0;
    for (size_t t = 0; t < e.ntypes; t++)
        for (size_t k = 0; k < e.etags_n[t]; k++, at++) {
            if (e.repeat[at])
                continue;
            const size_t *nt = e.ntags[t] + k * (size_t)e.per[t];
            int nc = e.corners[t];
            for (int i = 0; i < nc; i++) {
                node key = {nt[i], 0}, *hit = bsearch(&key, nodes, nnodes, sizeof(node), node_cmp);
                if (!hit) {
                    perr("%s: element %zu refers to node %zu, which the mesh does not have", path,
                         e.etags[t][k], nt[i]);
                    goto done;
                }
                size_t v = (size_t)(hit - nodes);
                if (node_id[v] < 0)
                    node_id[v] = m->nnodes++;
                m->cell_nodes[(size_t)maxdeg * (size_t)c + (size_t)i] = node_id[v];
                for (int d = 0; d < 3; d++)
                    m->coord[3 * c + d] += xyz[3 * hit->at + d] / nc;
            }
            c++;
        }
    m->nnode_coord = 3;
    m->node_coord = xalloc(sizeof(double) * 3 * (size_t)(m->nnodes ? m->nnodes : 1));
    for (size_t v = 0; v < nnodes; v++)
        if (node_id[v] >= 0)
            for (int d = 0; d < 3; d++)
                m->node_coord[3 * (size_t)node_id[v] + (size_t)d] = xyz[3 * nodes[v].at + (size_t)d];
    /* neighbours: the elements sharing an edge (two consecutive corners), as for every format */
    char err[512];
    rc = mesh_adj_from_nodes(m, "the 2D elements", err, sizeof err);
    if (rc != 0)
        perr("%s: %s", path, err);
    if (rc == 0 && m->maxdeg == 4 && !m->sides)
        quads_as_quad_mesh(m);
done:
    xfree(node_id);
    xfree(nodes);
    gmshFree(xyz);
    elements_free(&e);
    return rc;
}

/* Gmsh's last error message into buf ("" when it has none). */
static void last_error(char *buf, size_t n)
{
    char *e = NULL;
    int ierr = 0;
    buf[0] = 0;
    gmshLoggerGetLastError(&e, &ierr);
    if (!ierr && e)
        snprintf(buf, n, ": %s", e);
    gmshFree(e);
}

/* Reads the header-checked file (opened as name) with Gmsh into m; *repeats = the elements
 * listed again that were dropped. 0, or -1 after a message. */
static int read_with_gmsh(const char *path, const char *name, mesh *m, long *repeats)
{
    int ierr = 0;
#if GMSH_API_VERSION_MAJOR > 4 || (GMSH_API_VERSION_MAJOR == 4 && GMSH_API_VERSION_MINOR >= 9)
    gmshInitialize(0, NULL, 0, 0, &ierr);
#else
    gmshInitialize(0, NULL, 0, &ierr);
#endif
    gmshOptionSetNumber("General.Terminal", 0, &ierr); /* pillar reports failures itself */
    gmshLoggerStart(&ierr);
    gmshOpen(name, &ierr);
    int rc = -1;
    if (ierr) {
        char why[512];
        last_error(why, sizeof why);
        perr("%s: Gmsh could not read the file as a mesh%s", path, why);
    } else {
        rc = build(path, m, repeats);
    }
    gmshLoggerStop(&ierr);
    gmshFinalize(&ierr);
    return rc;
}

/* ---- Gmsh in a child process ----
 * Gmsh's MSH reader crashes on some malformed files (a null dereference in
 * GModel::_associateEntityWithMeshVertices, found by tests/fuzz: fuzz_gmsh). So Gmsh reads the
 * file in a child process, which sends the mesh back through a pipe; a crash there is an error
 * message here, never a crash of pillar (or of the program that called it). */

typedef struct {
    int rc, ncells, maxdeg, quad, sides, ncoord, nnodes, node_width;
    long repeats;
    char msg[512]; /* the child's message when rc != 0 */
} wire_head;

static int put_all(int fd, const void *p, size_t n)
{
    for (const char *c = p; n;) {
        ssize_t k = write(fd, c, n);
        if (k <= 0)
            return -1;
        c += k;
        n -= (size_t)k;
    }
    return 0;
}

static int get_all(int fd, void *p, size_t n)
{
    for (char *c = p; n;) {
        ssize_t k = read(fd, c, n);
        if (k <= 0)
            return -1;
        c += k;
        n -= (size_t)k;
    }
    return 0;
}

/* The child: read, send the head and (on success) the arrays, exit without destructors. */
static void child(int out, const char *path, const char *name)
{
    mesh m;
    memset(&m, 0, sizeof m);
    wire_head h;
    memset(&h, 0, sizeof h);
    perr_capture(h.msg, sizeof h.msg); /* sent to the parent, which reports it its own way */
    h.rc = read_with_gmsh(path, name, &m, &h.repeats);
    perr_capture(NULL, 0);
    h.ncells = m.ncells;
    h.maxdeg = m.maxdeg;
    h.quad = m.nbr != NULL;
    h.sides = m.sides != NULL;
    h.ncoord = m.ncoord;
    h.nnodes = m.nnodes;
    h.node_width = m.node_width;
    int ok = put_all(out, &h, sizeof h) == 0;
    if (ok && h.rc == 0) {
        size_t n = (size_t)m.ncells;
        ok = put_all(out, m.nbr ? m.nbr : m.adj, sizeof(int) * n * (size_t)mesh_width(&m)) == 0 &&
             (!m.sides || put_all(out, m.sides, sizeof(int) * n) == 0) &&
             (!m.coord || put_all(out, m.coord, sizeof(double) * n * (size_t)m.ncoord) == 0) &&
             put_all(out, m.cell_nodes, sizeof(int) * n * (size_t)m.node_width) == 0 &&
             put_all(out, m.node_coord, sizeof(double) * 3 * (size_t)m.nnodes) == 0;
    }
    fflush(stderr);
    _exit(ok ? 0 : 1);
}

/* The parent: the mesh from the child, sizes checked before anything is allocated; *repeats =
 * the elements dropped as repeated. 0, 1 when the child reported a failure (its message is
 * reported here, through perr), -1 when it sent nothing usable. */
static int receive(int in, mesh *m, long *repeats)
{
    wire_head h;
    if (get_all(in, &h, sizeof h) != 0)
        return -1;
    if (h.rc != 0) {
        h.msg[sizeof h.msg - 1] = 0;
        perr("%s", h.msg);
        return 1;
    }
    if (h.ncells < 1 || h.ncells > (1 << 29) || (h.quad ? h.maxdeg != 0 : (h.maxdeg < 3 || h.maxdeg > 4)) ||
        (h.ncoord != 0 && h.ncoord != 3) || h.node_width != (h.quad ? 4 : h.maxdeg) ||
        h.nnodes < 3 || (long)h.nnodes > 4L * h.ncells)
        return -1;
    size_t n = (size_t)h.ncells, w = h.quad ? 4 : (size_t)h.maxdeg;
    *repeats = h.repeats;
    m->ncells = h.ncells;
    m->maxdeg = h.maxdeg;
    m->ncoord = h.ncoord;
    m->nnodes = h.nnodes;
    m->nnode_coord = 3;
    m->node_width = h.node_width;
    m->cell_nodes = xalloc(sizeof(int) * n * w);
    m->node_coord = xalloc(sizeof(double) * 3 * (size_t)h.nnodes);
    int *tab = xalloc(sizeof(int) * n * w);
    if (h.quad)
        m->nbr = tab;
    else
        m->adj = tab;
    if (h.sides)
        m->sides = xalloc(sizeof(int) * n);
    if (h.ncoord)
        m->coord = xalloc(sizeof(double) * n * (size_t)h.ncoord);
    if (get_all(in, tab, sizeof(int) * n * w) != 0 ||
        (h.sides && get_all(in, m->sides, sizeof(int) * n) != 0) ||
        (h.ncoord && get_all(in, m->coord, sizeof(double) * n * (size_t)h.ncoord) != 0) ||
        get_all(in, m->cell_nodes, sizeof(int) * n * w) != 0 ||
        get_all(in, m->node_coord, sizeof(double) * 3 * (size_t)h.nnodes) != 0)
        return -1;
    return 0;
}

int mesh_import_gmsh(const char *path, mesh_import_opts *o, mesh *m)
{
    memset(m, 0, sizeof *m);
    int fd, pfd[2];
    if (gmsh_file_check(path, &fd) != 0)
        return -1;
    char name[64];
    snprintf(name, sizeof name, "/proc/self/fd/%d", fd);
    if (access(name, R_OK) != 0) /* no /proc: the checked name itself, which ends in .msh */
        snprintf(name, sizeof name, "%s", "");
    if (pipe(pfd) != 0) {
        perr("%s: cannot start the Gmsh reader (pipe: %s)", path, strerror(errno));
        close(fd);
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(pfd[0]);
        child(pfd[1], path, name[0] ? name : path);
    }
    close(pfd[1]);
    long repeats = 0;
    int got = pid < 0 ? -1 : receive(pfd[0], m, &repeats), status = 0;
    close(pfd[0]);
    close(fd);
    if (pid > 0)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    int rc = got == 0 ? 0 : -1;
    if (pid < 0)
        perr("%s: cannot start the Gmsh reader (fork: %s)", path, strerror(errno));
    else if (got < 0) /* a signal, or (under a sanitizer) an exit after its report */
        perr("%s: Gmsh crashed reading the file (%s %d): it is not a mesh Gmsh can read", path,
             WIFSIGNALED(status) ? "signal" : "exit status",
             WIFSIGNALED(status) ? WTERMSIG(status) : WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    if (rc == 0) {
        m->nlevels = o->nlevels;
        char dropped[48] = "";
        if (repeats)
            snprintf(dropped, sizeof dropped, " (%ld listed again, counted once)", repeats);
        snprintf(m->kind, sizeof m->kind, "gmsh: %d %s%s from %.64s", m->ncells,
                 m->sides ? "triangles and quadrangles" : m->nbr || m->maxdeg == 4 ? "quadrangles" : "triangles",
                 dropped, path);
        rc = mesh_import_check(path, "the elements' edges", m);
    }
    if (rc != 0)
        mesh_free(m);
    return rc;
}

#endif
