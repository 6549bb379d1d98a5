// Seeded test and benchmark matrices (the generated suite of design/benchmarks.md). No PETSc.
// Part of pcluster_support (support/), the tests' and benchmarks' library, not of the core.
//
// Every generator is deterministic: the same arguments and seed give the same matrix, on every
// platform (std::mt19937_64 and a splitmix64 hash; no std::*_distribution, whose output the
// standard leaves to the implementation). Rows are sorted, without duplicates.
//
// Values are never all equal, so a kernel that adds the right products to the wrong entries is
// caught. The stencil and graph matrices are symmetric in pattern and in value: an off-diagonal
// entry (i,j) = base weight x (1 + 0.25 h(seed, min(i,j), max(i,j))) with h a hash in [0,1);
// the diagonal (where there is one) = 1 + sum of |off-diagonal| of its row, so the matrices are
// symmetric positive definite M-matrix-like operators that an AMG setup can also use.
#pragma once

#include "pcluster/csr.hpp"
#include "pcluster/ordering.hpp"

#include <cstdint>
#include <vector>

namespace pcluster {

// 3D 7-point Laplacian on an n x n x n grid (Dirichlet: boundary neighbours are dropped),
// natural (lexicographic, x fastest) numbering; n^3 rows. Off-diagonal base weight -1.
template <class I, class V>
CsrMatrix<I, V> poisson3d_7pt(I n, std::uint64_t seed = 1);

// 3D 27-point stencil (all neighbours within the unit cube) on an n^3 grid; n^3 rows.
// Off-diagonal base weight -1.
template <class I, class V>
CsrMatrix<I, V> stencil3d_27pt(I n, std::uint64_t seed = 1);

// 3D elasticity-like: the 27-point stencil of dense 3x3 blocks (3 unknowns per grid node,
// node-major numbering: row 3*node + component); 3 n^3 rows, block size 3. Off-diagonal base
// weight -1 between equal components, -0.5 between different ones (inside a node's own block too).
template <class I, class V>
CsrMatrix<I, V> elasticity3d_27pt(I n, std::uint64_t seed = 1);

// R-MAT power-law graph (Graph500 Kronecker parameters a=.57, b=.19, c=.19, d=.05): 2^scale
// vertices, edge_factor * 2^scale generated edges, symmetrised (every edge stored both ways),
// duplicate edges merged, self loops dropped. With `diagonal` (the default) every row also stores
// its diagonal, 1 + the sum of the row's edge weights (an SPD, Laplacian-like shift; isolated
// vertices keep a nonzero row; this matches the nnz(A) = 0.44M of rmat_s14 in benchmarks.md);
// without it, the adjacency matrix of the simple graph. Vertex numbers are not scrambled (use
// permute_symmetric for that). Edge weights: base weight 1, perturbed as above.
template <class I, class V>
CsrMatrix<I, V> rmat(int scale, int edge_factor = 16, bool diagonal = true, std::uint64_t seed = 1);

// 2D random geometric graph: npoints uniform in the unit square, an edge between points closer
// than r = sqrt(avg_degree / (pi npoints)) (expected degree avg_degree away from the border).
// Points are numbered by the cell of a square grid of side >= r (cells row-major, points in a
// cell in generation order): a "sorted", local numbering. O(npoints) with the cell grid.
// By default the adjacency matrix, no diagonal (nnz ~ 5 npoints, as rgg2d in benchmarks.md);
// with `diagonal`, diagonal = 1 + the row's weight sum. Edge weights: base 1, perturbed as above.
template <class I, class V>
CsrMatrix<I, V> random_geometric_2d(I npoints, double avg_degree = 5.0, bool diagonal = false, std::uint64_t seed = 1);

// B = P A P^T for a square A, with B(perm(i), perm(j)) = A(i, j). With block_size b > 1 the
// permutation acts on nodes of b consecutive rows (node p -> perm(p), row b*p+c -> b*perm(p)+c),
// so dense node blocks stay together. Throws std::invalid_argument if A is not square, if b does
// not divide the size, or if perm is not a permutation of the nodes.
template <class I, class V>
CsrMatrix<I, V> permute_symmetric(const CsrView<I, V> &A, const std::vector<I> &perm, int block_size = 1);

// permute_symmetric with random_permutation(nrows / block_size, seed) (include/pcluster/ordering.hpp).
template <class I, class V>
CsrMatrix<I, V> permute_symmetric(const CsrView<I, V> &A, std::uint64_t seed, int block_size = 1);

} // namespace pcluster
