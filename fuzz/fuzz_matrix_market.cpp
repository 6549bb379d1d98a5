// libFuzzer target: the Matrix Market reader (parse_matrix_market) on arbitrary text, with 32- and
// 64-bit indices and double and float values. fuzz/README.md says how to run it.
//
// Every input must either give a valid matrix (validate() passes; sizes, nnz and MatrixMarketInfo
// agree; symmetric and skew-symmetric files give a matrix of that symmetry; written back with
// write_matrix_market and read again it is the same matrix, values bit for bit, unless a sum of
// duplicates overflowed), or throw
// MatrixMarketError whose message is "<name>:<line>: ..." with the line inside the text. The
// variants must agree: double and float read the same pattern or fail on the same line (float
// may fail earlier, on a value beyond its range), and what 64-bit indices reject, 32-bit indices
// reject too. Anything else prints what and aborts.
#include "pcluster/csr.hpp"
#include "pcluster/matrix_market.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>

using namespace pcluster;

namespace {

// A size line may announce any number of rows, and the reader then allocates a row pointer that
// long, as it must; past this the fuzzer would only measure the machine's memory.
constexpr long long kMaxRows = 1000000;

const char *const kName = "fuzz.mtx";
std::string g_text; // the input, for the diagnostic

[[noreturn]] void fail(const std::string &what)
{
  std::fprintf(stderr, "\nfuzz_matrix_market: %s\ninput (%zu bytes):\n%.2000s\n", what.c_str(), g_text.size(), g_text.c_str());
  std::fflush(stderr);
  std::abort();
}

// The number of rows on the size line (the first line after the banner that is neither blank nor a
// comment), if it starts with an integer; only to keep the fuzzer within kMaxRows.
std::optional<long long> announced_rows(const std::string &text)
{
  std::size_t p = text.find('\n');
  while (p != std::string::npos) {
    const std::size_t b = text.find_first_not_of(" \t\r", p + 1);
    if (b == std::string::npos) return std::nullopt;
    if (text[b] == '\n') {
      p = b;
      continue;
    }
    if (text[b] == '%') {
      p = text.find('\n', b);
      continue;
    }
    long long m = 0;
    const char *s = text.data() + b + (text[b] == '+');
    if (std::from_chars(s, text.data() + text.size(), m).ec != std::errc()) return std::nullopt;
    return m;
  }
  return std::nullopt;
}

// What one variant gave: the matrix's pattern, or the error's line.
struct Outcome {
  bool ok = false;
  long line = 0;
  std::string message;
  std::vector<std::int64_t> rowptr, colidx;
};

template <class I, class V>
Outcome read_one(const std::string &text, long nlines)
{
  const std::string variant = std::string(sizeof(I) == 4 ? "int32" : "int64") + "/" + (std::is_same<V, float>::value ? "float" : "double");
  Outcome out;
  MatrixMarketInfo info;
  CsrMatrix<I, V> A;
  try {
    A = parse_matrix_market<I, V>(text, kName, &info);
  } catch (const MatrixMarketError &e) {
    const std::string prefix = std::string(kName) + ":" + std::to_string(e.line) + ": ";
    if (e.line < 1 || e.line > nlines + 1 || std::string(e.what()).rfind(prefix, 0) != 0)
      fail(variant + ": MatrixMarketError without a line of the text (" + std::to_string(nlines) + " lines): " + e.what());
    out.line = e.line;
    out.message = e.what();
    return out;
  } catch (const std::exception &e) {
    fail(variant + ": an exception other than MatrixMarketError: " + e.what());
  }
  try {
    validate(A.view(), "the matrix read");
  } catch (const std::invalid_argument &e) {
    fail(variant + ": " + e.what());
  }
  if (A.rowptr.size() != static_cast<std::size_t>(A.nrows) + 1 || A.values.size() != A.colidx.size() || A.nnz() != A.rowptr.back() ||
      info.rows != A.nrows || info.cols != A.ncols || info.nnz != A.nnz() || info.entries_stored < 0 ||
      info.nnz > (info.symmetry == "general" ? 1 : 2) * info.entries_stored)
    fail(variant + ": sizes disagree: " + std::to_string(A.nrows) + " x " + std::to_string(A.ncols) + ", nnz " + std::to_string(A.nnz()) +
         ", info " + std::to_string(info.rows) + " x " + std::to_string(info.cols) + ", nnz " + std::to_string(info.nnz) + " of " +
         std::to_string(info.entries_stored) + " stored");
  if (info.symmetry != "general") {
    const CsrMatrix<I, V> T = transpose(A.view());
    if (T.rowptr != A.rowptr || T.colidx != A.colidx) fail(variant + ": a " + info.symmetry + " file gave an unsymmetric pattern");
    // Duplicates may be summed in another order on the two sides: equal up to rounding (and an
    // overflowing sum is the same infinity, or NaN, on both).
    double scale = 0;
    for (V v : A.values)
      if (std::isfinite(v)) scale = std::max(scale, std::abs(static_cast<double>(v)));
    const double sign = info.symmetry == "skew-symmetric" ? -1 : 1;
    const double tol = (std::is_same<V, float>::value ? 1e-5 : 1e-12) * scale;
    for (std::size_t q = 0; q < A.values.size(); ++q) {
      const double a = A.values[q], b = sign * static_cast<double>(T.values[q]);
      if (std::isfinite(a) && std::isfinite(b) ? !(std::abs(a - b) <= tol) : !(a == b || (std::isnan(a) && std::isnan(b))))
        fail(variant + ": a " + info.symmetry + " file gave unsymmetric values");
    }
    if (info.symmetry == "skew-symmetric")
      for (I i = 0; i < A.nrows; ++i)
        if (std::binary_search(A.colidx.begin() + A.rowptr[i], A.colidx.begin() + A.rowptr[i + 1], i))
          fail(variant + ": a skew-symmetric file gave a diagonal entry");
  }
  out.ok = true;
  out.rowptr.assign(A.rowptr.begin(), A.rowptr.end());
  out.colidx.assign(A.colidx.begin(), A.colidx.end());
  // Every value read is finite; only duplicates summed beyond V's range give Inf or NaN (as the
  // header says), and the writer writes those as text the reader refuses.
  if (!std::all_of(A.values.begin(), A.values.end(), [](V v) { return std::isfinite(v); })) return out;
  // Written and read back: the same matrix, values bit for bit (as many digits as V needs).
  std::ostringstream written;
  write_matrix_market(written, A.view());
  CsrMatrix<I, V> B;
  try {
    B = parse_matrix_market<I, V>(written.str(), "written");
  } catch (const MatrixMarketError &e) {
    fail(variant + ": the reader rejects what the writer wrote of the matrix it read: " + e.what());
  }
  if (B.nrows != A.nrows || B.ncols != A.ncols || B.rowptr != A.rowptr || B.colidx != A.colidx || B.values != A.values)
    fail(variant + ": written and read back, the matrix differs");
  return out;
}

std::string show(const Outcome &o) { return o.ok ? "a matrix with " + std::to_string(o.colidx.size()) + " entries" : "an error on line " + std::to_string(o.line); }

bool same(const Outcome &a, const Outcome &b) { return a.ok == b.ok && a.line == b.line && a.rowptr == b.rowptr && a.colidx == b.colidx; }

// float reads what double reads, except a value beyond float's range, which it must reject.
void check_float(const char *index, const Outcome &d, const Outcome &f)
{
  if (same(d, f)) return;
  if (!f.ok && f.message.find("out of the range of float") != std::string::npos && (d.ok || d.line > f.line)) return;
  fail(std::string(index) + ": double gives " + show(d) + ", float " + show(f) + (f.ok ? "" : " (" + f.message + ")"));
}


} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
  g_text.assign(reinterpret_cast<const char *>(data), size);
  const std::optional<long long> rows = announced_rows(g_text);
  if (rows && *rows > kMaxRows && *rows <= std::numeric_limits<std::int32_t>::max()) return -1;
  const long nlines = static_cast<long>(std::count(g_text.begin(), g_text.end(), '\n')) + 1;
  const Outcome d32 = read_one<std::int32_t, double>(g_text, nlines), f32 = read_one<std::int32_t, float>(g_text, nlines);
  check_float("int32", d32, f32);
  if (rows && *rows > kMaxRows) { // 32-bit indices refuse it before allocating; 64-bit ones would allocate
    if (d32.ok) fail("int32 indices read a matrix of " + std::to_string(*rows) + " rows");
    return 0;
  }
  const Outcome d64 = read_one<std::int64_t, double>(g_text, nlines), f64 = read_one<std::int64_t, float>(g_text, nlines);
  check_float("int64", d64, f64);
  if (d32.ok && !same(d32, d64)) fail("int32 gives " + show(d32) + ", int64 " + show(d64));
  if (!d64.ok && d32.ok) fail("int64 rejects what int32 reads: " + show(d64));
  return 0;
}
