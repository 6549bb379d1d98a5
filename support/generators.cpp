// Seeded problem generators (see include/pcluster/generators.hpp for what each one builds).
#include "pcluster/generators.hpp"

#include "pcluster/ordering.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

namespace pcluster {

namespace {

// Relative spread of off-diagonal weights around their base value: enough that no two entries
// are likely to be equal, small enough to keep the stencil's character (signs, dominance).
constexpr double kWeightSpread = 0.25;

// Graph500 R-MAT (Kronecker) initiator probabilities; d = 1 - a - b - c = 0.05.
constexpr double kRmatA = 0.57, kRmatB = 0.19, kRmatC = 0.19;

std::uint64_t splitmix64(std::uint64_t x)
{
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// A uniform double in [0,1) from 53 random bits.
double unit(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

// Symmetric pseudo-random factor in [1, 1 + kWeightSpread) for the entry pair {i, j}.
double pair_factor(std::uint64_t seed, Count i, Count j)
{
  const auto lo = static_cast<std::uint64_t>(std::min(i, j)), hi = static_cast<std::uint64_t>(std::max(i, j));
  return 1.0 + kWeightSpread * unit(splitmix64(splitmix64(seed ^ (lo * 0x9E3779B97F4A7C15ull)) + hi));
}

// A 3D stencil on an n^3 grid with bs unknowns per node: neighbours (dx,dy,dz) in {-1,0,1}^3
// with |dx|+|dy|+|dz| <= max_l1 (1: 7-point, 3: 27-point); every coupled node pair is a dense
// bs x bs block. Node numbering x fastest; row = bs*node + component.
template <class I, class V>
CsrMatrix<I, V> stencil3d(I n, int max_l1, int bs, std::uint64_t seed)
{
  if (n < 0) throw std::invalid_argument("grid size n = " + std::to_string(static_cast<long long>(n)) + " must be >= 0");
  const Count nn = static_cast<Count>(n);
  const Count nodes = nn * nn * nn;
  CsrMatrix<I, V> A;
  A.nrows = A.ncols = checked_index<I>(nodes * bs, "rows");
  A.rowptr.assign(static_cast<std::size_t>(A.nrows) + 1, I(0));
  const int per_row = (max_l1 >= 3 ? 27 : 7) * bs;
  A.colidx.reserve(static_cast<std::size_t>(nodes * bs * per_row));
  A.values.reserve(static_cast<std::size_t>(nodes * bs * per_row));
  for (Count z = 0; z < nn; ++z)
    for (Count y = 0; y < nn; ++y)
      for (Count x = 0; x < nn; ++x) {
        const Count node = x + nn * (y + nn * z);
        for (int a = 0; a < bs; ++a) {
          const Count row = bs * node + a;
          std::size_t diag_pos = 0;
          double offsum = 0;
          // dz outermost, dx innermost: neighbour node numbers, hence columns, increase.
          for (int dz = -1; dz <= 1; ++dz)
            for (int dy = -1; dy <= 1; ++dy)
              for (int dx = -1; dx <= 1; ++dx) {
                if (std::abs(dx) + std::abs(dy) + std::abs(dz) > max_l1) continue;
                const Count qx = x + dx, qy = y + dy, qz = z + dz;
                if (qx < 0 || qy < 0 || qz < 0 || qx >= nn || qy >= nn || qz >= nn) continue;
                const Count q = qx + nn * (qy + nn * qz);
                for (int c = 0; c < bs; ++c) {
                  const Count col = bs * q + c;
                  A.colidx.push_back(static_cast<I>(col));
                  if (col == row) {
                    diag_pos = A.values.size();
                    A.values.push_back(V(0));
                  } else {
                    const double v = (a == c ? -1.0 : -0.5) * pair_factor(seed, row, col);
                    offsum += std::abs(v);
                    A.values.push_back(static_cast<V>(v));
                  }
                }
              }
          A.values[diag_pos] = static_cast<V>(1.0 + offsum);
          A.rowptr[static_cast<std::size_t>(row) + 1] = checked_index<I>(static_cast<Count>(A.colidx.size()), "nonzeros");
        }
      }
  return A;
}

// CSR of a symmetric graph given as sorted, unique (u, v) keys packed as u << 32 | v, u != v.
// With `diagonal`, every row also gets its diagonal entry, 1 + the sum of the row's weights.
template <class I, class V>
CsrMatrix<I, V> graph_from_sorted_keys(Count nv, const std::vector<std::uint64_t> &keys, bool diagonal, std::uint64_t seed)
{
  CsrMatrix<I, V> A;
  A.nrows = A.ncols = checked_index<I>(nv, "vertices");
  const Count nnz = static_cast<Count>(keys.size()) + (diagonal ? nv : 0);
  checked_index<I>(nnz, "nonzeros");
  A.rowptr.assign(static_cast<std::size_t>(nv) + 1, I(0));
  A.colidx.reserve(static_cast<std::size_t>(nnz));
  A.values.reserve(static_cast<std::size_t>(nnz));
  std::size_t k = 0;
  for (Count u = 0; u < nv; ++u) {
    double sum = 0;
    std::size_t diag_pos = 0;
    bool diag_done = !diagonal;
    for (; k < keys.size() && static_cast<Count>(keys[k] >> 32) == u; ++k) {
      const Count v = static_cast<Count>(keys[k] & 0xffffffffull);
      if (!diag_done && v > u) {
        diag_pos = A.colidx.size();
        A.colidx.push_back(static_cast<I>(u));
        A.values.push_back(V(0));
        diag_done = true;
      }
      const double w = pair_factor(seed, u, v);
      sum += w;
      A.colidx.push_back(static_cast<I>(v));
      A.values.push_back(static_cast<V>(w));
    }
    if (!diag_done) {
      diag_pos = A.colidx.size();
      A.colidx.push_back(static_cast<I>(u));
      A.values.push_back(V(0));
    }
    if (diagonal) A.values[diag_pos] = static_cast<V>(1.0 + sum);
    A.rowptr[static_cast<std::size_t>(u) + 1] = static_cast<I>(A.colidx.size());
  }
  return A;
}

} // namespace

template <class I, class V>
CsrMatrix<I, V> poisson3d_7pt(I n, std::uint64_t seed)
{
  return stencil3d<I, V>(n, 1, 1, seed);
}

template <class I, class V>
CsrMatrix<I, V> stencil3d_27pt(I n, std::uint64_t seed)
{
  return stencil3d<I, V>(n, 3, 1, seed);
}

template <class I, class V>
CsrMatrix<I, V> elasticity3d_27pt(I n, std::uint64_t seed)
{
  return stencil3d<I, V>(n, 3, 3, seed);
}

template <class I, class V>
CsrMatrix<I, V> rmat(int scale, int edge_factor, bool diagonal, std::uint64_t seed)
{
  if (scale < 0 || scale > 31) throw std::invalid_argument("R-MAT scale " + std::to_string(scale) + " must be in [0, 31]");
  if (edge_factor < 0) throw std::invalid_argument("R-MAT edge factor must be >= 0");
  const Count nv = Count(1) << scale;
  const Count ne = static_cast<Count>(edge_factor) * nv;
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> keys;
  keys.reserve(static_cast<std::size_t>(2 * ne));
  for (Count e = 0; e < ne; ++e) {
    std::uint64_t u = 0, v = 0;
    for (int level = 0; level < scale; ++level) {
      const double r = unit(rng());
      const std::uint64_t ubit = r >= kRmatA + kRmatB, vbit = (r >= kRmatA && r < kRmatA + kRmatB) || r >= kRmatA + kRmatB + kRmatC;
      u = (u << 1) | ubit;
      v = (v << 1) | vbit;
    }
    if (u == v) continue; // self loop
    keys.push_back(u << 32 | v);
    keys.push_back(v << 32 | u);
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return graph_from_sorted_keys<I, V>(nv, keys, diagonal, seed);
}

template <class I, class V>
CsrMatrix<I, V> random_geometric_2d(I npoints, double avg_degree, bool diagonal, std::uint64_t seed)
{
  if (npoints < 0) throw std::invalid_argument("random geometric graph: npoints must be >= 0");
  if (!(avg_degree > 0)) throw std::invalid_argument("random geometric graph: avg_degree must be > 0");
  const Count np = static_cast<Count>(npoints);
  if (np == 0) return CsrMatrix<I, V>{};
  const double pi = 3.14159265358979323846;
  const double r = std::sqrt(avg_degree / (pi * static_cast<double>(np)));
  const Count g = std::max<Count>(1, static_cast<Count>(std::floor(1.0 / r))); // cells per side, side 1/g >= r
  std::mt19937_64 rng(seed);
  std::vector<double> px(static_cast<std::size_t>(np)), py(static_cast<std::size_t>(np));
  for (Count p = 0; p < np; ++p) {
    px[p] = unit(rng());
    py[p] = unit(rng());
  }
  auto cell_of = [g](double x, double y) {
    const Count cx = std::min<Count>(g - 1, static_cast<Count>(x * static_cast<double>(g)));
    const Count cy = std::min<Count>(g - 1, static_cast<Count>(y * static_cast<double>(g)));
    return cx + g * cy;
  };
  // Counting sort of the points by cell: the new number of a point is its position.
  std::vector<Count> cell_start(static_cast<std::size_t>(g * g) + 1, 0);
  for (Count p = 0; p < np; ++p) ++cell_start[static_cast<std::size_t>(cell_of(px[p], py[p])) + 1];
  for (std::size_t c = 0; c < static_cast<std::size_t>(g * g); ++c) cell_start[c + 1] += cell_start[c];
  std::vector<double> sx(px.size()), sy(py.size());
  {
    std::vector<Count> pos(cell_start.begin(), cell_start.end() - 1);
    for (Count p = 0; p < np; ++p) {
      const Count k = pos[static_cast<std::size_t>(cell_of(px[p], py[p]))]++;
      sx[k] = px[p];
      sy[k] = py[p];
    }
  }
  CsrMatrix<I, V> A;
  A.nrows = A.ncols = npoints;
  A.rowptr.assign(static_cast<std::size_t>(np) + 1, I(0));
  A.colidx.reserve(static_cast<std::size_t>(static_cast<double>(np) * avg_degree * 1.1));
  A.values.reserve(A.colidx.capacity());
  const double r2 = r * r;
  for (Count p = 0; p < np; ++p) {
    const Count c = cell_of(sx[p], sy[p]), cx = c % g, cy = c / g;
    std::size_t diag_pos = 0;
    double sum = 0;
    // Neighbour cells in increasing cell number, points in a cell in increasing number: the
    // columns come out sorted.
    for (Count ny = std::max<Count>(0, cy - 1); ny <= std::min(g - 1, cy + 1); ++ny)
      for (Count nx = std::max<Count>(0, cx - 1); nx <= std::min(g - 1, cx + 1); ++nx) {
        const Count nc = nx + g * ny;
        for (Count q = cell_start[nc]; q < cell_start[nc + 1]; ++q) {
          if (q == p) {
            if (diagonal) {
              diag_pos = A.colidx.size();
              A.colidx.push_back(static_cast<I>(p));
              A.values.push_back(V(0));
            }
            continue;
          }
          const double dx = sx[q] - sx[p], dy = sy[q] - sy[p];
          if (dx * dx + dy * dy < r2) {
            A.colidx.push_back(static_cast<I>(q));
            const double w = pair_factor(seed, p, q);
            sum += w;
            A.values.push_back(static_cast<V>(w));
          }
        }
      }
    if (diagonal) A.values[diag_pos] = static_cast<V>(1.0 + sum);
    A.rowptr[static_cast<std::size_t>(p) + 1] = checked_index<I>(static_cast<Count>(A.colidx.size()), "nonzeros");
  }
  return A;
}

template <class I, class V>
CsrMatrix<I, V> permute_symmetric(const CsrView<I, V> &A, const std::vector<I> &perm, int block_size)
{
  if (A.nrows != A.ncols)
    throw std::invalid_argument("permute_symmetric: the matrix is " + std::to_string(static_cast<long long>(A.nrows)) + " x " +
                                std::to_string(static_cast<long long>(A.ncols)) + ", not square");
  if (block_size < 1 || A.nrows % block_size != 0)
    throw std::invalid_argument("permute_symmetric: block size " + std::to_string(block_size) + " does not divide the size " +
                                std::to_string(static_cast<long long>(A.nrows)));
  const Count bs = block_size, nodes = static_cast<Count>(A.nrows) / bs;
  if (static_cast<Count>(perm.size()) != nodes)
    throw std::invalid_argument("permute_symmetric: the permutation has " + std::to_string(perm.size()) + " entries, expected " +
                                std::to_string(nodes) + " (one per node)");
  std::vector<I> inv(static_cast<std::size_t>(nodes), I(-1));
  for (Count p = 0; p < nodes; ++p) {
    const Count q = static_cast<Count>(perm[static_cast<std::size_t>(p)]);
    if (q < 0 || q >= nodes || inv[static_cast<std::size_t>(q)] != I(-1))
      throw std::invalid_argument("permute_symmetric: not a permutation (entry " + std::to_string(p) + " = " + std::to_string(q) + ")");
    inv[static_cast<std::size_t>(q)] = static_cast<I>(p);
  }
  // Node p moves to perm[p]: row r of the result is row (node inv[r / bs], component r % bs) of A,
  // and column j of A becomes bs * perm[j / bs] + j % bs.
  std::vector<I> row_order(static_cast<std::size_t>(A.nrows)), col_new(static_cast<std::size_t>(A.nrows));
  for (Count r = 0; r < static_cast<Count>(A.nrows); ++r) {
    row_order[static_cast<std::size_t>(r)] = static_cast<I>(bs * static_cast<Count>(inv[static_cast<std::size_t>(r / bs)]) + r % bs);
    col_new[static_cast<std::size_t>(r)] = static_cast<I>(bs * static_cast<Count>(perm[static_cast<std::size_t>(r / bs)]) + r % bs);
  }
  return permute(A, row_order.data(), col_new.data());
}

template <class I, class V>
CsrMatrix<I, V> permute_symmetric(const CsrView<I, V> &A, std::uint64_t seed, int block_size)
{
  if (block_size < 1 || A.nrows % block_size != 0)
    throw std::invalid_argument("permute_symmetric: block size " + std::to_string(block_size) + " does not divide the size " +
                                std::to_string(static_cast<long long>(A.nrows)));
  return permute_symmetric(A, random_permutation<I>(A.nrows / block_size, seed), block_size);
}

#define PCLUSTER_INSTANTIATE_GEN(I, V)                                                                              \
  template CsrMatrix<I, V> poisson3d_7pt<I, V>(I, std::uint64_t);                                                   \
  template CsrMatrix<I, V> stencil3d_27pt<I, V>(I, std::uint64_t);                                                  \
  template CsrMatrix<I, V> elasticity3d_27pt<I, V>(I, std::uint64_t);                                               \
  template CsrMatrix<I, V> rmat<I, V>(int, int, bool, std::uint64_t);                                                     \
  template CsrMatrix<I, V> random_geometric_2d<I, V>(I, double, bool, std::uint64_t);                                     \
  template CsrMatrix<I, V> permute_symmetric<I, V>(const CsrView<I, V> &, const std::vector<I> &, int);             \
  template CsrMatrix<I, V> permute_symmetric<I, V>(const CsrView<I, V> &, std::uint64_t, int);
PCLUSTER_INSTANTIATE_GEN(std::int32_t, double)
PCLUSTER_INSTANTIATE_GEN(std::int64_t, double)
PCLUSTER_INSTANTIATE_GEN(std::int32_t, float)
PCLUSTER_INSTANTIATE_GEN(std::int64_t, float)
#undef PCLUSTER_INSTANTIATE_GEN

} // namespace pcluster
