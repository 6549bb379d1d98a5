/*
   The SeqAIJ sections of the bad-input program (see bad_input.hpp): unknown names, parameter
   ranges, sizes, unassembled operands, malformed operands (arrays spoiled by hand), operand types
   the plugin does not take, and pattern changes before a numeric phase.
*/
#include "bad_input.hpp"
#include "test_matrices.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace bad_input {

namespace {

/* A SeqAIJ on arrays copied from M's, with one defect made by `spoil` (arrays kept alive in g_arrays) */
struct Arrays {
  std::vector<PetscInt>    i, j;
  std::vector<PetscScalar> a;
};
std::vector<std::unique_ptr<Arrays>> g_arrays;

PetscErrorCode SpoiledCopy(Mat M, const std::function<void(Arrays &)> &spoil, Mat *S)
{
  const PetscInt    *ia, *ja;
  const PetscScalar *va;
  PetscInt           m, n;
  PetscBool          done;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(M, &m, &n));
  PetscCall(MatGetRowIJ(M, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscCall(MatSeqAIJGetArrayRead(M, &va));
  auto arr = std::make_unique<Arrays>();
  arr->i.assign(ia, ia + m + 1);
  arr->j.assign(ja, ja + ia[m]);
  arr->a.assign(va, va + ia[m]);
  PetscCall(MatSeqAIJRestoreArrayRead(M, &va));
  {
    PetscInt mm; /* MatRestoreRowIJ zeroes it */
    PetscCall(MatRestoreRowIJ(M, 0, PETSC_FALSE, PETSC_FALSE, &mm, &ia, &ja, &done));
  }
  spoil(*arr);
  /* PETSc's release build checks neither order nor range here (only with --with-debugging) */
  PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, m, n, arr->i.data(), arr->j.data(), arr->a.data(), S));
  g_arrays.push_back(std::move(arr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The first row with at least two entries (for the defects that need two) */
PetscInt RowWithTwo(const Arrays &a)
{
  for (size_t r = 0; r + 1 < a.i.size(); ++r)
    if (a.i[r + 1] - a.i[r] >= 2) return (PetscInt)r;
  return -1;
}

/* A MATSHELL that multiplies by M */
PetscErrorCode ShellMult(Mat S, Vec x, Vec y)
{
  Mat M;
  PetscFunctionBeginUser;
  PetscCall(MatShellGetContext(S, &M));
  PetscCall(MatMult(M, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode ShellMultTranspose(Mat S, Vec x, Vec y)
{
  Mat M;
  PetscFunctionBeginUser;
  PetscCall(MatShellGetContext(S, &M));
  PetscCall(MatMultTranspose(M, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AsType(Mat M, const char *type, Mat *T)
{
  PetscInt m, n;
  PetscFunctionBeginUser;
  if (!std::strcmp(type, MATSHELL)) {
    PetscCall(MatGetSize(M, &m, &n));
    PetscCall(MatCreateShell(PETSC_COMM_SELF, m, n, m, n, M, T));
    PetscCall(MatShellSetOperation(*T, MATOP_MULT, (void (*)(void))ShellMult));
    PetscCall(MatShellSetOperation(*T, MATOP_MULT_TRANSPOSE, (void (*)(void))ShellMultTranspose));
  } else PetscCall(MatConvert(M, type, MAT_INITIAL_MATRIX, T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Moves one entry of M to a free column of its row: same nnz, another pattern */
PetscErrorCode WithMovedNonzero(Mat M, Mat *M2)
{
  PetscFunctionBeginUser;
  PetscInt n;
  PetscCall(MatGetSize(M, NULL, &n));
  PetscCall(SpoiledCopy(M, [n](Arrays &a) {
    for (size_t r = 0; r + 1 < a.i.size(); ++r) { /* the last entry of a row moves right to a free column */
      const PetscInt last = a.i[r + 1] - 1;
      if (last >= a.i[r] && a.j[last] + 1 < n) {
        a.j[last] += 1;
        return;
      }
    }
  }, M2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

void FreeSpoiledArrays(void)
{
  g_arrays.clear();
}

PetscErrorCode UnknownNames(const Fixture &f)
{
  const std::vector<std::string> orderings = {"natural", "random", "rcm", "amd", "nd", "gp", "hp", "gray", "rabbit", "degree", "slashburn"};

  PetscFunctionBeginUser;
  for (MatProductType type : kTypes) {
    const Operands o = OperandsFor(type, f.A, f.P, f.R);
    const char    *tn = MatProductTypes[type];
    for (Entry e : {kOption, kUser}) {
      Case c;
      c.section = "unknown names";
      c.what    = std::string(tn) + ", " + AlgorithmOption(e, type) + " bogus";
      c.code    = PETSC_ERR_USER; /* PETSc's code for an unknown value of its option */
      c.words   = {"bogus", AlgorithmOption(e, type), "Available options", "petsc-cluster adds for seqaij operands"};
      for (const char *a : kOurs) c.words.push_back(a);
      c.options   = AlgOptions(e, type, "bogus");
      c.unchanged = List(o);
      c.call      = [=](Mat *C) { return FormProduct(e, type, o, NULL, C); };
      c.after     = [=]() { return StillUsable(type, o); };
      c.petsc_leaks = true; /* PetscOptionsGetEList (options.c:2400, 2407) keeps its list of names on this error */
      PetscCall(Run(c));
    }
    for (Entry e : {kInCode, kUser}) {
      const char *alg = e == kInCode ? MATPRODUCTALGORITHMCLUSTER : MATPRODUCTALGORITHMROWWISE;
      struct Bad {
        const char              *option, *value;
        PetscErrorCode           code;
        std::vector<std::string> words;
      };
      std::vector<std::string> ord_words = {"-mat_cluster_reorder", "bogus"};
      ord_words.insert(ord_words.end(), orderings.begin(), orderings.end());
      const Bad bads[] = {
        {"-mat_cluster_accumulator",    "foo",   PETSC_ERR_ARG_UNKNOWN_TYPE, {"-mat_cluster_accumulator", "foo", "auto", "hash", "dense"}},
        {"-mat_cluster_reorder",        "bogus", PETSC_ERR_ARG_UNKNOWN_TYPE, ord_words                                                },
        {"-mat_cluster_reuse_analysis", "maybe", PETSC_ERR_ARG_WRONG,        {"-mat_cluster_reuse_analysis", "maybe", "logical"}     },
      };
      for (const Bad &b : bads) {
        Case c;
        c.section   = "unknown names";
        c.what      = std::string(tn) + ", " + EntryName(e) + " " + alg + ", " + b.option + " " + b.value;
        c.code      = b.code;
        c.words     = b.words;
        c.options   = AlgOptions(e, type, alg, {{b.option, b.value}});
        c.unchanged = List(o);
        c.call      = [=](Mat *C) { return FormProduct(e, type, o, alg, C); };
        c.after     = [=]() { return StillUsable(type, o); };
        PetscCall(Run(c));
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Ranges(const Fixture &f)
{
  struct Bad {
    const char              *alg, *option, *value;
    Options                  extra;
    PetscErrorCode           code;
    std::vector<std::string> words;
  };
  const PetscErrorCode R = PETSC_ERR_ARG_OUTOFRANGE;
  /* just past PetscInt, either way, for a 32- or 64-bit PetscInt */
  const char *const beyond_int   = sizeof(PetscInt) == 4 ? "4294967298" : "18446744073709551618";
  const char *const below_int    = sizeof(PetscInt) == 4 ? "-2147483649" : "-9223372036854775809";
  const Options        random = {{"-mat_cluster_reorder", "random"}}, gp = {{"-mat_cluster_reorder", "gp"}}, sb = {{"-mat_cluster_reorder", "slashburn"}}, gray = {{"-mat_cluster_reorder", "gray"}};
  const Bad            bads[] = {
    {MATPRODUCTALGORITHMCLUSTERFIXED,        "-mat_cluster_size",                       "0",           {},     R, {"[1, 64]"}                    },
    {MATPRODUCTALGORITHMCLUSTERFIXED,        "-mat_cluster_size",                       "-1",          {},     R, {"[1, 64]"}                    },
    {MATPRODUCTALGORITHMCLUSTERVARIABLE,     "-mat_cluster_size",                       "65",          {},     R, {"[1, 64]"}                    },
    {MATPRODUCTALGORITHMCLUSTER,             "-mat_cluster_size",                       "2147483647",  {},     R, {"[1, 64]"}                    },
    {MATPRODUCTALGORITHMCLUSTER,             "-mat_cluster_size",                       beyond_int,    {},     R, {"PetscInt range"}             },
    {MATPRODUCTALGORITHMCLUSTER,             "-mat_cluster_size",                       "abc",         {},     R, {"not an integer"}             },
    {MATPRODUCTALGORITHMCLUSTERVARIABLE,     "-mat_cluster_jaccard_threshold",          "-0.5",        {},     R, {"[0, 1]"}                     },
    {MATPRODUCTALGORITHMCLUSTERHIERARCHICAL, "-mat_cluster_jaccard_threshold",          "1.5",         {},     R, {"[0, 1]"}                     },
    {MATPRODUCTALGORITHMCLUSTERVARIABLE,     "-mat_cluster_jaccard_threshold",          "nan",         {},     R, {"[0, 1]"}                     },
    {MATPRODUCTALGORITHMCLUSTERVARIABLE,     "-mat_cluster_jaccard_threshold",          "inf",         {},     R, {"[0, 1]"}                     },
    {MATPRODUCTALGORITHMCLUSTERVARIABLE,     "-mat_cluster_jaccard_threshold",          "1e400",       {},     R, {"[0, 1]"}                     },
    {MATPRODUCTALGORITHMCLUSTERVARIABLE,     "-mat_cluster_jaccard_threshold",          "abc",         {},     R, {"not a number"}               },
    {MATPRODUCTALGORITHMCLUSTERHIERARCHICAL, "-mat_cluster_topk",                       "-1",          {},     R, {"[0, 63]"}                    },
    {MATPRODUCTALGORITHMCLUSTERHIERARCHICAL, "-mat_cluster_topk",                       "64",          {},     R, {"[0, 63]"}                    },
    {MATPRODUCTALGORITHMCLUSTERHIERARCHICAL, "-mat_cluster_topk",                       "2147483647",  {},     R, {"[0, 63]"}                    },
    {MATPRODUCTALGORITHMROWWISE,             "-mat_cluster_threads",                    "-1",          {},     R, {"[0, 1024]"}                  },
    {MATPRODUCTALGORITHMROWWISE,             "-mat_cluster_threads",                    "1025",        {},     R, {"[0, 1024]"}                  },
    {MATPRODUCTALGORITHMCLUSTER,             "-mat_cluster_threads",                    "2147483647",  {},     R, {"[0, 1024]"}                  },
    {MATPRODUCTALGORITHMCLUSTER,             "-mat_cluster_threads",                    below_int,     {},     R, {"PetscInt range"}             },
    {MATPRODUCTALGORITHMROWWISE,             "-mat_cluster_reorder_seed",               "-1",          random, R, {">= 0"}                       },
    {MATPRODUCTALGORITHMROWWISE,             "-mat_cluster_reorder_seed",               beyond_int,    random, R, {"PetscInt range"}             },
    {MATPRODUCTALGORITHMROWWISE,             "-mat_cluster_reorder_parts",              "-1",          gp,     R, {">= 0"}                       },
    {MATPRODUCTALGORITHMROWWISE,             "-mat_cluster_reorder_hub_fraction",       "0",           sb,     R, {"(0, 1]"}                     },
    {MATPRODUCTALGORITHMROWWISE,             "-mat_cluster_reorder_hub_fraction",       "1.5",         sb,     R, {"(0, 1]"}                     },
    {MATPRODUCTALGORITHMROWWISE,             "-mat_cluster_reorder_hub_fraction",       "nan",         sb,     R, {"(0, 1]"}                     },
    {MATPRODUCTALGORITHMROWWISE,             "-mat_cluster_reorder_gray_bits",          "0",           gray,   R, {"[1, 62]"}                    },
    {MATPRODUCTALGORITHMROWWISE,             "-mat_cluster_reorder_gray_bits",          "63",          gray,   R, {"[1, 62]"}                    },
    {MATPRODUCTALGORITHMROWWISE,             "-mat_cluster_reorder_gray_dense_fraction", "-0.1",       gray,   R, {"[0, 1]"}                     },
    {MATPRODUCTALGORITHMROWWISE,             "-mat_cluster_reorder_gray_dense_fraction", "1.1",        gray,   R, {"[0, 1]"}                     },
  };

  PetscFunctionBeginUser;
  for (const Bad &b : bads) {
    /* The MatProduct API on A*P, and MatPtAP with -matptap_via */
    for (Entry e : {kInCode, kUser}) {
      const MatProductType type = e == kInCode ? MATPRODUCT_AB : MATPRODUCT_PtAP;
      const Operands       o    = OperandsFor(type, f.A, f.P, f.R);
      Case                 c;
      c.section = "ranges";
      c.what    = std::string(MatProductTypes[type]) + ", " + EntryName(e) + " " + b.alg + ", " + b.option + " " + b.value;
      c.code    = b.code;
      c.words   = b.words;
      c.words.insert(c.words.begin(), std::string(b.option) + " " + b.value);
      if (std::string(b.value) == "nan" || std::string(b.value) == "inf" || std::string(b.value) == "1e400") c.words[0] = b.option; /* printed as PETSc's %g */
      Options extra = b.extra;
      extra.push_back({b.option, b.value});
      c.options   = AlgOptions(e, type, b.alg, extra);
      c.unchanged = List(o);
      c.call      = [=](Mat *C) { return FormProduct(e, type, o, b.alg, C); };
      c.after     = [=]() { return StillUsable(type, o); };
      PetscCall(Run(c));
    }
  }
  { /* under the product's options prefix */
    const Operands o = OperandsFor(MATPRODUCT_AB, f.A, f.P, f.R);
    Case           c;
    c.section   = "ranges";
    c.what      = "AB, MatProductSetAlgorithm cluster, prefix bad_, -bad_mat_cluster_size 0";
    c.code      = PETSC_ERR_ARG_OUTOFRANGE;
    c.words     = {"-bad_mat_cluster_size 0", "[1, 64]"};
    c.options   = {{"-bad_mat_cluster_size", "0"}};
    c.unchanged = List(o);
    c.call      = [=](Mat *C) -> PetscErrorCode {
      PetscCall(MatProductCreate(o.X, o.Y, NULL, C));
      PetscCall(MatSetOptionsPrefix(*C, "bad_"));
      PetscCall(MatProductSetType(*C, MATPRODUCT_AB));
      PetscCall(MatProductSetAlgorithm(*C, MATPRODUCTALGORITHMCLUSTER));
      PetscCall(MatProductSetFromOptions(*C));
      PetscCall(MatProductSymbolic(*C));
      return PETSC_SUCCESS;
    };
    PetscCall(Run(c));
  }
  { /* the same tunables when our ordering is a PETSc ordering */
    Case c;
    c.section   = "ranges";
    c.what      = "MatGetOrdering pcluster_gray, -mat_cluster_reorder_gray_bits 0";
    c.code      = PETSC_ERR_ARG_OUTOFRANGE;
    c.words     = {"-mat_cluster_reorder_gray_bits 0", "[1, 62]"};
    c.options   = {{"-mat_cluster_reorder_gray_bits", "0"}};
    c.unchanged = {f.A};
    c.call      = [=](Mat *) -> PetscErrorCode {
      IS rows, cols;
      PetscCall(MatGetOrdering(f.A, "pcluster_gray", &rows, &cols));
      PetscCall(ISDestroy(&rows));
      PetscCall(ISDestroy(&cols));
      return PETSC_SUCCESS;
    };
    PetscCall(Run(c));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Sizes(void)
{
  struct Bad {
    MatProductType           type;
    PetscInt                 dims[3][2]; /* X, Y, Z sizes */
    std::vector<std::string> words;
  };
  /* PETSc's MatProductSetFromOptions checks the inner dimensions before any algorithm is chosen;
     what it lets through (PtAP, RARt of a non-square A) the plugin refuses */
  const Bad bads[] = {
    {MATPRODUCT_AB,   {{6, 5}, {4, 3}, {0, 0}}, {"incompatible", "A 6x5", "B 4x3"}                   },
    {MATPRODUCT_AtB,  {{6, 5}, {4, 3}, {0, 0}}, {"incompatible", "A 6x5", "B 4x3"}                   },
    {MATPRODUCT_ABt,  {{6, 5}, {4, 3}, {0, 0}}, {"incompatible", "A 6x5", "B 4x3"}                   },
    {MATPRODUCT_PtAP, {{6, 6}, {5, 3}, {0, 0}}, {"incompatible", "A 6x6", "P 5x3"}                   },
    {MATPRODUCT_PtAP, {{6, 5}, {5, 3}, {0, 0}}, {"A must be square", "A is 6 x 5", "P is 5 x 3"}     },
    {MATPRODUCT_RARt, {{6, 6}, {3, 5}, {0, 0}}, {"incompatible", "A 6x6", "R 3x5"}                   },
    {MATPRODUCT_RARt, {{5, 6}, {3, 6}, {0, 0}}, {"A must be square", "A is 5 x 6", "R is 3 x 6"}     },
    {MATPRODUCT_ABC,  {{6, 5}, {4, 4}, {4, 2}}, {"incompatible", "A 6x5", "B 4x4"}                   },
    {MATPRODUCT_ABC,  {{6, 5}, {5, 4}, {3, 2}}, {"incompatible", "B 5x4", "C 3x2"}                   },
  };

  PetscFunctionBeginUser;
  for (const Bad &b : bads) {
    Operands o;
    Mat     *slots[3] = {&o.X, &o.Y, &o.Z};
    for (int k = 0; k < (b.type == MATPRODUCT_ABC ? 3 : 2); ++k) PetscCall(RandomAIJ(PETSC_COMM_SELF, b.dims[k][0], b.dims[k][1], 2, 90 + k, slots[k]));
    for (Entry e : {kInCode, kUser}) {
      Case c;
      c.section   = "sizes";
      c.what      = std::string(MatProductTypes[b.type]) + ", " + EntryName(e) + " cluster, " + b.words[1] + " and " + b.words[2];
      c.code      = PETSC_ERR_ARG_SIZ;
      c.words     = b.words;
      c.options   = AlgOptions(e, b.type, MATPRODUCTALGORITHMCLUSTER);
      c.unchanged = List(o);
      c.call      = [=](Mat *C) { return FormProduct(e, b.type, o, MATPRODUCTALGORITHMCLUSTER, C); };
      PetscCall(Run(c));
    }
    PetscCall(MatDestroy(&o.X));
    PetscCall(MatDestroy(&o.Y));
    PetscCall(MatDestroy(&o.Z));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode UnassembledOperands(const Fixture &f)
{
  PetscFunctionBeginUser;
  for (MatProductType type : kTypes) {
    const Operands o = OperandsFor(type, f.A, f.P, f.R);
    const char    *tn = MatProductTypes[type];
    for (int k = 0; k < (o.Z ? 3 : 2); ++k) {
      Operands bad = o;
      Mat     *slot = k == 0 ? &bad.X : k == 1 ? &bad.Y : &bad.Z;
      Mat      U;
      PetscCall(Unassembled(*slot, &U));
      *slot = U;
      std::vector<Mat> good;
      for (Mat M : List(bad))
        if (M != U) good.push_back(M);
      /* PETSc refuses it when the product is created (both APIs) */
      for (Entry e : {kInCode, kUser}) {
        Case c;
        c.section   = "unassembled";
        c.what      = std::string(tn) + ", " + EntryName(e) + " cluster, operand " + OperandName(type, k) + " unassembled";
        c.code      = PETSC_ERR_ARG_WRONGSTATE;
        c.words     = {"assembled"}; /* PETSc's "Not for unassembled matrix" or, where PETSc does not check, ours */
        c.options   = AlgOptions(e, type, MATPRODUCTALGORITHMCLUSTER);
        c.unchanged = good;
        c.call      = [=](Mat *C) { return FormProduct(e, type, bad, MATPRODUCTALGORITHMCLUSTER, C); };
        PetscCall(Run(c));
      }
      /* MatProductReplaceMats does not check it: the plugin's numeric phase does */
      {
        Case c;
        c.section   = "unassembled";
        c.what      = std::string(tn) + ", MatProductReplaceMats + MatProductNumeric, operand " + OperandName(type, k) + " unassembled";
        c.code      = PETSC_ERR_ARG_WRONGSTATE;
        c.words     = {std::string("matrix ") + OperandName(type, k) + " must be assembled"};
        c.unchanged = good;
        c.call      = [=](Mat *C) -> PetscErrorCode {
          PetscCall(FormProduct(kInCode, type, o, MATPRODUCTALGORITHMCLUSTER, C));
          PetscCall(MatProductReplaceMats(bad.X, bad.Y, bad.Z, *C));
          PetscCall(MatProductNumeric(*C));
          return PETSC_SUCCESS;
        };
        c.after = [=]() { return StillUsable(type, o); };
        PetscCall(Run(c));
      }
      PetscCall(MatAssemblyBegin(U, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(U, MAT_FINAL_ASSEMBLY));
      PetscCall(MatDestroy(&U));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MalformedOperands(const Fixture &f)
{
  struct Defect {
    const char *what;
    std::function<std::string(Arrays &, PetscInt ncols)> spoil; /* returns the words of the message */
  };
  const Defect defects[] = {
    {"unsorted columns",
     [](Arrays &a, PetscInt) {
       const PetscInt r = RowWithTwo(a);
       std::swap(a.j[a.i[r]], a.j[a.i[r] + 1]);
       return "column indices not sorted and unique in row " + std::to_string(r);
     }},
    {"a repeated column",
     [](Arrays &a, PetscInt) {
       const PetscInt r = RowWithTwo(a);
       a.j[a.i[r] + 1] = a.j[a.i[r]];
       return "column indices not sorted and unique in row " + std::to_string(r);
     }},
    {"a column index = ncols",
     [](Arrays &a, PetscInt n) {
       const PetscInt r = RowWithTwo(a);
       a.j[a.i[r + 1] - 1] = n;
       return "column index " + std::to_string(n) + " out of range [0," + std::to_string(n) + ") in row " + std::to_string(r);
     }},
    {"a column index -1",
     [](Arrays &a, PetscInt n) {
       const PetscInt r = RowWithTwo(a);
       a.j[a.i[r]] = -1;
       return "column index -1 out of range [0," + std::to_string(n) + ") in row " + std::to_string(r);
     }},
  };

  PetscFunctionBeginUser;
  for (const Defect &d : defects)
    for (MatProductType type : kTypes) {
      const Operands o = OperandsFor(type, f.A, f.P, f.R);
      const char    *tn = MatProductTypes[type];
      Operands       bad = o;
      std::string    words;
      PetscInt       n;
      PetscCall(MatGetSize(o.X, NULL, &n));
      PetscCall(SpoiledCopy(o.X, [&](Arrays &a) { words = d.spoil(a, n); }, &bad.X));
      const std::vector<Mat> good = o.Z ? std::vector<Mat>{o.Y, o.Z} : std::vector<Mat>{o.Y};
      for (Entry e : {kInCode, kUser}) {
        Case c;
        c.section   = "malformed";
        c.what      = std::string(tn) + ", " + EntryName(e) + " cluster, A with " + d.what;
        c.code      = PETSC_ERR_ARG_OUTOFRANGE;
        c.words     = {"A: " + words};
        c.options   = AlgOptions(e, type, MATPRODUCTALGORITHMCLUSTER);
        c.unchanged = List(bad);
        c.call      = [=](Mat *C) { return FormProduct(e, type, bad, MATPRODUCTALGORITHMCLUSTER, C); };
        c.after     = [=]() { return StillUsable(type, o); };
        PetscCall(Run(c));
      }
      { /* given to an existing product: same sizes and nnz, so the numeric phase validates it */
        Case c;
        c.section   = "malformed";
        c.what      = std::string(tn) + ", MatProductReplaceMats + MatProductNumeric, A with " + d.what;
        c.code      = PETSC_ERR_ARG_OUTOFRANGE;
        c.words     = {"A: " + words};
        c.unchanged = List(bad);
        c.call      = [=](Mat *C) -> PetscErrorCode {
          PetscCall(FormProduct(kInCode, type, o, MATPRODUCTALGORITHMCLUSTER, C));
          PetscCall(MatProductReplaceMats(bad.X, NULL, NULL, *C));
          PetscCall(MatProductNumeric(*C));
          return PETSC_SUCCESS;
        };
        c.after = [=]() { return StillUsable(type, o); };
        PetscCall(Run(c));
      }
      PetscCall(MatDestroy(&bad.X));
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Operand types the plugin does not take. The policy: our names are selected like PETSc's own
   AIJ algorithm names and behave like them. Products of other matrix families (dense, BAIJ,
   SBAIJ, shell, and AIJ mixed with them) never reach the plugin's hook: they run exactly as
   without the plugin, so with our name the outcome must be PETSc's default outcome (the same
   product, or the same error). AIJ subtypes (seqaijperm) reach the hook and are refused with
   PETSC_ERR_SUP naming the types.
*/
PetscErrorCode OtherTypes(const Fixture &f)
{
  Mat S; /* 12 x 12 symmetric (SBAIJ needs it) */

  PetscFunctionBeginUser;
  {
    Mat T, Sa;
    PetscCall(RandomAIJ(PETSC_COMM_SELF, 12, 12, 3, 77, &Sa));
    PetscCall(MatTranspose(Sa, MAT_INITIAL_MATRIX, &T));
    PetscCall(MatAXPY(Sa, 1.0, T, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatDestroy(&T));
    PetscCall(MatSetOption(Sa, MAT_SYMMETRIC, PETSC_TRUE));
    S = Sa;
  }
  for (const char *xt : {MATSEQDENSE, MATSEQBAIJ, MATSEQSBAIJ, MATSHELL}) {
    Mat X;
    PetscCall(AsType(S, xt, &X));
    for (MatProductType type : kTypes) {
      /* all of type xt; xt with AIJ on either side (third operand AIJ). PETSc 3.18.5 itself crashes
         (SEGV) in the second ABC with a BAIJ, SBAIJ or shell first operand and AIJ others, the
         first having failed (with its default algorithm and without the plugin too) */
      std::vector<Operands> sets = {{X, X, X}, {S, X, S}};
      if (type != MATPRODUCT_ABC || !std::strcmp(xt, MATSEQDENSE)) sets.push_back({X, S, S});
      for (const Operands &o : sets)
        for (Entry e : {kInCode, kUser}) {
          MatType tx, ty, tz;
          PetscCall(MatGetType(o.X, &tx));
          PetscCall(MatGetType(o.Y, &ty));
          PetscCall(MatGetType(o.Z, &tz));
          const std::string kinds = std::string(tx) + " x " + ty + (type == MATPRODUCT_ABC ? std::string(" x ") + tz : "");
          /* PETSc's outcome without our name */
          Mat            Cref = NULL;
          PetscErrorCode ref;
          const char    *refmsg = NULL;
          PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
          ref = FormProduct(e, type, o, MATPRODUCTALGORITHMDEFAULT, &Cref);
          PetscCall(PetscPopErrorHandler());
          PetscCall(ErrorMessage(ref, NULL, &refmsg));
          const std::string refwords = ref && refmsg ? refmsg : "";
          Case c;
          c.section   = "other types";
          c.what      = std::string(MatProductTypes[type]) + ", " + EntryName(e) + " cluster, " + kinds + " (PETSc's outcome: " + (ref ? "error " + std::to_string((int)ref) : std::string("a product")) + ")";
          c.code      = ref;
          if (ref) c.words = {refwords.substr(0, 40)};
          c.options   = AlgOptions(e, type, MATPRODUCTALGORITHMCLUSTER);
          c.petsc_leaks = ref != 0; /* PETSc's own error paths for these types leave objects behind */
          c.unchanged = {S};
          if (std::strcmp(xt, MATSHELL)) c.unchanged.push_back(X);
          c.call = [=](Mat *C) -> PetscErrorCode {
            PetscCall(FormProduct(e, type, o, MATPRODUCTALGORITHMCLUSTER, C));
            if (Cref) {
              PetscBool same;
              PetscCall(SameMatrix(Cref, *C, &same));
              PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "differs from PETSc's product");
            }
            return PETSC_SUCCESS;
          };
          PetscCall(Run(c));
          PetscCall(MatDestroy(&Cref));
        }
    }
    PetscCall(MatDestroy(&X));
  }
  { /* an AIJ subtype reaches the hook: refused, naming the types */
    Mat Ap, Pp, Rp;
    PetscCall(MatConvert(f.A, MATSEQAIJPERM, MAT_INITIAL_MATRIX, &Ap));
    PetscCall(MatConvert(f.P, MATSEQAIJPERM, MAT_INITIAL_MATRIX, &Pp));
    PetscCall(MatConvert(f.R, MATSEQAIJPERM, MAT_INITIAL_MATRIX, &Rp));
    for (MatProductType type : kTypes) {
      const Operands o = OperandsFor(type, Ap, f.P, f.R), oall = OperandsFor(type, Ap, Pp, Rp);
      for (Entry e : {kInCode, kUser})
        for (const Operands &x : {o, oall}) {
          Case c;
          c.section   = "other types";
          c.what      = std::string(MatProductTypes[type]) + ", " + EntryName(e) + " cluster, " + (x.Y == o.Y ? "a seqaijperm operand" : "all seqaijperm");
          c.code      = PETSC_ERR_SUP;
          c.words     = {"seqaijperm", "all of type seqaij", "Use one of PETSc's algorithms"};
          c.options   = AlgOptions(e, type, MATPRODUCTALGORITHMCLUSTER);
          c.unchanged = List(x);
          c.call      = [=](Mat *C) { return FormProduct(e, type, x, MATPRODUCTALGORITHMCLUSTER, C); };
          PetscCall(Run(c));
        }
    }
    PetscCall(MatDestroy(&Ap));
    PetscCall(MatDestroy(&Pp));
    PetscCall(MatDestroy(&Rp));
  }
  PetscCall(MatDestroy(&S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PatternChanges(const Fixture &f)
{
  PetscFunctionBeginUser;
  for (MatProductType type : kTypes) {
    const Operands o  = OperandsFor(type, f.A, f.P, f.R);
    const char    *tn = MatProductTypes[type];
    for (int k = 0; k < (o.Z ? 3 : 2); ++k) {
      const char *name = OperandName(type, k);
      for (int how = 0; how < 2; ++how) { /* one more entry; an entry moved (same nnz) */
        Operands changed = o;
        Mat     *slot    = k == 0 ? &changed.X : k == 1 ? &changed.Y : &changed.Z;
        if (how == 0) PetscCall(WithExtraNonzero(*slot, slot));
        else PetscCall(WithMovedNonzero(*slot, slot));
        Case c;
        c.section   = "pattern changed";
        c.what      = std::string(tn) + ", MatProductReplaceMats + MatProductNumeric, " + name + (how == 0 ? " with one more entry" : " with an entry moved");
        c.code      = PETSC_ERR_ARG_INCOMP;
        c.words     = {std::string("nonzero pattern of ") + name + " changed since the symbolic phase", "MAT_INITIAL_MATRIX"};
        c.unchanged = List(changed);
        c.call      = [=](Mat *C) -> PetscErrorCode {
          PetscCall(FormProduct(kInCode, type, o, MATPRODUCTALGORITHMCLUSTER, C));
          PetscCall(MatProductReplaceMats(changed.X, changed.Y, changed.Z, *C));
          PetscCall(MatProductNumeric(*C));
          return PETSC_SUCCESS;
        };
        c.after = [=]() { return StillUsable(type, o); };
        PetscCall(Run(c));
        PetscCall(MatDestroy(slot));
      }
      /* MAT_REUSE_MATRIX through the user API after the operand's pattern changed in place: the
         caller's C must be left as it was */
      {
        Operands w;
        PetscCall(MatDuplicate(o.X, MAT_COPY_VALUES, &w.X));
        PetscCall(MatDuplicate(o.Y, MAT_COPY_VALUES, &w.Y));
        if (o.Z) PetscCall(MatDuplicate(o.Z, MAT_COPY_VALUES, &w.Z));
        Mat C;
        PetscCall(PetscOptionsSetValue(NULL, ViaOption(type), MATPRODUCTALGORITHMCLUSTER));
        PetscCall(UserProduct(type, w.X, w.Y, w.Z, MAT_INITIAL_MATRIX, &C));
        PetscCall(PetscOptionsClearValue(NULL, ViaOption(type)));
        Mat  target = k == 0 ? w.X : k == 1 ? w.Y : w.Z, grown;
        PetscCall(WithExtraNonzero(target, &grown)); /* in place: copy grown's entries into target */
        PetscCall(MatSetOption(target, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
        PetscCall(MatCopy(grown, target, DIFFERENT_NONZERO_PATTERN));
        PetscCall(MatDestroy(&grown));
        Case c;
        c.section   = "pattern changed";
        c.what      = std::string(tn) + ", user API MAT_REUSE_MATRIX after " + name + " got one more entry in place";
        c.code      = PETSC_ERR_ARG_INCOMP;
        c.words     = {std::string("nonzero pattern of ") + name + " changed since the symbolic phase"};
        c.unchanged = List(w);
        c.unchanged.push_back(C);
        c.call = [=](Mat *) mutable { return UserProduct(type, w.X, w.Y, w.Z, MAT_REUSE_MATRIX, &C); };
        c.after = [=]() { return MultiplyByOnes(C); }; /* C is still a valid matrix */
        PetscCall(Run(c));
        PetscCall(MatDestroy(&C));
        PetscCall(MatDestroy(&w.X));
        PetscCall(MatDestroy(&w.Y));
        PetscCall(MatDestroy(&w.Z));
      }
    }
    { /* C's own structure changed between the phases */
      Case c;
      c.section   = "pattern changed";
      c.what      = std::string(tn) + ", MatProductNumeric after an entry was added to C";
      c.code      = PETSC_ERR_ARG_INCOMP;
      c.words     = {"no longer has the structure built by the symbolic phase"};
      c.unchanged = List(o);
      c.call      = [=](Mat *C) -> PetscErrorCode {
        PetscCall(FormProduct(kInCode, type, o, MATPRODUCTALGORITHMCLUSTER, C));
        Mat grown;
        PetscCall(WithExtraNonzero(*C, &grown));
        PetscCall(MatSetOption(*C, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_FALSE));
        PetscCall(MatSetOption(*C, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
        PetscCall(MatCopy(grown, *C, DIFFERENT_NONZERO_PATTERN));
        PetscCall(MatDestroy(&grown));
        PetscCall(MatProductNumeric(*C));
        return PETSC_SUCCESS;
      };
      PetscCall(Run(c));
    }
    { /* an operand replaced by one of another type: PETSc's MatProductReplaceMats forms the product
         again from scratch (MatProductSetFromOptions, symbolic), so PETSc's kernel for the new
         types takes it, as without the plugin */
      Case c;
      c.section   = "pattern changed";
      c.what      = std::string(tn) + ", MatProductReplaceMats with a seqdense " + OperandName(type, 1) + " + MatProductNumeric: PETSc's product of the new types";
      c.code      = 0;
      c.unchanged = List(o);
      c.call      = [=](Mat *C) -> PetscErrorCode {
        Mat       D, Cref;
        PetscBool same;
        PetscCall(FormProduct(kInCode, type, o, MATPRODUCTALGORITHMCLUSTER, C));
        PetscCall(MatConvert(o.Y, MATSEQDENSE, MAT_INITIAL_MATRIX, &D));
        PetscCall(MatProductReplaceMats(NULL, D, NULL, *C));
        PetscCall(MatProductNumeric(*C));
        PetscCall(FormProduct(kInCode, type, {o.X, D, o.Z}, MATPRODUCTALGORITHMDEFAULT, &Cref));
        PetscCall(SameMatrix(Cref, *C, &same));
        PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "differs from PETSc's product with the seqdense operand");
        PetscCall(MatDestroy(&Cref));
        PetscCall(MatDestroy(&D));
        return PETSC_SUCCESS;
      };
      PetscCall(Run(c));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace bad_input
