// Products as chains of SpGEMM and transpose steps (formulations and reasons: product.hpp).
//
// A chain works on numbered slots: the caller's operands (0..2), two intermediates kept by the plan
// (3, 4) and the caller's result (5). Every product type is one table entry below; symbolic and
// numeric walk the same table, so a type cannot compute its pattern one way and its values another.
#include "pcluster/product.hpp"

#include "fault_injection.hpp"
#include "parallel.hpp"
#include "triple_product.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <type_traits>

namespace pcluster {

int operand_count(ProductType t) { return t == ProductType::ABC ? 3 : 2; }

const char *operand_name(ProductType t, int k)
{
  switch (k) {
  case 0: return "A";
  case 1: return t == ProductType::PtAP ? "P" : t == ProductType::RARt ? "R" : "B";
  default: return "C";
  }
}

namespace {

enum Slot : int { kTemp0 = 3, kTemp1 = 4, kResult = 5, kNumSlots = 6 };

enum class StepKind {
  Multiply,         // out = left*right (SpgemmPlan)
  Transpose,        // out = left^T, values refreshed by a gather through the position map
  Triple            // out = right^T*(A*right) (left < 0), or left*(A*right) with left = right^T: A the first
                    // operand, A*right never stored (FusedTripleProduct)
};

struct StepSpec {
  StepKind kind;
  int left, right, out;
  const char *what;
};

std::vector<StepSpec> chain_of(ProductType t, bool fused)
{
  using K = StepKind;
  switch (t) {
  case ProductType::AB: return {{K::Multiply, 0, 1, kResult, "C = A*B"}};
  case ProductType::AtB: return {{K::Transpose, 0, -1, kTemp0, "At = A^T"}, {K::Multiply, kTemp0, 1, kResult, "C = At*B"}};
  case ProductType::ABt: return {{K::Transpose, 1, -1, kTemp0, "Bt = B^T"}, {K::Multiply, 0, kTemp0, kResult, "C = A*Bt"}};
  case ProductType::PtAP:
    if (fused) return {{K::Triple, -1, 1, kResult, "C = Pt*(A*P), fused"}};
    return {{K::Multiply, 0, 1, kTemp0, "AP = A*P"}, {K::Transpose, 1, -1, kTemp1, "Pt = P^T"}, {K::Multiply, kTemp1, kTemp0, kResult, "C = Pt*AP"}};
  case ProductType::RARt:
    if (fused) return {{K::Transpose, 1, -1, kTemp0, "Rt = R^T"}, {K::Triple, 1, kTemp0, kResult, "C = R*(A*Rt), fused"}};
    return {{K::Transpose, 1, -1, kTemp0, "Rt = R^T"}, {K::Multiply, 0, kTemp0, kTemp1, "ARt = A*Rt"}, {K::Multiply, 1, kTemp1, kResult, "C = R*ARt"}};
  case ProductType::ABC: return {{K::Multiply, 1, 2, kTemp0, "BC = B*C"}, {K::Multiply, 0, kTemp0, kResult, "ABC = A*BC"}};
  }
  throw std::invalid_argument("unknown product type");
}

double seconds_since(std::chrono::steady_clock::time_point t0)
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Columns in range, unique within each row, and each part of a row sorted: what the fused triple
// product relies on in a pieced operand (validate() checks a CsrView).
template <class I, class V>
void validate_pieced(const PiecedView<I, V> &M, const char *name)
{
  std::vector<I> seen(static_cast<std::size_t>(M.ncols), I(-1));
  const auto fail = [&](I i, const std::string &what) { throw std::invalid_argument(std::string(name) + ": row " + std::to_string(i) + " " + what); };
  for (I i = 0; i < M.nrows; ++i) {
    M.for_each(i, [&](I c, V) {
      if (c < 0 || c >= M.ncols) fail(i, "has column " + std::to_string(c) + " out of range [0, " + std::to_string(M.ncols) + ")");
      if (seen[c] == i) fail(i, "has column " + std::to_string(c) + " twice");
      seen[c] = i;
    });
    M.for_each_part(i, [&](const I *first, const I *last, I col0, const I *colmap) {
      for (const I *c = first; c < last; ++c)
        if ((colmap ? colmap[c[1]] : col0 + c[1]) <= (colmap ? colmap[c[0]] : col0 + c[0])) fail(i, "is not sorted within a part (block)");
    });
  }
}

} // namespace

// SpgemmOptions::sorted_result false: the fused PtAP by rows of C only, whose columns come out of one
// pass in the order first reached (the other forms and steps need sorted rows).
static void check_sorted_result(ProductType t, const SpgemmOptions &o)
{
  if (!o.sorted_result && !(t == ProductType::PtAP && fused_triple(t, o) && o.triple == TripleForm::FusedRowsOfC && !o.include_diagonal))
    throw std::invalid_argument("unsorted result rows (sorted_result false): the fused PtAP by rows of C only (triple form fused_rows_of_c, no diagonal forced)");
}

// The fused triple product forms A*P's rows row-wise in A's own numbering (triple_product.hpp): it
// serves the row-wise kernel and the cluster kernel's automatic choice; clusters asked for by name,
// and reorderings, take the stored chain.
bool fused_triple(ProductType t, const SpgemmOptions &o)
{
  const bool rowwise_ok = o.kernel == Kernel::Rowwise || o.scheme == ClusterScheme::Auto;
  return (t == ProductType::PtAP || t == ProductType::RARt) && o.triple != TripleForm::Stored && rowwise_ok && o.reorder == OrderingType::Natural;
}

template <class I, class V>
std::array<I, 2> product_dimensions(ProductType type, const std::vector<CsrView<I, V>> &ops)
{
  if (static_cast<int>(ops.size()) != operand_count(type))
    throw std::invalid_argument(std::string(to_string(type)) + ": expected " + std::to_string(operand_count(type)) + " operands, got " +
                                std::to_string(ops.size()));
  auto size = [](const CsrView<I, V> &M) { return std::to_string(M.nrows) + " x " + std::to_string(M.ncols); };
  auto fail = [&](const char *rule) {
    std::string msg = std::string(to_string(type)) + ": dimension mismatch (" + rule + "); ";
    for (std::size_t k = 0; k < ops.size(); ++k) msg += std::string(k ? ", " : "") + operand_name(type, static_cast<int>(k)) + " is " + size(ops[k]);
    throw std::invalid_argument(msg);
  };
  const CsrView<I, V> &A = ops[0], &B = ops[1];
  switch (type) {
  case ProductType::AB:
    if (A.ncols != B.nrows) fail("columns of A must equal rows of B");
    return {A.nrows, B.ncols};
  case ProductType::AtB:
    if (A.nrows != B.nrows) fail("rows of A must equal rows of B");
    return {A.ncols, B.ncols};
  case ProductType::ABt:
    if (A.ncols != B.ncols) fail("columns of A must equal columns of B");
    return {A.nrows, B.nrows};
  case ProductType::PtAP:
    if (A.nrows != A.ncols || A.ncols != B.nrows) fail("A must be square with as many rows as P");
    return {B.ncols, B.ncols};
  case ProductType::RARt:
    if (A.nrows != A.ncols || A.ncols != B.ncols) fail("A must be square with as many columns as R");
    return {B.nrows, B.nrows};
  case ProductType::ABC:
    if (A.ncols != B.nrows || B.ncols != ops[2].nrows) fail("columns of A must equal rows of B, columns of B rows of C");
    return {A.nrows, ops[2].ncols};
  }
  throw std::invalid_argument("unknown product type");
}

template <class I, class V>
struct ProductPlan<I, V>::Impl {
  struct Step {
    StepSpec spec;
    SpgemmPlan<I, V> spgemm;               // Multiply
    detail::FusedTripleProduct<I, V> triple; // Triple
    SpgemmStats triple_stats;              // Triple (a Multiply's are its plan's)
  };
  ProductType type = ProductType::AB;
  SpgemmOptions options;
  std::vector<Step> steps;
  CsrMatrix<I, V> temps[2];       // slots kTemp0, kTemp1
  std::vector<I> temp_source[2];  // transposes: position in the transposed matrix of each entry
  Count nnz_result = 0;
  Count flops = 0;
#ifdef PCLUSTER_FAULT_INJECTION
  detail::FaultyResult<I, V> faulty; // the true result, when PCLUSTER_FAULT asks for a wrong one
#endif
  double seconds_symbolic = 0, seconds_clustering = 0;

  // Every symbolic phase's start: the options checked, then kept with the product's type.
  void start(ProductType t, const SpgemmOptions &o)
  {
    validate(o);
    check_sorted_result(t, o);
    type = t;
    options = o;
  }
  // Each operand is checked once (a matrix given twice, once) where options ask for it; the steps
  // then trust it and the intermediates built from it.
  void check_operands(const std::vector<CsrView<I, V>> &ops) const
  {
    if (!options.check_operands) return;
    for (std::size_t k = 0; k < ops.size(); ++k)
      if (std::none_of(ops.begin(), ops.begin() + k, [&](const CsrView<I, V> &earlier) { return earlier.same_pattern_as(ops[k]); }))
        validate(ops[k], operand_name(type, static_cast<int>(k)));
  }
  // A fused triple product's values where its symbolic pass did not form them (values_formed): a
  // numeric phase into c_values, resized to C (square: PtAP, RARt). Ops: CSR or pieced views.
  template <class Ops, class Columns, class Values>
  void fused_values_after_symbolic(ProductPlan &plan, const Ops &ops, std::vector<I> &c_rowptr, Columns &c_colidx, Values *c_values) const
  {
    if (!c_values || values_formed()) return;
    c_values->resize(c_colidx.size());
    const I m = static_cast<I>(c_rowptr.size() - 1);
    plan.numeric(ops, CsrView<I, V>{m, m, c_rowptr.data(), c_colidx.data(), nullptr}, c_values->data());
  }
  // The matrix in a slot; the result slot has no view here (the caller owns it).
  CsrView<I, V> view(const std::vector<CsrView<I, V>> &ops, int slot) const
  {
    return slot < kTemp0 ? ops[static_cast<std::size_t>(slot)] : temps[slot - kTemp0].view();
  }
  // A Triple step's operands (Pt: the left slot, or none).
  detail::TripleOperands<I, V> triple_operands(const std::vector<CsrView<I, V>> &ops, const StepSpec &spec) const
  {
    return {ops[0], view(ops, spec.right), spec.left >= 0 ? view(ops, spec.left) : CsrView<I, V>{}};
  }
  // May the symbolic phase of a fused PtAP form C's values in its own pass (where it goes by rows of
  // C: FusedTripleProduct::values_formed), instead of a numeric phase after it, which walks A and P
  // again? Not when a fault is injected: its true and faulty values are made by the numeric phase.
  bool values_in_symbolic(ProductType t) const
  {
#ifdef PCLUSTER_FAULT_INJECTION
    if (detail::fault_from_environment() != detail::Fault::None) return false;
#endif
    return t == ProductType::PtAP;
  }
  // Did the symbolic phase form C's values (see values_in_symbolic)?
  bool values_formed() const
  {
    return std::any_of(steps.begin(), steps.end(), [](const Step &s) { return s.spec.kind == StepKind::Triple && s.triple.values_formed(); });
  }
  // c_values: see values_in_symbolic (null: the pattern only). Columns, Values: std::vector, or
  // CallerArray (no include_diagonal: the caller checks).
  template <class M, class Columns, class Values = std::vector<V>>
  void triple_symbolic(Step &step, const detail::TripleOperands<I, V, M> &t, std::vector<I> &c_rowptr, Columns &c_colidx, Values *c_values = nullptr)
  {
    const auto t1 = std::chrono::steady_clock::now();
    step.triple = detail::FusedTripleProduct<I, V>::symbolic(t, options.triple, c_rowptr, c_colidx, options.sorted_result, c_values);
    const I m = static_cast<I>(c_rowptr.size() - 1);
    if constexpr (std::is_same_v<Columns, std::vector<I>> && std::is_same_v<Values, std::vector<V>>)
      if (options.include_diagonal) insert_missing_diagonal(m, c_rowptr, c_colidx, step.triple.values_formed() ? c_values : nullptr);
#ifdef PCLUSTER_FAULT_INJECTION
    if (const detail::Fault f = detail::fault_from_environment(); f != detail::Fault::None) {
      if constexpr (std::is_same_v<Columns, std::vector<I>>) faulty.make(f, m, c_rowptr, c_colidx, nullptr);
      else { // the faulty pattern made in a vector, then put in the caller's array
        std::vector<I> cols(c_colidx.begin(), c_colidx.end());
        faulty.make(f, m, c_rowptr, cols, nullptr);
        c_colidx.clear();
        c_colidx.insert(c_colidx.end(), cols.begin(), cols.end());
      }
    }
#endif
    nnz_result = static_cast<Count>(c_colidx.size());
    SpgemmStats &st = step.triple_stats;
    st.flops = step.triple.flops();
    st.nnz_c = nnz_result;
    st.workspace_thread_bytes = step.triple.workspace_thread_bytes();
    st.repeated_rows = step.triple.repeated_rows();
    st.seconds_symbolic = seconds_since(t1);
    flops += st.flops;
  }
  template <class M>
  void triple_numeric(Step &step, const detail::TripleOperands<I, V, M> &t, const CsrView<I, V> &C, V *c_values, const ResultScatter<I, V> *scatter = nullptr)
  {
#ifdef PCLUSTER_FAULT_INJECTION
    if (faulty.fault() != detail::Fault::None) { // the true product, then the faulty one from it
      CsrMatrix<I, V> &T = faulty.truth();
      T.values.resize(T.colidx.size());
      step.triple.numeric(t, T.view(), T.values.data());
      if (!scatter) return faulty.numeric_done(c_values);
      std::vector<V> all(static_cast<std::size_t>(C.nnz())); // then put where scatter says
      faulty.numeric_done(all.data());
      const I lo = C.rowptr[scatter->row0], hi = C.rowptr[scatter->row0 + scatter->rows];
      for (I i = 0; i < C.nrows; ++i)
        for (I e = C.rowptr[i]; e < C.rowptr[i + 1]; ++e) {
          if (e < lo) c_values[e] = all[e];
          else if (e >= hi) c_values[e - (hi - lo)] = all[e];
          else scatter->slot(i - scatter->row0, e - C.rowptr[i]) = all[e];
        }
      return;
    }
#endif
    step.triple.numeric(t, C, c_values, scatter);
  }
};

template <class I, class V>
ProductPlan<I, V> ProductPlan<I, V>::symbolic(ProductType type, const std::vector<CsrView<I, V>> &ops, const SpgemmOptions &options,
                                              std::vector<I> &c_rowptr, std::vector<I> &c_colidx, std::vector<V> *c_values,
                                              const std::vector<BlockSizes> &block_sizes, std::shared_ptr<const LeftAnalysis<I>> a_analysis)
{
  const auto t0 = std::chrono::steady_clock::now();
  product_dimensions(type, ops); // throws on a mismatch, naming the operands' sizes
  ProductPlan plan;
  Impl &im = *plan.impl_;
  im.start(type, options); // before its thread count is applied below
  BlockSizes bs[kNumSlots];
  for (std::size_t k = 0; k < ops.size() && k < block_sizes.size(); ++k) bs[k] = block_sizes[k];

  const detail::ScopedMaxThreads team(options.num_threads);
  im.check_operands(ops);
  for (const StepSpec &spec : chain_of(type, fused_triple(type, options))) {
    typename Impl::Step step{spec, {}, {}, {}};
    const CsrView<I, V> L = spec.left >= 0 ? im.view(ops, spec.left) : CsrView<I, V>{};
    switch (spec.kind) {
    case StepKind::Transpose: {
      const int t = spec.out - kTemp0;
      im.temps[t] = transpose(L, &im.temp_source[t]);
      bs[spec.out] = {bs[spec.left].cols, bs[spec.left].rows};
    } break;
    case StepKind::Triple: // always the result
      im.triple_symbolic(step, im.triple_operands(ops, spec), c_rowptr, c_colidx, c_values && im.values_in_symbolic(type) ? c_values : nullptr);
      bs[spec.out] = {bs[spec.right].cols, bs[spec.right].cols};
      break;
    case StepKind::Multiply: {
      const CsrView<I, V> R = im.view(ops, spec.right);
      SpgemmOptions o = options;
      o.row_block_size = bs[spec.left].rows;
      o.include_diagonal = options.include_diagonal && spec.out == kResult; // a property of the result only
      o.check_operands = false;
      const std::shared_ptr<const LeftAnalysis<I>> reuse = spec.left == 0 ? a_analysis : nullptr;
      if (spec.out == kResult) {
        step.spgemm = SpgemmPlan<I, V>::symbolic(L, R, o, c_rowptr, c_colidx, c_values, reuse);
#ifdef PCLUSTER_FAULT_INJECTION
        if (const detail::Fault f = detail::fault_from_environment(); f != detail::Fault::None) im.faulty.make(f, R.ncols, c_rowptr, c_colidx, c_values);
#endif
        im.nnz_result = static_cast<Count>(c_colidx.size());
      } else {
        CsrMatrix<I, V> &T = im.temps[spec.out - kTemp0];
        T.nrows = L.nrows;
        T.ncols = R.ncols;
        step.spgemm = SpgemmPlan<I, V>::symbolic(L, R, o, T.rowptr, T.colidx, c_values ? &T.values : nullptr, reuse);
      }
      bs[spec.out] = {bs[spec.left].rows, bs[spec.right].cols};
      im.flops += step.spgemm.stats().flops;
      im.seconds_clustering += step.spgemm.stats().seconds_clustering;
    } break;
    }
    im.steps.push_back(std::move(step));
  }
  if (fused_triple(type, options)) im.fused_values_after_symbolic(plan, ops, c_rowptr, c_colidx, c_values); // the SpGEMM steps form theirs
  im.seconds_symbolic = seconds_since(t0);
  return plan;
}

template <class I, class V>
ProductPlan<I, V> ProductPlan<I, V>::symbolic(ProductType type, const std::vector<CsrView<I, V>> &ops, const SpgemmOptions &options,
                                              std::vector<I> &c_rowptr, CallerArray<I> &c_colidx, CallerArray<V> *c_values)
{
  const auto t0 = std::chrono::steady_clock::now();
  if (type != ProductType::PtAP || !fused_triple(type, options) || options.include_diagonal)
    throw std::invalid_argument(std::string(to_string(type)) + " into a caller's array: the fused PtAP only (fused_triple()), without include_diagonal");
  product_dimensions(type, ops);
  ProductPlan plan;
  Impl &im = *plan.impl_;
  im.start(type, options);
  const detail::ScopedMaxThreads team(options.num_threads);
  im.check_operands(ops);
  const StepSpec spec = chain_of(type, true).front();
  typename Impl::Step step{spec, {}, {}, {}};
  im.triple_symbolic(step, im.triple_operands(ops, spec), c_rowptr, c_colidx, c_values && im.values_in_symbolic(type) ? c_values : nullptr);
  im.steps.push_back(std::move(step));
  im.fused_values_after_symbolic(plan, ops, c_rowptr, c_colidx, c_values);
  im.seconds_symbolic = seconds_since(t0);
  return plan;
}

template <class I, class V>
void ProductPlan<I, V>::numeric(const std::vector<CsrView<I, V>> &ops, const CsrView<I, V> &C, V *c_values)
{
  Impl &im = *impl_;
  const std::array<I, 2> dims = product_dimensions(im.type, ops);
  if (C.nrows != dims[0] || C.ncols != dims[1] || C.nnz() != im.nnz_result)
    throw std::invalid_argument(std::string(to_string(im.type)) + " numeric: the result's pattern is not the one the symbolic phase produced");
  const detail::ScopedMaxThreads team(im.options.num_threads);
  for (typename Impl::Step &step : im.steps) {
    const StepSpec &spec = step.spec;
    const CsrView<I, V> L = spec.left >= 0 ? im.view(ops, spec.left) : CsrView<I, V>{};
    switch (spec.kind) {
    case StepKind::Transpose: {
      const int t = spec.out - kTemp0;
      const Count nnz = static_cast<Count>(im.temp_source[t].size());
      if (L.nnz() != nnz) throw std::invalid_argument(std::string(spec.what) + " numeric: the operand's pattern changed since the symbolic phase");
      CsrMatrix<I, V> &T = im.temps[t];
      T.values.resize(static_cast<std::size_t>(nnz));
      V *dst = T.values.data();
      const I *src = im.temp_source[t].data();
      if (L.values) {
#pragma omp parallel for schedule(static) num_threads(detail::threads_for(nnz))
        for (Count q = 0; q < nnz; ++q) dst[q] = L.values[src[q]];
      } else std::fill(T.values.begin(), T.values.end(), V(1));
    } break;
    case StepKind::Triple: im.triple_numeric(step, im.triple_operands(ops, spec), C, c_values); break;
    case StepKind::Multiply: {
      const CsrView<I, V> R = im.view(ops, spec.right);
#ifdef PCLUSTER_FAULT_INJECTION
      if (spec.out == kResult && im.faulty.fault() != detail::Fault::None) { // the true product, then the faulty one from it
        CsrMatrix<I, V> &T = im.faulty.truth();
        T.values.resize(T.colidx.size());
        step.spgemm.numeric(L, R, T.view(), T.values.data());
        im.faulty.numeric_done(c_values);
        break;
      }
#endif
      if (spec.out == kResult) step.spgemm.numeric(L, R, C, c_values);
      else {
        CsrMatrix<I, V> &T = im.temps[spec.out - kTemp0];
        T.values.resize(T.colidx.size());
        step.spgemm.numeric(L, R, T.view(), T.values.data());
      }
    } break;
    }
  }
}

template <class I, class V>
ProductPlan<I, V> ProductPlan<I, V>::symbolic(ProductType type, const std::vector<PiecedView<I, V>> &ops, const SpgemmOptions &options,
                                              std::vector<I> &c_rowptr, std::vector<I> &c_colidx, std::vector<V> *c_values)
{
  const auto t0 = std::chrono::steady_clock::now();
  if (type != ProductType::PtAP || !fused_triple(type, options))
    throw std::invalid_argument(std::string(to_string(type)) + " on pieced operands: only the fused PtAP takes them (fused_triple())");
  if (ops.size() != 2) throw std::invalid_argument("PtAP: expected 2 operands, got " + std::to_string(ops.size()));
  const PiecedView<I, V> &A = ops[0], &P = ops[1];
  if (A.nrows != A.ncols || A.ncols != P.nrows)
    throw std::invalid_argument("PtAP: dimension mismatch (A must be square with as many rows as P); A is " + std::to_string(A.nrows) + " x " +
                                std::to_string(A.ncols) + ", P is " + std::to_string(P.nrows) + " x " + std::to_string(P.ncols));
  ProductPlan plan;
  Impl &im = *plan.impl_;
  im.start(type, options);
  const detail::ScopedMaxThreads team(options.num_threads);
  if (options.check_operands) {
    validate_pieced(A, "A");
    validate_pieced(P, "P");
  }
  typename Impl::Step step{chain_of(type, true).front(), {}, {}, {}};
  im.triple_symbolic(step, detail::TripleOperands<I, V, PiecedView<I, V>>{A, P, {}}, c_rowptr, c_colidx, c_values && im.values_in_symbolic(type) ? c_values : nullptr);
  im.steps.push_back(std::move(step));
  im.fused_values_after_symbolic(plan, ops, c_rowptr, c_colidx, c_values);
  im.seconds_symbolic = seconds_since(t0);
  return plan;
}

template <class I, class V>
void ProductPlan<I, V>::numeric(const std::vector<PiecedView<I, V>> &ops, const CsrView<I, V> &C, V *c_values, const ResultScatter<I, V> *scatter)
{
  Impl &im = *impl_;
  if (im.steps.size() != 1 || im.steps.front().spec.kind != StepKind::Triple || ops.size() != 2)
    throw std::invalid_argument("numeric on pieced operands: the plan was not made from pieced operands");
  if (C.nrows != ops[1].ncols || C.ncols != ops[1].ncols || C.nnz() != im.nnz_result)
    throw std::invalid_argument("PtAP numeric: the result's pattern is not the one the symbolic phase produced");
  const detail::ScopedMaxThreads team(im.options.num_threads);
  if (scatter && (scatter->row0 < 0 || scatter->rows < 0 || scatter->row0 + scatter->rows > C.nrows || (scatter->rows > 0 && !scatter->runs)))
    throw std::invalid_argument("PtAP numeric: the scattered rows are not rows of the result");
  im.triple_numeric(im.steps.front(), detail::TripleOperands<I, V, PiecedView<I, V>>{ops[0], ops[1], {}}, C, c_values, scatter);
}

template <class I, class V>
ProductType ProductPlan<I, V>::type() const { return impl_->type; }
template <class I, class V>
const SpgemmOptions &ProductPlan<I, V>::options() const { return impl_->options; }
template <class I, class V>
Count ProductPlan<I, V>::flops() const { return impl_->flops; }
template <class I, class V>
double ProductPlan<I, V>::seconds_symbolic() const { return impl_->seconds_symbolic; }
template <class I, class V>
double ProductPlan<I, V>::seconds_clustering() const { return impl_->seconds_clustering; }
template <class I, class V>
std::shared_ptr<const LeftAnalysis<I>> ProductPlan<I, V>::a_analysis() const
{
  for (const typename Impl::Step &step : impl_->steps)
    if (step.spec.kind == StepKind::Multiply && step.spec.left == 0) return step.spgemm.left_analysis();
  return nullptr;
}

template <class I, class V>
std::vector<ProductStep> ProductPlan<I, V>::steps() const
{
  std::vector<ProductStep> out;
  for (const auto &step : impl_->steps) {
    ProductStep s;
    s.what = step.spec.what;
    s.is_transpose = step.spec.kind == StepKind::Transpose;
    s.nnz = step.spec.out == kResult ? impl_->nnz_result : impl_->temps[step.spec.out - kTemp0].nnz();
    if (step.spec.kind == StepKind::Multiply) s.spgemm = step.spgemm.stats();
    if (step.spec.kind == StepKind::Triple) {
      s.spgemm = step.triple_stats;
      s.fused_triple = true;
      s.by_rows_of_c = step.triple.by_rows_of_c();
    }
    out.push_back(std::move(s));
  }
  return out;
}

template <class I, class V>
ProductPlan<I, V>::ProductPlan() : impl_(new Impl)
{
}
template <class I, class V>
ProductPlan<I, V>::ProductPlan(ProductPlan &&) noexcept = default;
template <class I, class V>
ProductPlan<I, V> &ProductPlan<I, V>::operator=(ProductPlan &&) noexcept = default;
template <class I, class V>
ProductPlan<I, V>::~ProductPlan() = default;

#define PCLUSTER_INSTANTIATE_PRODUCT(I, V) \
  template class ProductPlan<I, V>; \
  template std::array<I, 2> product_dimensions<I, V>(ProductType, const std::vector<CsrView<I, V>> &);
PCLUSTER_INSTANTIATE_PRODUCT(std::int32_t, double)
PCLUSTER_INSTANTIATE_PRODUCT(std::int64_t, double)
PCLUSTER_INSTANTIATE_PRODUCT(std::int32_t, float)
PCLUSTER_INSTANTIATE_PRODUCT(std::int64_t, float)

} // namespace pcluster
