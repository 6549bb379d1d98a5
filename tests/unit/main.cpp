// The unit tests' main: Catch2's session, then LeakSanitizer's check while no thread is exiting
// (leak_check.hpp says why).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "leak_check.hpp"

int main(int argc, char *argv[])
{
  const int result = Catch::Session().run(argc, argv);
  pctest::check_leaks_now();
  return result;
}
