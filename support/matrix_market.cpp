// Matrix Market reader and writer (see include/pcluster/matrix_market.hpp for what is accepted).
//
// The reader loads the whole file, then scans it line by line with std::from_chars (no locale,
// no stream state), keeping the line number for error messages. Entries are collected as
// (row, col, value) triplets, bucketed by row (counting sort), then each row is sorted by column
// and its duplicates summed. O(file size + nnz log(max row length)).
#include "pcluster/matrix_market.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <new>
#include <sstream>
#include <type_traits>
#include <utility>
#include <vector>

namespace pcluster {

MatrixMarketError::MatrixMarketError(const std::string &f, long l, const std::string &w)
    : std::runtime_error(f + (l > 0 ? ":" + std::to_string(l) : std::string()) + ": " + w), file(f), line(l)
{
}

namespace {

enum class Field { Real, Integer, Pattern };
enum class Symmetry { General, Symmetric, Skew };

// A cursor over one line of text.
struct Line {
  const char *p;
  const char *end;

  void skip_blanks()
  {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) ++p;
  }
  bool at_end()
  {
    skip_blanks();
    return p == end;
  }
  std::string token()
  {
    skip_blanks();
    const char *b = p;
    while (p < end && !std::isspace(static_cast<unsigned char>(*p))) ++p;
    return std::string(b, p);
  }
};

std::string lower(std::string s)
{
  for (char &c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string quote(const char *b, const char *e)
{
  const std::size_t max_shown = 40;
  std::string s(b, std::min<std::size_t>(static_cast<std::size_t>(e - b), max_shown));
  return "'" + s + (static_cast<std::size_t>(e - b) > max_shown ? "...'" : "'");
}

bool is_separator(const char *p, const char *end) { return p == end || *p == ' ' || *p == '\t' || *p == '\r'; }

// Parses one integer token; false if the token is not exactly an integer.
bool parse_integer(Line &ln, long long &v)
{
  ln.skip_blanks();
  const char *b = ln.p;
  if (b < ln.end && *b == '+') ++b;
  auto r = std::from_chars(b, ln.end, v);
  if (r.ec != std::errc() || !is_separator(r.ptr, ln.end)) return false;
  ln.p = r.ptr;
  return true;
}

// Parses one real token (accepts a leading '+' and Fortran 'D' exponents); false if it is not
// a finite number.
bool parse_real(Line &ln, double &v)
{
  ln.skip_blanks();
  const char *b = ln.p;
  if (b < ln.end && *b == '+') ++b;
  auto r = std::from_chars(b, ln.end, v);
  if (r.ec == std::errc() && r.ptr < ln.end && (*r.ptr == 'd' || *r.ptr == 'D')) {
    const char *e = b;
    while (e < ln.end && !std::isspace(static_cast<unsigned char>(*e))) ++e;
    std::string tok(b, e);
    std::replace(tok.begin(), tok.end(), 'd', 'e');
    std::replace(tok.begin(), tok.end(), 'D', 'e');
    auto r2 = std::from_chars(tok.data(), tok.data() + tok.size(), v);
    if (r2.ec != std::errc() || r2.ptr != tok.data() + tok.size()) return false;
    ln.p = e;
    return std::isfinite(v);
  }
  if (r.ec != std::errc() || !is_separator(r.ptr, ln.end)) return false;
  ln.p = r.ptr;
  return std::isfinite(v);
}

// Iterates over the lines of a text buffer, counting them from 1.
struct LineReader {
  const char *p;
  const char *end;
  long number = 0;

  bool next(Line &ln)
  {
    if (p >= end) return false;
    const char *nl = static_cast<const char *>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    const char *e = nl ? nl : end;
    ln = Line{p, e};
    p = nl ? nl + 1 : end;
    ++number;
    return true;
  }
};

template <class I, class V>
CsrMatrix<I, V> parse(const char *text, std::size_t size, const std::string &name, MatrixMarketInfo *info)
{
  LineReader lines{text, text + size};
  Line ln{};
  auto fail = [&](long line, const std::string &what) -> MatrixMarketError { return MatrixMarketError(name, line, what); };

  // Banner.
  if (!lines.next(ln)) throw fail(1, "empty file: expected a '%%MatrixMarket matrix coordinate ...' banner");
  {
    std::string tag = ln.token();
    if (tag != "%%MatrixMarket")
      throw fail(1, "bad banner: the first line must start with '%%MatrixMarket', found " + quote(tag.data(), tag.data() + tag.size()));
  }
  const std::string object = lower(ln.token()), format = lower(ln.token()), field_s = lower(ln.token()),
                    symmetry_s = lower(ln.token());
  if (object != "matrix") throw fail(1, "bad banner: object '" + object + "' is not supported (only 'matrix')");
  if (format == "array")
    throw fail(1, "the dense 'array' format is not supported: only 'coordinate' (sparse) files can be read");
  if (format != "coordinate") throw fail(1, "bad banner: format '" + format + "' (expected 'coordinate')");
  Field field;
  if (field_s == "real" || field_s == "double") field = Field::Real;
  else if (field_s == "integer") field = Field::Integer;
  else if (field_s == "pattern") field = Field::Pattern;
  else if (field_s == "complex") throw fail(1, "complex matrices are not supported (field must be real, integer or pattern)");
  else throw fail(1, "bad banner: field '" + field_s + "' (expected real, integer or pattern)");
  Symmetry sym;
  if (symmetry_s == "general") sym = Symmetry::General;
  else if (symmetry_s == "symmetric") sym = Symmetry::Symmetric;
  else if (symmetry_s == "skew-symmetric") sym = Symmetry::Skew;
  else if (symmetry_s == "hermitian") throw fail(1, "hermitian matrices are not supported (complex)");
  else throw fail(1, "bad banner: symmetry '" + symmetry_s + "' (expected general, symmetric or skew-symmetric)");
  if (!ln.at_end()) throw fail(1, "bad banner: unexpected text after the symmetry");

  // Comments, then the size line "rows cols entries".
  long long m = -1, n = -1, nz = -1;
  long size_line = 0;
  while (true) {
    if (!lines.next(ln)) throw fail(lines.number + 1, "file ends before the size line 'rows cols entries'");
    Line probe = ln;
    if (probe.at_end() || *probe.p == '%') continue;
    size_line = lines.number;
    if (!parse_integer(ln, m) || !parse_integer(ln, n) || !parse_integer(ln, nz) || !ln.at_end())
      throw fail(size_line, "bad size line " + quote(probe.p, probe.end) + ": expected three integers 'rows cols entries'");
    break;
  }
  if (m < 0 || n < 0 || nz < 0) throw fail(size_line, "negative count in the size line");
  if (sym != Symmetry::General && m != n)
    throw fail(size_line, symmetry_s + " matrix must be square, the size line says " + std::to_string(m) + " x " + std::to_string(n));
  try {
    checked_index<I>(m, "rows");
    checked_index<I>(n, "columns");
  } catch (const IndexOverflow &e) {
    throw fail(size_line, e.what());
  }
  if (sym != Symmetry::General && nz > std::numeric_limits<Count>::max() / 2) // 2 * nz would overflow
    throw fail(size_line, "stored entries after mirroring = 2 x " + std::to_string(nz) + " does not fit the index type");
  const Count cap = sym == Symmetry::General ? nz : 2 * static_cast<Count>(nz);
  try {
    checked_index<I>(cap, "stored entries after mirroring");
  } catch (const IndexOverflow &e) {
    throw fail(size_line, e.what());
  }

  // An entry line takes at least 4 bytes ("1 1\n"): a bad header cannot make us reserve more
  // than the file can hold.
  const Count fits = 2 * (static_cast<Count>(size) / 4 + 1);
  std::vector<I> ti, tj;
  std::vector<V> tv;
  ti.reserve(static_cast<std::size_t>(std::min(cap, fits)));
  tj.reserve(static_cast<std::size_t>(std::min(cap, fits)));
  tv.reserve(static_cast<std::size_t>(std::min(cap, fits)));

  Count read = 0;
  while (lines.next(ln)) {
    Line probe = ln;
    if (probe.at_end() || *probe.p == '%') continue;
    if (read == nz)
      throw fail(lines.number, "more entries than the " + std::to_string(nz) + " announced on line " + std::to_string(size_line) +
                                   ": " + quote(probe.p, probe.end));
    long long i, j;
    if (!parse_integer(ln, i) || !parse_integer(ln, j))
      throw fail(lines.number, "bad entry " + quote(probe.p, probe.end) + ": expected two integer indices");
    if (i < 1 || i > m || j < 1 || j > n)
      throw fail(lines.number, "index (" + std::to_string(i) + ", " + std::to_string(j) + ") out of range: the matrix is " +
                                   std::to_string(m) + " x " + std::to_string(n) + " (indices are 1-based)");
    double v = 1.0;
    if (field != Field::Pattern && ln.at_end())
      throw fail(lines.number, "bad entry " + quote(probe.p, probe.end) + ": the value is missing (field is '" + field_s + "')");
    if (field == Field::Real) {
      if (!parse_real(ln, v))
        throw fail(lines.number, "bad entry " + quote(probe.p, probe.end) + ": the value is not a finite real number");
    } else if (field == Field::Integer) {
      long long iv;
      if (!parse_integer(ln, iv))
        throw fail(lines.number, "bad entry " + quote(probe.p, probe.end) + ": the value is not an integer (field is 'integer')");
      v = static_cast<double>(iv);
    }
    // A finite double beyond V's range would become Inf in a float matrix (and the conversion is
    // undefined behaviour): rejected like any value that is not a finite number.
    if (std::abs(v) > static_cast<double>(std::numeric_limits<V>::max()))
      throw fail(lines.number, "bad entry " + quote(probe.p, probe.end) + ": the value is out of the range of " +
                                   (std::is_same<V, float>::value ? "float" : "the value type"));
    if (!ln.at_end())
      throw fail(lines.number, "bad entry " + quote(probe.p, probe.end) + ": unexpected text after the " +
                                   (field == Field::Pattern ? "indices (field is 'pattern')" : "value"));
    if (sym == Symmetry::Skew && i == j)
      throw fail(lines.number, "skew-symmetric matrix stores a diagonal entry (" + std::to_string(i) + ", " + std::to_string(j) + ")");
    ti.push_back(static_cast<I>(i - 1));
    tj.push_back(static_cast<I>(j - 1));
    tv.push_back(static_cast<V>(v));
    if (sym != Symmetry::General && i != j) {
      ti.push_back(static_cast<I>(j - 1));
      tj.push_back(static_cast<I>(i - 1));
      tv.push_back(static_cast<V>(sym == Symmetry::Skew ? -v : v));
    }
    ++read;
  }
  if (read < nz)
    throw fail(lines.number + 1, "file is truncated: " + std::to_string(read) + " of the " + std::to_string(nz) +
                                     " entries announced on line " + std::to_string(size_line) + " were found");

  // Bucket by row (stable counting sort), then sort each row and sum duplicates.
  CsrMatrix<I, V> A;
  A.nrows = static_cast<I>(m);
  A.ncols = static_cast<I>(n);
  const std::size_t ntrip = ti.size();
  std::vector<I> start(static_cast<std::size_t>(m) + 1, I(0));
  for (std::size_t k = 0; k < ntrip; ++k) ++start[static_cast<std::size_t>(ti[k]) + 1];
  for (std::size_t r = 0; r < static_cast<std::size_t>(m); ++r) start[r + 1] += start[r];
  std::vector<std::pair<I, V>> entries(ntrip);
  {
    std::vector<I> pos(start.begin(), start.end() - 1);
    for (std::size_t k = 0; k < ntrip; ++k) entries[static_cast<std::size_t>(pos[static_cast<std::size_t>(ti[k])]++)] = {tj[k], tv[k]};
  }
  std::vector<I>().swap(ti);
  std::vector<I>().swap(tj);
  std::vector<V>().swap(tv);

  A.rowptr.assign(static_cast<std::size_t>(m) + 1, I(0));
  A.colidx.reserve(ntrip);
  A.values.reserve(ntrip);
  for (std::size_t r = 0; r < static_cast<std::size_t>(m); ++r) {
    auto b = entries.begin() + start[r], e = entries.begin() + start[r + 1];
    std::stable_sort(b, e, [](const std::pair<I, V> &x, const std::pair<I, V> &y) { return x.first < y.first; });
    for (auto it = b; it != e; ++it) {
      if (A.colidx.size() > static_cast<std::size_t>(A.rowptr[r]) && A.colidx.back() == it->first) A.values.back() += it->second;
      else {
        A.colidx.push_back(it->first);
        A.values.push_back(it->second);
      }
    }
    A.rowptr[r + 1] = static_cast<I>(A.colidx.size());
  }
  if (info) {
    info->field = field_s == "double" ? "real" : field_s;
    info->symmetry = symmetry_s;
    info->rows = m;
    info->cols = n;
    info->entries_stored = nz;
    info->nnz = A.nnz();
  }
  return A;
}

// parse() with an allocation failure reported like every other error (a size line announcing
// more rows than memory can hold).
template <class I, class V>
CsrMatrix<I, V> parse_checked(const char *text, std::size_t size, const std::string &name, MatrixMarketInfo *info)
{
  try {
    return parse<I, V>(text, size, name, info);
  } catch (const std::bad_alloc &) {
    throw MatrixMarketError(name, 0, "out of memory: the size line announces a matrix too large to allocate");
  }
}

} // namespace

template <class I, class V>
CsrMatrix<I, V> parse_matrix_market(const std::string &text, const std::string &name, MatrixMarketInfo *info)
{
  return parse_checked<I, V>(text.data(), text.size(), name, info);
}

template <class I, class V>
CsrMatrix<I, V> read_matrix_market(const std::string &path, MatrixMarketInfo *info)
{
  std::ifstream in(path, std::ios::binary);
  if (!in) throw MatrixMarketError(path, 0, "cannot open the file for reading");
  std::string text;
  in.seekg(0, std::ios::end);
  const std::streamoff len = in.tellg();
  if (len < 0) throw MatrixMarketError(path, 0, "cannot determine the file size");
  text.resize(static_cast<std::size_t>(len));
  in.seekg(0, std::ios::beg);
  in.read(text.data(), len);
  if (in.gcount() != len) throw MatrixMarketError(path, 0, "read error");
  return parse_checked<I, V>(text.data(), text.size(), path, info);
}

template <class I, class V>
void write_matrix_market(std::ostream &out, const CsrView<I, V> &A, const std::string &comment)
{
  // snprintf per line: the same "%.17g" text whatever the stream's locale and format flags.
  char buf[128];
  auto put = [&](int n) { out.write(buf, std::min<int>(n, static_cast<int>(sizeof buf) - 1)); };
  out << "%%MatrixMarket matrix coordinate " << (A.values ? "real" : "pattern") << " general\n";
  if (!comment.empty()) {
    std::istringstream lines(comment);
    for (std::string l; std::getline(lines, l);) out << "% " << l << "\n";
  }
  put(std::snprintf(buf, sizeof buf, "%lld %lld %lld\n", static_cast<long long>(A.nrows), static_cast<long long>(A.ncols),
                    static_cast<long long>(A.nnz())));
  const int digits = std::is_same<V, float>::value ? 9 : 17;
  for (I i = 0; i < A.nrows; ++i)
    for (I k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) {
      if (A.values)
        put(std::snprintf(buf, sizeof buf, "%lld %lld %.*g\n", static_cast<long long>(i) + 1, static_cast<long long>(A.colidx[k]) + 1,
                          digits, static_cast<double>(A.values[k])));
      else put(std::snprintf(buf, sizeof buf, "%lld %lld\n", static_cast<long long>(i) + 1, static_cast<long long>(A.colidx[k]) + 1));
    }
}

template <class I, class V>
void write_matrix_market(const std::string &path, const CsrView<I, V> &A, const std::string &comment)
{
  std::ofstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error(path + ": cannot open the file for writing");
  write_matrix_market(f, A, comment);
  f.close();
  if (!f) throw std::runtime_error(path + ": write error");
}

#define PCLUSTER_INSTANTIATE_MM(I, V)                                                                                    \
  template CsrMatrix<I, V> read_matrix_market<I, V>(const std::string &, MatrixMarketInfo *);                            \
  template CsrMatrix<I, V> parse_matrix_market<I, V>(const std::string &, const std::string &, MatrixMarketInfo *);      \
  template void write_matrix_market<I, V>(const std::string &, const CsrView<I, V> &, const std::string &);              \
  template void write_matrix_market<I, V>(std::ostream &, const CsrView<I, V> &, const std::string &);
PCLUSTER_INSTANTIATE_MM(std::int32_t, double)
PCLUSTER_INSTANTIATE_MM(std::int64_t, double)
PCLUSTER_INSTANTIATE_MM(std::int32_t, float)
PCLUSTER_INSTANTIATE_MM(std::int64_t, float)
#undef PCLUSTER_INSTANTIATE_MM

} // namespace pcluster
