/*
   Takes over MATSEQAIJ product dispatch (mechanism (a) of shared/design/petsc.md §2).

   MatRegister(MATSEQAIJ, MatCreate_SeqAIJ_Cluster) replaces the constructor in PETSc's MatList, so
   every SeqAIJ matrix created afterwards (MatCreateSeqAIJ, MatSetType, MatDuplicate, MatConvert,
   product results, ...) is built by PETSc's own constructor and then gets
   MatProductSetFromOptions_SeqAIJ_Cluster as its ops->productsetfromoptions. PETSc calls that hook
   only when A and B (and C for ABC) share it ("matching op"), i.e. both are SeqAIJ; mixed pairs
   (seqaij x seqdense, seqaij x seqmaij, ...) still go to PETSc's composed functions untouched.

   The hook reads the algorithm name the way PETSc's SeqAIJ selector would for this product:
     api_user (MatMatMult, MatPtAP, ...):  -[prefix]matmatmult_via, -matptap_via, ... (table below)
     MatProductCreate users:               -[prefix]mat_product_algorithm
     neither given:                        product->alg (MatProductSetAlgorithm())
   One of ours  -> our symbolic is installed, PETSc's selector is not called (its EList would reject
                   the name);
   anything else -> PETSc's saved selector runs exactly as without the plugin.
*/
#include "petscclusterimpl.h"

static PetscErrorCode (*MatCreate_SeqAIJ_Orig)(Mat)                 = NULL;
static PetscErrorCode (*MatProductSetFromOptions_SeqAIJ_Orig)(Mat) = NULL;

/* The option PETSc's SeqAIJ selector reads for this product (matmatmult.c, 3.18.5) */
static const char *MatClusterAlgorithmOption(const Mat_Product *product)
{
  if (!product->api_user) return "-mat_product_algorithm";
  switch (product->type) {
  case MATPRODUCT_AB:
    return "-matmatmult_via";
  case MATPRODUCT_AtB:
    return "-mattransposematmult_via";
  case MATPRODUCT_ABt:
    return "-matmattransmult_via";
  case MATPRODUCT_PtAP:
    return "-matptap_via";
  case MATPRODUCT_RARt:
    return "-matrart_via";
  case MATPRODUCT_ABC:
    return "-matmatmatmult_via";
  default:
    return "-mat_product_algorithm";
  }
}

static PetscErrorCode MatProductSetFromOptions_SeqAIJ_Cluster(Mat C)
{
  Mat_Product *product = C->product;
  const char  *prefix  = ((PetscObject)C)->prefix ? ((PetscObject)C)->prefix : "";
  const char  *option;
  const char  *alg, *canonical = NULL;
  char         name[256];
  PetscBool    set = PETSC_FALSE, ours, seqA = PETSC_FALSE, seqB = PETSC_FALSE;

  PetscFunctionBegin;
  if (!product || product->type == MATPRODUCT_UNSPECIFIED) {
    if (MatProductSetFromOptions_SeqAIJ_Orig) PetscCall((*MatProductSetFromOptions_SeqAIJ_Orig)(C));
    PetscFunctionReturn(0);
  }
  option = MatClusterAlgorithmOption(product);
  PetscCall(PetscOptionsGetString(((PetscObject)C)->options, ((PetscObject)C)->prefix, option, name, sizeof(name), &set));
  alg = set ? name : product->alg;
  PetscCall(MatClusterAlgorithmIsOurs_Private(alg, &ours, &canonical));

  if (!ours) { /* PETSc's own selector, unchanged; on an unknown name add ours to its list */
    PetscErrorCode ierr;

    PetscCheck(MatProductSetFromOptions_SeqAIJ_Orig, PetscObjectComm((PetscObject)C), PETSC_ERR_PLIB, "petsc-cluster: PETSc's SeqAIJ product selector was not captured");
    ierr = (*MatProductSetFromOptions_SeqAIJ_Orig)(C);
    if (ierr == PETSC_ERR_USER && set) (void)(*PetscErrorPrintf)("petsc-cluster adds these algorithms for -%s%s (seqaij operands): %s\n", prefix, option + 1, MatClusterAlgorithmList_Private());
    PetscCall(ierr);
    PetscFunctionReturn(0);
  }

  /* One of ours: every product type of the core (AB, AtB, ABt, PtAP, RARt, ABC), operands exactly
     MATSEQAIJ (host memory). Mixed operand types never reach this hook (see the top of this file). */
  PetscCall(PetscObjectTypeCompare((PetscObject)product->A, MATSEQAIJ, &seqA));
  PetscCall(PetscObjectTypeCompare((PetscObject)product->B, MATSEQAIJ, &seqB));
  if (product->type == MATPRODUCT_ABC && seqA && seqB) PetscCall(PetscObjectTypeCompare((PetscObject)product->C, MATSEQAIJ, &seqB));
  PetscCheck(MatClusterProductTypeSupported_Private(product->type) && seqA && seqB, PetscObjectComm((PetscObject)C), PETSC_ERR_SUP,
             "petsc-cluster algorithm %s (%s%s%s) supports MatProductType AB, AtB, ABt, PtAP, RARt and ABC with operands of type %s; got %s with A %s and B %s. Use one of PETSc's algorithms for this product",
             alg, set ? "from -" : "set by MatProductSetAlgorithm()", set ? prefix : "", set ? option + 1 : "", MATSEQAIJ, MatProductTypes[product->type], ((PetscObject)product->A)->type_name,
             ((PetscObject)product->B)->type_name);
  PetscCall(MatProductSetAlgorithm(C, canonical)); /* persists; shown by views and -info */
  C->ops->productsymbolic = MatProductSymbolic_SeqAIJ_Cluster;
  PetscCall(PetscInfo(C, "petsc-cluster takes MatProduct %s (%s x %s) with algorithm %s\n", MatProductTypes[product->type], ((PetscObject)product->A)->type_name, ((PetscObject)product->B)->type_name, product->alg));
  PetscFunctionReturn(0);
}

/* PETSc's SeqAIJ constructor, then our hook in place of its product selector */
static PetscErrorCode MatCreate_SeqAIJ_Cluster(Mat B)
{
  PetscFunctionBegin;
  PetscCall((*MatCreate_SeqAIJ_Orig)(B));
  if (!MatProductSetFromOptions_SeqAIJ_Orig) MatProductSetFromOptions_SeqAIJ_Orig = B->ops->productsetfromoptions;
  if (B->ops->productsetfromoptions == MatProductSetFromOptions_SeqAIJ_Orig) B->ops->productsetfromoptions = MatProductSetFromOptions_SeqAIJ_Cluster;
  else if (B->ops->productsetfromoptions != MatProductSetFromOptions_SeqAIJ_Cluster) PetscCall(PetscInfo(B, "petsc-cluster: unexpected productsetfromoptions on a new %s; left to PETSc\n", MATSEQAIJ));
  PetscFunctionReturn(0);
}

/* Idempotent: a second registration finds the wrapper already in MatList and does nothing */
PetscErrorCode MatClusterDispatchRegister_Private(void)
{
  PetscErrorCode (*current)(Mat) = NULL;

  PetscFunctionBegin;
  PetscCall(MatInitializePackage()); /* fills MatList (MatRegisterAll) */
  PetscCall(PetscFunctionListFind(MatList, MATSEQAIJ, &current));
  PetscCheck(current, PETSC_COMM_SELF, PETSC_ERR_PLIB, "petsc-cluster: no constructor for %s in MatList", MATSEQAIJ);
  if (current == MatCreate_SeqAIJ_Cluster) PetscFunctionReturn(0);
  MatCreate_SeqAIJ_Orig = current;
  PetscCall(MatRegister(MATSEQAIJ, MatCreate_SeqAIJ_Cluster));
  PetscCall(PetscInfo(NULL, "petsc-cluster: %s constructor wrapped; product algorithms %s\n", MATSEQAIJ, MatClusterAlgorithmList_Private()));
  PetscFunctionReturn(0);
}

/*
   PetscFinalize destroys MatList; a new PetscInitialize registers again (the wrapper is then not in
   MatList, so MatClusterDispatchRegister_Private captures PETSc's constructor anew). The captured
   pointers stay valid meanwhile (they point into libpetsc), so matrices created late in
   PetscFinalize still work; only the selector is captured again from the next SeqAIJ.
*/
PetscErrorCode MatClusterDispatchReset_Private(void)
{
  PetscFunctionBegin;
  MatProductSetFromOptions_SeqAIJ_Orig = NULL;
  PetscFunctionReturn(0);
}
