// disc.geo — a unit disc meshed with triangles by Gmsh, for the README's example:
//   gmsh -2 -format msh41 -o disc.msh docs/disc.geo
SetFactory("OpenCASCADE");
Disk(1) = {0, 0, 0, 1};
Mesh.MeshSizeMax = 0.07;
