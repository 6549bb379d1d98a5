// libFuzzer target: every product type (ProductPlan), kernel, clustering and in-product ordering on
// operands decoded from the input, checked against the std::map reference of the unit tests
// (tests/unit/reference.hpp). fuzz/README.md says how to run it.
//
// Input layout (read front to back; bytes past the end read as 0, so every input decodes):
//   0  product type, % 6: AB AtB ABt PtAP RARt ABC
//   1  bit 0 cluster kernel; bits 1-2 scheme (auto fixed variable hierarchical); bits 3-4 accumulator
//      (auto hash dense auto); bit 5 include_diagonal; bit 6 64-bit indices; bit 7 every operand is
//      one square matrix, passed as the same arrays (A*A, A^T A A, ...)
//   2  cluster_size: 1 + b % 64, or from kBadClusterSize when b >= 0xF0 (out of range)
//   3  jaccard_threshold: b / 200 when b <= 200, else from kBadThreshold
//   4  hierarchical_topk: b % 64, or from kBadTopk when b >= 0xF0
//   5  reorder, % 16: natural random rcm amd nd gp gray rabbit degree slashburn; 10-15 natural
//   6  ordering options: bits 0-3 seed, gray_bits and hub_fraction; bits 4-5 parts (0 1 2 7);
//      bits 6-7 one option out of range (none, gray_bits 63, hub_fraction 0, parts -1)
//   7  bits 0-1 threads - 1; bits 2-4 block size of every operand (kBlockSizes); bits 5-7 operands
//      passed as patterns (values nullptr: every entry counts 1)
//   8  values: bits 0-1 kind (uniform, small integers with zeros, uniform with an Inf/NaN in single
//      SpGEMM types, magnitudes 2^-20..2^20); bits 2-7 seed
//   9  malformed input: bits 0-2 kind (none, unsorted row, duplicate column, column >= ncols,
//      column < 0, decreasing row pointer, row pointer not starting at 0, dimension mismatch);
//      bits 3-4 which operand; bits 5-7 where (for a mismatch: which of the tied sizes grows)
//  10  four dimensions m k n p: b when b <= 200, else b - 200. Operands: AB m x k, k x n; AtB k x m,
//      k x n; ABt m x k, n x k; PtAP k x k, k x n; RARt k x k, n x k; ABC m x k, k x n, n x p
//  14  per operand, a recipe (recipe()) of three bytes: kind (bits 0-2) with modifiers (bit 3
//      every third row empty, bit 4 odd columns empty), a parameter, a seed; the explicit-list
//      kind then reads one (row, column) byte pair per entry.
//
// Checks: the expected std::invalid_argument for malformed input or options out of range, naming
// what is wrong; otherwise no exception, the exact pattern (symbolic alone), values as
// pctest::compare_csr compares them (numeric into garbage: each entry within 1e-12 of its own
// scale, the product of the operands' absolute values; exactly for small integers; NaN and Inf in
// kind), ProductPlan::flops() equal to the reference
// chain's multiply-adds (the fused triple product's: pctest::reference_fused_flops), the fused symbolic with A's analysis reused giving the same product, a
// numeric phase after new values (same patterns) giving the new product, and each clustering
// make_clustering returns a partition of the rows within the size cap (fixed: consecutive groups;
// variable: consecutive rows similar enough to their cluster's first row). A failure prints what
// differs and aborts, so libFuzzer keeps the input.
#include "reference.hpp"

#include "pcluster/clustering.hpp"
#include "pcluster/product.hpp"
#include "pcluster/spgemm.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace pcluster;
using pctest::Dense2;

namespace {

// Bounds that keep one execution in milliseconds (the reference is a std::map). With dimensions up
// to kMaxDim an entry of a chain sums at most kMaxDim terms per step, so the rounding of either
// association stays within about 2 * kMaxDim * 2^-53 of the entry's scale, far below compare_csr's
// default tolerance of 1e-12 of it.
constexpr std::int64_t kMaxDim = 200;
constexpr std::size_t kMaxOperandNnz = 4000;

constexpr int kBadClusterSize[] = {0, -1, kMaxClusterSize + 1, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()};
constexpr double kBadThreshold[] = {-0.01, 1.01, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                                    -std::numeric_limits<double>::infinity()};
constexpr int kBadTopk[] = {-1, kMaxClusterSize, std::numeric_limits<int>::max()};
constexpr OrderingType kOrderings[] = {OrderingType::Natural, OrderingType::Random, OrderingType::Rcm,    OrderingType::Amd,
                                       OrderingType::Nd,      OrderingType::Gp,     OrderingType::Gray,   OrderingType::Rabbit,
                                       OrderingType::Degree,  OrderingType::SlashBurn};
// hp is left out: it starts MPI (Zoltan) inside the fuzzer process.
constexpr int kBlockSizes[] = {1, 1, 2, 3, 4, 5, 8, kMaxClusterSize + 1};

struct Bytes {
  const std::uint8_t *data;
  std::size_t size, pos = 0;
  std::uint8_t next() { return pos < size ? data[pos++] : 0; }
};

// splitmix64: a generator whose stream is fixed by this file alone, so a corpus input means the
// same operands on every machine.
struct Rng {
  std::uint64_t s;
  std::uint64_t next()
  {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::int64_t below(std::int64_t n) { return n > 0 ? static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(n)) : 0; }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

enum class ValueKind { Uniform, SmallIntegers, NonFinite, WideRange };

double draw_value(ValueKind kind, Rng &rng)
{
  const double sign = rng.next() & 1 ? 1.0 : -1.0;
  switch (kind) {
  case ValueKind::SmallIntegers: return static_cast<double>(rng.below(5) - 2);
  case ValueKind::WideRange: return sign * (1.0 + rng.unit()) * std::ldexp(1.0, static_cast<int>(rng.below(41)) - 20);
  default: return sign * (0.1 + 0.9 * rng.unit());
  }
}

// Values for every entry of M (a pattern fixed elsewhere); NonFinite puts one Inf, -Inf or NaN in.
void fill_values(Dense2 &M, ValueKind kind, Rng &rng)
{
  for (auto &e : M.entries) e.second = draw_value(kind, rng);
  if (kind == ValueKind::NonFinite && !M.entries.empty()) {
    auto it = M.entries.begin();
    std::advance(it, rng.below(static_cast<std::int64_t>(M.entries.size())));
    const double special[] = {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                              std::numeric_limits<double>::quiet_NaN()};
    it->second = special[rng.below(3)];
  }
}

// The pattern of one operand (values are filled afterwards).
Dense2 recipe(Bytes &in, std::int64_t R, std::int64_t C)
{
  const std::uint8_t kind = in.next(), param = in.next(), seed = in.next();
  Rng rng{(std::uint64_t(kind) << 16) ^ (std::uint64_t(param) << 8) ^ seed};
  Dense2 M;
  M.nrows = R;
  M.ncols = C;
  auto put = [&](std::int64_t i, std::int64_t j) { M.entries[{i, j}] = 1.0; };
  const double density = (param + 1) / 256.0;
  if (R > 0 && C > 0) {
    switch (kind & 7) {
    case 0: break; // no entries
    case 1:        // uniform density, up to full
      for (std::int64_t i = 0; i < R; ++i)
        for (std::int64_t j = 0; j < C; ++j)
          if (rng.unit() < density) put(i, j);
      break;
    case 2: { // every row the same
      std::vector<std::int64_t> row;
      for (std::int64_t j = 0; j < C; ++j)
        if (rng.unit() < density) row.push_back(j);
      for (std::int64_t i = 0; i < R; ++i)
        for (std::int64_t j : row) put(i, j);
      break;
    }
    case 3: // sparse, with one to three full rows
      for (std::int64_t i = 0; i < R; ++i)
        for (std::int64_t j = 0; j < C; ++j)
          if (rng.unit() < 0.02) put(i, j);
      for (int h = 0; h <= param % 3; ++h) {
        const std::int64_t i = rng.below(R);
        for (std::int64_t j = 0; j < C; ++j) put(i, j);
      }
      break;
    case 4: // explicit entries from the input
      for (int t = 0; t < param; ++t) {
        const std::int64_t i = in.next() % R, j = in.next() % C;
        put(i, j);
      }
      break;
    case 5: // one full column (a hub), plus a diagonal when param is odd
      for (std::int64_t i = 0; i < R; ++i) {
        put(i, param % C);
        if (param & 1) put(i, i % C);
      }
      break;
    case 6: { // groups of consecutive (seed odd: shuffled) rows sharing most of a pattern
      const std::int64_t group = 1 + param % 8, width = 1 + (param / 8) % 8;
      std::vector<std::int64_t> order(static_cast<std::size_t>(R)), base;
      for (std::int64_t i = 0; i < R; ++i) order[i] = i;
      if (seed & 1)
        for (std::int64_t i = R - 1; i > 0; --i) std::swap(order[i], order[rng.below(i + 1)]);
      for (std::int64_t i = 0; i < R; ++i) {
        if (i % group == 0) {
          base.clear();
          for (std::int64_t t = 0; t < width; ++t) base.push_back(rng.below(C));
        }
        for (std::int64_t j : base)
          if (rng.below(7) != 0) put(order[i], j);
      }
      break;
    }
    case 7: // a band around the (rectangular) diagonal
      for (std::int64_t i = 0; i < R; ++i) {
        const std::int64_t c = i * C / R, w = param % 4;
        for (std::int64_t j = std::max<std::int64_t>(0, c - w); j <= std::min(C - 1, c + w); ++j) put(i, j);
      }
      break;
    }
  }
  std::set<std::int64_t> rows, cols;
  if (kind & 8)
    for (std::int64_t i = 0; i < R; i += 3) rows.insert(i);
  if (kind & 16)
    for (std::int64_t j = 1; j < C; j += 2) cols.insert(j);
  pctest::zero_rows(M, rows);
  pctest::zero_cols(M, cols);
  return M;
}

struct Case {
  ProductType type = ProductType::AB;
  SpgemmOptions options;
  bool alias = false, wide_index = false;
  bool clustering_bad = false; // an option of ClusteringOptions out of its documented range
  int block_size = 1;
  unsigned pattern_mask = 0; // operands passed without values
  ValueKind values = ValueKind::Uniform;
  std::uint8_t value_seed = 0;
  int malformed = 0, malformed_operand = 0, malformed_where = 0;
  std::vector<Dense2> operands;
  // What symbolic must reject (empty: nothing), each as text its std::invalid_argument names.
  std::vector<std::string> bad;
};

const char *const kMalformed[] = {"none", "unsorted row", "duplicate column", "column >= ncols", "column < 0",
                                  "decreasing row pointer", "row pointer not starting at 0", "dimension mismatch"};

std::string describe(const Case &c)
{
  std::ostringstream os;
  const SpgemmOptions &o = c.options;
  os << to_string(c.type) << (c.wide_index ? " int64" : " int32") << " kernel=" << to_string(o.kernel)
     << " scheme=" << to_string(o.scheme) << " cluster_size=" << o.clustering.cluster_size
     << " jaccard_threshold=" << o.clustering.jaccard_threshold << " topk=" << o.clustering.hierarchical_topk
     << " accumulator=" << to_string(o.accumulator) << " reorder=" << to_string(o.reorder) << " (seed " << o.ordering.seed
     << ", parts " << o.ordering.parts << ", gray_bits " << o.ordering.gray_bits << ", hub_fraction " << o.ordering.hub_fraction
     << ") include_diagonal=" << o.include_diagonal << " threads=" << o.num_threads << " block_size=" << c.block_size
     << " alias=" << c.alias << " patterns=" << c.pattern_mask << " values=" << static_cast<int>(c.values)
     << " malformed=" << kMalformed[c.malformed] << " (operand " << c.malformed_operand << ")\n";
  for (std::size_t k = 0; k < c.operands.size(); ++k) {
    const Dense2 &M = c.operands[k];
    os << "  operand " << k << ": " << M.nrows << " x " << M.ncols << ", " << M.entries.size() << " entries";
    if (M.entries.size() <= 40) {
      os << ":";
      for (const auto &e : M.entries) os << " (" << e.first.first << "," << e.first.second << ")=" << e.second;
    }
    os << "\n";
  }
  return os.str();
}

[[noreturn]] void fail(const Case &c, const std::string &what)
{
  std::fprintf(stderr, "\nfuzz_spgemm: %s\ncase: %s\n", what.c_str(), describe(c).c_str());
  std::fflush(stderr);
  std::abort();
}

Case decode(Bytes &in)
{
  Case c;
  c.type = static_cast<ProductType>(in.next() % 6);
  SpgemmOptions &o = c.options;
  const std::uint8_t k = in.next();
  o.kernel = k & 1 ? Kernel::Cluster : Kernel::Rowwise;
  o.scheme = static_cast<ClusterScheme>((k >> 1) & 3);
  const Accumulator accs[] = {Accumulator::Auto, Accumulator::Hash, Accumulator::Dense, Accumulator::Auto};
  o.accumulator = accs[(k >> 3) & 3];
  o.include_diagonal = k & 32;
  c.wide_index = k & 64;
  c.alias = k & 128;

  const std::uint8_t cs = in.next(), jt = in.next(), tk = in.next();
  const bool bad_size = cs >= 0xF0, bad_threshold = jt > 200, bad_topk = tk >= 0xF0;
  o.clustering.cluster_size = bad_size ? kBadClusterSize[cs % std::size(kBadClusterSize)] : 1 + cs % kMaxClusterSize;
  o.clustering.jaccard_threshold = bad_threshold ? kBadThreshold[jt % std::size(kBadThreshold)] : jt / 200.0;
  o.clustering.hierarchical_topk = bad_topk ? kBadTopk[tk % std::size(kBadTopk)] : tk % kMaxClusterSize;
  c.clustering_bad = bad_size || bad_threshold || bad_topk;
  if (o.kernel == Kernel::Cluster) { // only the cluster kernel reads them
    if (bad_size) c.bad.push_back("cluster_size");
    if (bad_threshold) c.bad.push_back("jaccard_threshold");
    if (bad_topk) c.bad.push_back("hierarchical_topk");
  }

  const std::uint8_t r = in.next();
  o.reorder = r % 16 < std::size(kOrderings) ? kOrderings[r % 16] : OrderingType::Natural;
  static_assert(std::size(kTripleFormNames) == 4, "two bits pick the triple form");
  o.triple = static_cast<TripleForm>((r >> 4) & 3); // fused (either order, or the choice) or stored
  const std::uint8_t oo = in.next();
  o.ordering.seed = oo & 15;
  o.ordering.gray_bits = 1 + (oo & 15) * 4;
  o.ordering.hub_fraction = (oo & 3) == 3 ? 1.0 : 0.005 + 0.1 * (oo & 3);
  const int parts[] = {0, 1, 2, 7};
  o.ordering.parts = parts[(oo >> 4) & 3];
  const char *const bad_ordering[] = {nullptr, "gray_bits", "hub_fraction", "parts"};
  switch (oo >> 6) {
  case 1: o.ordering.gray_bits = 63; break;
  case 2: o.ordering.hub_fraction = 0; break;
  case 3: o.ordering.parts = -1; break;
  }
  if (oo >> 6 && o.reorder != OrderingType::Natural) c.bad.push_back(bad_ordering[oo >> 6]);

  const std::uint8_t t = in.next();
  o.num_threads = 1 + (t & 3);
  c.block_size = kBlockSizes[(t >> 2) & 7];
  c.pattern_mask = t >> 5;

  const std::uint8_t v = in.next();
  c.values = static_cast<ValueKind>(v & 3);
  // Inf and NaN: only where the reference's association is the library's (one SpGEMM), since
  // (P^T A) P and P^T (A P) may differ in which entries become NaN.
  if (c.values == ValueKind::NonFinite && c.type != ProductType::AB && c.type != ProductType::AtB && c.type != ProductType::ABt)
    c.values = ValueKind::Uniform;
  c.value_seed = v >> 2;

  const std::uint8_t m = in.next();
  c.malformed = m & 7;
  c.malformed_operand = (m >> 3) & 3;
  c.malformed_where = m >> 5;

  std::int64_t d[4];
  for (auto &x : d) {
    const std::uint8_t b = in.next();
    x = b <= kMaxDim ? b : b - kMaxDim;
  }
  if (c.alias) d[0] = d[2] = d[3] = d[1];
  std::vector<std::array<std::int64_t, 2>> shapes;
  switch (c.type) {
  case ProductType::AB: shapes = {{d[0], d[1]}, {d[1], d[2]}}; break;
  case ProductType::AtB: shapes = {{d[1], d[0]}, {d[1], d[2]}}; break;
  case ProductType::ABt: shapes = {{d[0], d[1]}, {d[2], d[1]}}; break;
  case ProductType::PtAP: shapes = {{d[1], d[1]}, {d[1], d[2]}}; break;
  case ProductType::RARt: shapes = {{d[1], d[1]}, {d[2], d[1]}}; break;
  case ProductType::ABC: shapes = {{d[0], d[1]}, {d[1], d[2]}, {d[2], d[3]}}; break;
  }
  const int nops = static_cast<int>(shapes.size());
  c.malformed_operand %= nops;
  if (c.malformed == 7) { // one more row or column where another operand's size must match
    // (operand, 0 rows / 1 columns) of every size that the product type ties to another
    std::vector<std::array<int, 2>> tied;
    switch (c.type) {
    case ProductType::AB: tied = {{0, 1}, {1, 0}}; break;
    case ProductType::AtB: tied = {{0, 0}, {1, 0}}; break;
    case ProductType::ABt: tied = {{0, 1}, {1, 1}}; break;
    case ProductType::PtAP: tied = {{0, 0}, {0, 1}, {1, 0}}; break;
    case ProductType::RARt: tied = {{0, 0}, {0, 1}, {1, 1}}; break;
    case ProductType::ABC: tied = {{0, 1}, {1, 0}, {1, 1}, {2, 0}}; break;
    }
    if (c.alias) c.malformed = 0;
    else {
      const auto [q, which] = tied[static_cast<std::size_t>(c.malformed_where) % tied.size()];
      c.malformed_operand = q;
      shapes[static_cast<std::size_t>(q)][static_cast<std::size_t>(which)] += 1;
      c.bad.push_back(std::string(to_string(c.type)) + ": dimension mismatch");
    }
  }
  if (c.alias) c.pattern_mask = c.pattern_mask & 1 ? 7 : 0; // one matrix: one pattern flag
  Rng vr{c.value_seed};
  for (int q = 0; q < (c.alias ? 1 : nops); ++q) {
    c.operands.push_back(recipe(in, shapes[q][0], shapes[q][1]));
    if (!(c.pattern_mask >> q & 1)) fill_values(c.operands.back(), c.values, vr);
  }
  while (c.alias && static_cast<int>(c.operands.size()) < nops) c.operands.push_back(c.operands[0]);
  return c;
}

// Breaks M's CSR arrays the way the case says; false when M has no place for it (too few entries
// or rows).
template <class I>
bool make_malformed(const Case &c, CsrMatrix<I, double> &M)
{
  const std::size_t nnz = M.colidx.size();
  const std::size_t w = static_cast<std::size_t>(c.malformed_where);
  // A row with at least two entries, counted from the case's "where".
  auto row_with_two = [&]() -> I {
    for (I n = 0; n < M.nrows; ++n) {
      const I i = static_cast<I>((n + w) % static_cast<std::size_t>(M.nrows));
      if (M.rowptr[i + 1] - M.rowptr[i] >= 2) return i;
    }
    return -1;
  };
  switch (c.malformed) {
  case 1:
  case 2: {
    const I i = row_with_two();
    if (i < 0) return false;
    const I p = M.rowptr[i];
    if (c.malformed == 1) std::swap(M.colidx[p], M.colidx[p + 1]);
    else M.colidx[p + 1] = M.colidx[p];
    return true;
  }
  case 3:
  case 4:
    if (nnz == 0) return false;
    M.colidx[w % nnz] = c.malformed == 3 ? M.ncols : I(-1);
    return true;
  case 5: // row i's end below its start, every pointer still within [0, nnz]
    for (I n = 0; n < M.nrows; ++n) {
      const I i = static_cast<I>((n + w) % static_cast<std::size_t>(M.nrows));
      if (i >= 1 && static_cast<std::size_t>(M.rowptr[i + 1]) < nnz) {
        M.rowptr[i] = M.rowptr[i + 1] + 1;
        return true;
      }
    }
    return false;
  case 6:
    if (M.nrows == 0 || nnz == 0) return false;
    M.rowptr[0] = 1;
    return true;
  }
  return false;
}

template <class I>
std::vector<CsrView<I, double>> views(const Case &c, const std::vector<CsrMatrix<I, double>> &mats)
{
  std::vector<CsrView<I, double>> v;
  for (std::size_t q = 0; q < c.operands.size(); ++q) {
    CsrView<I, double> x = mats[c.alias ? 0 : q].view();
    if (c.pattern_mask >> q & 1) x.values = nullptr;
    v.push_back(x);
  }
  return v;
}

template <class I>
std::vector<CsrMatrix<I, double>> to_csr(const Case &c, const std::vector<Dense2> &ops)
{
  std::vector<CsrMatrix<I, double>> mats;
  for (std::size_t q = 0; q < (c.alias ? 1 : ops.size()); ++q) mats.push_back(pctest::to_csr<I>(ops[q]));
  return mats;
}

// make_clustering on one operand: the documented throw, or a partition within the cap with the
// scheme's own shape.
template <class I>
void check_clustering(const Case &c, const CsrView<I, double> &A, const char *name)
{
  const SpgemmOptions &o = c.options;
  const ClusteringOptions &co = o.clustering;
  const bool bad = c.clustering_bad;
  Clustering<I> cl;
  try {
    cl = make_clustering(A, o.scheme, co);
  } catch (const std::invalid_argument &e) {
    if (bad || o.scheme == ClusterScheme::Auto) return;
    fail(c, std::string("make_clustering on ") + name + " threw std::invalid_argument for valid options: " + e.what());
  }
  if (bad || o.scheme == ClusterScheme::Auto) fail(c, std::string("make_clustering on ") + name + " accepted invalid options or scheme auto");
  const std::string err = pctest::partition_error(cl, A.nrows, co.cluster_size);
  if (!err.empty()) fail(c, std::string(to_string(o.scheme)) + " clustering of " + name + " is not a partition: " + err);
  for (I q = 0; q < cl.num_clusters(); ++q) {
    const I first = cl.rows[cl.ptr[q]], size = cl.size(q);
    if (o.scheme == ClusterScheme::Fixed && (first != static_cast<I>(q) * co.cluster_size || (size != co.cluster_size && q + 1 < cl.num_clusters())))
      fail(c, std::string("fixed clustering of ") + name + ": cluster " + std::to_string(q) + " is not the q-th group of cluster_size rows");
    if (o.scheme == ClusterScheme::Variable)
      for (I p = cl.ptr[q] + 1; p < cl.ptr[q + 1]; ++p) {
        const I row = cl.rows[p];
        if (row != cl.rows[p - 1] + 1)
          fail(c, std::string("variable clustering of ") + name + ": cluster " + std::to_string(q) + " is not consecutive rows");
        if (jaccard(A.colidx + A.rowptr[row], A.row_length(row), A.colidx + A.rowptr[first], A.row_length(first)) < co.jaccard_threshold)
          fail(c, std::string("variable clustering of ") + name + ": row " + std::to_string(row) + " joined cluster " + std::to_string(q) +
                      " below the Jaccard threshold");
      }
  }
}

template <class I>
void run(Case &c)
{
  using Plan = ProductPlan<I, double>;
  std::vector<CsrMatrix<I, double>> mats = to_csr<I>(c, c.operands);
  const std::size_t broken = c.alias ? 0 : static_cast<std::size_t>(c.malformed_operand);
  if (c.malformed >= 1 && c.malformed <= 6) {
    if (!make_malformed<I>(c, mats[broken])) c.malformed = 0;
    else { // validate() names the operand as ProductPlan does (PETSc's names), first of all
      const char *const names[] = {"A", c.type == ProductType::PtAP ? "P" : c.type == ProductType::RARt ? "R" : "B", "C"};
      c.bad.push_back(std::string(names[broken]) + ": ");
    }
  }
  const std::vector<CsrView<I, double>> ops = views<I>(c, mats);
  const SpgemmOptions &o = c.options;
  if (c.malformed == 0 || c.malformed == 7) {
    const char *const names[] = {"operand 0", "operand 1", "operand 2"};
    for (std::size_t q = 0; q < (c.alias ? 1 : ops.size()); ++q) check_clustering<I>(c, ops[q], names[q]);
  }
  const std::vector<BlockSizes> bs(ops.size(), BlockSizes{c.block_size, c.block_size});

  std::vector<I> ci, cj;
  std::unique_ptr<Plan> plan;
  try {
    plan = std::make_unique<Plan>(Plan::symbolic(c.type, ops, o, ci, cj, nullptr, bs));
  } catch (const std::invalid_argument &e) {
    if (c.bad.empty()) fail(c, std::string("symbolic threw std::invalid_argument for valid input: ") + e.what());
    // With one problem, the message must name it (several: any of them may be found first).
    if (c.bad.size() == 1 && std::string(e.what()).find(c.bad[0]) == std::string::npos)
      fail(c, std::string("the message does not name '") + c.bad[0] + "': " + e.what());
    return;
  } catch (const std::exception &e) {
    fail(c, std::string("symbolic threw an unexpected exception: ") + e.what());
  }
  if (!c.bad.empty()) fail(c, "symbolic accepted input it must reject (" + c.bad[0] + ")");

  // The reference, as the operands were passed (pattern operands count 1).
  auto expected = [&](const std::vector<CsrView<I, double>> &vs) {
    std::vector<Dense2> ds;
    for (const auto &x : vs) ds.push_back(pctest::from_view(x));
    pctest::Reference ref = pctest::reference_of(c.type, ds);
    if (o.include_diagonal) pctest::add_diagonal(ref);
    return std::make_pair(ref, ds);
  };
  const auto [ref, dense_ops] = expected(ops);
  const std::int64_t m = ref.product.nrows, n = ref.product.ncols;
  std::string err = pctest::compare_csr<I>(ref, m, n, ci, cj, nullptr);
  if (!err.empty()) fail(c, "symbolic pattern: " + err);
  const CsrView<I, double> C{static_cast<I>(m), static_cast<I>(n), ci.data(), cj.data(), nullptr};
  std::vector<double> cv(cj.size(), 7.77e77); // garbage: numeric must write every entry
  plan->numeric(ops, C, cv.data());
  err = pctest::compare_csr<I>(ref, m, n, ci, cj, cv);
  if (!err.empty()) fail(c, "numeric values: " + err);
  // The fused triple product (PtAP, RARt: SpgemmOptions::triple) counts its own work, and has no
  // SpGEMM step with A on the left (no a_analysis()).
  const bool fused = plan->steps().back().fused_triple;
  const Count flops = fused ? pctest::reference_fused_flops(c.type, dense_ops, plan->steps().back().by_rows_of_c) : pctest::reference_chain_flops(c.type, dense_ops);
  if (plan->flops() != flops) fail(c, "flops() = " + std::to_string(plan->flops()) + ", the chain's multiply-adds are " + std::to_string(flops));

  // Fused symbolic with A's analysis (ordering, clusters) taken from the first plan.
  const auto analysis = plan->a_analysis();
  if ((analysis == nullptr) != (c.type == ProductType::AtB || fused))
    fail(c, "a_analysis() is null exactly when A is no step's left factor (AtB, fused PtAP and RARt)");
  std::vector<I> fi, fj;
  std::vector<double> fv;
  Plan::symbolic(c.type, ops, o, fi, fj, &fv, bs, analysis);
  if (fi != ci || fj != cj) fail(c, "fused symbolic with A's analysis reused gives another pattern");
  err = pctest::compare_csr<I>(ref, m, n, fi, fj, fv);
  if (!err.empty()) fail(c, "fused values with A's analysis reused: " + err);

  // New values, same patterns: a numeric phase of the first plan gives the new product.
  std::vector<Dense2> revalued = c.operands;
  Rng vr{c.value_seed + 1000u};
  for (auto &M : revalued) fill_values(M, c.values, vr);
  if (c.alias) revalued.assign(revalued.size(), revalued[0]);
  const std::vector<CsrMatrix<I, double>> mats2 = to_csr<I>(c, revalued);
  const std::vector<CsrView<I, double>> ops2 = views<I>(c, mats2);
  plan->numeric(ops2, C, cv.data());
  err = pctest::compare_csr<I>(expected(ops2).first, m, n, ci, cj, cv);
  if (!err.empty()) fail(c, "numeric after new values: " + err);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
  // FUZZ_SPGEMM_PRINT=1: print each case as decoded (to see what a corpus input holds).
  static const bool print = std::getenv("FUZZ_SPGEMM_PRINT") != nullptr;
  Bytes in{data, size};
  Case c = decode(in);
  if (print) std::fprintf(stderr, "%s", describe(c).c_str());
  for (const Dense2 &M : c.operands)
    if (M.entries.size() > kMaxOperandNnz) {
      if (print) std::fprintf(stderr, "  skipped: an operand has more than %zu entries\n", kMaxOperandNnz);
      return -1; // too slow for the reference: not added to the corpus
    }
  if (c.wide_index) run<std::int64_t>(c);
  else run<std::int32_t>(c);
  return 0;
}
