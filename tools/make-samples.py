#!/usr/bin/env python3
"""make-samples.py — small mesh files in other tools' formats, for `pillar mesh import`.

Each mesh is built here from its construction and written as CDL text following the published
conventions of its format (ICON grid files, MPAS meshes, UGRID 1.0, SCRIP), then turned into
netCDF by `ncgen` (Debian: netcdf-bin). Nothing is copied from other projects' files. Python's
standard library only.

usage: tools/make-samples.py [DIR]      (default: data/ of this checkout)
       tools/make-samples.py --mpas N FILE
                                        one larger MPAS mesh: the dual of the icosahedron cut
                                        N x N, 10 N^2 + 2 cells (N = 64: 40962), CDF-5

Writes, in DIR:
  icon-classic.nc, icon-64bit.nc, icon-cdf5.nc, icon-netcdf4.nc
      the same ICON grid in the four netCDF variants: the icosahedron with each face cut into
      2x2 triangles, on the unit sphere: 80 triangles, each with 3 neighbours, 42 vertices
  mpas-sphere.nc (CDF-5, as MPAS writes)
      the dual of the icosahedron cut 3x3: 92 cells, 12 pentagons and 80 hexagons, closed
  mpas-coast.nc (CDF-5)
      the same with the cells of a "continent" removed: a coastline of cells with fewer
      neighbours (cellsOnCell 0 across the coast); 10 pentagons stay
  ugrid-mixed.nc (netCDF classic)
      a planar UGRID mesh of 8x6 squares, those with (i + j) % 3 == 0 cut into 2 triangles:
      mixed triangles and quadrangles, face_node_connectivity with start_index 1 and
      _FillValue -999 padding the triangles, no face_face_connectivity
  ugrid-sphere.nc (netCDF-4)
      the ICON grid's triangles as a UGRID mesh on the sphere (node longitude/latitude in
      degrees), both connectivities stored transposed (nodes or neighbours first, faces second,
      named by face_dimension), start_index 0, face_face_connectivity with _FillValue -1
  scrip-latlon.nc (64-bit offset)
      a global 12 x 6 longitude-latitude grid of 30-degree cells, 4 corners each: the cells
      at the poles have two corners at the pole (3 distinct), the last column's corners lie at
      360 degrees (the first column's at 0)
"""
import math
import os
import subprocess
import sys
import tempfile

# ---- geometry ----


def normalise(p):
    r = math.sqrt(sum(x * x for x in p))
    return tuple(x / r for x in p)


def lonlat(p):
    """radians"""
    x, y, z = p
    return math.atan2(y, x), math.asin(max(-1.0, min(1.0, z)))


def icosahedron():
    """12 vertices, 20 faces counter-clockwise seen from outside."""
    g = (1 + math.sqrt(5)) / 2
    v = [(-1, g, 0), (1, g, 0), (-1, -g, 0), (1, -g, 0), (0, -1, g), (0, 1, g), (0, -1, -g),
         (0, 1, -g), (g, 0, -1), (g, 0, 1), (-g, 0, -1), (-g, 0, 1)]
    f = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
         (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8),
         (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    return v, f


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def sub(a, b):
    return tuple(x - y for x, y in zip(a, b))


def ccw(p, q, r):
    """whether triangle p, q, r runs counter-clockwise seen from outside the sphere"""
    return dot(cross(sub(q, p), sub(r, p)), p) > 0


def geodesic(n):
    """The icosahedron with each face cut into n x n triangles, on the unit sphere: (points,
    triangles), triangles counter-clockwise. A point is keyed by its exact integer weights on
    the icosahedron's vertices, so points on shared edges are found once."""
    v, faces = icosahedron()
    index, points, tris = {}, [], []

    def point(weights):
        key = tuple(sorted((i, w) for i, w in weights if w))
        if key not in index:
            p = [0.0, 0.0, 0.0]
            for i, w in key:
                for k in range(3):
                    p[k] += w * v[i][k]
            index[key] = len(points)
            points.append(normalise(p))
        return index[key]

    for a, b, c in faces:
        def at(i, j):
            return point(((a, n - i - j), (b, i), (c, j)))
        for i in range(n):
            for j in range(n - i):
                t = [at(i, j), at(i + 1, j), at(i, j + 1)]
                tris.append(t)
                if j < n - 1 - i:
                    tris.append([at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)])
    for t in tris:
        if not ccw(points[t[0]], points[t[1]], points[t[2]]):
            t[1], t[2] = t[2], t[1]
    return points, tris


def edge_neighbours(cells):
    """For cells given by their corners in order: per cell, per edge j (corner j to j+1), the
    cell across it or -1."""
    owner = {}
    for c, corners in enumerate(cells):
        for j in range(len(corners)):
            e = frozenset((corners[j], corners[(j + 1) % len(corners)]))
            owner.setdefault(e, []).append(c)
    nb = []
    for c, corners in enumerate(cells):
        row = []
        for j in range(len(corners)):
            e = frozenset((corners[j], corners[(j + 1) % len(corners)]))
            others = [d for d in owner[e] if d != c]
            assert len(owner[e]) <= 2
            row.append(others[0] if others else -1)
        nb.append(row)
    return nb


def centre(points, corners):
    return normalise(tuple(sum(points[i][k] for i in corners) for k in range(3)))


# ---- CDL ----


def cdl_number(x):
    if isinstance(x, int):
        return str(x)
    return repr(float(x))


def cdl(name, dims, variables, attrs=()):
    """dims: [(name, len)]; variables: [(type, name, (dims), {attr: value}, values)]"""
    out = ["netcdf %s {" % name, "dimensions:"]
    out += ["\t%s = %d ;" % d for d in dims]
    out.append("variables:")
    for typ, vname, vdims, vattrs, _ in variables:
        shape = "(%s)" % ", ".join(vdims) if vdims else ""
        out.append("\t%s %s%s ;" % (typ, vname, shape))
        for k, val in vattrs.items():
            if isinstance(val, str):
                out.append('\t\t%s:%s = "%s" ;' % (vname, k, val))
            else:
                out.append("\t\t%s:%s = %s ;" % (vname, k, cdl_number(val)))
    if attrs:
        out.append("")
        for k, val in attrs:
            out.append('\t\t:%s = %s ;' % (k, '"%s"' % val if isinstance(val, str) else
                                           cdl_number(val)))
    out.append("data:")
    for _, vname, _, _, values in variables:
        text = ", ".join(cdl_number(x) for x in values)
        out.append("\n %s = %s ;" % (vname, text))
    out.append("}")
    return "\n".join(out) + "\n"


def ncgen(text, path, kind):
    """kind: 1 classic, 2 64-bit offset, 5 CDF-5, 3 netCDF-4"""
    with tempfile.NamedTemporaryFile("w", suffix=".cdl", delete=False) as f:
        f.write(text)
        name = f.name
    try:
        subprocess.run(["ncgen", "-k", str(kind), "-o", path, name], check=True)
    finally:
        os.unlink(name)


def flat(rows):
    return [x for r in rows for x in r]


def transpose(rows):
    return [list(r) for r in zip(*rows)]


# ---- the formats ----


def icon(points, tris):
    """ICON grid file: (nv, cell) tables, 1-based, radians."""
    nb = edge_neighbours(tris)
    cells = [lonlat(centre(points, t)) for t in tris]
    verts = [lonlat(p) for p in points]
    rad = {"units": "radian"}
    dims = [("cell", len(tris)), ("vertex", len(points)), ("nv", 3)]
    variables = [
        ("double", "clon", ("cell",), dict(rad, standard_name="grid_longitude",
                                           long_name="center longitude"), [c[0] for c in cells]),
        ("double", "clat", ("cell",), dict(rad, standard_name="grid_latitude",
                                           long_name="center latitude"), [c[1] for c in cells]),
        ("double", "vlon", ("vertex",), dict(rad, standard_name="grid_longitude"),
         [v[0] for v in verts]),
        ("double", "vlat", ("vertex",), dict(rad, standard_name="grid_latitude"),
         [v[1] for v in verts]),
        ("int", "vertex_of_cell", ("nv", "cell"), {"long_name": "vertices of each cell"},
         flat(transpose([[i + 1 for i in t] for t in tris]))),
        ("int", "neighbor_cell_index", ("nv", "cell"),
         {"long_name": "cell neighbour index", "cdi": "ignore"},
         flat(transpose([[d + 1 for d in row] for row in nb]))),
    ]
    return cdl("icon_grid", dims, variables, [("title", "pillar sample ICON grid"),
                                              ("grid_geometry", 1)])


def dual(points, tris, removed=frozenset()):
    """The MPAS mesh dual to a triangulation: a cell per point, a vertex per triangle. Cells in
    `removed` are left out. Returns cells (their vertices and neighbours counter-clockwise,
    0-based, -1 for a removed neighbour), vertex positions and the kept points."""
    around = {}
    for t, tri in enumerate(tris):
        for p in tri:
            around.setdefault(p, []).append(t)
    kept = [p for p in range(len(points)) if p not in removed]
    number = {p: k for k, p in enumerate(kept)}
    used_tris = sorted({t for p in kept for t in around[p]})
    vnumber = {t: k for k, t in enumerate(used_tris)}
    cells = []
    for p in kept:
        # order the triangles around p counter-clockwise: each triangle (p, a, b) in ccw order
        # is followed by the one that starts with (p, b)
        nxt = {}
        for t in around[p]:
            tri = tris[t]
            k = tri.index(p)
            nxt[tri[(k + 1) % 3]] = (tri[(k + 2) % 3], t)
        start = min(nxt)
        order, a = [], start
        while True:
            b, t = nxt[a]
            order.append((a, t))  # neighbour a, then the vertex (triangle) between a and b
            a = b
            if a == start:
                break
        nbrs = [number.get(a, -1) for a, _ in order]
        vts = [vnumber[t] for _, t in order]
        cells.append((nbrs, vts))
    vpos = [centre(points, tris[t]) for t in used_tris]
    return cells, vpos, kept


def mpas(points, tris, removed=frozenset(), max_edges=7):
    """MPAS mesh (CDF-5): (nCells, maxEdges) tables, 1-based, 0 = none; columns past
    nEdgesOnCell repeat the cell's last entry (MPAS leaves them unspecified)."""
    cells, vpos, kept = dual(points, tris, removed)
    ncell = len(cells)

    def padded(row):
        return row + [row[-1]] * (max_edges - len(row))
    coc = flat(padded([d + 1 for d in nbrs]) for nbrs, _ in cells)
    voc = flat(padded([v + 1 for v in vts]) for _, vts in cells)
    cpos = [points[p] for p in kept]
    cll = [lonlat(p) for p in cpos]
    vll = [lonlat(p) for p in vpos]
    dims = [("nCells", ncell), ("nVertices", len(vpos)), ("maxEdges", max_edges)]
    r = {"units": "radians"}
    m = {"units": "m"}
    variables = [
        ("int", "nEdgesOnCell", ("nCells",), {}, [len(n) for n, _ in cells]),
        ("int", "cellsOnCell", ("nCells", "maxEdges"), {}, coc),
        ("int", "verticesOnCell", ("nCells", "maxEdges"), {}, voc),
        ("double", "lonCell", ("nCells",), r, [c[0] for c in cll]),
        ("double", "latCell", ("nCells",), r, [c[1] for c in cll]),
        ("double", "xCell", ("nCells",), m, [p[0] for p in cpos]),
        ("double", "yCell", ("nCells",), m, [p[1] for p in cpos]),
        ("double", "zCell", ("nCells",), m, [p[2] for p in cpos]),
        ("double", "lonVertex", ("nVertices",), r, [v[0] for v in vll]),
        ("double", "latVertex", ("nVertices",), r, [v[1] for v in vll]),
        ("double", "xVertex", ("nVertices",), m, [p[0] for p in vpos]),
        ("double", "yVertex", ("nVertices",), m, [p[1] for p in vpos]),
        ("double", "zVertex", ("nVertices",), m, [p[2] for p in vpos]),
    ]
    degrees = [len(n) for n, _ in cells]
    present = [sum(d >= 0 for d in n) for n, _ in cells]
    return cdl("mpas_mesh", dims, variables, [("on_a_sphere", "YES"), ("sphere_radius", 1.0),
                                              ("mesh_spec", "1.0")]), degrees, present


def ugrid_mixed(nx=8, ny=6):
    """Planar UGRID mesh: squares, some cut into 2 triangles; start_index 1, _FillValue -999."""
    node = lambda i, j: j * (nx + 1) + i
    faces = []
    for j in range(ny):
        for i in range(nx):
            a, b, c, d = node(i, j), node(i + 1, j), node(i + 1, j + 1), node(i, j + 1)
            if (i + j) % 3 == 0:
                faces += [[a, b, c], [a, c, d]]
            else:
                faces.append([a, b, c, d])
    fill = -999
    fnc = flat([f_ + 1 for f_ in f] + [fill] * (4 - len(f)) for f in faces)
    xs = [float(i) * 1000 for j in range(ny + 1) for i in range(nx + 1)]
    ys = [float(j) * 1000 for j in range(ny + 1) for i in range(nx + 1)]
    dims = [("nMesh2_node", (nx + 1) * (ny + 1)), ("nMesh2_face", len(faces)),
            ("nMaxMesh2_face_nodes", 4)]
    variables = [
        ("int", "Mesh2", (), {"cf_role": "mesh_topology", "long_name": "mixed tri/quad mesh",
                               "topology_dimension": 2, "node_coordinates": "Mesh2_node_x Mesh2_node_y",
                               "face_node_connectivity": "Mesh2_face_nodes",
                               "face_dimension": "nMesh2_face"}, [0]),
        ("int", "Mesh2_face_nodes", ("nMesh2_face", "nMaxMesh2_face_nodes"),
         {"cf_role": "face_node_connectivity", "start_index": 1, "_FillValue": fill}, fnc),
        ("double", "Mesh2_node_x", ("nMesh2_node",),
         {"standard_name": "projection_x_coordinate", "units": "m"}, xs),
        ("double", "Mesh2_node_y", ("nMesh2_node",),
         {"standard_name": "projection_y_coordinate", "units": "m"}, ys),
    ]
    sides = [len(f) for f in faces]
    present = [sum(d >= 0 for d in row) for row in edge_neighbours(faces)]
    return cdl("ugrid_mixed", dims, variables, [("Conventions", "UGRID-1.0")]), sides, present


def ugrid_sphere(points, tris):
    """UGRID mesh on the sphere, connectivities transposed, start_index 0, face_face with a
    _FillValue."""
    nb = edge_neighbours(tris)
    ll = [lonlat(p) for p in points]
    deg = 180 / math.pi
    dims = [("nNodes", len(points)), ("nFaces", len(tris)), ("nMax", 3)]
    variables = [
        ("int", "mesh", (), {"cf_role": "mesh_topology", "topology_dimension": 2,
                              "node_coordinates": "node_lon node_lat",
                              "face_node_connectivity": "face_nodes",
                              "face_face_connectivity": "face_faces",
                              "face_dimension": "nFaces"}, [0]),
        ("int", "face_nodes", ("nMax", "nFaces"),
         {"cf_role": "face_node_connectivity", "start_index": 0}, flat(transpose(tris))),
        ("int", "face_faces", ("nMax", "nFaces"),
         {"cf_role": "face_face_connectivity", "start_index": 0, "_FillValue": -1},
         flat(transpose(nb))),
        ("double", "node_lon", ("nNodes",), {"standard_name": "longitude",
                                             "units": "degrees_east"}, [p[0] * deg for p in ll]),
        ("double", "node_lat", ("nNodes",), {"standard_name": "latitude",
                                             "units": "degrees_north"}, [p[1] * deg for p in ll]),
    ]
    return cdl("ugrid_sphere", dims, variables, [("Conventions", "UGRID-1.0")])


def scrip(nlon=12, nlat=6):
    """SCRIP grid: a global longitude-latitude grid, degrees, 4 corners counter-clockwise."""
    dlon, dlat = 360.0 / nlon, 180.0 / nlat
    clat, clon, ctr_lat, ctr_lon = [], [], [], []
    for j in range(nlat):
        for i in range(nlon):
            lo0, lo1, la0, la1 = i * dlon, (i + 1) * dlon, -90 + j * dlat, -90 + (j + 1) * dlat
            clon += [lo0, lo1, lo1, lo0]
            clat += [la0, la0, la1, la1]
            ctr_lon.append((i + 0.5) * dlon)
            ctr_lat.append(-90 + (j + 0.5) * dlat)
    n = nlon * nlat
    dims = [("grid_size", n), ("grid_corners", 4), ("grid_rank", 2)]
    d = {"units": "degrees"}
    variables = [
        ("int", "grid_dims", ("grid_rank",), {}, [nlon, nlat]),
        ("double", "grid_center_lat", ("grid_size",), d, ctr_lat),
        ("double", "grid_center_lon", ("grid_size",), d, ctr_lon),
        ("int", "grid_imask", ("grid_size",), {}, [1] * n),
        ("double", "grid_corner_lat", ("grid_size", "grid_corners"), d, clat),
        ("double", "grid_corner_lon", ("grid_size", "grid_corners"), d, clon),
    ]
    return cdl("scrip_grid", dims, variables, [("title", "pillar sample 12x6 lat-lon grid")])


def histogram(counts):
    h = {}
    for k in counts:
        h[k] = h.get(k, 0) + 1
    return ", ".join("%d: %d" % (k, h[k]) for k in sorted(h, reverse=True))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--mpas":
        n = int(sys.argv[2])
        if n < 1 or n > 256:
            sys.exit("make-samples.py: --mpas N: N from 1 to 256")
        points, tris = geodesic(n)
        text, degrees, present = mpas(points, tris)
        assert len(degrees) == 10 * n * n + 2 and degrees.count(5) == 12
        ncgen(text, sys.argv[3], 5)
        print("%s: %d cells, edges %s" % (sys.argv[3], len(degrees), histogram(degrees)))
        return
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "data")
    os.makedirs(out, exist_ok=True)
    points, tris = geodesic(2)
    assert len(tris) == 80 and len(points) == 42
    text = icon(points, tris)
    for kind, name in ((1, "classic"), (2, "64bit"), (5, "cdf5"), (3, "netcdf4")):
        ncgen(text, os.path.join(out, "icon-%s.nc" % name), kind)
    ncgen(ugrid_sphere(points, tris), os.path.join(out, "ugrid-sphere.nc"), 3)

    points3, tris3 = geodesic(3)
    text, degrees, present = mpas(points3, tris3)
    assert len(degrees) == 92 and degrees.count(5) == 12 and degrees.count(6) == 80
    ncgen(text, os.path.join(out, "mpas-sphere.nc"), 5)
    # the continent: every cell whose centre lies within 40 degrees of (lon 20, lat 10) that is
    # not a pentagon of the icosahedron
    home = normalise((math.cos(math.radians(10)) * math.cos(math.radians(20)),
                      math.cos(math.radians(10)) * math.sin(math.radians(20)),
                      math.sin(math.radians(10))))
    land = frozenset(p for p in range(len(points3))
                     if dot(points3[p], home) > math.cos(math.radians(40)))
    text, degrees, present = mpas(points3, tris3, land)
    ncgen(text, os.path.join(out, "mpas-coast.nc"), 5)
    print("mpas-coast.nc: %d cells (%d removed), edges %s; neighbours %s"
          % (len(degrees), len(land), histogram(degrees), histogram(present)))

    text, sides, present = ugrid_mixed()
    ncgen(text, os.path.join(out, "ugrid-mixed.nc"), 1)
    print("ugrid-mixed.nc: %d faces, edges %s; neighbours %s"
          % (len(sides), histogram(sides), histogram(present)))
    ncgen(scrip(), os.path.join(out, "scrip-latlon.nc"), 2)
    print("wrote the samples into %s" % out)


if __name__ == "__main__":
    main()
