// Test helpers for the core unit tests and the fuzzer: seeded matrix generators, an independent
// reference product (the "spec": C = A*B written with a std::map, nothing shared with the kernels),
// and the one comparison of a result with it (compare_csr: exact pattern, each value within the
// rounding of its own terms), which reports the first difference in words.
#pragma once

#include "pcluster/clustering.hpp"
#include "pcluster/csr.hpp"
#include "pcluster/product.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace pctest {

using pcluster::CsrMatrix;
using pcluster::CsrView;

// Bit for bit: memcmp, not ==, since 0.0 == -0.0 would hide a difference.
template <class T>
bool same_bits(const std::vector<T> &a, const std::vector<T> &b)
{
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// A matrix as a sorted map (row, col) -> value: the representation the reference works in.
using Entries = std::map<std::pair<std::int64_t, std::int64_t>, double>;

struct Dense2 {
  std::int64_t nrows = 0, ncols = 0;
  Entries entries;
};

template <class I>
CsrMatrix<I, double> to_csr(const Dense2 &M)
{
  CsrMatrix<I, double> A;
  A.nrows = static_cast<I>(M.nrows);
  A.ncols = static_cast<I>(M.ncols);
  A.rowptr.assign(static_cast<std::size_t>(M.nrows) + 1, I(0));
  for (const auto &e : M.entries) A.rowptr[static_cast<std::size_t>(e.first.first) + 1]++;
  for (std::int64_t i = 0; i < M.nrows; ++i) A.rowptr[i + 1] += A.rowptr[i];
  // std::map iterates in (row, col) order, so columns come out sorted within rows.
  for (const auto &e : M.entries) {
    A.colidx.push_back(static_cast<I>(e.first.second));
    A.values.push_back(e.second);
  }
  return A;
}

template <class I, class V>
Dense2 from_view(const CsrView<I, V> &A)
{
  Dense2 M;
  M.nrows = A.nrows;
  M.ncols = A.ncols;
  for (I i = 0; i < A.nrows; ++i)
    for (I p = A.rowptr[i]; p < A.rowptr[i + 1]; ++p)
      M.entries[{i, A.colidx[p]}] = A.values ? static_cast<double>(A.values[p]) : 1.0;
  return M;
}

// The reference: every structural product term creates the entry (even if values cancel), as the
// symbolic phase of any SpGEMM must. Values of a pattern operand count as 1.
inline Dense2 reference_product(const Dense2 &A, const Dense2 &B)
{
  std::map<std::int64_t, std::vector<std::pair<std::int64_t, double>>> brows;
  for (const auto &e : B.entries) brows[e.first.first].push_back({e.first.second, e.second});
  Dense2 C;
  C.nrows = A.nrows;
  C.ncols = B.ncols;
  for (const auto &a : A.entries) {
    auto it = brows.find(a.first.second);
    if (it == brows.end()) continue;
    for (const auto &b : it->second) C.entries[{a.first.first, b.first}] += a.second * b.second;
  }
  return C;
}

inline std::int64_t reference_flops(const Dense2 &A, const Dense2 &B)
{
  std::map<std::int64_t, std::int64_t> blen;
  for (const auto &e : B.entries) blen[e.first.first]++;
  std::int64_t f = 0;
  for (const auto &a : A.entries) {
    auto it = blen.find(a.first.second);
    if (it != blen.end()) f += it->second;
  }
  return f;
}

inline Dense2 transposed(const Dense2 &M)
{
  Dense2 T;
  T.nrows = M.ncols;
  T.ncols = M.nrows;
  for (const auto &e : M.entries) T.entries[{e.first.second, e.first.first}] = e.second;
  return T;
}

// A product type by its definition (PETSc's operand naming, see pcluster/product.hpp), from the
// reference SpGEMM: nothing shared with the chains the library runs. The association differs from
// the library's where it can (PtAP as (P^T A) P), so the values agree only up to rounding (which
// Reference's scale bounds), and in kind only while they are finite.
inline Dense2 reference_product(pcluster::ProductType t, const std::vector<Dense2> &m)
{
  using pcluster::ProductType;
  switch (t) {
  case ProductType::AB: return reference_product(m[0], m[1]);
  case ProductType::AtB: return reference_product(transposed(m[0]), m[1]);
  case ProductType::ABt: return reference_product(m[0], transposed(m[1]));
  case ProductType::PtAP: return reference_product(reference_product(transposed(m[1]), m[0]), m[1]);
  case ProductType::RARt: return reference_product(reference_product(m[1], m[0]), transposed(m[1]));
  case ProductType::ABC: return reference_product(reference_product(m[0], m[1]), m[2]);
  }
  throw std::logic_error("product type");
}

// The multiply-adds of the chain of SpGEMMs that product.hpp documents for each type (PtAP is
// A*P, then P^T*(AP); ABC is B*C, then A*(BC)): what ProductPlan::flops() must report.
inline std::int64_t reference_chain_flops(pcluster::ProductType t, const std::vector<Dense2> &m)
{
  using pcluster::ProductType;
  switch (t) {
  case ProductType::AB: return reference_flops(m[0], m[1]);
  case ProductType::AtB: return reference_flops(transposed(m[0]), m[1]);
  case ProductType::ABt: return reference_flops(m[0], transposed(m[1]));
  case ProductType::PtAP: return reference_flops(m[0], m[1]) + reference_flops(transposed(m[1]), reference_product(m[0], m[1]));
  case ProductType::RARt:
    return reference_flops(m[0], transposed(m[1])) + reference_flops(m[1], reference_product(m[0], transposed(m[1])));
  case ProductType::ABC: return reference_flops(m[1], m[2]) + reference_flops(m[0], reference_product(m[1], m[2]));
  }
  throw std::logic_error("product type");
}

// The multiply-adds of the fused triple product's numeric phase (SpgemmOptions::triple,
// src/triple_product.hpp) of PtAP, or of RARt with P = R^T. By rows of A: the rows of A*P that P^T
// reaches (those of P's nonempty rows), once each, and for every entry P(k,i) a row of C(i,:)'s
// length. By rows of C: those of P^T*A, then of (P^T*A)*P.
inline std::int64_t reference_fused_flops(pcluster::ProductType t, const std::vector<Dense2> &m, bool by_rows_of_c)
{
  const Dense2 P = t == pcluster::ProductType::PtAP ? m[1] : transposed(m[1]);
  if (by_rows_of_c) {
    const Dense2 Pt = transposed(P);
    return reference_flops(Pt, m[0]) + reference_flops(reference_product(Pt, m[0]), P);
  }
  std::set<std::int64_t> reached; // rows of P with an entry
  for (const auto &e : P.entries) reached.insert(e.first.first);
  Dense2 A_reached = m[0];
  A_reached.entries.clear();
  for (const auto &e : m[0].entries)
    if (reached.count(e.first.first)) A_reached.entries.insert(e);
  std::map<std::int64_t, std::int64_t> c_row_length;
  for (const auto &e : reference_product(transposed(P), reference_product(m[0], P)).entries) c_row_length[e.first.first]++;
  std::int64_t merged = 0;
  for (const auto &e : P.entries) merged += c_row_length[e.first.second];
  return reference_flops(A_reached, P) + merged;
}

// P^T A P as the fused triple product's numeric phase by rows of C sums it, to its bits: each
// (P^T A)(i,j) from +0 over k increasing of P(k,i) A(k,j), then each C(i,c) from +0 over the
// columns j of (P^T A)(i,:) in the order they were first reached (k increasing, then A(k,:) in
// column order) of (P^T A)(i,j) P(j,c). Every structural entry is kept.
inline Dense2 reference_fused(const Dense2 &A, const Dense2 &P)
{
  std::map<std::int64_t, std::vector<std::pair<std::int64_t, double>>> arows, prows, ptrows;
  for (const auto &e : A.entries) arows[e.first.first].push_back({e.first.second, e.second});
  for (const auto &e : P.entries) prows[e.first.first].push_back({e.first.second, e.second});
  for (const auto &e : P.entries) ptrows[e.first.second].push_back({e.first.first, e.second}); // k increasing: P's entries in row order
  Dense2 C;
  C.nrows = C.ncols = P.ncols;
  for (const auto &[i, pt] : ptrows) {
    std::vector<std::int64_t> first_reached;
    std::map<std::int64_t, double> pta;
    for (const auto &[k, p] : pt)
      for (const auto &[j, a] : arows[k]) {
        if (!pta.count(j)) first_reached.push_back(j);
        pta[j] += p * a;
      }
    for (const std::int64_t j : first_reached)
      for (const auto &[c, v] : prows[j]) C.entries[{i, c}] += pta[j] * v;
  }
  return C;
}

// ---------------------------------------------------------------------------------------------
// The one comparison of a result with its reference, for every core test and the fuzzer.
//
// A Reference holds the entries the result must have, their values, and for each entry the scale
// of its rounding: the same product computed on absolute values (sum_k |A(i,k)| |B(k,j)| for AB;
// |P|^T |A| |P| for PtAP, and so on). Whatever the order of summation (the library's kernels, its
// chains, the reference's std::map), a sum of n products differs from the exact one by at most
// about n * 2^-53 * scale, so an entry is compared within rtol of its OWN scale: an entry far below
// the largest is checked as tightly as the largest, and an entry that cancels to ~0 gets an absolute
// floor instead of a relative test it could never pass. rtol = 1e-12 leaves room for some 2000
// terms per entry on both sides, and is still far below any wrong, missing or doubled term.
//
// Exact equality instead (tolerance 0):
//  - exact (every finite operand value an integer): every product and partial sum is an integer,
//    represented exactly while it stays below 2^53, which holds wherever the scale does;
//  - a non-finite scale (an Inf or NaN operand reached the entry, or |values| overflowed): the
//    value must be the same kind, NaN with NaN, +Inf with +Inf, -Inf with -Inf;
//  - exactly(M): a result that must come out bit for bit (a transpose, a permutation, a file read).
// NaN and +-Inf on either side are mismatches unless both hold the same kind.
struct Reference {
  Dense2 product; // the result's entries and values
  Dense2 scale;   // the same pattern: the product of the operands' absolute values
  bool exact = false;
};

inline constexpr double kDefaultRtol = 1e-12;

inline Dense2 absolute(const Dense2 &M)
{
  Dense2 R = M;
  for (auto &e : R.entries) e.second = std::abs(e.second);
  return R;
}

// Every finite value an integer (non-finite values make their entries' scales non-finite, so those
// entries are compared exactly anyway).
inline bool integer_valued(const std::vector<Dense2> &ms)
{
  for (const Dense2 &M : ms)
    for (const auto &e : M.entries)
      if (std::isfinite(e.second) && e.second != std::trunc(e.second)) return false;
  return true;
}

// An operand as a Reference: its values, and their absolute values as its scale.
inline Reference operand(const Dense2 &M) { return {M, absolute(M), integer_valued({M})}; }

inline Reference transposed(const Reference &X) { return {transposed(X.product), transposed(X.scale), X.exact}; }

// X*Y: the reference product of the values and, in the same pass, of the scales (the same SpGEMM
// as reference_product: every structural term creates its entry).
inline Reference times(const Reference &X, const Reference &Y)
{
  struct Term {
    std::int64_t col;
    double value, scale;
  };
  std::map<std::int64_t, std::vector<Term>> yrows;
  auto ys = Y.scale.entries.begin();
  for (const auto &e : Y.product.entries) yrows[e.first.first].push_back({e.first.second, e.second, (ys++)->second});
  std::map<std::pair<std::int64_t, std::int64_t>, std::pair<double, double>> acc;
  auto xs = X.scale.entries.begin();
  for (const auto &a : X.product.entries) {
    const double as = (xs++)->second;
    auto it = yrows.find(a.first.second);
    if (it == yrows.end()) continue;
    for (const Term &t : it->second) {
      auto &c = acc[{a.first.first, t.col}];
      c.first += a.second * t.value;
      c.second += as * t.scale;
    }
  }
  Reference R;
  R.product.nrows = R.scale.nrows = X.product.nrows;
  R.product.ncols = R.scale.ncols = Y.product.ncols;
  for (const auto &c : acc) {
    R.product.entries.emplace_hint(R.product.entries.end(), c.first, c.second.first);
    R.scale.entries.emplace_hint(R.scale.entries.end(), c.first, c.second.second);
  }
  R.exact = X.exact && Y.exact;
  return R;
}

inline Reference reference_of(const Dense2 &A, const Dense2 &B) { return times(operand(A), operand(B)); }

// A product type by its definition, associated as reference_product(ProductType, ...) does.
inline Reference reference_of(pcluster::ProductType t, const std::vector<Dense2> &m)
{
  using pcluster::ProductType;
  switch (t) {
  case ProductType::AB: return times(operand(m[0]), operand(m[1]));
  case ProductType::AtB: return times(transposed(operand(m[0])), operand(m[1]));
  case ProductType::ABt: return times(operand(m[0]), transposed(operand(m[1])));
  case ProductType::PtAP: return times(times(transposed(operand(m[1])), operand(m[0])), operand(m[1]));
  case ProductType::RARt: return times(times(operand(m[1]), operand(m[0])), transposed(operand(m[1])));
  case ProductType::ABC: return times(times(operand(m[0]), operand(m[1])), operand(m[2]));
  }
  throw std::logic_error("product type");
}

// M itself, every value to be matched bit for bit (scale 0: no rounding happens).
inline Reference exactly(const Dense2 &M)
{
  Reference R{M, M, true};
  for (auto &e : R.scale.entries) e.second = 0.0;
  return R;
}

// SpgemmOptions::include_diagonal: every diagonal entry (i,i), i < min(nrows, ncols), in the
// pattern, 0 where the product has none (existing entries keep their values).
inline void add_diagonal(Reference &R)
{
  for (std::int64_t i = 0; i < std::min(R.product.nrows, R.product.ncols); ++i) {
    R.product.entries.insert({{i, i}, 0.0});
    R.scale.entries.insert({{i, i}, 0.0});
  }
}

// The tolerance of one entry of R with the given scale (see Reference).
inline double tolerance_of(const Reference &R, double scale, double rtol)
{
  if (!std::isfinite(scale)) return 0.0;
  if (R.exact && scale < 0x1p53) return 0.0;
  return rtol * scale;
}

// A value as the shortest text that reads back as the same double.
inline std::string show(double v)
{
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

// Compares a CSR result (rowptr, colidx, and values, or nullptr to compare the pattern only) with
// the reference: the same size, row pointers that are a CSR's, in every row the reference's columns
// exactly (in range, sorted, no duplicate, no extra and no missing entry), and each value as
// Reference says. Returns "" when they agree, else the first difference in words:
//   "pattern differs at row <i>: ..."  (an extra entry, an unsorted or out-of-range column)
//   "missing entry (<i>,<j>)"
//   "value at (<i>,<j>) = <got>, reference <want> (|diff| <d>, tolerance <t>)"
template <class I>
std::string compare_csr(const Reference &ref, std::int64_t nrows, std::int64_t ncols, const std::vector<I> &rowptr,
                        const std::vector<I> &colidx, const double *values, double rtol = kDefaultRtol)
{
  std::ostringstream os;
  const Dense2 &want = ref.product;
  if (ref.scale.entries.size() != want.entries.size() || ref.scale.nrows != want.nrows || ref.scale.ncols != want.ncols)
    return "the reference's scale does not have the product's pattern (a bug of the test)";
  if (nrows != want.nrows || ncols != want.ncols) {
    os << "size " << nrows << "x" << ncols << " != reference " << want.nrows << "x" << want.ncols;
    return os.str();
  }
  if (rowptr.size() != static_cast<std::size_t>(nrows) + 1) {
    os << "rowptr has " << rowptr.size() << " entries, expected " << nrows + 1;
    return os.str();
  }
  if (rowptr[0] != 0) return "rowptr[0] = " + std::to_string(rowptr[0]) + ", not 0";
  for (std::int64_t i = 0; i < nrows; ++i)
    if (rowptr[i + 1] < rowptr[i]) {
      os << "rowptr decreases at row " << i << " (" << rowptr[i] << " then " << rowptr[i + 1] << ")";
      return os.str();
    }
  if (static_cast<std::size_t>(rowptr[nrows]) != colidx.size()) {
    os << "rowptr[nrows] = " << rowptr[nrows] << " but colidx has " << colidx.size() << " entries";
    return os.str();
  }
  auto it = want.entries.begin();
  auto sc = ref.scale.entries.begin();
  for (std::int64_t i = 0; i < nrows; ++i) {
    const I b = rowptr[i], e = rowptr[i + 1];
    for (I p = b; p < e; ++p) {
      const std::int64_t j = colidx[p];
      if (j < 0 || j >= ncols) {
        os << "pattern differs at row " << i << ": column " << j << " out of range [0, " << ncols << ")";
        return os.str();
      }
      if (p > b && !(colidx[p - 1] < colidx[p])) {
        os << "pattern differs at row " << i << ": columns not sorted and unique (" << colidx[p - 1] << " then " << j << ")";
        return os.str();
      }
    }
    for (I p = b; p < e; ++p) {
      const std::int64_t j = colidx[p];
      if (it != want.entries.end() && it->first.first == i && it->first.second < j) {
        os << "missing entry (" << i << "," << it->first.second << ")";
        return os.str();
      }
      if (it == want.entries.end() || it->first.first != i || it->first.second != j) {
        os << "pattern differs at row " << i << ": entry (" << i << "," << j << ") is not in the reference";
        return os.str();
      }
      if (values) {
        const double got = values[p], w = it->second;
        const double tol = tolerance_of(ref, sc->second, rtol);
        const double d = std::abs(got - w);
        // NaN-safe: a NaN or infinite got fails d <= tol, and a non-finite reference value takes
        // only its own kind.
        const bool ok = std::isnan(w) ? std::isnan(got) : std::isinf(w) ? got == w : d <= tol;
        if (!ok) {
          os << "value at (" << i << "," << j << ") = " << show(got) << ", reference " << show(w) << " (|diff| " << show(d)
             << ", tolerance " << show(tol) << ")";
          return os.str();
        }
      }
      ++it;
      ++sc;
    }
    if (it != want.entries.end() && it->first.first == i) {
      os << "missing entry (" << i << "," << it->first.second << ")";
      return os.str();
    }
  }
  if (it != want.entries.end()) { // cannot happen: every reference row is below nrows
    os << "missing entry (" << it->first.first << "," << it->first.second << ")";
    return os.str();
  }
  return "";
}

// The same, with the values as an array whose length is checked too (a fused symbolic phase must
// size it to the pattern).
template <class I>
std::string compare_csr(const Reference &ref, std::int64_t nrows, std::int64_t ncols, const std::vector<I> &rowptr,
                        const std::vector<I> &colidx, const std::vector<double> &values, double rtol = kDefaultRtol)
{
  if (values.size() != colidx.size())
    return "values has " + std::to_string(values.size()) + " entries, colidx " + std::to_string(colidx.size());
  return compare_csr<I>(ref, nrows, ncols, rowptr, colidx, values.data(), rtol);
}

// A whole CsrMatrix (values of any type, compared as doubles; an empty values array compares the
// pattern only).
template <class I, class V>
std::string compare_csr(const Reference &ref, const CsrMatrix<I, V> &C, double rtol = kDefaultRtol)
{
  if (!C.values.empty() && C.values.size() != C.colidx.size())
    return "values has " + std::to_string(C.values.size()) + " entries, colidx " + std::to_string(C.colidx.size());
  const std::vector<double> v(C.values.begin(), C.values.end());
  return compare_csr<I>(ref, C.nrows, C.ncols, C.rowptr, C.colidx, v.empty() ? nullptr : v.data(), rtol);
}

// ---------------------------------------------------------------------------------------------
// Generators (all seeded; values uniform in [-1,1] excluding tiny magnitudes so that relative
// tolerances mean something).

inline double random_value(std::mt19937_64 &rng)
{
  std::uniform_real_distribution<double> u(0.1, 1.0);
  std::bernoulli_distribution sign(0.5);
  const double v = u(rng);
  return sign(rng) ? v : -v;
}

inline Dense2 random_matrix(std::int64_t m, std::int64_t n, double density, std::uint64_t seed)
{
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution keep(density);
  Dense2 M;
  M.nrows = m;
  M.ncols = n;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      if (keep(rng)) M.entries[{i, j}] = random_value(rng);
  return M;
}

// Row lengths from a power law: a few rows are very long, most are short.
inline Dense2 powerlaw_matrix(std::int64_t m, std::int64_t n, double alpha, std::uint64_t seed)
{
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uniform_int_distribution<std::int64_t> col(0, n - 1);
  Dense2 M;
  M.nrows = m;
  M.ncols = n;
  for (std::int64_t i = 0; i < m; ++i) {
    // Pareto-distributed length, clipped to n.
    const double len = std::pow(1.0 - u(rng), -1.0 / alpha);
    const std::int64_t L = std::min<std::int64_t>(n, static_cast<std::int64_t>(len));
    for (std::int64_t t = 0; t < L; ++t) M.entries[{i, col(rng)}] = random_value(rng);
  }
  return M;
}

// Rows come in groups that share most of their pattern (clusterable), in a shuffled order.
inline Dense2 grouped_matrix(std::int64_t m, std::int64_t n, std::int64_t group, std::int64_t per_row,
                             std::uint64_t seed, bool shuffle)
{
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> col(0, n - 1);
  std::bernoulli_distribution drop(0.15);
  std::vector<std::int64_t> order(static_cast<std::size_t>(m));
  for (std::int64_t i = 0; i < m; ++i) order[i] = i;
  if (shuffle) std::shuffle(order.begin(), order.end(), rng);
  Dense2 M;
  M.nrows = m;
  M.ncols = n;
  std::vector<std::int64_t> base;
  for (std::int64_t i = 0; i < m; ++i) {
    if (i % group == 0) {
      base.clear();
      for (std::int64_t t = 0; t < per_row; ++t) base.push_back(col(rng));
    }
    for (auto j : base)
      if (!drop(rng)) M.entries[{order[i], j}] = random_value(rng);
    if (drop(rng)) M.entries[{order[i], col(rng)}] = random_value(rng);
  }
  return M;
}

// Node boundaries for node_block_matrix: `nodes` nodes of 1..max_node consecutive indices (seeded).
inline std::vector<std::int64_t> node_starts(std::int64_t nodes, int max_node, std::uint64_t seed)
{
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> size(1, max_node);
  std::vector<std::int64_t> s{0};
  for (std::int64_t k = 0; k < nodes; ++k) s.push_back(s.back() + size(rng));
  return s;
}

// A block matrix by nodes, as a vector PDE's: rows and columns grouped into nodes (node_starts),
// node (I, J) coupled with probability density (and to itself where J = I exists), and a coupled
// pair of nodes stores its whole dense block, except entries dropped with probability holes. So
// rows of a node repeat one another's pattern (where no hole breaks it) and rows of the other
// operand meet them as runs of consecutive columns: src/spgemm_kernel.hpp, repeated_rows.
inline Dense2 node_block_matrix(const std::vector<std::int64_t> &rs, const std::vector<std::int64_t> &cs, double density, double holes,
                                std::uint64_t seed)
{
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution coupled(density), dropped(holes);
  Dense2 M;
  M.nrows = rs.back();
  M.ncols = cs.back();
  for (std::size_t I = 0; I + 1 < rs.size(); ++I)
    for (std::size_t J = 0; J + 1 < cs.size(); ++J) {
      if (I != J && !coupled(rng)) continue;
      for (std::int64_t i = rs[I]; i < rs[I + 1]; ++i)
        for (std::int64_t j = cs[J]; j < cs[J + 1]; ++j)
          if (!dropped(rng)) M.entries[{i, j}] = random_value(rng);
    }
  return M;
}

inline void zero_rows(Dense2 &M, const std::set<std::int64_t> &rows)
{
  for (auto it = M.entries.begin(); it != M.entries.end();)
    it = rows.count(it->first.first) ? M.entries.erase(it) : std::next(it);
}

inline void zero_cols(Dense2 &M, const std::set<std::int64_t> &cols)
{
  for (auto it = M.entries.begin(); it != M.entries.end();)
    it = cols.count(it->first.second) ? M.entries.erase(it) : std::next(it);
}

inline void fill_row(Dense2 &M, std::int64_t i, std::uint64_t seed)
{
  std::mt19937_64 rng(seed);
  for (std::int64_t j = 0; j < M.ncols; ++j) M.entries[{i, j}] = random_value(rng);
}

// Same pattern, new values.
inline Dense2 revalue(const Dense2 &M, std::uint64_t seed)
{
  std::mt19937_64 rng(seed);
  Dense2 R = M;
  for (auto &e : R.entries) e.second = random_value(rng);
  return R;
}

inline Dense2 ones(const Dense2 &M)
{
  Dense2 R = M;
  for (auto &e : R.entries) e.second = 1.0;
  return R;
}

struct NamedPair {
  std::string name;
  Dense2 A, B;
};

// The catalogue of operand pairs every kernel configuration is run on.
inline std::vector<NamedPair> product_cases()
{
  std::vector<NamedPair> cases;
  auto add = [&](std::string name, Dense2 A, Dense2 B) { cases.push_back({std::move(name), std::move(A), std::move(B)}); };

  // Degenerate shapes.
  add("0 rows (0x5 * 5x7)", random_matrix(0, 5, 0.5, 1), random_matrix(5, 7, 0.5, 2));
  add("inner dim 0 (5x0 * 0x7)", random_matrix(5, 0, 0.5, 3), random_matrix(0, 7, 0.5, 4));
  add("0 cols (6x4 * 4x0)", random_matrix(6, 4, 0.5, 5), random_matrix(4, 0, 0.5, 6));
  add("all-zero 5x5 * 5x5", random_matrix(5, 5, 0.0, 7), random_matrix(5, 5, 0.5, 8));
  add("1x1", random_matrix(1, 1, 1.0, 9), random_matrix(1, 1, 1.0, 10));
  add("1x1 times empty", random_matrix(1, 1, 1.0, 11), random_matrix(1, 1, 0.0, 12));
  // Exact cancellation: the entry must stay in the pattern with value 0.
  {
    Dense2 A, B;
    A.nrows = 2, A.ncols = 2, B.nrows = 2, B.ncols = 2;
    A.entries[{0, 0}] = 1, A.entries[{0, 1}] = 1, A.entries[{1, 1}] = 2;
    B.entries[{0, 0}] = 1, B.entries[{1, 0}] = -1, B.entries[{1, 1}] = 3;
    add("cancellation 2x2", A, B);
  }
  // Random, several densities and shapes (square and rectangular).
  const double dens[] = {0.02, 0.1, 0.3, 0.8};
  std::uint64_t seed = 100;
  for (double d : dens) {
    add("random 40x40*40x40 d=" + std::to_string(d), random_matrix(40, 40, d, seed), random_matrix(40, 40, d, seed + 1));
    add("random 37x53*53x29 d=" + std::to_string(d), random_matrix(37, 53, d, seed + 2), random_matrix(53, 29, d, seed + 3));
    seed += 10;
  }
  add("random 1x60*60x70", random_matrix(1, 60, 0.3, 150), random_matrix(60, 70, 0.1, 151));
  add("random 70x1*1x45", random_matrix(70, 1, 0.7, 152), random_matrix(1, 45, 0.5, 153));
  add("random 90x3*3x200 (short rows, wide B)", random_matrix(90, 3, 0.6, 154), random_matrix(3, 200, 0.4, 155));
  add("random 200x150*150x120 d=0.03", random_matrix(200, 150, 0.03, 156), random_matrix(150, 120, 0.03, 157));
  // Empty rows and columns in both operands.
  {
    Dense2 A = random_matrix(50, 45, 0.2, 160), B = random_matrix(45, 55, 0.2, 161);
    zero_rows(A, {0, 1, 7, 20, 21, 22, 49});
    zero_cols(A, {0, 3, 44});
    zero_rows(B, {5, 6, 30});
    zero_cols(B, {0, 10, 11, 54});
    add("empty rows/cols 50x45*45x55", A, B);
  }
  // One dense row in A, and one dense row in B (a hub column k of A reaches every column of C).
  {
    Dense2 A = random_matrix(60, 60, 0.05, 170), B = random_matrix(60, 60, 0.05, 171);
    fill_row(A, 17, 172);
    fill_row(B, 3, 173);
    add("dense rows 60x60", A, B);
  }
  // Power-law rows (A*A-like and A*B).
  {
    Dense2 P = powerlaw_matrix(300, 300, 1.1, 180);
    add("power-law 300x300 squared", P, P);
    add("power-law 250x400 * random 400x80", powerlaw_matrix(250, 400, 0.9, 181), random_matrix(400, 80, 0.02, 182));
  }
  // Clusterable rows, in order and shuffled (hierarchical should find the shuffled groups).
  add("grouped 128x100 in order", grouped_matrix(128, 100, 4, 6, 190, false), random_matrix(100, 90, 0.05, 191));
  add("grouped 130x100 shuffled", grouped_matrix(130, 100, 5, 8, 192, true), random_matrix(100, 90, 0.05, 193));
  // Block structure (bs 3): rows of a node share a pattern.
  {
    Dense2 G = grouped_matrix(96, 96, 3, 9, 194, false);
    add("block bs3 96x96 squared", G, G);
  }
  // Node blocks (vector-PDE-like, nodes of 1..6 dofs): B's repeated rows taken as runs, longer runs
  // than the kernels' (kMaxRun) split; with holes, runs broken in A's rows and in B's.
  {
    const std::vector<std::int64_t> fine = node_starts(30, 6, 195), coarse = node_starts(9, 3, 196);
    const Dense2 N = node_block_matrix(fine, fine, 0.15, 0.0, 197);
    add("node blocks 1..6 squared", N, N);
    add("node blocks with holes * node-block prolongator", node_block_matrix(fine, fine, 0.15, 0.1, 198),
        node_block_matrix(fine, coarse, 0.2, 0.0, 199));
  }
  // Full 64-row clusters: 130 identical rows except row 63 and row 127 (the last row of each
  // 64-row cluster, mask bit 63) which alone hold one more column each.
  {
    Dense2 A;
    A.nrows = 130;
    A.ncols = 50;
    std::mt19937_64 rng(200);
    for (std::int64_t i = 0; i < 130; ++i)
      for (std::int64_t j : {2, 11, 17, 30, 41}) A.entries[{i, j}] = random_value(rng);
    A.entries[{63, 49}] = 1.5;
    A.entries[{127, 48}] = -2.5;
    add("130 identical rows + bit-63 columns", A, random_matrix(50, 70, 0.1, 201));
  }
  // Long output rows (hash tables far above a cache line of entries, dense arrays wide).
  {
    Dense2 A = random_matrix(40, 1500, 0.002, 210);
    for (std::int64_t i : {0, 13, 39}) {
      std::mt19937_64 rng(211 + i);
      std::uniform_int_distribution<std::int64_t> col(0, 1499);
      for (int t = 0; t < 200; ++t) A.entries[{i, col(rng)}] = random_value(rng);
    }
    add("long output rows 40x1500*1500x12000", A, random_matrix(1500, 12000, 0.0015, 212));
  }
  // Hash-unfriendly columns: B is 40 x 2^20 with columns at multiples of 4096 (equal low bits).
  {
    Dense2 B;
    B.nrows = 40;
    B.ncols = std::int64_t(1) << 20;
    std::mt19937_64 rng(220);
    std::uniform_int_distribution<std::int64_t> slot(0, 255);
    for (std::int64_t k = 0; k < 40; ++k)
      for (int t = 0; t < 40; ++t) B.entries[{k, slot(rng) * 4096 + (t % 3)}] = random_value(rng);
    add("strided columns 30x40*40x2^20", random_matrix(30, 40, 0.3, 221), B);
  }
  // A reaches only empty rows of B: C has no entries although A and B do.
  {
    Dense2 A = random_matrix(25, 30, 0.3, 230), B = random_matrix(30, 20, 0.3, 231);
    std::set<std::int64_t> odd;
    for (std::int64_t k = 1; k < 30; k += 2) odd.insert(k);
    zero_cols(A, odd);
    std::set<std::int64_t> even;
    for (std::int64_t k = 0; k < 30; k += 2) even.insert(k);
    zero_rows(B, even);
    add("A meets only empty rows of B", A, B);
  }
  return cases;
}

// Empty string if `cl` is a partition of the rows 0..nrows-1 into non-empty clusters of at most
// `cap` rows, each listed in ascending order; otherwise what is wrong.
template <class I>
std::string partition_error(const pcluster::Clustering<I> &cl, std::int64_t nrows, int cap)
{
  std::ostringstream os;
  if (cl.ptr.empty() || cl.ptr.front() != 0) return "ptr does not start at 0";
  if (static_cast<std::size_t>(cl.ptr.back()) != cl.rows.size()) return "ptr.back() != rows.size()";
  if (static_cast<std::int64_t>(cl.rows.size()) != nrows) {
    os << "clustering lists " << cl.rows.size() << " rows, matrix has " << nrows;
    return os.str();
  }
  std::vector<int> seen(static_cast<std::size_t>(nrows), 0);
  for (I c = 0; c < cl.num_clusters(); ++c) {
    if (cl.size(c) <= 0) {
      os << "cluster " << c << " is empty";
      return os.str();
    }
    if (cl.size(c) > cap) {
      os << "cluster " << c << " has " << cl.size(c) << " rows > cap " << cap;
      return os.str();
    }
    for (I p = cl.ptr[c]; p < cl.ptr[c + 1]; ++p) {
      const I r = cl.rows[p];
      if (r < 0 || r >= nrows) {
        os << "row index " << r << " out of range";
        return os.str();
      }
      if (seen[r]++) {
        os << "row " << r << " appears twice";
        return os.str();
      }
      if (p > cl.ptr[c] && !(cl.rows[p - 1] < r)) {
        os << "cluster " << c << " rows not ascending";
        return os.str();
      }
    }
  }
  if (cl.num_clusters() > 0 && cl.max_size() > cap) return "max_size() > cap";
  return "";
}

} // namespace pctest
