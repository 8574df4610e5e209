"""check_uxarray.py — a pillar mesh file and a field file on it opened together with uxarray:
the grid has the mesh's cells, nodes and corner lists, and the field lies on its faces with the
values xarray reads (netcdf_cli.sh writes the files).
usage: python check_uxarray.py GRID.nc FIELDS.nc NCELLS NNODES     (exit 0 pass, 1 fail)
"""
import sys

import numpy as np
import uxarray as ux
import xarray as xr

grid_path, data_path, ncells, nnodes = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
uxds = ux.open_dataset(grid_path, data_path)
g = uxds.uxgrid
plain = xr.open_dataset(data_path)
mesh = xr.open_dataset(grid_path)
checks = [
    (g.n_face == ncells and g.n_node == nnodes, "grid: %d faces, %d nodes" % (g.n_face, g.n_node)),
    (np.array_equal(np.asarray(g.face_node_connectivity.values)[:, :4],
                    mesh["cell_nodes"].values.astype(np.int64)), "grid: corners == /cell_nodes"),
    ("n_face" in uxds["out"].dims, "out dims %s" % (uxds["out"].dims,)),
    (np.array_equal(uxds["out"].values, plain["out"].values, equal_nan=True),
     "out: uxarray's values == xarray's"),
]
failed = 0
for ok, what in checks:
    print(("ok: uxarray " if ok else "FAIL: uxarray ") + what)
    failed += not ok
sys.exit(1 if failed else 0)
