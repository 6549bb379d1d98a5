// Matrix Market (https://math.nist.gov/MatrixMarket/formats.html) reader and writer for CsrMatrix.
//
// Supported: "%%MatrixMarket matrix coordinate <field> <symmetry>" with
//   field    real | double | integer | pattern   (pattern entries get the value 1)
//   symmetry general | symmetric | skew-symmetric (the stored triangle is mirrored; a
//            skew-symmetric mirror gets the negated value and may not store a diagonal entry)
// Not supported (rejected with a message saying so): the dense "array" format, complex and
// hermitian matrices.
//
// The result has sorted rows and duplicate (i,j) entries summed (the format allows duplicates
// and leaves their meaning open; summing is what assembly does). A symmetric file that stores
// entries of both triangles is mirrored entry by entry, like every common reader does, so an
// (i,j) stored together with (j,i) ends up counted twice: the file is then not a valid
// symmetric Matrix Market file.
//
// Every malformed input (bad banner, bad size line, too few or too many entries, an index out of
// range, a value that is not a finite number or is beyond V's range (float), a truncated file, a
// count that does not fit I) throws MatrixMarketError, whose what() reads "<file>:<line>: <what is
// wrong>". Duplicates are summed as they are: a sum beyond V's range is Inf.
// No PETSc here: the benchmark converts the result to a MATSEQAIJ itself.
#pragma once

#include "pcluster/csr.hpp"

#include <iosfwd>
#include <stdexcept>
#include <string>

namespace pcluster {

struct MatrixMarketError : std::runtime_error {
  MatrixMarketError(const std::string &file, long line, const std::string &what);
  std::string file;
  long line; // 1-based; 0 when the error is not tied to a line (e.g. the file cannot be opened)
};

// What the header said, for reports and checks.
struct MatrixMarketInfo {
  std::string field;    // "real", "integer", "pattern"
  std::string symmetry; // "general", "symmetric", "skew-symmetric"
  Count rows = 0, cols = 0;
  Count entries_stored = 0; // entry lines in the file
  Count nnz = 0;            // nonzeros of the assembled matrix (after mirroring and summing duplicates)
};

// Reads a file. I: int32_t or int64_t; V: double or float.
template <class I, class V>
CsrMatrix<I, V> read_matrix_market(const std::string &path, MatrixMarketInfo *info = nullptr);

// Reads from text already in memory; `name` is used in error messages.
template <class I, class V>
CsrMatrix<I, V> parse_matrix_market(const std::string &text, const std::string &name,
                                    MatrixMarketInfo *info = nullptr);

// Writes "coordinate real general" (or "pattern general" if A.values is null), 1-based, with
// enough digits that reading it back gives the same values. Throws std::runtime_error naming the
// file if it cannot be written.
template <class I, class V>
void write_matrix_market(const std::string &path, const CsrView<I, V> &A, const std::string &comment = "");

// The same text into a stream (the caller checks the stream's state).
template <class I, class V>
void write_matrix_market(std::ostream &out, const CsrView<I, V> &A, const std::string &comment = "");

} // namespace pcluster
