// Row orderings of a sparse matrix, applied before row-wise or cluster-wise SpGEMM (the seed paper's
// second result: the order of A's rows changes a product's speed by large factors, and no ordering
// wins everywhere). Each ordering lives in its own file under src/ordering/ with a header comment
// citing its paper; this header is the one entry point.
//
//   std::vector<int> perm = compute_ordering(OrderingType::Rcm, A, options);
//   // perm[k] = the original row placed at position k ("new to old"), a bijection of 0..nrows-1
//
// What an ordering sees. Graph orderings (rcm, amd, nd, gp, rabbit, degree, slashburn) work on an
// undirected graph of A's rows, built by row_graph():
//   - square A:       the pattern of A + A^T without the diagonal (rows i, j adjacent when A(i,j)
//                     or A(j,i) is stored), the usual symmetrisation for non-symmetric matrices;
//   - rectangular A:  rows i, j adjacent when they share a column (the pattern of A A^T without the
//                     diagonal), so rows that touch the same columns of B end up close together.
// gray orders rows by their own column bit patterns, hp partitions the row-net hypergraph (rows are
// vertices, columns are nets), random and natural need no structure. Every ordering accepts empty
// rows, disconnected graphs, a single row and rectangular matrices, and is deterministic for a
// fixed OrderingOptions::seed.
#pragma once

#include "pcluster/csr.hpp"
#include "pcluster/names.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace pcluster {

enum class OrderingType { Natural, Random, Rcm, Amd, Nd, Gp, Hp, Gray, Rabbit, Degree, SlashBurn };

// The one table of names, in the order all_orderings() and messages list them.
inline constexpr Named<OrderingType> kOrderingNames[] = {
  {OrderingType::Natural, "natural"}, {OrderingType::Random, "random"}, {OrderingType::Rcm, "rcm"},
  {OrderingType::Amd, "amd"},         {OrderingType::Nd, "nd"},         {OrderingType::Gp, "gp"},
  {OrderingType::Hp, "hp"},           {OrderingType::Gray, "gray"},     {OrderingType::Rabbit, "rabbit"},
  {OrderingType::Degree, "degree"},   {OrderingType::SlashBurn, "slashburn"},
};
inline const char *to_string(OrderingType t) { return name_of(kOrderingNames, t); }
// Throws std::invalid_argument listing the valid names.
OrderingType ordering_from_string(const std::string &name);
const std::vector<OrderingType> &all_orderings();

struct OrderingOptions {
  std::uint64_t seed = 1;      // random, and the randomised steps of nd, gp, hp (the others break ties by index)
  int parts = 0;               // gp, hp: number of parts; 0 = one part per kPartRows rows (at least 2)
  double hub_fraction = 0.005; // slashburn: hubs removed per round, as a fraction of the rows (>= 1 row)
  int gray_bits = 16;          // gray: columns are folded into this many bits (1..62) for the Gray code
  double gray_dense_fraction = 0.1; // gray: rows with more than this fraction of the columns form
                                    // the dense group, ordered by length ahead of the rest (0..1)
};

// Every member compared: a member added without being listed here fails to compile.
inline bool operator==(const OrderingOptions &x, const OrderingOptions &y)
{
  const auto &[seed, parts, hub_fraction, gray_bits, gray_dense_fraction] = x;
  return seed == y.seed && parts == y.parts && hub_fraction == y.hub_fraction && gray_bits == y.gray_bits &&
         gray_dense_fraction == y.gray_dense_fraction;
}
inline bool operator!=(const OrderingOptions &x, const OrderingOptions &y) { return !(x == y); }

// Rows per part when OrderingOptions::parts is 0 (gp, hp): parts of a few hundred rows keep a part's
// rows of B in cache.
constexpr int kPartRows = 256;
// gray folds a row's columns into at most this many bits: its Gray-code key is a 64-bit integer
// that also carries the row's group.
constexpr int kMaxGrayBits = 62;

// Throws InvalidOption naming the first option out of its range (compute_ordering calls it).
void validate(const OrderingOptions &);

// A permutation of A's rows, new to old. Throws std::invalid_argument for an invalid option (naming
// it) and std::runtime_error when a library (METIS, Zoltan, AMD) reports a failure.
// block_size b > 1: A's rows form nodes of b consecutive rows (dofs of a grid node) that stay
// together and in their order; the ordering runs on the graph of the nodes (row i of the node
// pattern is the union of its rows' columns, each divided by b when b divides ncols). b must divide
// nrows (std::invalid_argument otherwise).
template <class I, class V>
std::vector<I> compute_ordering(OrderingType type, const CsrView<I, V> &A, const OrderingOptions &options = {}, int block_size = 1);

// The undirected row graph described above, as a symmetric CSR pattern with sorted rows and no
// diagonal (values empty).
template <class I, class V>
CsrMatrix<I, V> row_graph(const CsrView<I, V> &A);

// A random permutation of 0..n-1 (Fisher-Yates with std::mt19937_64(seed), no std::*_distribution:
// the same on every platform for a seed); read as perm[old] = new or as new to old alike.
template <class I>
std::vector<I> random_permutation(I n, std::uint64_t seed);

// old_to_new[perm[k]] = k.
template <class I>
std::vector<I> inverse_permutation(const std::vector<I> &perm);

// True when perm is a permutation of 0..n-1.
template <class I>
bool is_permutation_of(const std::vector<I> &perm, I n);

} // namespace pcluster
