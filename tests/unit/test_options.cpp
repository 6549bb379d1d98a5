// The core's options as one source of truth: the name tables, the range checks (InvalidOption names
// the field and the rule), and what a reused LeftAnalysis must agree on (LeftAnalysis::fits).
#include "pcluster/clustering.hpp"
#include "pcluster/ordering.hpp"
#include "pcluster/product.hpp"
#include "pcluster/spgemm.hpp"

#include "catch.hpp"

#include <functional>
#include <string>
#include <vector>

using namespace pcluster;

namespace {

template <class E, std::size_t N>
void check_table(const Named<E> (&table)[N])
{
  std::string all;
  for (const Named<E> &entry : table) {
    CHECK(std::string(name_of(table, entry.value)) == entry.name);
    CHECK(value_of(table, entry.name) == entry.value);
    all += std::string(all.empty() ? "" : ", ") + entry.name;
  }
  CHECK(names_of(table) == all);
  CHECK_FALSE(value_of(table, "no such name").has_value());
  CHECK_FALSE(value_of(table, nullptr).has_value());
}

// The field InvalidOption names when `f` is thrown out of `check`, or "" if nothing is thrown.
template <class Check>
std::string rejected_field(Check &&check)
{
  try {
    check();
  } catch (const InvalidOption &e) {
    CHECK(std::string(e.what()).find(e.field + " = " + e.value + " is out of range: must be " + e.valid) == 0);
    return e.field;
  }
  return "";
}

} // namespace

TEST_CASE("every enum's names come from its one table", "[options]")
{
  check_table(kAccumulatorNames);
  check_table(kKernelNames);
  check_table(kClusterSchemeNames);
  check_table(kOrderingNames);
  check_table(kProductTypeNames);
  CHECK(value_of(kAccumulatorNames, "HASH", true) == Accumulator::Hash);
  CHECK_FALSE(value_of(kAccumulatorNames, "HASH").has_value());
  CHECK(std::string(to_string(Accumulator::Dense)) == "dense");
  CHECK(std::string(to_string(OrderingType::SlashBurn)) == "slashburn");
  CHECK(std::string(operand_name(ProductType::PtAP, 1)) == "P");
  CHECK(std::string(operand_name(ProductType::RARt, 1)) == "R");
  CHECK(std::string(operand_name(ProductType::ABC, 2)) == "C");
}

TEST_CASE("every range is checked by the core, naming the field and its rule", "[options][errors]")
{
  const std::vector<std::pair<std::string, std::function<void(SpgemmOptions &)>>> bad = {
    {"cluster_size", [](SpgemmOptions &o) { o.clustering.cluster_size = 0; }},
    {"cluster_size", [](SpgemmOptions &o) { o.clustering.cluster_size = kMaxClusterSize + 1; }},
    {"jaccard_threshold", [](SpgemmOptions &o) { o.clustering.jaccard_threshold = -0.1; }},
    {"jaccard_threshold", [](SpgemmOptions &o) { o.clustering.jaccard_threshold = 0.0 / 0.0; }},
    {"hierarchical_topk", [](SpgemmOptions &o) { o.clustering.hierarchical_topk = kMaxHierarchicalTopk + 1; }},
    {"num_threads", [](SpgemmOptions &o) { o.num_threads = -1; }},
    {"num_threads", [](SpgemmOptions &o) { o.num_threads = kMaxThreads + 1; }},
  };
  for (const auto &[field, spoil] : bad) {
    SpgemmOptions o;
    o.kernel = Kernel::Cluster;
    spoil(o);
    INFO(field);
    CHECK(rejected_field([&] { validate(o); }) == field);
  }
  const std::vector<std::pair<std::string, std::function<void(OrderingOptions &)>>> bad_ordering = {
    {"hub_fraction", [](OrderingOptions &o) { o.hub_fraction = 0; }},
    {"hub_fraction", [](OrderingOptions &o) { o.hub_fraction = 1.5; }},
    {"gray_bits", [](OrderingOptions &o) { o.gray_bits = 0; }},
    {"gray_bits", [](OrderingOptions &o) { o.gray_bits = kMaxGrayBits + 1; }},
    {"gray_dense_fraction", [](OrderingOptions &o) { o.gray_dense_fraction = 1.1; }},
    {"parts", [](OrderingOptions &o) { o.parts = -1; }},
  };
  for (const auto &[field, spoil] : bad_ordering) {
    OrderingOptions o;
    spoil(o);
    INFO(field);
    CHECK(rejected_field([&] { validate(o); }) == field);
  }
  CHECK(rejected_field([] { validate(SpgemmOptions{}); }).empty());
  CHECK(rejected_field([] { validate(OrderingOptions{}); }).empty());
}

TEST_CASE("a LeftAnalysis is reused only with options that give the same analysis", "[options][spgemm]")
{
  // Every member of SpgemmOptions, listed: adding one makes this fail to compile until it is
  // classified below as deciding the analysis (ordering, clusters) or not. operator== has the same
  // guard, so no member can be left out of LeftAnalysis::fits without a decision.
  SpgemmOptions base;
  base.kernel = Kernel::Cluster;
  base.reorder = OrderingType::Rcm;
  {
    const auto &[kernel, scheme, clustering, row_block_size, accumulator, num_threads, reorder, ordering, include_diagonal, check_operands,
                 triple, sorted_result] = base;
    (void)kernel, (void)scheme, (void)clustering, (void)row_block_size, (void)accumulator, (void)num_threads, (void)reorder, (void)ordering,
      (void)include_diagonal, (void)check_operands, (void)triple, (void)sorted_result;
  }
  LeftAnalysis<int> made;
  made.nrows = made.ncols = 10;
  made.nnz = 30;
  made.options = base;
  REQUIRE(made.fits(10, 10, 30, base));
  CHECK_FALSE(made.fits(11, 10, 30, base));
  CHECK_FALSE(made.fits(10, 11, 30, base));
  CHECK_FALSE(made.fits(10, 10, 31, base));

  const std::vector<std::pair<const char *, std::function<void(SpgemmOptions &)>>> decides = {
    {"kernel", [](SpgemmOptions &o) { o.kernel = Kernel::Rowwise; }},
    {"scheme", [](SpgemmOptions &o) { o.scheme = ClusterScheme::Hierarchical; }},
    {"clustering.cluster_size", [](SpgemmOptions &o) { o.clustering.cluster_size = 4; }},
    {"clustering.jaccard_threshold", [](SpgemmOptions &o) { o.clustering.jaccard_threshold = 0.5; }},
    {"clustering.hierarchical_topk", [](SpgemmOptions &o) { o.clustering.hierarchical_topk = 2; }},
    {"row_block_size", [](SpgemmOptions &o) { o.row_block_size = 3; }},
    {"reorder", [](SpgemmOptions &o) { o.reorder = OrderingType::Gray; }},
    {"ordering.seed", [](SpgemmOptions &o) { o.ordering.seed = 7; }},
    {"ordering.parts", [](SpgemmOptions &o) { o.ordering.parts = 3; }},
    {"ordering.hub_fraction", [](SpgemmOptions &o) { o.ordering.hub_fraction = 0.25; }},
    {"ordering.gray_bits", [](SpgemmOptions &o) { o.ordering.gray_bits = 8; }},
    {"ordering.gray_dense_fraction", [](SpgemmOptions &o) { o.ordering.gray_dense_fraction = 0.5; }},
  };
  const std::vector<std::pair<const char *, std::function<void(SpgemmOptions &)>>> irrelevant = {
    {"accumulator", [](SpgemmOptions &o) { o.accumulator = Accumulator::Dense; }},
    {"num_threads", [](SpgemmOptions &o) { o.num_threads = 3; }},
    {"include_diagonal", [](SpgemmOptions &o) { o.include_diagonal = true; }},
    {"check_operands", [](SpgemmOptions &o) { o.check_operands = false; }},
    {"triple", [](SpgemmOptions &o) { o.triple = TripleForm::Stored; }},
    {"sorted_result", [](SpgemmOptions &o) { o.sorted_result = false; }},
  };
  for (const auto &[name, change] : decides) {
    SpgemmOptions o = base;
    change(o);
    INFO(name);
    CHECK(o != base);
    CHECK_FALSE(made.fits(10, 10, 30, o));
  }
  for (const auto &[name, change] : irrelevant) {
    SpgemmOptions o = base;
    change(o);
    INFO(name);
    CHECK(o != base);
    CHECK(made.fits(10, 10, 30, o));
  }

  // Without clusters (row-wise) the clustering options do not count; without an ordering neither do
  // the ordering's; with neither, nor does the block size.
  made.options.kernel = Kernel::Rowwise;
  SpgemmOptions o = made.options;
  o.scheme = ClusterScheme::Fixed;
  o.clustering.cluster_size = 2;
  CHECK(made.fits(10, 10, 30, o));
  made.options.reorder = OrderingType::Natural;
  o = made.options;
  o.ordering.seed = 99;
  o.row_block_size = 3;
  CHECK(made.fits(10, 10, 30, o));
  made.options.kernel = Kernel::Cluster;
  o = made.options;
  o.row_block_size = 3; // a hint for the Auto scheme: decides clusters
  CHECK_FALSE(made.fits(10, 10, 30, o));
}
