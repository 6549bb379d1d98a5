// Hierarchical row clustering (Islam, Xu, Dai & Buluc, "Improving SpGEMM Performance Through
// Matrix Reordering and Cluster-wise Computation", arXiv:2507.21253, §3): groups rows that have
// similar column patterns even when they are far apart in the matrix, so the cluster-wise kernel
// can reuse rows of B across them.
//
// Algorithm.
//  1. Candidate pairs. S = pattern(A) * pattern(A)^T by our own row-wise kernel (multiply() with
//     all values 1), so S(i,j) = |cols(i) ∩ cols(j)|. For each row i keep the k best j != i by
//     Jaccard(i,j) = S(i,j) / (nnz_i + nnz_j - S(i,j)), among those with Jaccard >=
//     jaccard_threshold (k = hierarchical_topk, or cluster_size - 1 when it is 0). Ties are
//     broken by the nearer row |i - j|, then the smaller j. A pair kept by both rows is listed
//     once.
//     Rows of A are processed in chunks of bounded work (kCandidateChunkFlops), so S is never
//     materialised as a whole: only one chunk of its rows lives at a time.
//  2. Greedy merging. All candidate pairs go into a max-heap ordered by similarity, ties by (i,j)
//     ascending (a strict total order, so the pop sequence does not depend on insertion order;
//     implemented as the sorted initial list plus a heap of re-scored pairs, same pop order).
//     Union-find over rows, union by size (ties: the smaller row index stays root), cap =
//     cluster_size. Pop the best pair (i,j):
//       - both i and j are roots: merge them unless the merged size would exceed the cap;
//       - otherwise take their roots ri != rj; if the merged size fits the cap and this root pair
//         was not scored before, score the roots' own rows (the representatives' patterns) by
//         Jaccard and push (ri,rj) back if it reaches the threshold.
//     Every merge is thus justified by Jaccard(root row, root row) >= threshold.
//  3. Output: clusters with rows ascending inside, clusters ordered by their smallest row.
//
// Edge cases. Empty rows have no entry in S, hence no candidate pair: they stay singletons.
// Threshold 0 still requires at least one shared column for a candidate pair (S(i,j) > 0), but a
// re-scored root pair with no shared column passes (Jaccard 0 >= 0). cluster_size 1 or k = 0:
// all singletons, and S is not computed.
//
// Determinism. S holds exact integer counts; Jaccard is formed as double(common) /
// double(union) from exact integers both here and in jaccard(), so the values are bit-identical
// whichever thread computed them. Per-row selection depends only on the row; the heap order is a
// total order; the merge phase is sequential. The result is independent of the thread count.
//
// Cost. Step 1 is one SpGEMM with the flops of A*A^T (for structurally symmetric A exactly those
// of A*A) plus a transpose and an O(nnz(S) + nrows * k) scan, parallel over rows. Step 2 is
// sequential: O(m log m) sorting of m <= nrows * k candidates, plus one sorted-list
// intersection per re-scored root pair. Memory: one chunk of S, nnz(A) for A^T and a ones array,
// nrows * k (index, similarity) slots, and the candidate list.
#include "pcluster/clustering.hpp"

#include "parallel.hpp"
#include "pcluster/csr.hpp"
#include "pcluster/spgemm.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace pcluster {

namespace {

// Multiply-adds of A(rows chunk,:) * A^T computed per kernel call. Bounds the memory of one chunk
// of S (nnz(S chunk) <= flops): 2^24 entries are ~200 MB at worst, typically far less.
constexpr Count kCandidateChunkFlops = Count(1) << 24;
// At most this many chunks (the chunk grows beyond kCandidateChunkFlops on huge inputs), so the
// per-call setup of the kernel (O(nrows) workspaces) stays a small multiple of one SpGEMM's.
constexpr Count kMaxCandidateChunks = 32;

template <class I>
struct Candidate {
  double sim;
  I a, b; // a < b
};

// "x has lower priority than y" for std::push_heap/pop_heap (max-heap): higher similarity first,
// then smaller (a, b).
template <class I>
struct LowerPriority {
  bool operator()(const Candidate<I> &x, const Candidate<I> &y) const
  {
    if (x.sim != y.sim) return x.sim < y.sim;
    if (x.a != y.a) return x.a > y.a;
    return x.b > y.b;
  }
};

// Set of row pairs (a < b) already scored, open addressing with linear probing. The merge phase
// inserts one pair per re-scored root pair (hundreds of thousands on a 100k-row stencil), where a
// node-based std::unordered_set spent more time allocating than the scoring itself.
template <class I>
class PairSet {
 public:
  // Returns true if (a, b) was not in the set (and inserts it).
  bool insert(I a, I b)
  {
    if (2 * (count_ + 1) > keys_.size()) grow();
    for (std::size_t h = hash(a, b) & mask_;; h = (h + 1) & mask_) {
      if (keys_[h].first == kEmpty) {
        keys_[h] = {a, b};
        ++count_;
        return true;
      }
      if (keys_[h].first == a && keys_[h].second == b) return false;
    }
  }

 private:
  static constexpr I kEmpty = I(-1);
  static std::size_t hash(I a, I b)
  {
    std::uint64_t h = static_cast<std::uint64_t>(a) * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint64_t>(b);
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    return static_cast<std::size_t>(h ^ (h >> 32));
  }
  void grow()
  {
    std::vector<std::pair<I, I>> old(std::max<std::size_t>(64, 2 * keys_.size()), {kEmpty, kEmpty});
    old.swap(keys_);
    mask_ = keys_.size() - 1;
    count_ = 0;
    for (const auto &k : old)
      if (k.first != kEmpty) insert(k.first, k.second);
  }
  std::vector<std::pair<I, I>> keys_;
  std::size_t mask_ = 0, count_ = 0;
};

// Step 1: candidate pairs (a < b, each unordered pair once) with Jaccard >= threshold.
template <class I, class V>
std::vector<Candidate<I>> candidate_pairs(const CsrView<I, V> &A, int k, double threshold)
{
  const I n = A.nrows;
  const CsrView<I, double> P{A.nrows, A.ncols, A.rowptr, A.colidx, nullptr};
  const CsrMatrix<I, double> PTm = transpose(P);
  // Pattern operands: every entry counts as 1. One shared array of ones (the kernel would
  // otherwise make its own for nullptr values on every chunk's call).
  const std::vector<double> ones(static_cast<std::size_t>(A.nnz()), 1.0);
  const CsrView<I, double> PT{PTm.nrows, PTm.ncols, PTm.rowptr.data(), PTm.colidx.data(), ones.data()};

  // Work of each row of S: sum over A(i,c) of nnz(A(:,c)).
  std::vector<Count> flops(static_cast<std::size_t>(n) + 1, 0);
#pragma omp parallel for schedule(static) num_threads(detail::threads_for(A.nnz()))
  for (I i = 0; i < n; ++i) {
    Count f = 0;
    for (I p = A.rowptr[i]; p < A.rowptr[i + 1]; ++p) f += PT.row_length(A.colidx[p]);
    flops[i + 1] = f;
  }
  for (I i = 0; i < n; ++i) flops[i + 1] += flops[i];
  const Count chunk_flops = std::max(kCandidateChunkFlops, flops[n] / kMaxCandidateChunks + 1);

  // Per row: the k best (j, sim), best first.
  const std::size_t ks = static_cast<std::size_t>(k);
  std::vector<I> top_j(static_cast<std::size_t>(n) * ks);
  std::vector<double> top_s(static_cast<std::size_t>(n) * ks);
  std::vector<int> top_n(static_cast<std::size_t>(n), 0);

  SpgemmOptions sopts;
  sopts.kernel = Kernel::Rowwise;
  std::vector<I> chunk_rowptr;
  for (I r0 = 0; r0 < n;) {
    // Largest r1 > r0 with flops[r1] - flops[r0] <= chunk_flops (at least one row).
    I r1 = static_cast<I>(std::upper_bound(flops.begin() + r0 + 1, flops.end(), flops[r0] + chunk_flops) -
                          flops.begin()) - 1;
    if (r1 <= r0) r1 = r0 + 1;
    const I m = r1 - r0;
    chunk_rowptr.resize(static_cast<std::size_t>(m) + 1);
    for (I i = 0; i <= m; ++i) chunk_rowptr[i] = A.rowptr[r0 + i] - A.rowptr[r0];
    const CsrView<I, double> Ach{m, A.ncols, chunk_rowptr.data(), A.colidx + A.rowptr[r0], ones.data()};
    const CsrMatrix<I, double> S = multiply(Ach, PT, sopts);

#pragma omp parallel for schedule(dynamic, 256) num_threads(detail::threads_for(S.nnz()))
    for (I li = 0; li < m; ++li) {
      const I i = r0 + li;
      const Count ni = A.row_length(i);
      I *bj = top_j.data() + static_cast<std::size_t>(i) * ks;
      double *bs = top_s.data() + static_cast<std::size_t>(i) * ks;
      // Higher similarity first; among equals the nearer row, then the smaller index. Preferring
      // near rows keeps clusters local (B rows shared by near rows of A tend to be near too) and
      // spreads the candidates of runs of identical rows, instead of piling them all on the
      // first rows of the run, whose cluster fills up and then rejects them.
      auto better = [i](double s1, I j1, double s2, I j2) {
        if (s1 != s2) return s1 > s2;
        const I d1 = j1 > i ? j1 - i : i - j1, d2 = j2 > i ? j2 - i : i - j2;
        return d1 != d2 ? d1 < d2 : j1 < j2;
      };
      int c = 0;
      for (I p = S.rowptr[li]; p < S.rowptr[li + 1]; ++p) {
        const I j = S.colidx[p];
        if (j == i) continue;
        const Count common = static_cast<Count>(S.values[p]);
        const Count uni = ni + static_cast<Count>(A.row_length(j)) - common;
        const double sim = static_cast<double>(common) / static_cast<double>(uni);
        if (sim < threshold) continue;
        // Insert into the buffer, kept sorted best first (see better()).
        if (c == k && !better(sim, j, bs[c - 1], bj[c - 1])) continue;
        int t = (c < k) ? c++ : k - 1;
        while (t > 0 && better(sim, j, bs[t - 1], bj[t - 1])) {
          bj[t] = bj[t - 1];
          bs[t] = bs[t - 1];
          --t;
        }
        bj[t] = j;
        bs[t] = sim;
      }
      top_n[i] = c;
    }
    r0 = r1;
  }

  // A pair kept by both rows is emitted once, by its smaller row. Row i emits (i, j) for each
  // kept j, except when j < i and j kept i too (then j emitted it).
  auto emitted_by_other = [&](I i, I j) {
    if (j > i) return false;
    const I *bj = top_j.data() + static_cast<std::size_t>(j) * ks;
    return std::find(bj, bj + top_n[j], i) != bj + top_n[j];
  };
  std::vector<Count> offset(static_cast<std::size_t>(n) + 1, 0);
#pragma omp parallel for schedule(static) num_threads(detail::threads_for(n))
  for (I i = 0; i < n; ++i) {
    Count c = 0;
    const I *bj = top_j.data() + static_cast<std::size_t>(i) * ks;
    for (int t = 0; t < top_n[i]; ++t) c += !emitted_by_other(i, bj[t]);
    offset[i + 1] = c;
  }
  for (I i = 0; i < n; ++i) offset[i + 1] += offset[i];
  std::vector<Candidate<I>> cand(static_cast<std::size_t>(offset[n]));
#pragma omp parallel for schedule(static) num_threads(detail::threads_for(n))
  for (I i = 0; i < n; ++i) {
    Count o = offset[i];
    const I *bj = top_j.data() + static_cast<std::size_t>(i) * ks;
    const double *bs = top_s.data() + static_cast<std::size_t>(i) * ks;
    for (int t = 0; t < top_n[i]; ++t) {
      const I j = bj[t];
      if (emitted_by_other(i, j)) continue;
      cand[o++] = Candidate<I>{bs[t], std::min(i, j), std::max(i, j)};
    }
  }
  return cand;
}

template <class I>
I find_root(std::vector<I> &parent, I x)
{
  while (parent[x] != x) {
    parent[x] = parent[parent[x]]; // path halving
    x = parent[x];
  }
  return x;
}

} // namespace

template <class I, class V>
Clustering<I> cluster_hierarchical(const CsrView<I, V> &A, const ClusteringOptions &opts)
{
  validate(opts);
  const I n = A.nrows;
  if (n < 0) throw std::invalid_argument("cluster_hierarchical: nrows = " + std::to_string(n) + " is negative");
  const I cap = static_cast<I>(opts.cluster_size);
  const int k = opts.hierarchical_topk > 0 ? opts.hierarchical_topk : opts.cluster_size - 1;
  const double threshold = opts.jaccard_threshold;

  std::vector<I> parent(static_cast<std::size_t>(n));
  std::vector<I> size(static_cast<std::size_t>(n), I(1));
  for (I i = 0; i < n; ++i) parent[i] = i;

  if (n > 1 && cap > 1 && k > 0) {
    // The max-heap of the algorithm, split in two for speed with the same pop order: the initial
    // candidates sorted once (best first, a cache-friendly pass instead of heap pops over a
    // structure of nrows * k entries), and a true heap holding only the re-scored root pairs.
    // Each step takes the better of the two heads; the order is strict and total, so this pops
    // exactly the sequence one heap would.
    std::vector<Candidate<I>> sorted = candidate_pairs(A, k, threshold);
    const LowerPriority<I> lower;
    std::sort(sorted.begin(), sorted.end(), [&](const Candidate<I> &x, const Candidate<I> &y) { return lower(y, x); });
    std::size_t next = 0;
    std::vector<Candidate<I>> heap;
    PairSet<I> scored;
    auto row = [&](I r) { return A.colidx + A.rowptr[r]; };

    while (next < sorted.size() || !heap.empty()) {
      Candidate<I> c;
      if (!heap.empty() && (next == sorted.size() || lower(sorted[next], heap.front()))) {
        std::pop_heap(heap.begin(), heap.end(), lower);
        c = heap.back();
        heap.pop_back();
      } else {
        c = sorted[next++];
      }
      if (parent[c.a] == c.a && parent[c.b] == c.b) {
        if (size[c.a] + size[c.b] > cap) continue;
        // Union by size; on equal sizes the smaller row index (c.a) stays root.
        I big = c.a, small = c.b;
        if (size[small] > size[big]) std::swap(big, small);
        parent[small] = big;
        size[big] += size[small];
        continue;
      }
      const I ra = find_root(parent, c.a), rb = find_root(parent, c.b);
      if (ra == rb || size[ra] + size[rb] > cap) continue; // sizes only grow: never mergeable
      const std::pair<I, I> key{std::min(ra, rb), std::max(ra, rb)};
      if (!scored.insert(key.first, key.second)) continue;
      const double sim = jaccard(row(key.first), A.row_length(key.first), row(key.second), A.row_length(key.second));
      if (sim >= threshold) {
        heap.push_back(Candidate<I>{sim, key.first, key.second});
        std::push_heap(heap.begin(), heap.end(), lower);
      }
    }
  }

  // Clusters ordered by their smallest row (first row met in ascending order), rows ascending.
  Clustering<I> cl;
  std::vector<I> id(static_cast<std::size_t>(n), I(-1)); // cluster of each root
  std::vector<I> cid(static_cast<std::size_t>(n));        // cluster of each row
  std::vector<I> count;
  for (I i = 0; i < n; ++i) {
    const I r = find_root(parent, i);
    if (id[r] < 0) {
      id[r] = static_cast<I>(count.size());
      count.push_back(0);
    }
    cid[i] = id[r];
    ++count[id[r]];
  }
  const std::size_t nc = count.size();
  cl.ptr.assign(nc + 1, I(0));
  for (std::size_t c = 0; c < nc; ++c) cl.ptr[c + 1] = cl.ptr[c] + count[c];
  cl.rows.resize(static_cast<std::size_t>(n));
  std::vector<I> fill(cl.ptr.begin(), cl.ptr.end() - 1);
  for (I i = 0; i < n; ++i) cl.rows[fill[cid[i]]++] = i;
  return cl;
}

// Explicit instantiations: I in {int32_t, int64_t}, V in {double, float}.
template Clustering<std::int32_t> cluster_hierarchical<std::int32_t, double>(const CsrView<std::int32_t, double> &,
                                                                             const ClusteringOptions &);
template Clustering<std::int32_t> cluster_hierarchical<std::int32_t, float>(const CsrView<std::int32_t, float> &,
                                                                            const ClusteringOptions &);
template Clustering<std::int64_t> cluster_hierarchical<std::int64_t, double>(const CsrView<std::int64_t, double> &,
                                                                             const ClusteringOptions &);
template Clustering<std::int64_t> cluster_hierarchical<std::int64_t, float>(const CsrView<std::int64_t, float> &,
                                                                            const ClusteringOptions &);

} // namespace pcluster
