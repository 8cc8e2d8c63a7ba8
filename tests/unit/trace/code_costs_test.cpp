// The code costs section (samples by instruction, call sites; model/code_lines.h): it
// round-trips with its locations and files, files without it read as having none, and ids
// out of range are refused with one line.
#include <gtest/gtest.h>

#include "test_profiles.h"
#include "trace/profile_file.h"

namespace callprof {
namespace {

Result<Profile> parse(const file::Profile& payload) {
  return parse_profile(test::file_with_payload(payload), "bad.callprof");
}

// main (node 1) with 7 samples at main.c:12, and a call site at main.c:14.
file::Profile with_code(uint32_t node = 1, uint32_t location = 0, uint32_t file = 1) {
  file::Profile p = test::minimal_payload();
  p.add_source_files("");
  p.add_source_files("main.c");
  for (uint32_t line : {12u, 14u}) {
    file::Location* l = p.add_locations();
    l->set_function(0);
    l->set_address(0x1000 + line);
    l->set_file(file);
    l->set_line(line);
  }
  file::CodeCosts* c = p.mutable_threads(0)->mutable_code();
  c->add_sample_node(node);
  c->add_sample_location(location);
  c->add_samples(7);
  c->add_cpu_ns(7000);
  c->add_site_node(1);
  c->add_site_location(1);
  return p;
}

TEST(CodeCostsSection, RoundTripsWithItsLocationsAndFiles) {
  Result<Profile> p = parse(with_code());
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->locations.size(), 2u);
  EXPECT_EQ(p->locations[1], (CodeLocation{0, 0x100e, 1, 14}));
  EXPECT_EQ(p->source_files, (std::vector<std::string>{"", "main.c"}));
  const CodeCosts& c = p->threads[0].code;
  ASSERT_EQ(c.instructions.size(), 1u);
  EXPECT_EQ(c.instructions[0].samples, 7u);
  EXPECT_EQ(c.instructions[0].cpu_ns, 7000u);
  ASSERT_EQ(c.call_sites.size(), 1u);
  EXPECT_EQ(c.call_sites[0].location, 1u);
  auto bytes = serialize_profile(*p);
  ASSERT_TRUE(bytes.ok());
  auto again = parse_profile(*bytes, "mem");
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->locations, p->locations);
  EXPECT_EQ(again->threads[0].code.instructions.size(), 1u);
  EXPECT_EQ(again->threads[0].code.call_sites.size(), 1u);
}

TEST(CodeCostsSection, AbsentInOlderFiles) {
  Result<Profile> p = parse(test::minimal_payload());
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->locations.empty());
  EXPECT_TRUE(p->threads[0].code.empty());
}

TEST(CodeCostsSection, IdsOutOfRangeAreRefused) {
  test::expect_error(parse(with_code(5)), "bad.callprof", "names node 5, but the tree has 2 nodes");
  test::expect_error(parse(with_code(0)), "bad.callprof", "names node 0");
  test::expect_error(parse(with_code(1, 9)), "bad.callprof", "names location 9, but there are 2 locations");
  test::expect_error(parse(with_code(1, 0, 4)), "bad.callprof", "location 0: names function 0 and file 4");
  file::Profile unequal = with_code();
  unequal.mutable_threads(0)->mutable_code()->add_samples(1);
  test::expect_error(parse(unequal), "bad.callprof", "code costs have unequal columns");
}

}  // namespace
}  // namespace callprof
