// User patterns on names as long as a hostile program or profile can make them: std::regex
// overflowed its stack at ~30,000 characters; RE2 matches in linear time, constant stack.
#include "util/pattern.h"

#include <gtest/gtest.h>

#include <chrono>

namespace callprof {
namespace {

TEST(Pattern, HundredThousandCharacterNames) {
  const std::string name = std::string(100'000, 'M') + "::f()";
  const auto start = std::chrono::steady_clock::now();
  for (const char* p : {".*", "M+", "^(M|N)*::f", "(.*)*x", "f\\(\\)$"}) {
    auto pattern = Pattern::compile(p, "--filter");
    ASSERT_TRUE(pattern.ok()) << p;
    EXPECT_EQ(pattern->search(name), std::string(p) != "(.*)*x") << p;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(Pattern, BadPatternIsOneLineNamingTheOption) {
  auto pattern = Pattern::compile("(", "--exclude");
  ASSERT_FALSE(pattern.ok());
  EXPECT_NE(pattern.error().message.find("--exclude"), std::string::npos) << pattern.error().message;
  EXPECT_EQ(pattern.error().message.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace callprof
