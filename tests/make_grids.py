#!/usr/bin/python3
"""make_grids.py — grid files for grid_readers_cli.sh, written with netCDF4 and numpy.

usage: make_grids.py CASE OUT [ARGS...]
  copy IN OUT [drop=V,V] [set=V:I:VALUE] [gatt=NAME:TEXT] [vatt=V:NAME:INT]
      IN copied to OUT in IN's netCDF variant, without the variables `drop` names, with value I
      of variable V (flat index) set to VALUE (nan, inf, a number), with a global text attribute,
      with an integer attribute of variable V
  esmf-from-icon ICON OUT [start=0|1]
      the ICON grid's triangles as an ESMF unstructured grid: nodeCoords (vlon, vlat in degrees),
      elementConn (vertex_of_cell, counted from start), numElementConn 3, centerCoords
  esmf-from-ugrid UGRID OUT
      a planar UGRID mesh of mixed polygons (face_node_connectivity with a _FillValue) as an ESMF
      grid on a plane (units "m"), elements padded with -1, start_index 0, no centerCoords
  bounds-from-scrip SCRIP OUT
      the SCRIP grid's cells as CF cell bounds: lon/lat (degrees_east/north) with bounds
      lon_bnds/lat_bnds (ncells, nv), the corners as the SCRIP file has them
  bounds-from-mpas MPAS OUT
      the MPAS mesh's cells as CF cell bounds, FESOM's way: each cell's vertices (degrees),
      padded to nv = maxEdges by repeating the last one
  scrip-identical OUT [N]
      N (500000) cells with the same 4 corners, netCDF-4 with zlib: every corner coincides
  scrip-jitter OUT SEED
      SCRIP's 12 x 6 grid of 30-degree cells with each corner moved: not at all, by 1e-9
      degrees (one node with its copies), along a chain of steps of 0.6e-9 radians (one node
      through the chain, though its ends lie 1.2e-9 apart) or by 1e-5 degrees (a node apart)
  check-merge SCRIP MESH
      the corners of SCRIP merged by brute force (every pair within 1e-9 on the unit sphere,
      union-find) into cells as SCRIP's reader describes them (a corner repeated next to itself
      counts once): exit 0 when they are MESH's cell_nodes and node count
  scrip-thin OUT [N]
      N (300000) thin cells in a strip along the meridian of 90 degrees east (x = 0 for half
      the corners): cell i between the latitudes -80 + 160 i / N and -80 + 160 (i + 1) / N
"""
import sys

import netCDF4
import numpy as np


def opts(args):
    out = {}
    for a in args:
        k, _, v = a.partition("=")
        out.setdefault(k, []).append(v)
    return out


def copy(src, dst, *args):
    o = opts(args)
    drop = set(",".join(o.get("drop", [])).split(",")) - {""}
    with netCDF4.Dataset(src) as a, netCDF4.Dataset(dst, "w", format=a.data_model) as b:
        a.set_auto_maskandscale(False)
        b.setncatts({k: a.getncattr(k) for k in a.ncattrs()})
        for g in o.get("gatt", []):
            name, _, text = g.partition(":")
            b.setncattr(name, text)
        for d in a.dimensions.values():
            b.createDimension(d.name, None if d.isunlimited() else len(d))
        for v in a.variables.values():
            if v.name in drop:
                continue
            fill = v.getncattr("_FillValue") if "_FillValue" in v.ncattrs() else None
            w = b.createVariable(v.name, v.dtype, v.dimensions, fill_value=fill)
            w.setncatts({k: v.getncattr(k) for k in v.ncattrs() if k != "_FillValue"})
            for a in o.get("vatt", []):
                name, att, value = a.split(":")
                if name == v.name:
                    w.setncattr(att, np.int32(value))
            w.set_auto_maskandscale(False)
            data = np.array(v[...])
            for s in o.get("set", []):
                name, i, value = s.split(":")
                if name == v.name:
                    data.flat[int(i)] = float(value)
            w[...] = data


def esmf_file(out, nodes, units, conn, count, centres=None, start=1, model="NETCDF4"):
    with netCDF4.Dataset(out, "w", format=model) as f:
        f.createDimension("nodeCount", len(nodes))
        f.createDimension("elementCount", len(conn))
        f.createDimension("maxNodePElement", conn.shape[1])
        f.createDimension("coordDim", 2)
        v = f.createVariable("nodeCoords", "f8", ("nodeCount", "coordDim"))
        v.units = units
        v[:] = nodes
        v = f.createVariable("elementConn", "i4", ("elementCount", "maxNodePElement"),
                             fill_value=-1)
        v.long_name = "Node Indices that define the element connectivity"
        v.start_index = np.int32(start)
        v[:] = conn
        f.createVariable("numElementConn", "i1", ("elementCount",))[:] = count
        if centres is not None:
            v = f.createVariable("centerCoords", "f8", ("elementCount", "coordDim"))
            v.units = units
            v[:] = centres
        f.createVariable("elementMask", "i4", ("elementCount",))[:] = 1
        f.gridType = "unstructured mesh"
        f.version = "0.9"


def esmf_from_icon(icon, out, *args):
    start = int(opts(args).get("start", ["1"])[0])
    with netCDF4.Dataset(icon) as a:
        deg = 180 / np.pi
        nodes = np.stack([a["vlon"][:] * deg, a["vlat"][:] * deg], axis=1)
        conn = np.array(a["vertex_of_cell"][:]).T - 1 + start
        centres = np.stack([a["clon"][:] * deg, a["clat"][:] * deg], axis=1)
    esmf_file(out, nodes, "degrees", conn, np.full(len(conn), 3), centres, start,
              model="NETCDF3_CLASSIC")


def esmf_from_ugrid(ugrid, out):
    with netCDF4.Dataset(ugrid) as a:
        a.set_auto_maskandscale(False)
        fv = a["Mesh2_face_nodes"]
        fnc = np.array(fv[:]).astype(np.int64)
        fill, start = fv.getncattr("_FillValue"), fv.getncattr("start_index")
        nodes = np.stack([a["Mesh2_node_x"][:], a["Mesh2_node_y"][:]], axis=1)
    count = (fnc != fill).sum(axis=1)
    conn = np.where(fnc == fill, -1, fnc - start)
    esmf_file(out, nodes, "m", conn, count, None, 0)


def bounds_file(out, lon, lat, blon, blat, model="NETCDF4"):
    with netCDF4.Dataset(out, "w", format=model) as f:
        f.createDimension("ncells", len(lon))
        f.createDimension("vertices", blon.shape[1])
        for name, units, std, c, b in (("lon", "degrees_east", "longitude", lon, blon),
                                       ("lat", "degrees_north", "latitude", lat, blat)):
            v = f.createVariable(name, "f8", ("ncells",))
            v.units, v.standard_name, v.bounds = units, std, name + "_bnds"
            v[:] = c
            f.createVariable(name + "_bnds", "f8", ("ncells", "vertices"))[:] = b
        v = f.createVariable("temp", "f4", ("ncells",))
        v.coordinates = "lon lat"
        v[:] = 0
        f.Conventions = "CF-1.8"


def bounds_from_scrip(scrip, out):
    with netCDF4.Dataset(scrip) as a:
        bounds_file(out, a["grid_center_lon"][:], a["grid_center_lat"][:],
                    a["grid_corner_lon"][:], a["grid_corner_lat"][:], model="NETCDF3_64BIT_OFFSET")


def bounds_from_mpas(mpas, out):
    with netCDF4.Dataset(mpas) as a:
        deg = 180 / np.pi
        n = np.array(a["nEdgesOnCell"][:])
        voc = np.array(a["verticesOnCell"][:]) - 1
        for c in range(len(n)):  # FESOM's padding: the last vertex repeated
            voc[c, n[c]:] = voc[c, n[c] - 1]
        vlon, vlat = a["lonVertex"][:] * deg, a["latVertex"][:] * deg
        bounds_file(out, a["lonCell"][:] * deg, a["latCell"][:] * deg, vlon[voc], vlat[voc])


def scrip_file(out, clat, clon, corner_lat, corner_lon):
    with netCDF4.Dataset(out, "w", format="NETCDF4") as f:
        f.createDimension("grid_size", len(clat))
        f.createDimension("grid_corners", corner_lat.shape[1])
        f.createDimension("grid_rank", 1)
        f.createVariable("grid_dims", "i4", ("grid_rank",))[:] = len(clat)
        for name, data, dims in (("grid_center_lat", clat, ("grid_size",)),
                                 ("grid_center_lon", clon, ("grid_size",)),
                                 ("grid_corner_lat", corner_lat, ("grid_size", "grid_corners")),
                                 ("grid_corner_lon", corner_lon, ("grid_size", "grid_corners"))):
            v = f.createVariable(name, "f8", dims, zlib=True, complevel=9)
            v.units = "degrees"
            v[:] = data


def scrip_identical(out, n="500000"):
    n = int(n)
    corner_lat = np.tile([10.0, 10.0, 11.0, 11.0], (n, 1))
    corner_lon = np.tile([20.0, 21.0, 21.0, 20.0], (n, 1))
    scrip_file(out, np.full(n, 10.5), np.full(n, 20.5), corner_lat, corner_lon)


def scrip_thin(out, n="300000"):
    n = int(n)
    edges = -80 + 160 * np.arange(n + 1) / n
    la0, la1 = edges[:-1], edges[1:]
    corner_lat = np.stack([la0, la0, la1, la1], axis=1)
    corner_lon = np.tile([90.0, 90.001, 90.001, 90.0], (n, 1))
    scrip_file(out, (la0 + la1) / 2, np.full(n, 90.0005), corner_lat, corner_lon)


def scrip_jitter(out, seed):
    rng = np.random.default_rng(int(seed))
    nlon, nlat, d = 12, 6, 30.0
    i, j = np.meshgrid(np.arange(nlon), np.arange(nlat))
    i, j = i.ravel(), j.ravel()
    corner_lon = np.stack([i, i + 1, i + 1, i], axis=1) * d
    corner_lat = np.stack([j, j, j + 1, j + 1], axis=1) * d - 90
    kind = rng.choice(4, corner_lon.shape, p=[0.4, 0.3, 0.2, 0.1])
    step = np.degrees(0.6e-9)
    move = np.select([kind == 1, kind == 2, kind == 3],
                     [rng.uniform(-1e-9, 1e-9, kind.shape), rng.integers(0, 3, kind.shape) * step,
                      np.full(kind.shape, 1e-5)], 0.0)
    corner_lat = np.clip(corner_lat + move, -90, 90)
    scrip_file(out, (j + 0.5) * d - 90, (i + 0.5) * d, corner_lat, corner_lon)


def check_merge(scrip, mesh):
    with netCDF4.Dataset(scrip) as f:
        lat = np.radians(np.array(f["grid_corner_lat"][:]))
        lon = np.radians(np.array(f["grid_corner_lon"][:]))
    n, w = lat.shape
    p = np.stack([np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)],
                 axis=-1).reshape(-1, 3)
    up = list(range(len(p)))

    def root(a):
        while up[a] != a:
            a = up[a]
        return a
    for a in range(len(p)):
        near = np.nonzero(((p - p[a]) ** 2).sum(axis=1) <= 1e-18)[0]
        for b in near:
            ra, rb = root(a), root(int(b))
            up[max(ra, rb)] = min(ra, rb)
    number = {}
    for a in range(len(p)):
        number.setdefault(root(a), len(number))
    want = []
    for c in range(n):
        row = []
        for k in range(w):
            v = number[root(c * w + k)]
            if not row or (v != row[-1] and (k < w - 1 or v != row[0])):
                row.append(v)
        if len(row) > 1 and row[-1] == row[0]:
            row.pop()
        want.append(row + [-1] * (w - len(row)))
    with netCDF4.Dataset(mesh) as f:
        f.set_auto_mask(False)
        got = np.array(f["cell_nodes"][:])
        nodes = len(f.dimensions["nNodes"])
    ok = nodes == len(number) and (got == np.array(want)).all()
    print("%s: %d corners merged into %d nodes by brute force; the mesh has %d" %
          ("ok" if ok else "FAIL", len(p), len(number), nodes))
    sys.exit(0 if ok else 1)


CASES = {"copy": copy, "esmf-from-icon": esmf_from_icon, "esmf-from-ugrid": esmf_from_ugrid,
         "bounds-from-scrip": bounds_from_scrip, "bounds-from-mpas": bounds_from_mpas,
         "scrip-identical": scrip_identical, "scrip-thin": scrip_thin,
         "scrip-jitter": scrip_jitter, "check-merge": check_merge}

if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in CASES:
        sys.exit(__doc__)
    CASES[sys.argv[1]](*sys.argv[2:])
