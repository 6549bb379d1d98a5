// The orderings behind pcluster::compute_ordering (include/pcluster/ordering.hpp), one per file in
// this directory. Each returns a permutation of A's rows, new to old (perm[k] = original row at
// position k), and is instantiated for (int32, int64) x (double, float).
#pragma once

#include "pcluster/ordering.hpp"

#include <vector>

namespace pcluster::detail {

// Own implementations.
template <class I, class V> std::vector<I> order_random(const CsrView<I, V> &A, const OrderingOptions &o);    // random.cpp
template <class I, class V> std::vector<I> order_degree(const CsrView<I, V> &A, const OrderingOptions &o);    // degree.cpp
template <class I, class V> std::vector<I> order_gray(const CsrView<I, V> &A, const OrderingOptions &o);      // gray.cpp
template <class I, class V> std::vector<I> order_rabbit(const CsrView<I, V> &A, const OrderingOptions &o);    // rabbit.cpp
template <class I, class V> std::vector<I> order_slashburn(const CsrView<I, V> &A, const OrderingOptions &o); // slashburn.cpp
template <class I, class V> std::vector<I> order_rcm(const CsrView<I, V> &A, const OrderingOptions &o);       // rcm.cpp

// Library-backed.
template <class I, class V> std::vector<I> order_amd(const CsrView<I, V> &A, const OrderingOptions &o); // amd.cpp (SuiteSparse AMD)
template <class I, class V> std::vector<I> order_nd(const CsrView<I, V> &A, const OrderingOptions &o);  // nd.cpp (METIS_NodeND)
template <class I, class V> std::vector<I> order_gp(const CsrView<I, V> &A, const OrderingOptions &o);  // gp.cpp (METIS_PartGraphKway)
template <class I, class V> std::vector<I> order_hp(const CsrView<I, V> &A, const OrderingOptions &o);  // hp.cpp (Zoltan PHG)

} // namespace pcluster::detail
