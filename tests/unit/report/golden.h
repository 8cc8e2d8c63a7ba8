// Golden-file comparison for the report tests: CALLPROF_UPDATE_GOLDEN=1 rewrites the file
// instead (then review the diff of tests/golden/report/).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace callprof::testing {

// `file` is relative to tests/golden/report/.
inline void check_golden(const std::string& file, const std::string& actual) {
  const std::string path = std::string(CALLPROF_GOLDEN_DIR) + "/" + file;
  if (const char* u = std::getenv("CALLPROF_UPDATE_GOLDEN"); u && std::string(u) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "missing golden file " << path << " (CALLPROF_UPDATE_GOLDEN=1 creates it)";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(expected.str(), actual) << "view output differs from " << path;
}

}  // namespace callprof::testing
