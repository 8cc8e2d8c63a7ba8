// SourceText (report/source_text.h): a recorded path as is, then under --source-path
// directories with fewer and fewer leading components; a file not found is said once.
#include "report/source_text.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace callprof {
namespace {

namespace fs = std::filesystem;

class SourceTextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // One directory per test: ctest runs the tests in parallel processes.
    dir_ = fs::path(::testing::TempDir()) /
           (std::string("source_text_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "tree" / "src");
    std::ofstream(dir_ / "tree" / "src" / "a.c") << "int a(void) {\r\n\treturn 1;\n}\n";
  }
  fs::path dir_;
};

TEST_F(SourceTextTest, ReadsARecordedPathAsIs) {
  SourceText sources;
  const auto* lines = sources.lines((dir_ / "tree" / "src" / "a.c").string());
  ASSERT_NE(lines, nullptr);
  ASSERT_EQ(lines->size(), 3u);
  EXPECT_EQ((*lines)[0], "int a(void) {");  // CR LF read as one line break
  EXPECT_EQ((*lines)[1], "\treturn 1;");
  EXPECT_TRUE(sources.missing().empty());
}

TEST_F(SourceTextTest, SourcePathFindsAMovedTreeByItsLastComponents) {
  SourceText sources({(dir_ / "elsewhere").string(), dir_.string()});
  const std::string recorded = "/build/machine/tree/src/a.c";
  ASSERT_NE(sources.lines(recorded), nullptr);
  EXPECT_EQ(sources.found_at(recorded), (dir_ / "tree" / "src" / "a.c").string());
}

TEST_F(SourceTextTest, AMissingFileIsSaidOnce) {
  SourceText sources({dir_.string()});
  EXPECT_EQ(sources.lines("/nowhere/b.c"), nullptr);
  EXPECT_EQ(sources.lines("/nowhere/b.c"), nullptr);
  EXPECT_EQ(sources.lines(""), nullptr);
  ASSERT_EQ(sources.missing().size(), 2u);
  EXPECT_NE(sources.missing()[0].find("/nowhere/b.c: not found"), std::string::npos);
  EXPECT_EQ(sources.found_at("/nowhere/b.c"), "");
}

TEST_F(SourceTextTest, ADirectoryIsNotASourceFile) {
  SourceText sources;
  EXPECT_EQ(sources.lines(dir_.string()), nullptr);
}

}  // namespace
}  // namespace callprof
