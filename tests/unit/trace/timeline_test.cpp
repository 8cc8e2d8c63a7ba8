// The timeline section (record --timeline): it round-trips with its facts and drop count,
// files without it read as having none, and a damaged timeline is refused with one line
// naming the thread and the event.
#include <gtest/gtest.h>

#include "test_profiles.h"
#include "trace/profile_file.h"
#include "trace/validate.h"

namespace callprof {
namespace {

Result<Profile> parse(const file::Profile& payload) {
  return parse_profile(test::file_with_payload(payload), "bad.callprof");
}

void expect_invalid(const file::Profile& payload, std::string_view needle) {
  test::expect_error(parse(payload), "bad.callprof", "invalid (");
  test::expect_error(parse(payload), "bad.callprof", needle);
}

file::Profile with_timeline(int64_t start, uint64_t duration, uint32_t node = 1) {
  file::Profile p = test::minimal_payload();
  file::Timeline* t = p.mutable_threads(0)->mutable_timeline();
  t->add_node(node);
  t->add_start_ns(start);
  t->add_duration_ns(duration);
  t->set_dropped(3);
  p.mutable_metadata()->mutable_timeline()->set_min_duration_ns(10000);
  p.mutable_metadata()->mutable_timeline()->set_capacity(65536);
  return p;
}

TEST(TimelineSection, RoundTripsWithItsFacts) {
  Result<Profile> p = parse(with_timeline(1000, 250));
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_TRUE(p->meta.timeline.has_value());
  EXPECT_EQ(p->meta.timeline->min_duration_ns, 10000u);
  EXPECT_EQ(p->meta.timeline->capacity, 65536u);
  const Timeline& t = p->threads[0].timeline;
  ASSERT_EQ(t.events.size(), 1u);
  EXPECT_EQ(t.events[0].node, 1u);
  EXPECT_EQ(t.events[0].start_ns, 1000);
  EXPECT_EQ(t.events[0].duration_ns, 250u);
  EXPECT_EQ(t.dropped, 3u);
  auto bytes = serialize_profile(*p);
  ASSERT_TRUE(bytes.ok());
  auto again = parse_profile(*bytes, "mem");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->threads[0].timeline.events.size(), 1u);
  EXPECT_EQ(again->threads[0].timeline.dropped, 3u);
}

TEST(TimelineSection, AbsentMeansNone) {
  Result<Profile> p = parse(test::minimal_payload());
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->meta.timeline.has_value());
  EXPECT_TRUE(p->threads[0].timeline.events.empty());
}

TEST(TimelineSection, BadEventsAreRefused) {
  expect_invalid(with_timeline(1000, 5, 2),
                 "thread 0 with tid 1: timeline event 0 names node 2, but the tree has 2 nodes");
  expect_invalid(with_timeline(1000, 5, 0), "timeline event 0 names node 0");
  expect_invalid(with_timeline(-1, 5), "timeline event 0 starts before 0");
  expect_invalid(with_timeline(0, (uint64_t(1) << 62) + 1), "timeline event 0 lasts");
  file::Profile p = with_timeline(1000, 5);
  p.mutable_threads(0)->mutable_timeline()->add_node(1);
  expect_invalid(p, "timeline has unequal columns");
}

TEST(TimelineSection, TooManyEventsAreRefusedBeforeBuildingAnything) {
  file::Profile p = test::minimal_payload();
  file::Timeline* t = p.mutable_threads(0)->mutable_timeline();
  const int n = int(kMaxTimelineEvents) + 1;
  t->mutable_node()->Resize(n, 1);
  t->mutable_start_ns()->Resize(n, 0);
  t->mutable_duration_ns()->Resize(n, 0);
  // As a file this payload is refused even earlier, as a decompression bomb (16 M equal
  // events compress beyond the reader's ratio limit): the rule is checked on the payload.
  const Status s = trace::validate_payload(p);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("timeline has 16777217 events, more than 16777216"), std::string::npos)
      << s.error().message;
}

}  // namespace
}  // namespace callprof
