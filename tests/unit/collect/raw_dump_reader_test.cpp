// The runtime dump reader: a well-formed dump reads back; every damaged one is a one-line
// error, never a crash.
#include "collect/runtime/raw_dump_reader.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <string>

#include "raw_dump_samples.h"
#include "scratch_dir.h"

namespace callprof {
namespace {

std::string sample_dump() { return test::sample_raw_dump(); }
// The sample dump ends with its thread's two call-site entries and its stub counts.
constexpr size_t kSites = 2 * sizeof(wire::DumpCallSite) + sizeof(wire::DumpUnhookedCalls);

TEST(RawDumpReader, ReadsAWellFormedDump) {
  auto d = parse_raw_dump(sample_dump(), "d");
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->header.pid, 42u);
  EXPECT_EQ(d->argv, (std::vector<std::string>{"prog", "arg"}));
  ASSERT_EQ(d->modules.size(), 1u);
  EXPECT_EQ(d->modules[0].path, "/bin/prog");
  EXPECT_EQ(d->modules[0].build_id, "01ab");
  ASSERT_EQ(d->threads.size(), 1u);
  EXPECT_EQ(d->threads[0].nodes.size(), 3u);
  EXPECT_EQ(d->threads[0].open.size(), 1u);
  EXPECT_EQ(d->threads[0].interrupts.size(), 2u);
  ASSERT_EQ(d->threads[0].sites.size(), 1u);  // the dropped entry left out
  EXPECT_EQ(d->threads[0].sites[0].callsite, 0x1109u);
  ASSERT_EQ(d->threads[0].unhooked.size(), 1u);
  EXPECT_EQ(d->threads[0].unhooked[0].fn, 0x1300u);
  EXPECT_EQ(d->threads[0].unhooked[0].calls, 5000u);
}

// From a file, read straight into the arrays: the same dump as from memory, and every
// file cut short (a dump that shrank or was never finished) a one-line error.
TEST(RawDumpReader, AFileReadsAsItsBytesParse) {
  test_support::ScratchDir dir;
  const std::string full = sample_dump(), path = (dir.path() / "1-0.cpraw").string();
  auto write = [&](const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; };
  write(full);
  ASSERT_TRUE(read_raw_dump(path).ok()) << "read whole";
  auto from_file = read_raw_dump(path, 0);  // field by field
  ASSERT_TRUE(from_file.ok()) << from_file.error().message;
  auto from_memory = parse_raw_dump(full, path);
  ASSERT_TRUE(from_memory.ok());
  ASSERT_EQ(from_file->threads.size(), 1u);
  EXPECT_EQ(from_file->argv, from_memory->argv);
  EXPECT_EQ(from_file->modules[0].build_id, from_memory->modules[0].build_id);
  const RawThread &a = from_file->threads[0], &b = from_memory->threads[0];
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  EXPECT_EQ(std::memcmp(a.nodes.data(), b.nodes.data(), a.nodes.size() * sizeof(wire::DumpNode)), 0);
  ASSERT_EQ(a.sites.size(), b.sites.size());
  EXPECT_EQ(a.sites[0].callsite, b.sites[0].callsite);
  EXPECT_EQ(a.unhooked[0].calls, b.unhooked[0].calls);
  for (size_t n : {size_t(0), size_t(7), full.size() / 2, full.size() - 1}) {
    write(full.substr(0, n));
    for (uint64_t whole_up_to : {uint64_t(0), uint64_t(1) << 20}) {
      auto d = read_raw_dump(path, whole_up_to);
      ASSERT_FALSE(d.ok()) << "cut at " << n;
      EXPECT_EQ(d.error().message.find('\n'), std::string::npos);
    }
  }
  write(full + "x");
  EXPECT_FALSE(read_raw_dump(path, 0).ok()) << "trailing bytes";
  EXPECT_NE(read_raw_dump((dir.path() / "none.cpraw").string()).error().message.find("cannot read"), std::string::npos);
}

TEST(RawDumpReader, ACallSiteOfAMissingNodeIsAnError) {
  std::string bad = sample_dump();
  bad[bad.size() - kSites] = 9;  // the live entry's node: there is no node 9
  EXPECT_NE(parse_raw_dump(bad, "d").error().message.find("call site entry names a missing node"), std::string::npos);
}

TEST(RawDumpReader, EveryTruncationIsAnError) {
  const std::string full = sample_dump();
  for (size_t n = 0; n < full.size(); ++n) {
    auto d = parse_raw_dump(full.substr(0, n), "d");
    ASSERT_FALSE(d.ok()) << "cut at " << n;
    EXPECT_EQ(d.error().message.find('\n'), std::string::npos);
  }
  EXPECT_FALSE(parse_raw_dump(full + "x", "d").ok()) << "trailing bytes";
}

TEST(RawDumpReader, RefusesForeignAndDamagedDumps) {
  std::string bad_magic = sample_dump();
  bad_magic[0] = 'X';
  EXPECT_NE(parse_raw_dump(bad_magic, "d").error().message.find("not a callprof runtime dump"), std::string::npos);

  std::string other_version = sample_dump();
  other_version[8] = 99;
  EXPECT_NE(parse_raw_dump(other_version, "d").error().message.find("version 99"), std::string::npos);

  // Node 2's parent is patched to 7: there is no node 7.
  std::string bad_parent = sample_dump();
  const size_t nodes_at = bad_parent.size() - kSites - 2 * sizeof(wire::DumpNode) - sizeof(wire::DumpOpenFrame) -
                          3 * sizeof(wire::DumpNode);
  bad_parent[nodes_at + 2 * sizeof(wire::DumpNode)] = 7;
  EXPECT_NE(parse_raw_dump(bad_parent, "d").error().message.find("missing parent"), std::string::npos);

  // A later parent is fine in the main tree (pruning reuses freed nodes), not in the
  // interrupt tree, which is never pruned.
  std::string later_parent = sample_dump();
  later_parent[nodes_at + 1 * sizeof(wire::DumpNode)] = 2;
  EXPECT_TRUE(parse_raw_dump(later_parent, "d").ok());
  std::string bad_interrupt = sample_dump();
  bad_interrupt[bad_interrupt.size() - kSites - sizeof(wire::DumpNode)] = 1;
  EXPECT_NE(parse_raw_dump(bad_interrupt, "d").error().message.find("later parent"), std::string::npos);

  // A huge node count must not allocate: it is checked against the bytes left.
  std::string huge = sample_dump();
  const size_t thread_at = nodes_at - sizeof(wire::DumpThread);
  uint32_t count = 0xFFFFFFF0u;
  std::memcpy(&huge[thread_at + offsetof(wire::DumpThread, node_count)], &count, sizeof count);
  EXPECT_FALSE(parse_raw_dump(huge, "d").ok());
}

}  // namespace
}  // namespace callprof
