// The Source panel's document (html/source_data.h): which functions and lines it holds, their
// costs and text, why it is empty, and its limits; over the counter-example with D's samples
// on lines of a source file written here and A's call of B made from a file that is missing.
#include "html/source_data.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "fixtures.h"

namespace callprof {
namespace {

using json = nlohmann::json;

FunctionId id_of(const Profile& p, const char* name) {
  for (FunctionId f = 0; f < p.functions.size(); ++f)
    if (p.functions[f].name == name) return f;
  return kNoFunction;
}

// d.c has 30 lines "line N", line 20 is 1000 bytes long.
std::string write_d_c() {
  // One file per test: ctest runs the tests of this file in parallel processes.
  const std::string path =
      ::testing::TempDir() + "/source_data_d_" + ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".c";
  std::ofstream out(path);
  for (int n = 1; n <= 30; ++n) out << (n == 20 ? std::string(1000, 'x') : "line " + std::to_string(n)) << "\n";
  return path;
}

// D (first line 12) has 5 samples on line 15 and 2 on line 20; A calls B from a.c:3.
Profile located_profile(const std::string& d_path) {
  Profile p = testing::counter_example_profile();
  const FunctionId main = id_of(p, "main"), a = id_of(p, "A"), b = id_of(p, "B"), d = id_of(p, "D");
  p.functions[d].file = d_path;
  p.functions[d].line = 12;
  LocationTable locations(p);
  CallTree& tree = p.threads[0].tree;
  const NodeId n_b = tree.path(std::vector<FunctionId>{main, a, b});
  const NodeId n_d = tree.path(std::vector<FunctionId>{main, a, b, d});
  p.threads[0].code.instructions = {{n_d, locations.add(d, 0x10, d_path, 15), 5, 5000},
                                    {n_d, locations.add(d, 0x20, d_path, 20), 2, 2000}};
  p.threads[0].code.call_sites = {{n_b, locations.add(a, 0x30, "/nowhere/a.c", 3)}};
  return p;
}

json document(Profile p, QueryOptions q = {}, html::SourceLimits limits = {}) {
  auto analysis = Analysis::run(std::move(p), q);
  EXPECT_TRUE(analysis.ok());
  return json::parse(html::source_document(*analysis, {}, limits));
}

const json& function_entry(const json& doc, const char* name) {
  for (const json& f : doc.at("functions"))
    if (f.at("name") == name) return f;
  throw std::runtime_error(std::string("no entry for ") + name);
}

std::vector<uint32_t> line_numbers(const json& file) {
  std::vector<uint32_t> out;
  for (const json& l : file.at("lines")) out.push_back(l.at("line"));
  return out;
}

TEST(SourceData, NoLocatedCostSaysWhy) {
  const json doc = document(testing::counter_example_profile());
  ASSERT_TRUE(doc.contains("why")) << doc.dump();
  EXPECT_FALSE(doc.contains("functions"));
  EXPECT_NE(doc["why"].get<std::string>().find("-F"), std::string::npos) << "says how to record lines";
}

// A report written with --focus or --hide has that view's lines: with B hidden or focused on,
// A's call of B is not in the view, D's samples are.
TEST(SourceData, FocusOrHideShowTheViewsLines) {
  for (bool focus : {true, false}) {
    QueryOptions q;
    (focus ? q.focus : q.hide) = "^B$";
    const json doc = document(located_profile(write_d_c()), q);
    ASSERT_TRUE(doc.contains("functions")) << doc.dump();
    EXPECT_EQ(function_entry(doc, "D")["samples"], 7);
    EXPECT_THROW(function_entry(doc, "A"), std::runtime_error) << doc.dump();
  }
  const json whole = document(located_profile(write_d_c()));
  EXPECT_NO_THROW(function_entry(whole, "A")) << "A's call of B is located without a view";
}

TEST(SourceData, AnnotatedLinesWithContextAndText) {
  const std::string path = write_d_c();
  const json doc = document(located_profile(path));
  EXPECT_EQ(doc["columns"], json({{"samples", false}, {"calls", true}})) << "exact mode, no samples in the tree";
  EXPECT_EQ(doc["functions"][0]["name"], "D") << "most located samples first";
  const json& d = function_entry(doc, "D");
  EXPECT_EQ(d["samples"], 7);
  EXPECT_EQ(d["calls"], 80);
  ASSERT_EQ(d["files"].size(), 1u);
  const json& file = d["files"][0];
  EXPECT_EQ(file["path"], path);
  EXPECT_TRUE(file["found"].get<bool>());
  // The first line 12 and the annotated 15 and 20, each +-2: 10..22.
  std::vector<uint32_t> want;
  for (uint32_t l = 10; l <= 22; ++l) want.push_back(l);
  EXPECT_EQ(line_numbers(file), want);
  const json& l15 = file["lines"][5];
  EXPECT_EQ(l15["text"], "line 15");
  EXPECT_EQ(l15["samples"], 5);
  EXPECT_EQ(l15["cpu_ns"], 5000);
  EXPECT_FALSE(file["lines"][0].contains("samples")) << "a context line has its number and text only";
  const json& l20 = file["lines"][10];
  EXPECT_EQ(l20["text"].get<std::string>().size(), html::SourceLimits{}.line_bytes);
  EXPECT_TRUE(l20["cut"].get<bool>());
}

TEST(SourceData, CallsFromAMissingFileKeepTheirLines) {
  Profile p = located_profile(write_d_c());
  const FunctionId a = id_of(p, "A"), b = id_of(p, "B");
  const NodeId n_b = p.threads[0].tree.path(std::vector<FunctionId>{id_of(p, "main"), a, b});
  const uint64_t calls = p.threads[0].tree.base(n_b)[Metric::Calls];
  const json doc = document(std::move(p));
  const json& entry = function_entry(doc, "A");
  const json& file = entry["files"][0];
  EXPECT_EQ(file["path"], "/nowhere/a.c");
  EXPECT_FALSE(file["found"].get<bool>());
  ASSERT_EQ(line_numbers(file), std::vector<uint32_t>{3}) << "the annotated line alone, without text";
  EXPECT_FALSE(file["lines"][0].contains("text"));
  const json& call = file["lines"][0]["calls"][0];
  EXPECT_EQ(call["callee_id"], b);
  EXPECT_EQ(call["callee"], "B");
  EXPECT_EQ(call["calls"], calls);
  EXPECT_EQ(call["wall_ns"], 121000000) << "B's total: its self and D's";
  ASSERT_EQ(doc["missing"].size(), 1u);
  EXPECT_NE(doc["missing"][0].get<std::string>().find("/nowhere/a.c"), std::string::npos);
}

TEST(SourceData, LimitsLeaveOutFunctionsAndText) {
  html::SourceLimits limits;
  limits.functions = 1;
  limits.text_bytes = 10;
  const json doc = document(located_profile(write_d_c()), {}, limits);
  ASSERT_EQ(doc["functions"].size(), 1u);
  EXPECT_EQ(doc["left_out"].size(), 1u) << "A, beyond the limit";
  const json& file = doc["functions"][0]["files"][0];
  EXPECT_TRUE(file["text_left_out"].get<bool>());
  EXPECT_EQ(line_numbers(file), (std::vector<uint32_t>{15, 20})) << "the annotated lines alone";
  EXPECT_FALSE(file["lines"][0].contains("text"));
}

TEST(SourceData, InvalidUtf8AndControlsStayValidJson) {
  const std::string path = ::testing::TempDir() + "/source_data_bad_" +
                           ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".c";
  std::ofstream(path) << "ok\n\xff\xfe \xc2\x9b bad\n";
  Profile p = testing::counter_example_profile();
  const FunctionId d = id_of(p, "D");
  LocationTable locations(p);
  const NodeId n_d = p.threads[0].tree.path(std::vector<FunctionId>{id_of(p, "main"), id_of(p, "A"), id_of(p, "B"), d});
  p.threads[0].code.instructions = {{n_d, locations.add(d, 0x10, path, 2), 1, 1000}};
  auto analysis = Analysis::run(std::move(p), {});
  ASSERT_TRUE(analysis.ok());
  const std::string text = html::source_document(*analysis, {});
  EXPECT_EQ(text.find("\xc2\x9b"), std::string::npos) << "a C1 control is escaped";
  const json doc = json::parse(text);
  EXPECT_EQ(doc["functions"][0]["files"][0]["lines"][1]["text"], "\xef\xbf\xbd\xef\xbf\xbd \xc2\x9b bad");
}

}  // namespace
}  // namespace callprof
