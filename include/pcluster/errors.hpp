// The exceptions of the core beyond std's: what a caller may want to tell apart.
//   std::invalid_argument  malformed operands, mismatched dimensions, a plan used out of order
//   InvalidOption          (an invalid_argument) a parameter outside its range, with its field
//   IndexOverflow          a count that does not fit the index type
//   std::bad_alloc         out of memory
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace pcluster {

// Raised when a count does not fit the index type (e.g. nnz(C) > 2^31-1 with 32-bit PetscInt).
struct IndexOverflow : std::overflow_error {
  using std::overflow_error::overflow_error;
};

// A parameter outside its valid range. `field` names the option struct's member ("cluster_size"),
// `value` is the rejected value as text, `valid` the rule it breaks ("in [1, 64]"). A caller that
// exposes the field under another name (the plugin's -mat_cluster_size) words its message from
// these; the core's own reads "cluster_size = 0 is out of range: must be in [1, 64]".
struct InvalidOption : std::invalid_argument {
  InvalidOption(const std::string &field_, const std::string &value_, const std::string &valid_)
    : std::invalid_argument(field_ + " = " + value_ + " is out of range: must be " + valid_), field(field_), value(value_), valid(valid_)
  {
  }
  std::string field, value, valid;
};

// The text of an option value in messages: integers exactly, reals as %g ("nan", "inf" included).
template <class T>
std::string option_text(T v)
{
  if constexpr (std::is_integral_v<T>) return std::to_string(v);
  else {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));
    return buf;
  }
}

} // namespace pcluster
