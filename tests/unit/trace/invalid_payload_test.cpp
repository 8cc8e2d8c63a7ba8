// Payloads that parse but break the model's rules (built with the proto directly, as no
// writer of ours would produce them) are rejected as "invalid" with the exact place named.
#include <gtest/gtest.h>

#include "test_profiles.h"
#include "trace/profile_file.h"

namespace callprof {
namespace {

Result<Profile> parse(const file::Profile& payload) {
  return parse_profile(test::file_with_payload(payload), "bad.callprof");
}

void expect_invalid(const file::Profile& payload, std::string_view needle) {
  test::expect_error(parse(payload), "bad.callprof", "invalid (");
  test::expect_error(parse(payload), "bad.callprof", needle);
}

file::CallTree* tree_of(file::Profile& payload) { return payload.mutable_threads(0)->mutable_tree(); }

TEST(InvalidPayload, MinimalPayloadIsValid) { ASSERT_TRUE(parse(test::minimal_payload()).ok()); }

TEST(InvalidPayload, ParentMustBeAnEarlierNode) {
  file::Profile p = test::minimal_payload();
  tree_of(p)->set_parent(1, 1);
  expect_invalid(p, "thread 0 with tid 1: node 1 has parent 1, which is not an earlier node");
  tree_of(p)->set_parent(1, 7);
  expect_invalid(p, "node 1 has parent 7");
}

TEST(InvalidPayload, FunctionIdMustExist) {
  file::Profile p = test::minimal_payload();
  tree_of(p)->set_function(1, 1);
  expect_invalid(p, "node 1 has function 1, but there are 1 functions");
  tree_of(p)->set_function(1, kNoFunction);
  expect_invalid(p, "node 1 has function 4294967295");
}

TEST(InvalidPayload, DuplicateChildIsRejected) {
  file::Profile p = test::minimal_payload();
  tree_of(p)->add_parent(0);
  tree_of(p)->add_function(0);
  tree_of(p)->mutable_metrics(0)->add_values(5);
  expect_invalid(p, "node 2 repeats node 1: same parent 0 and function 0");
}

// An inlined frame and a call of one function under one caller are distinct paths; the
// inlined list names nodes after the root, in increasing order.
TEST(InvalidPayload, InlinedNodesAreDistinctPathsAndMustBeNodes) {
  file::Profile p = test::minimal_payload();
  tree_of(p)->add_parent(0);
  tree_of(p)->add_function(0);
  tree_of(p)->mutable_metrics(0)->add_values(5);
  tree_of(p)->add_inlined(2);
  Result<Profile> read = parse(p);
  ASSERT_TRUE(read.ok()) << read.error().message;
  const CallTree& t = read->threads[0].tree;
  EXPECT_FALSE(t.node(1).inlined);
  EXPECT_TRUE(t.node(2).inlined);
  tree_of(p)->add_inlined(2);
  expect_invalid(p, "inlined node 2 is not a node after the root in increasing order");
  tree_of(p)->clear_inlined();
  tree_of(p)->add_inlined(3);
  expect_invalid(p, "inlined node 3 is not a node");
  tree_of(p)->clear_inlined();
  tree_of(p)->add_inlined(0);
  expect_invalid(p, "inlined node 0 is not a node");
}

TEST(InvalidPayload, MetricColumnLengthMustMatchNodes) {
  file::Profile p = test::minimal_payload();
  tree_of(p)->mutable_metrics(0)->add_values(1);
  expect_invalid(p, "metric column calls has 3 values for 2 nodes");
  tree_of(p)->mutable_metrics(0)->clear_values();
  expect_invalid(p, "metric column calls has 0 values for 2 nodes");
}

TEST(InvalidPayload, MetricColumnMayAppearOnce) {
  file::Profile p = test::minimal_payload();
  *tree_of(p)->add_metrics() = tree_of(p)->metrics(0);
  expect_invalid(p, "metric column calls appears twice");
}

TEST(InvalidPayload, TreeNeedsItsRoot) {
  file::Profile p = test::minimal_payload();
  tree_of(p)->Clear();
  expect_invalid(p, "call tree has no root node");
  p = test::minimal_payload();
  tree_of(p)->set_parent(0, 0);
  expect_invalid(p, "node 0 is not a root");
  p = test::minimal_payload();
  tree_of(p)->set_function(0, 0);
  expect_invalid(p, "node 0 is not a root");
  p = test::minimal_payload();
  tree_of(p)->add_parent(0);
  expect_invalid(p, "call tree has 3 parent entries but 2 function entries");
}

TEST(InvalidPayload, ModuleIdMustExist) {
  file::Profile p = test::minimal_payload();
  p.mutable_functions(0)->set_module(1);
  expect_invalid(p, "function 0: module is 1, but there are 1 modules");
  p.mutable_functions(0)->set_module(kNoModule);
  EXPECT_TRUE(parse(p).ok());
}

TEST(InvalidPayload, ThreadReferencesMustExist) {
  file::Profile p = test::minimal_payload();
  p.mutable_threads(0)->set_start_routine(1);
  expect_invalid(p, "start routine is function 1, but there are 1 functions");
  p.mutable_threads(0)->set_start_routine(kNoFunction);
  p.mutable_threads(0)->add_creator_path(0);
  p.mutable_threads(0)->add_creator_path(3);
  expect_invalid(p, "creator path entry 1 is function 3");
}

TEST(InvalidPayload, RepeatedExtraKeyKeepsTheLastValue) {
  file::Profile p = test::minimal_payload();
  for (const char* value : {"first", "last"}) {
    file::ExtraEntry* e = p.mutable_metadata()->add_extra();
    e->set_key("k");
    e->set_value(value);
  }
  Result<Profile> profile = parse(p);
  ASSERT_TRUE(profile.ok());
  EXPECT_EQ(profile->meta.extra.at("k"), "last");
}

}  // namespace
}  // namespace callprof
