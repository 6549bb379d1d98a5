// Gray-code ordering (Zhao et al., the Gray-code row reordering evaluated by the seed paper: Islam,
// Xu, Dai & Buluc, "Improving SpGEMM Performance Through Matrix Reordering and Cluster-wise
// Computation", arXiv:2507.21253, §4, where it was the second best ordering for row-wise A^2).
// Rows whose column patterns are alike are placed next to each other, so consecutive rows of A
// fetch the same rows of B while they are in cache.
//
// The rule, exactly (b = OrderingOptions::gray_bits, n = ncols):
//  1. Bit pattern. Column j falls into block floor(j * b / n) of b equal column ranges; a row's
//     word has bit (b - 1 - block) set for each block it touches, so the first columns are the most
//     significant bit.
//  2. Gray rank. The word is read as a code of the b-bit reflected binary Gray sequence and replaced
//     by its position in that sequence (the inverse Gray code: the XOR of all right shifts of the
//     word). Walking the sequence, neighbouring codes differ in one bit, so rows sorted by rank
//     change their set of touched column blocks by as little as possible from one row to the next.
//  3. Dense rows, with more than gray_dense_fraction * n entries, touch so many blocks that their
//     word says little: they come first, by descending length, then by rank.
//  4. The other (sparse) rows follow, by rank. Ties (the same word) keep the original order, so
//     rows with identical patterns end up adjacent and the result is deterministic.
// Dense is measured against the number of columns, not the longest row: on a matrix whose rows
// are all about equally long (a PDE stencil) a fraction of the longest row would call every row
// dense and degrade the ordering to sorting by length.
//
// Non-symmetric and rectangular matrices need nothing special: only each row's own columns are
// used. Cost: O(nnz + m log m).
#include "orderings.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace pcluster::detail {

namespace {

// Position of a code in the reflected binary Gray sequence.
std::uint64_t gray_rank(std::uint64_t code)
{
  for (int shift = 1; shift < 64; shift *= 2) code ^= code >> shift;
  return code;
}

} // namespace

template <class I, class V>
std::vector<I> order_gray(const CsrView<I, V> &A, const OrderingOptions &o)
{
  const auto m = static_cast<std::size_t>(A.nrows);
  const int bits = o.gray_bits;
  std::vector<std::uint64_t> rank(m, 0);
  if (A.ncols > 0) {
    for (I i = 0; i < A.nrows; ++i) {
      std::uint64_t word = 0;
      for (I p = A.row_begin(i); p < A.row_end(i); ++p) {
        // 128-bit product: j * bits overflows 64 bits for 64-bit indices near their limit.
        const auto block = static_cast<int>(static_cast<unsigned __int128>(A.colidx[p]) * static_cast<unsigned>(bits) /
                                            static_cast<unsigned __int128>(A.ncols));
        word |= std::uint64_t(1) << (bits - 1 - block);
      }
      rank[static_cast<std::size_t>(i)] = gray_rank(word);
    }
  }
  const double dense_length = o.gray_dense_fraction * static_cast<double>(A.ncols);
  auto dense = [&](I i) { return static_cast<double>(A.row_length(i)) > dense_length; };

  std::vector<I> perm(m);
  std::iota(perm.begin(), perm.end(), I(0));
  const auto sparse_begin = std::stable_partition(perm.begin(), perm.end(), dense);
  std::stable_sort(perm.begin(), sparse_begin, [&](I a, I b) {
    if (A.row_length(a) != A.row_length(b)) return A.row_length(a) > A.row_length(b);
    return rank[static_cast<std::size_t>(a)] < rank[static_cast<std::size_t>(b)];
  });
  std::stable_sort(sparse_begin, perm.end(),
                   [&](I a, I b) { return rank[static_cast<std::size_t>(a)] < rank[static_cast<std::size_t>(b)]; });
  return perm;
}

template std::vector<std::int32_t> order_gray(const CsrView<std::int32_t, double> &, const OrderingOptions &);
template std::vector<std::int64_t> order_gray(const CsrView<std::int64_t, double> &, const OrderingOptions &);
template std::vector<std::int32_t> order_gray(const CsrView<std::int32_t, float> &, const OrderingOptions &);
template std::vector<std::int64_t> order_gray(const CsrView<std::int64_t, float> &, const OrderingOptions &);

} // namespace pcluster::detail
