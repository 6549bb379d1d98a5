// Catch2 v2 (Debian bookworm) and v3 (trixie, sid) behind one include. CMake says which one was
// found (PCLUSTER_CATCH2_MAJOR, tests/unit/CMakeLists.txt). The tests write the string matchers as
// catch_compat::StartsWith/EndsWith/Contains and use Approx unqualified, as v2 lets them. A file with
// its own main defines CATCH_CONFIG_RUNNER before including this, as v2 asks.
#pragma once

#if PCLUSTER_CATCH2_MAJOR >= 3
#include <catch2/catch_approx.hpp>
#include <catch2/catch_session.hpp>
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <string>

using Catch::Approx; // global in v2

namespace catch_compat {
using Catch::Matchers::EndsWith;
using Catch::Matchers::StartsWith;
inline auto Contains(const std::string &text) { return Catch::Matchers::ContainsSubstring(text); }
} // namespace catch_compat
#else
#include <catch2/catch.hpp>

namespace catch_compat {
using Catch::Contains;
using Catch::EndsWith;
using Catch::StartsWith;
} // namespace catch_compat
#endif
