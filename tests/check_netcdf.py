"""check_netcdf.py — pillar's outputs opened with xarray (netCDF4 engine), checked against
references computed here, independently of pillar's code (netcdf_cli.sh writes the files):

  patch.nc  `pillar mesh generate --size 9x7 --levels 3`: named dimensions, neighbours, corner
            nodes and centres equal the lattice's, UGRID topology attributes
  sphere.nc `pillar mesh generate --kind cubed-sphere`: face longitude/latitude in degrees equal
            the ones of the stored Cartesian /coordinates
  mesh.nc   laplap on patch.nc with --output-inputs: out == laplap(in) on the 9x7 lattice
  emu.nc    laplap on an emulated 12x10x4 grid (--size): the same on y*nx + x, attributes
  again.nc  laplap with --input start.nc, a file written here by xarray (named dimensions of its
            own): out == laplap of what this script wrote
  every file: the vertical coordinate nLevels (level index, positive up, axis Z); output fields
            holding NaN declare it as _FillValue, inputs declare none
  series.nc laplap on patch.nc, --steps 5 --output-every 2 --input mesh.nc: an unlimited time
            axis (2, 4, 5), each state == the fold of docs/stencils.md applied here that often
  last.nc   the same run without --output-every: the state after 5 steps with a scalar time = 5,
            equal to series.nc's last state; cont.nc: --steps 2 --input series.nc (its last
            state) == 7 folds
usage: python3 check_netcdf.py DIR write-input | check     (exit 0 pass, 1 fail)
"""
import sys

import numpy as np
import xarray as xr

failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


def no_phony(ds, name):
    dims = list(ds.sizes)
    check(not [d for d in dims if d.startswith("phony_dim")], "%s: named dimensions %s" % (name, dims))


def lattice_neighbours(nx, ny):
    nbr = -np.ones((ny * nx, 4), dtype=np.int64)
    for y in range(ny):
        for x in range(nx):
            c = y * nx + x
            for r, (dx, dy) in enumerate(((-1, 0), (1, 0), (0, -1), (0, 1))):  # W E S N
                if 0 <= x + dx < nx and 0 <= y + dy < ny:
                    nbr[c, r] = (y + dy) * nx + x + dx
    return nbr


def laplap(field, nx, ny):
    """laplap of docs/stencils.md on an [nz][ny*nx] field; NaN within 2 of the border."""
    f = field.reshape(field.shape[0], ny, nx)
    lap = np.full_like(f, np.nan)
    lap[:, 1:-1, 1:-1] = 4 * f[:, 1:-1, 1:-1] - (f[:, 1:-1, :-2] + f[:, 1:-1, 2:] + f[:, :-2, 1:-1]
                                                  + f[:, 2:, 1:-1])
    out = np.full_like(f, np.nan)
    out[:, 2:-2, 2:-2] = 4 * lap[:, 2:-2, 2:-2] - (lap[:, 2:-2, 1:-3] + lap[:, 2:-2, 3:-1]
                                                    + lap[:, 1:-3, 2:-2] + lap[:, 3:-1, 2:-2])
    return out.reshape(field.shape)


def same(a, b):
    """Equal to rounding where b is a number, NaN where b is NaN."""
    nan = np.isnan(b)
    return bool(np.array_equal(np.isnan(a), nan) and
                np.allclose(a[~nan], b[~nan], rtol=1e-12, atol=1e-12))


def check_mesh(d):
    ds = xr.open_dataset(d + "/patch.nc")
    no_phony(ds, "patch.nc")
    nx, ny = 9, 7
    check(dict(ds.sizes) == {"nCells": 63, "nMaxEdges": 4, "nXY": 2, "nNodes": 80},
          "patch.nc: dimension sizes %s" % dict(ds.sizes))
    check(ds["neighbours"].dims == ("nCells", "nMaxEdges"), "patch.nc: neighbours (nCells, nMaxEdges)")
    nbr = ds["neighbours"].fillna(-1).values.astype(np.int64)  # _FillValue -1 reads as NaN
    check(np.array_equal(nbr, lattice_neighbours(nx, ny)), "patch.nc: neighbours == the lattice's")
    corners = np.array([[y * (nx + 1) + x, y * (nx + 1) + x + 1, (y + 1) * (nx + 1) + x + 1,
                         (y + 1) * (nx + 1) + x] for y in range(ny) for x in range(nx)])
    check(np.array_equal(ds["cell_nodes"].values.astype(np.int64), corners),
          "patch.nc: cell_nodes == the cells' corners, counter-clockwise")
    check(np.array_equal(ds["mesh_node_x"].values, np.tile(np.arange(nx + 1.0), ny + 1)) and
          np.array_equal(ds["mesh_node_y"].values, np.repeat(np.arange(ny + 1.0), nx + 1)),
          "patch.nc: node coordinates == the lattice points")
    check(np.array_equal(ds["mesh_face_x"].values, np.tile(np.arange(nx) + 0.5, ny)),
          "patch.nc: face x == the cell centres")
    t = ds["mesh"].attrs
    check(t.get("cf_role") == "mesh_topology" and int(t.get("topology_dimension")) == 2 and
          t.get("face_node_connectivity") == "cell_nodes" and
          t.get("face_face_connectivity") == "neighbours" and
          t.get("node_coordinates") == "mesh_node_x mesh_node_y" and
          t.get("face_coordinates") == "mesh_face_x mesh_face_y",
          "patch.nc: UGRID topology attributes %s" % t)
    check(ds["cell_nodes"].attrs.get("start_index") == 0, "patch.nc: start_index 0")
    check(int(ds.attrs["pillar_mesh_version"]) == 3 and int(ds.attrs["nlevels"]) == 3,
          "patch.nc: version 3, 3 levels")

    sp = xr.open_dataset(d + "/sphere.nc")
    no_phony(sp, "sphere.nc")
    xyz = sp["coordinates"].values
    lon = np.degrees(np.arctan2(xyz[:, 1], xyz[:, 0]))
    lat = np.degrees(np.arcsin(xyz[:, 2] / np.linalg.norm(xyz, axis=1)))
    check(np.allclose(sp["mesh_face_lon"].values, lon, atol=1e-12) and
          np.allclose(sp["mesh_face_lat"].values, lat, atol=1e-12) and
          sp["mesh_face_lon"].attrs.get("units") == "degrees_east" and
          sp["mesh_face_lat"].attrs.get("standard_name") == "latitude",
          "sphere.nc: face longitude/latitude in degrees from /coordinates")


def check_fields(d):
    for name, nx, ny, nz in (("mesh.nc", 9, 7, 3), ("emu.nc", 12, 10, 4)):
        ds = xr.open_dataset(d + "/" + name)
        no_phony(ds, name)
        check(ds["out"].dims == ("nLevels", "nCells") and ds["in"].dims == ("nLevels", "nCells")
              and ds.sizes["nLevels"] == nz and ds.sizes["nCells"] == nx * ny,
              "%s: in, out over (nLevels %d, nCells %d)" % (name, nz, nx * ny))
        check(ds["out"].attrs.get("mesh") == "mesh" and ds["out"].attrs.get("location") == "face",
              "%s: out is placed on the mesh's faces" % name)
        check("mesh_face_x" in ds["out"].coords, "%s: out has the cell centres as coordinates" % name)
        check(same(ds["out"].values, laplap(ds["in"].values, nx, ny)),
              "%s: out == laplap(in) computed here" % name)
        check(int(ds.attrs["pillar_fields_version"]) == 2 and ds.attrs["stencil"] == "laplap",
              "%s: version 2, stencil laplap" % name)
        lev = ds["nLevels"]
        check(list(lev.values) == list(range(nz)) and lev.attrs.get("axis") == "Z"
              and lev.attrs.get("positive") == "up" and lev.attrs.get("units") == "1",
              "%s: vertical coordinate nLevels = 0..%d, axis Z, positive up" % (name, nz - 1))
        fill = ds["out"].encoding.get("_FillValue")
        check(fill is not None and np.isnan(fill) and "_FillValue" not in ds["in"].encoding,
              "%s: out declares _FillValue NaN (it holds NaN), in declares none" % name)
    emu = xr.open_dataset(d + "/emu.nc")
    check(int(emu.attrs["nx"]) == 12 and int(emu.attrs["ny"]) == 10, "emu.nc: nx, ny")
    again = xr.open_dataset(d + "/again.nc")
    start = xr.open_dataset(d + "/start.nc")
    check(same(again["out"].values, laplap(start["in"].values, 12, 10)),
          "again.nc: out == laplap of the input written by xarray")


def fold(state, nx, ny, steps):
    """laplap's iterated step (in -= laplap(in) / 64 where laplap is computed) `steps` times."""
    for _ in range(steps):
        lap = laplap(state, nx, ny)
        state = np.where(np.isnan(lap), state, state - lap / 64)
    return state


def check_series(d):
    start = xr.open_dataset(d + "/mesh.nc")["in"].values
    series = xr.open_dataset(d + "/series.nc")
    no_phony(series, "series.nc")
    check(series["in"].dims == ("time", "nLevels", "nCells") and
          list(series["time"].values) == [2, 4, 5] and
          "time" in series.encoding.get("unlimited_dims", ()),
          "series.nc: in over (time, nLevels, nCells), time = %s unlimited"
          % list(series["time"].values))
    for t, steps in enumerate(series["time"].values):
        check(same(series["in"].values[t], fold(start, 9, 7, int(steps))),
              "series.nc: the state at time %d == %d folds computed here" % (steps, steps))
    check("input" not in series["in"].attrs["long_name"] and
          series["time"].attrs.get("axis") == "T", "series.nc: a state, not an input: %r"
          % series["in"].attrs["long_name"])
    last = xr.open_dataset(d + "/last.nc")
    check(last["in"].dims == ("nLevels", "nCells") and int(last["time"]) == 5 and
          "time" in last["in"].coords and
          last["in"].attrs["long_name"] == "state in of laplap after 5 steps",
          "last.nc: the state after 5 steps, scalar time = 5")
    check(np.array_equal(last["in"].values, series["in"].values[-1]),
          "last.nc == series.nc's last state, bit for bit")
    cont = xr.open_dataset(d + "/cont.nc")
    check(same(cont["in"].values, fold(start, 9, 7, 7)),
          "cont.nc (--input series.nc, 2 more steps) == 7 folds")


def write_input(d):
    y, x = np.mgrid[0:10, 0:12]
    level = np.sin(0.4 * x) * np.cos(0.3 * y)
    data = np.stack([level.ravel() * (z + 1) for z in range(4)])
    xr.Dataset({"in": (("lev", "cell"), data)}).to_netcdf(d + "/start.nc", engine="netcdf4")


if __name__ == "__main__":
    if sys.argv[2] == "write-input":
        write_input(sys.argv[1])
    else:
        check_mesh(sys.argv[1])
        check_fields(sys.argv[1])
        check_series(sys.argv[1])
    sys.exit(1 if failures else 0)
