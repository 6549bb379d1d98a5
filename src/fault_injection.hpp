// Negative controls: wrong products on purpose, so that every test layer can be shown to catch them.
//
// Compiled only with the CMake option PCLUSTER_FAULT_INJECTION (default off; scripts/test.sh and CI
// turn it on in their build): a default or installed build has none of this. The environment
// variable PCLUSTER_FAULT names the fault; every ProductPlan (so every product of the plugin, on
// SeqAIJ and on each rank's local pieces of MPIAIJ) then returns a result that differs from the
// true product in exactly that way (the core's own internal products, the row graph of an ordering
// and the candidate pairs of hierarchical clustering, are SpgemmPlans and stay exact):
//   perturb  one value (the middle entry of C) times 1 + 1e-4 (large enough to show in the 6
//            printed digits of PETSc's matrix viewer, so stock programs' outputs can see it too)
//   drop     the middle entry of C removed from the pattern (and its value)
//   zero     an explicit zero added where the product has no entry (in the row of the middle entry)
//   nan      one value (the middle entry's) replaced by NaN
//   swap     two rows of C with different contents exchanged
//   stale    numeric phases leave C's values as they were (a refresh that never happened)
// The plan computes the true product into its own copy and maps it onto the caller's arrays, so
// the kernels themselves run unchanged (a dropped entry must not become an out-of-bounds write).
// The plugin injects `stale` in its own numeric phase too (it skips the kernels).
#pragma once

#ifdef PCLUSTER_FAULT_INJECTION

#include "pcluster/csr.hpp"
#include "pcluster/names.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace pcluster::detail {

enum class Fault { None, Perturb, Drop, Zero, Nan, Swap, Stale };
inline constexpr Named<Fault> kFaultNames[] = {{Fault::None, "none"}, {Fault::Perturb, "perturb"}, {Fault::Drop, "drop"}, {Fault::Zero, "zero"},
                                               {Fault::Nan, "nan"},   {Fault::Swap, "swap"},       {Fault::Stale, "stale"}};

// PCLUSTER_FAULT, read on every call (tests set it per process); unset or empty: none.
inline Fault fault_from_environment()
{
  const char *name = std::getenv("PCLUSTER_FAULT");
  if (!name || !*name) return Fault::None;
  if (const auto f = value_of(kFaultNames, name)) return *f;
  throw std::invalid_argument(std::string("PCLUSTER_FAULT=") + name + " is unknown: valid faults are " + names_of(kFaultNames));
}

// The faulty C made from the true one: entry q of the faulty C is entry source[q] of the truth
// (-1: an explicit zero), the value of entry `spoiled` transformed.
template <class I, class V>
class FaultyResult {
 public:
  Fault fault() const { return fault_; }
  CsrMatrix<I, V> &truth() { return truth_; }

  // Takes the true C (pattern, values if any) and writes the faulty one into the caller's arrays.
  void make(Fault fault, I ncols, std::vector<I> &rowptr, std::vector<I> &colidx, std::vector<V> *values)
  {
    fault_ = fault;
    truth_.nrows = static_cast<I>(rowptr.size()) - 1;
    truth_.ncols = ncols;
    truth_.rowptr.swap(rowptr);
    truth_.colidx.swap(colidx);
    if (values) truth_.values.swap(*values);
    plan_mapping();
    rowptr = faulty_rowptr_;
    colidx.resize(source_.size());
    for (std::size_t q = 0; q < source_.size(); ++q) colidx[q] = source_[q] >= 0 ? truth_.colidx[source_[q]] : zero_col_;
    if (values) {
      values->resize(source_.size());
      map_values(values->data());
    }
  }

  // After a numeric phase into truth(): the faulty values (none for stale after the first phase).
  void numeric_done(V *c_values)
  {
    if (fault_ == Fault::Stale && numeric_calls_++ > 0) return;
    map_values(c_values);
  }

 private:
  void plan_mapping()
  {
    const I n = truth_.nrows;
    const Count nnz = static_cast<Count>(truth_.colidx.size());
    const Count mid = nnz / 2;
    const I mid_row = nnz ? static_cast<I>(std::upper_bound(truth_.rowptr.begin(), truth_.rowptr.end(), static_cast<I>(mid)) - truth_.rowptr.begin()) - 1 : 0;
    std::vector<I> order(static_cast<std::size_t>(n));
    for (I i = 0; i < n; ++i) order[i] = i; // faulty row i is truth row order[i]
    zero_row_ = -1;
    spoiled_ = -1;
    switch (fault_) {
    case Fault::Perturb:
    case Fault::Nan:
      if (nnz) spoiled_ = mid;
      break;
    case Fault::Drop:
      break; // below
    case Fault::Zero:
      for (I k = 0; k < n && zero_row_ < 0; ++k) { // the middle row first, then the next ones
        const I r = (mid_row + k) % n;
        const I len = truth_.rowptr[r + 1] - truth_.rowptr[r];
        if (len >= truth_.ncols) continue;
        I c = 0; // the smallest column the row has not
        for (I p = truth_.rowptr[r]; p < truth_.rowptr[r + 1] && truth_.colidx[p] == c; ++p) ++c;
        zero_row_ = r;
        zero_col_ = c;
      }
      break;
    case Fault::Swap: { // the middle row and the next one whose content differs (without values yet,
                        // whose pattern differs; if every row has the same pattern, the next row: the
                        // values of the numeric phase will tell them apart)
      if (n < 2) break;
      I other = (mid_row + 1) % n;
      for (I k = 1; k < n; ++k) {
        const I r = (mid_row + k) % n;
        if (!same_row(mid_row, r)) {
          other = r;
          break;
        }
      }
      std::swap(order[mid_row], order[other]);
    } break;
    default: break;
    }
    faulty_rowptr_.assign(static_cast<std::size_t>(n) + 1, 0);
    source_.clear();
    for (I i = 0; i < n; ++i) {
      const I r = order[i];
      bool zero_here = r == zero_row_; // the explicit zero goes before the first larger column
      for (I p = truth_.rowptr[r]; p < truth_.rowptr[r + 1]; ++p) {
        if (fault_ == Fault::Drop && p == mid) continue;
        if (zero_here && truth_.colidx[p] > zero_col_) {
          source_.push_back(-1);
          zero_here = false;
        }
        source_.push_back(p);
      }
      if (zero_here) source_.push_back(-1);
      faulty_rowptr_[i + 1] = checked_index<I>(static_cast<Count>(source_.size()), "nnz(C)");
    }
  }
  bool same_row(I a, I b) const
  {
    const I la = truth_.rowptr[a + 1] - truth_.rowptr[a], lb = truth_.rowptr[b + 1] - truth_.rowptr[b];
    if (la != lb) return false;
    for (I t = 0; t < la; ++t) {
      if (truth_.colidx[truth_.rowptr[a] + t] != truth_.colidx[truth_.rowptr[b] + t]) return false;
      if (!truth_.values.empty() && truth_.values[truth_.rowptr[a] + t] != truth_.values[truth_.rowptr[b] + t]) return false;
    }
    return true;
  }
  void map_values(V *out) const
  {
    for (std::size_t q = 0; q < source_.size(); ++q) out[q] = source_[q] >= 0 ? truth_.values[source_[q]] : V(0);
    if (spoiled_ >= 0) {
      V &v = out[spoiled_];
      v = fault_ == Fault::Nan ? std::numeric_limits<V>::quiet_NaN() : (v != V(0) ? v * V(1 + 1e-4) : V(1e-4));
    }
  }

  Fault fault_ = Fault::None;
  CsrMatrix<I, V> truth_;
  std::vector<I> faulty_rowptr_, source_;
  I zero_row_ = -1, zero_col_ = 0;
  Count spoiled_ = -1;
  Count numeric_calls_ = 0;
};

} // namespace pcluster::detail

#endif // PCLUSTER_FAULT_INJECTION
