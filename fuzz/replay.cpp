// A main() for a fuzz target without libFuzzer: runs LLVMFuzzerTestOneInput (the target's checks,
// unchanged) on each file named on the command line, or on every regular file of a directory named
// there (in name order), and reports how many it ran. The normal build links it with each fuzz
// target, and ctest replays the committed corpus with them (fuzz/README.md, tests/unit/CMakeLists.txt).
//
// A failed check aborts inside the target (after printing what differs), so this process dies and
// its test fails; the file it was on has been named on stderr just before. An input the target
// refuses (it returns -1: too large to check in time) fails too, since a committed input that is
// never checked is no test. A file that cannot be read, or no input at all, fails as well.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size);

namespace {

// The bytes of `path` in a buffer of exactly their size (so that AddressSanitizer sees a read past
// the end, as under libFuzzer); false if it cannot be read.
bool run_file(const std::filesystem::path &path, int &refused)
{
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "fuzz replay: cannot open %s\n", path.c_str());
    return false;
  }
  const std::vector<char> text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) {
    std::fprintf(stderr, "fuzz replay: cannot read %s\n", path.c_str());
    return false;
  }
  std::unique_ptr<std::uint8_t[]> data(new std::uint8_t[text.size()]); // new[0] is a valid pointer too
  std::copy(text.begin(), text.end(), data.get());
  std::fprintf(stderr, "fuzz replay: %s (%zu bytes)\n", path.c_str(), text.size());
  std::fflush(stderr);
  if (LLVMFuzzerTestOneInput(data.get(), text.size()) != 0) {
    std::fprintf(stderr, "fuzz replay: %s was refused by the target (returned -1): a committed input that is never checked\n", path.c_str());
    ++refused;
  }
  return true;
}

} // namespace

int main(int argc, char **argv)
{
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE_OR_DIRECTORY...\n", argv[0]);
    return 2;
  }
  std::vector<std::filesystem::path> files;
  for (int a = 1; a < argc; ++a) {
    const std::filesystem::path arg(argv[a]);
    std::error_code ec;
    if (std::filesystem::is_directory(arg, ec)) {
      std::vector<std::filesystem::path> in_dir;
      for (const auto &e : std::filesystem::directory_iterator(arg, ec))
        if (e.is_regular_file()) in_dir.push_back(e.path());
      if (ec) {
        std::fprintf(stderr, "fuzz replay: cannot list %s: %s\n", argv[a], ec.message().c_str());
        return 1;
      }
      std::sort(in_dir.begin(), in_dir.end());
      if (in_dir.empty()) {
        std::fprintf(stderr, "fuzz replay: %s holds no input\n", argv[a]);
        return 1;
      }
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else files.push_back(arg);
  }
  int refused = 0, unreadable = 0;
  for (const auto &f : files)
    if (!run_file(f, refused)) ++unreadable;
  std::printf("fuzz replay: %zu inputs, %d refused, %d unreadable\n", files.size(), refused, unreadable);
  return refused || unreadable ? 1 : 0;
}
