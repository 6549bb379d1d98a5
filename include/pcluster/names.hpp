// Names of enumerated options: one table per enum (next to the enum), the only place its names
// are written. Option parsers, -help texts and error messages all read them from there.
//
//   inline constexpr Named<Accumulator> kAccumulatorNames[] = {{Accumulator::Auto, "auto"}, ...};
//   name_of(kAccumulatorNames, a)               -> "auto"
//   names_of(kAccumulatorNames)                 -> "auto, hash, dense"
//   value_of(kAccumulatorNames, "Hash", true)   -> Accumulator::Hash (std::nullopt if unknown)
#pragma once

#include <cstddef>
#include <cstring>
#include <optional>
#include <string>
#include <strings.h>

namespace pcluster {

template <class E>
struct Named {
  E value;
  const char *name;
};

template <class E, std::size_t N>
const char *name_of(const Named<E> (&table)[N], E value)
{
  for (const Named<E> &entry : table)
    if (entry.value == value) return entry.name;
  return "unknown";
}

// The names in table order, joined by sep.
template <class E, std::size_t N>
std::string names_of(const Named<E> (&table)[N], const char *sep = ", ")
{
  std::string all;
  for (const Named<E> &entry : table) all += std::string(all.empty() ? "" : sep) + entry.name;
  return all;
}

// The value named `name` (ignore_case: as PETSc matches option values).
template <class E, std::size_t N>
std::optional<E> value_of(const Named<E> (&table)[N], const char *name, bool ignore_case = false)
{
  if (!name) return std::nullopt;
  for (const Named<E> &entry : table)
    if ((ignore_case ? strcasecmp(name, entry.name) : std::strcmp(name, entry.name)) == 0) return entry.value;
  return std::nullopt;
}

} // namespace pcluster
