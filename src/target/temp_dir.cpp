#include "target/temp_dir.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

namespace callprof {
namespace fs = std::filesystem;

Result<TempDir> TempDir::create() {
  const char* tmp = getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/callprof-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back(0);
  if (!mkdtemp(buf.data()))
    return make_error(std::string("cannot create a temporary directory: ") + std::strerror(errno));
  std::error_code ec;
  return TempDir(fs::absolute(buf.data(), ec).string());
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  std::error_code ec;
  fs::remove_all(path_, ec);
}

}  // namespace callprof
