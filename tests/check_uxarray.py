"""check_uxarray.py — a file pillar wrote, opened with uxarray (netcdf_cli.sh writes the files).

usage: python check_uxarray.py GRID.nc FIELDS.nc|- NCELLS|- NNODES|-     (exit 0 pass, 1 fail)

GRID.nc (a mesh file, or a field file, which carries its grid) is opened with ux.open_grid: it has
NCELLS faces and NNODES nodes ('-': as many as its nCells and nNodes say), its corners equal the
file's /cell_nodes (-1 as uxarray's fill value), and on a sphere its faces' areas add up to 4 pi.
With FIELDS.nc, ux.open_dataset(GRID, FIELDS) places every field over nCells on the grid's faces
with the values xarray reads (NaN where xarray has NaN)."""
import sys

import numpy as np
import uxarray as ux
import xarray as xr

grid_path, data_path, ncells, nnodes = sys.argv[1:5]
mesh = xr.open_dataset(grid_path)
ncells = mesh.sizes["nCells"] if ncells == "-" else int(ncells)
nnodes = mesh.sizes["nNodes"] if nnodes == "-" else int(nnodes)
g = ux.open_grid(grid_path)
corners = np.asarray(g.face_node_connectivity.values).astype(np.int64)
mine = xr.open_dataset(grid_path, mask_and_scale=False)["cell_nodes"].values.astype(np.int64)
width = mine.shape[1]
theirs = np.where(corners[:, :width] < 0, -1, corners[:, :width])
checks = [
    (g.n_face == ncells and g.n_node == nnodes,
     "%s: %d faces, %d nodes (want %d, %d)" % (grid_path, g.n_face, g.n_node, ncells, nnodes)),
    (np.array_equal(theirs, mine) and np.all(corners[:, width:] < 0),
     "%s: corners == /cell_nodes" % grid_path),
]
if "mesh_node_lon" in mesh:
    area = float(np.sum(g.face_areas.values))
    checks.append((abs(area - 4 * np.pi) < 1e-3 * 4 * np.pi,
                   "%s: the faces cover the sphere: %.6f = 4 pi" % (grid_path, area)))
if data_path != "-":
    uxds = ux.open_dataset(grid_path, data_path)
    plain = xr.open_dataset(data_path)
    fields = [v for v in plain.data_vars if "nCells" in plain[v].dims and v != "cell_nodes"
              and not v.startswith("cell_") and v != "neighbours"]
    checks.append((bool(fields), "%s: fields over nCells: %s" % (data_path, fields)))
    for v in fields:
        checks.append(("n_face" in uxds[v].dims and
                       np.array_equal(uxds[v].values, plain[v].values, equal_nan=True),
                       "%s: %s over %s, uxarray's values == xarray's" % (data_path, v, uxds[v].dims)))
failed = 0
for ok, what in checks:
    print(("ok: uxarray " if ok else "FAIL: uxarray ") + what)
    failed += not ok
sys.exit(1 if failed else 0)
