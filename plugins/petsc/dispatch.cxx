/*
   Takes over MATSEQAIJ and MATMPIAIJ product dispatch (mechanism (a) of shared/design/petsc.md §2).

   MatRegister(MATSEQAIJ, MatCreate_Cluster<SeqAIJ>) replaces the constructor in PETSc's MatList (and
   likewise for MATMPIAIJ), so every such matrix created afterwards (MatCreateAIJ, MatSetType,
   MatDuplicate, MatConvert, product results, ...) is built by PETSc's own constructor and then gets
   MatProductSetFromOptions_Cluster<type> as its ops->productsetfromoptions. PETSc calls that hook
   only when A and B (and C for ABC) share it ("matching op"), i.e. all are SeqAIJ or all MPIAIJ;
   mixed pairs (aij x dense, aij x maij, ...) still go to PETSc's composed functions untouched.

   The hook reads the algorithm name the way PETSc's selector would for this product:
     api_user (MatMatMult, MatPtAP, ...):  -[prefix]matmatmult_via, -matptap_via, ... (table below)
     MatProductCreate users:               -[prefix]mat_product_algorithm
     neither given:                        product->alg (MatProductSetAlgorithm())
   One of ours  -> our symbolic for the type is installed, PETSc's selector is not called (its EList
                   would reject the name);
   anything else -> PETSc's saved selector runs exactly as without the plugin; if it rejects a name
                   given in the options database (PETSC_ERR_USER), its message gets our names too.
   Operands of other types (dense, BAIJ, SBAIJ, shell, AIJ x dense, ...) never reach the hook: such
   products run as without the plugin, as PETSc's own AIJ algorithm names do for them. Operands
   that reach it with a type other than exactly d.type (AIJ subtypes such as seqaijperm) fail with
   PETSC_ERR_SUP naming the types when one of our names is selected.
*/
#include "petscclusterimpl.h"

/* The matrix types whose product dispatch is taken over; the index is the template argument below */
enum MatClusterAIJ { kSeqAIJ, kMPIAIJ, kNumAIJ };
struct MatClusterDispatch {
  const char *type;
  PetscErrorCode (*symbolic)(Mat);                  /* ours, for every product type */
  PetscErrorCode (*create_orig)(Mat);               /* PETSc's constructor */
  PetscErrorCode (*productsetfromoptions_orig)(Mat); /* PETSc's selector, captured from the first matrix */
};
static MatClusterDispatch MatClusterDispatchTable[kNumAIJ] = {
  {MATSEQAIJ, MatProductSymbolic_SeqAIJ_Cluster, NULL, NULL},
  {MATMPIAIJ, MatProductSymbolic_MPIAIJ_Cluster, NULL, NULL},
};

/* The option PETSc's SeqAIJ and MPIAIJ selectors read for this product (matmatmult.c, 3.18.5) */
static const char *MatClusterAlgorithmOption(const Mat_Product *product)
{
  const MatClusterProductTypeInfo *info = MatClusterProductTypeInfo_Private(product->type);
  return product->api_user && info ? info->legacy_option : "-mat_product_algorithm";
}

template <int K>
static PetscErrorCode MatProductSetFromOptions_Cluster(Mat C)
{
  MatClusterDispatch &d       = MatClusterDispatchTable[K];
  Mat_Product        *product = C->product;
  const char         *prefix  = ((PetscObject)C)->prefix ? ((PetscObject)C)->prefix : "";
  const char         *option;
  const char         *alg, *canonical = NULL;
  char                name[256];
  PetscBool           set = PETSC_FALSE, ours, match = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCheck(d.productsetfromoptions_orig, PetscObjectComm((PetscObject)C), PETSC_ERR_PLIB, "petsc-cluster: PETSc's %s product selector was not captured", d.type);
  if (!product || product->type == MATPRODUCT_UNSPECIFIED) {
    PetscCall((*d.productsetfromoptions_orig)(C));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  option = MatClusterAlgorithmOption(product);
  PetscCall(PetscOptionsGetString(((PetscObject)C)->options, ((PetscObject)C)->prefix, option, name, sizeof(name), &set));
  alg = set ? name : product->alg;
  PetscCall(MatClusterAlgorithmIsOurs_Private(alg, &ours, &canonical));

  if (!ours && !set) { /* PETSc's own selector, unchanged */
    PetscCall((*d.productsetfromoptions_orig)(C));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!ours) {
    /* A name from the options database that is not ours: PETSc's selector judges it. If it does not
       know it either (PETSC_ERR_USER, "Unknown option ... Available options: <PETSc's>"), the error
       raised lists ours too; so PETSc's is caught (not printed) and raised again from here. */
    MatClusterErrorText petsc_message = NULL;
    char                message[1024];
    size_t         len;
    PetscErrorCode ierr;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = (*d.productsetfromoptions_orig)(C);
    PetscCall(PetscPopErrorHandler());
    if (!ierr) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(PetscErrorMessage(ierr, NULL, &petsc_message));
    PetscCall(PetscStrncpy(message, petsc_message, sizeof(message)));
    PetscCall(PetscStrlen(message, &len));
    while (len > 0 && message[len - 1] == ' ') message[--len] = '\0';
    PetscCheck(ierr != PETSC_ERR_USER, PetscObjectComm((PetscObject)C), PETSC_ERR_USER, "%s; petsc-cluster adds for %s operands: %s", message, d.type, MatClusterAlgorithmList_Private());
    SETERRQ(PetscObjectComm((PetscObject)C), ierr, "%s", message);
  }

  /* One of ours: every product type of the core (AB, AtB, ABt, PtAP, RARt, ABC), operands exactly of
     type d.type (host memory). Mixed operand types never reach this hook (see the top of this file). */
  Mat ops[3] = {product->A, product->B, product->type == MATPRODUCT_ABC ? product->C : NULL};
  for (Mat M : ops) {
    PetscBool same = PETSC_TRUE;
    if (M) PetscCall(PetscObjectTypeCompare((PetscObject)M, d.type, &same));
    match = (PetscBool)(match && same);
  }
  PetscCheck(MatClusterProductTypeInfo_Private(product->type) && match, PetscObjectComm((PetscObject)C), PETSC_ERR_SUP,
             "petsc-cluster algorithm %s (%s%s%s) supports MatProductType %s with operands all of type %s or all of type %s; got %s with A %s and B %s. Use one of PETSc's algorithms for this product",
             alg, set ? "from -" : "set by MatProductSetAlgorithm()", set ? prefix : "", set ? option + 1 : "", MatClusterProductTypeList_Private(), MATSEQAIJ, MATMPIAIJ, MatProductTypes[product->type], ((PetscObject)product->A)->type_name,
             ((PetscObject)product->B)->type_name);
  PetscCall(MatProductSetAlgorithm(C, canonical)); /* persists; shown by views and -info */
  C->ops->productsymbolic = d.symbolic;
  PetscCall(PetscInfo(C, "petsc-cluster takes MatProduct %s (%s x %s) with algorithm %s\n", MatProductTypes[product->type], ((PetscObject)product->A)->type_name, ((PetscObject)product->B)->type_name, product->alg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc's constructor, then our hook in place of its product selector */
template <int K>
static PetscErrorCode MatCreate_Cluster(Mat B)
{
  MatClusterDispatch &d = MatClusterDispatchTable[K];

  PetscFunctionBegin;
  PetscCall((*d.create_orig)(B));
  if (!d.productsetfromoptions_orig) d.productsetfromoptions_orig = B->ops->productsetfromoptions;
  if (B->ops->productsetfromoptions == d.productsetfromoptions_orig) B->ops->productsetfromoptions = MatProductSetFromOptions_Cluster<K>;
  else if (B->ops->productsetfromoptions != MatProductSetFromOptions_Cluster<K>) PetscCall(PetscInfo(B, "petsc-cluster: unexpected productsetfromoptions on a new %s; left to PETSc\n", d.type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int K>
static PetscErrorCode MatClusterDispatchRegisterType(void)
{
  MatClusterDispatch &d = MatClusterDispatchTable[K];
  PetscErrorCode (*current)(Mat) = NULL;

  PetscFunctionBegin;
  PetscCall(PetscFunctionListFind(MatList, d.type, &current));
  PetscCheck(current, PETSC_COMM_SELF, PETSC_ERR_PLIB, "petsc-cluster: no constructor for %s in MatList", d.type);
  if (current == MatCreate_Cluster<K>) PetscFunctionReturn(PETSC_SUCCESS);
  d.create_orig = current;
  PetscCall(MatRegister(d.type, MatCreate_Cluster<K>));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Idempotent: a second registration finds the wrappers already in MatList and does nothing */
PetscErrorCode MatClusterDispatchRegister_Private(void)
{
  PetscFunctionBegin;
  PetscCall(MatInitializePackage()); /* fills MatList (MatRegisterAll) */
  PetscCall(MatClusterDispatchRegisterType<kSeqAIJ>());
  PetscCall(MatClusterDispatchRegisterType<kMPIAIJ>());
  PetscCall(PetscInfo(NULL, "petsc-cluster: %s and %s constructors wrapped; product algorithms %s\n", MATSEQAIJ, MATMPIAIJ, MatClusterAlgorithmList_Private()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   PetscFinalize destroys MatList; a new PetscInitialize registers again (the wrappers are then not in
   MatList, so registration captures PETSc's constructors anew). The captured pointers stay valid
   meanwhile (they point into libpetsc), so matrices created late in PetscFinalize still work; only
   the selectors are captured again from the next matrices.
*/
PetscErrorCode MatClusterDispatchReset_Private(void)
{
  PetscFunctionBegin;
  for (MatClusterDispatch &d : MatClusterDispatchTable) d.productsetfromoptions_orig = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
