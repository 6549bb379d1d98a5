// The entry point of the row orderings (include/pcluster/ordering.hpp): names, option checks,
// dispatch to the one file per ordering, and the helpers they share (row_graph, permutations).
#include "orderings.hpp"

#include "pcluster/spgemm.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace pcluster {

void validate(const OrderingOptions &o)
{
  // Negated comparisons so that NaN fails too.
  if (!(o.hub_fraction > 0.0 && o.hub_fraction <= 1.0)) throw InvalidOption("hub_fraction", option_text(o.hub_fraction), "in (0, 1]");
  if (o.gray_bits < 1 || o.gray_bits > kMaxGrayBits)
    throw InvalidOption("gray_bits", option_text(o.gray_bits), "in [1, " + std::to_string(kMaxGrayBits) + "]");
  if (!(o.gray_dense_fraction >= 0.0 && o.gray_dense_fraction <= 1.0))
    throw InvalidOption("gray_dense_fraction", option_text(o.gray_dense_fraction), "in [0, 1]");
  if (o.parts < 0) throw InvalidOption("parts", option_text(o.parts), ">= 0 (0 means one part per " + std::to_string(kPartRows) + " rows)");
}

OrderingType ordering_from_string(const std::string &name)
{
  if (const auto type = value_of(kOrderingNames, name.c_str())) return *type;
  throw std::invalid_argument("unknown ordering \"" + name + "\"; valid orderings: " + names_of(kOrderingNames));
}

const std::vector<OrderingType> &all_orderings()
{
  static const std::vector<OrderingType> all = [] {
    std::vector<OrderingType> types;
    for (const auto &entry : kOrderingNames) types.push_back(entry.value);
    return types;
  }();
  return all;
}

namespace {

// compute_ordering with block_size > 1: the ordering of the node pattern, each node expanded to its
// rows in their order.
template <class I, class V>
std::vector<I> order_by_nodes(OrderingType type, const CsrView<I, V> &A, const OrderingOptions &options, int b)
{
  if (A.nrows % b != 0)
    throw std::invalid_argument("compute_ordering: block size " + std::to_string(b) + " does not divide the " + std::to_string(A.nrows) + " rows");
  const I nodes = A.nrows / b, cb = A.ncols % b == 0 ? b : 1;
  CsrMatrix<I, V> N; // the node pattern
  N.nrows = nodes;
  N.ncols = A.ncols / cb;
  N.rowptr.assign(static_cast<std::size_t>(nodes) + 1, I(0));
  std::vector<I> cols;
  for (I k = 0; k < nodes; ++k) {
    cols.clear();
    for (I p = A.rowptr[k * b]; p < A.rowptr[(k + 1) * b]; ++p) cols.push_back(A.colidx[p] / cb);
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    N.colidx.insert(N.colidx.end(), cols.begin(), cols.end());
    N.rowptr[k + 1] = static_cast<I>(N.colidx.size());
  }
  const std::vector<I> node_order = compute_ordering(type, N.view(), options);
  std::vector<I> perm(static_cast<std::size_t>(A.nrows));
  for (I k = 0; k < nodes; ++k)
    for (I c = 0; c < b; ++c) perm[static_cast<std::size_t>(k) * b + c] = node_order[k] * b + c;
  return perm;
}

} // namespace

template <class I, class V>
std::vector<I> compute_ordering(OrderingType type, const CsrView<I, V> &A, const OrderingOptions &options, int block_size)
{
  validate(options);
  validate(A, "compute_ordering: A");
  if (block_size > 1) return order_by_nodes(type, A, options, block_size);
  std::vector<I> perm;
  switch (type) {
  case OrderingType::Natural:
    perm.resize(static_cast<std::size_t>(A.nrows));
    for (I i = 0; i < A.nrows; ++i) perm[static_cast<std::size_t>(i)] = i;
    break;
  case OrderingType::Random: perm = detail::order_random(A, options); break;
  case OrderingType::Rcm: perm = detail::order_rcm(A, options); break;
  case OrderingType::Amd: perm = detail::order_amd(A, options); break;
  case OrderingType::Nd: perm = detail::order_nd(A, options); break;
  case OrderingType::Gp: perm = detail::order_gp(A, options); break;
  case OrderingType::Hp: perm = detail::order_hp(A, options); break;
  case OrderingType::Gray: perm = detail::order_gray(A, options); break;
  case OrderingType::Rabbit: perm = detail::order_rabbit(A, options); break;
  case OrderingType::Degree: perm = detail::order_degree(A, options); break;
  case OrderingType::SlashBurn: perm = detail::order_slashburn(A, options); break;
  default: throw std::invalid_argument("compute_ordering: invalid OrderingType " + std::to_string(static_cast<int>(type)));
  }
  // O(n), and a wrong permutation would silently scramble every product that uses it (the library
  // orderings translate between index conventions, where such slips happen).
  if (!is_permutation_of(perm, A.nrows))
    throw std::logic_error(std::string("compute_ordering: ordering ") + to_string(type) + " did not return a permutation");
  return perm;
}

template <class I, class V>
CsrMatrix<I, V> row_graph(const CsrView<I, V> &A)
{
  validate(A, "row_graph: A");
  const CsrView<I, V> pattern{A.nrows, A.ncols, A.rowptr, A.colidx, nullptr};
  const CsrMatrix<I, V> At = transpose(pattern);
  CsrMatrix<I, V> G;
  G.nrows = A.nrows;
  G.ncols = A.nrows;
  if (A.nrows == A.ncols) {
    // Row i of A + A^T is the sorted union of row i of A and row i of A^T, diagonal dropped.
    G.rowptr.assign(static_cast<std::size_t>(A.nrows) + 1, I(0));
    G.colidx.reserve(static_cast<std::size_t>(2 * A.nnz()));
    for (I i = 0; i < A.nrows; ++i) {
      const I *a = A.colidx + A.rowptr[i], *a_end = A.colidx + A.rowptr[i + 1];
      const I *t = At.colidx.data() + At.rowptr[i], *t_end = At.colidx.data() + At.rowptr[i + 1];
      while (a != a_end || t != t_end) {
        I j;
        if (t == t_end || (a != a_end && *a < *t)) j = *a++;
        else if (a == a_end || *t < *a) j = *t++;
        else j = *a++, ++t;
        if (j != i) G.colidx.push_back(j);
      }
      G.rowptr[static_cast<std::size_t>(i) + 1] = checked_index<I>(static_cast<Count>(G.colidx.size()), "nnz(A + A^T)");
    }
    return G;
  }
  // Rectangular: the pattern of A A^T (rows sharing a column) by our own kernel, diagonal dropped.
  std::vector<I> rowptr, colidx;
  SpgemmPlan<I, V>::symbolic(pattern, At.view(), SpgemmOptions{}, rowptr, colidx);
  G.rowptr.assign(rowptr.size(), I(0));
  G.colidx.reserve(colidx.size());
  for (I i = 0; i < A.nrows; ++i) {
    for (I p = rowptr[i]; p < rowptr[i + 1]; ++p)
      if (colidx[p] != i) G.colidx.push_back(colidx[p]);
    G.rowptr[static_cast<std::size_t>(i) + 1] = static_cast<I>(G.colidx.size());
  }
  return G;
}

template <class I>
std::vector<I> inverse_permutation(const std::vector<I> &perm)
{
  std::vector<I> inverse(perm.size());
  for (std::size_t k = 0; k < perm.size(); ++k) inverse[static_cast<std::size_t>(perm[k])] = static_cast<I>(k);
  return inverse;
}

template <class I>
bool is_permutation_of(const std::vector<I> &perm, I n)
{
  if (n < 0 || perm.size() != static_cast<std::size_t>(n)) return false;
  std::vector<char> seen(perm.size(), 0);
  for (const I p : perm) {
    if (p < 0 || p >= n || seen[static_cast<std::size_t>(p)]) return false;
    seen[static_cast<std::size_t>(p)] = 1;
  }
  return true;
}

#define PCLUSTER_INSTANTIATE_ORDERING(I, V)                                                                        \
  template std::vector<I> compute_ordering<I, V>(OrderingType, const CsrView<I, V> &, const OrderingOptions &, int); \
  template CsrMatrix<I, V> row_graph<I, V>(const CsrView<I, V> &);
PCLUSTER_INSTANTIATE_ORDERING(std::int32_t, double)
PCLUSTER_INSTANTIATE_ORDERING(std::int64_t, double)
PCLUSTER_INSTANTIATE_ORDERING(std::int32_t, float)
PCLUSTER_INSTANTIATE_ORDERING(std::int64_t, float)
#undef PCLUSTER_INSTANTIATE_ORDERING
template std::vector<std::int32_t> inverse_permutation<std::int32_t>(const std::vector<std::int32_t> &);
template std::vector<std::int64_t> inverse_permutation<std::int64_t>(const std::vector<std::int64_t> &);
template bool is_permutation_of<std::int32_t>(const std::vector<std::int32_t> &, std::int32_t);
template bool is_permutation_of<std::int64_t>(const std::vector<std::int64_t> &, std::int64_t);

} // namespace pcluster
