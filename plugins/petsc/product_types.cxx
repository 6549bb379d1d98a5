/*
   The one table of the MatProduct types the plugin computes. A row says, for both matrix types:
     - the core's chain (pcluster::ProductType; the SeqAIJ path is that chain on the operands);
     - the option PETSc's MatMatMult()-style callers read for the algorithm (dispatch.cxx);
     - C's row and column layouts, which are also where its block sizes come from (as PETSc's own
       algorithms set them: matmatmult.c, matptap.c, matrart.c, 3.18.5);
     - the operand dimensions that must agree, and on MPIAIJ share their parallel layout;
     - the MPIAIJ formulation: which operand's rows the A*X local product fetches, and which local
       products run (product_mpiaij.cxx).
   A new product type is one row here (and a chain in src/product.cpp).
*/
#include "petscclusterimpl.h"

#include <string>

/* The sides of operands: A = 0, B (P, R) = 1, C = 2 */
static constexpr MatClusterSide kARows = {0, false}, kACols = {0, true}, kBRows = {1, false}, kBCols = {1, true}, kCRows = {2, false}, kCCols = {2, true};

static const MatClusterProductTypeInfo MatClusterProductTypeTable[] = {
  /* type            core                          legacy option               C rows  C cols  agree                                     MPI right           MPI local products */
  {MATPRODUCT_AB,   pcluster::ProductType::AB,   "-matmatmult_via",          kARows, kBCols, 1, {{kACols, kBRows}, {kACols, kBRows}}, kRightB,          kLocalAB  },
  {MATPRODUCT_AtB,  pcluster::ProductType::AtB,  "-mattransposematmult_via", kACols, kBCols, 1, {{kARows, kBRows}, {kARows, kBRows}}, kRightB,          kLocalAtB },
  {MATPRODUCT_ABt,  pcluster::ProductType::ABt,  "-matmattransmult_via",     kARows, kBRows, 1, {{kACols, kBCols}, {kACols, kBCols}}, kRightTransposeB, kLocalAB  },
  {MATPRODUCT_PtAP, pcluster::ProductType::PtAP, "-matptap_via",             kBCols, kBCols, 2, {{kACols, kBRows}, {kARows, kBRows}}, kRightB,          kLocalPtAP},
  {MATPRODUCT_RARt, pcluster::ProductType::RARt, "-matrart_via",             kBRows, kBRows, 2, {{kACols, kBCols}, {kARows, kBCols}}, kRightTransposeB, kLocalPtAP},
  {MATPRODUCT_ABC,  pcluster::ProductType::ABC,  "-matmatmatmult_via",       kARows, kCCols, 2, {{kACols, kBRows}, {kBCols, kCRows}}, kRightProductBC,  kLocalAB  },
};

const MatClusterProductTypeInfo *MatClusterProductTypeInfo_Private(MatProductType type)
{
  for (const MatClusterProductTypeInfo &t : MatClusterProductTypeTable)
    if (t.type == type) return &t;
  return NULL;
}

const char *MatClusterProductTypeList_Private(void)
{
  static const std::string list = [] {
    std::string l;
    for (const MatClusterProductTypeInfo &t : MatClusterProductTypeTable) l += std::string(l.empty() ? "" : ", ") + MatProductTypes[t.type];
    return l;
  }();
  return list.c_str();
}

PetscLayout MatClusterSideLayout_Private(const Mat ops[], MatClusterSide s)
{
  return s.cols ? ops[s.operand]->cmap : ops[s.operand]->rmap;
}

void MatClusterResultBlockSizes_Private(const MatClusterProductTypeInfo *info, const Mat ops[], PetscInt *rbs, PetscInt *cbs)
{
  *rbs = PetscAbs(MatClusterSideLayout_Private(ops, info->result_rows)->bs);
  *cbs = PetscAbs(MatClusterSideLayout_Private(ops, info->result_cols)->bs);
}
