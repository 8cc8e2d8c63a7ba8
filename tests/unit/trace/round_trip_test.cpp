// Profiles survive writing and reading unchanged, the file has the documented layout, and
// file-system failures come back as one-line errors.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "test_profiles.h"
#include "trace/container.h"
#include "trace/profile_file.h"
#include "trace/proto_convert.h"

namespace callprof {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "trace_test.XXXXXX").string();
    path_ = ::mkdtemp(pattern.data()) ? pattern : "";
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string file(const std::string& name) const { return (fs::path(path_) / name).string(); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

Profile round_trip(const Profile& profile) {
  Result<std::vector<uint8_t>> bytes = serialize_profile(profile);
  EXPECT_TRUE(bytes.ok()) << bytes.error().message;
  Result<Profile> back = parse_profile(*bytes, "mem");
  EXPECT_TRUE(back.ok()) << back.error().message;
  return back.ok() ? std::move(back).value() : Profile{};
}

uint64_t le(const std::vector<uint8_t>& b, size_t at, size_t width) {
  uint64_t v = 0;
  for (size_t i = 0; i < width; ++i) v |= uint64_t(b[at + i]) << (8 * i);
  return v;
}

// The writer builds the payload one thread at a time; its bytes are those of the whole
// message serialised at once (threads are its last field).
TEST(ProfileFile, PayloadWrittenThreadByThreadIsTheWholeMessage) {
  Profile p = test::rich_profile();
  ASSERT_GE(p.threads.size(), 2u);
  p.threads[1].timeline.events = {{1, 10, 5}};
  trace::ByteBuffer payload;
  ASSERT_TRUE(trace::serialize_payload(p, payload).ok());
  const std::string whole = trace::to_proto(p).SerializeAsString();
  EXPECT_EQ(std::string(payload.bytes().begin(), payload.bytes().end()), whole);
}

TEST(ProfileFile, RoundTripKeepsEveryField) {
  const Profile profile = test::rich_profile();
  test::expect_same_profile(profile, round_trip(profile));
}

// Sampled stacks mark inlined frames; one beside a call of the same function stays apart.
TEST(ProfileFile, InlinedNodesRoundTrip) {
  Profile p = test::rich_profile();
  CallTree& tree = p.threads[0].tree;
  const NodeId main = tree.find_child(kRootNode, 0);
  const NodeId inlined = tree.child(main, 2, true);  // even, inlined beside the called even
  tree.base(inlined)[Metric::Samples] = 4;
  tree.base(tree.child(inlined, 3, true))[Metric::Samples] = 2;
  const Profile back = round_trip(p);
  test::expect_same_profile(p, back);
  ASSERT_EQ(back.threads[0].tree.size(), tree.size());
  EXPECT_TRUE(back.threads[0].tree.node(inlined).inlined);
}

TEST(ProfileFile, RoundTripOfEmptyProfile) {
  test::expect_same_profile(Profile{}, round_trip(Profile{}));
  Profile no_clock;  // every field at its proto3 default: the payload is zero bytes
  no_clock.meta.clock = "";
  test::expect_same_profile(no_clock, round_trip(no_clock));
}

TEST(ProfileFile, LargeTreeRoundTrips) {
  Profile profile;
  for (uint32_t f = 0; f < 50; ++f) profile.functions.push_back({"f" + std::to_string(f), "", kNoModule, f, "", 0});
  Thread thread = test::make_thread(1, 1);
  uint64_t seed = 42;
  for (int i = 0; i < 50'000; ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    const NodeId parent = NodeId((seed >> 33) % thread.tree.size());
    const NodeId node = thread.tree.child(parent, FunctionId((seed >> 20) % 50));
    thread.tree.base(node)[Metric::Calls] += 1;
    thread.tree.base(node)[Metric::WallNs] += seed >> 40;
  }
  profile.threads.push_back(std::move(thread));
  test::expect_same_profile(profile, round_trip(profile));
}

TEST(ProfileFile, WritesOnlyMetricColumnsThatAreSetSomewhere) {
  const Profile profile = test::small_profile();  // calls and min_wall_ns only
  Result<std::vector<uint8_t>> bytes = serialize_profile(profile);
  ASSERT_TRUE(bytes.ok());
  const std::span<const uint8_t> all(*bytes);
  Result<trace::FileHeader> header = trace::decode_header(all);
  ASSERT_TRUE(header.ok());
  Result<std::string> payload = trace::decompress_payload(*header, all.subspan(trace::kHeaderSize));
  ASSERT_TRUE(payload.ok());
  file::Profile message;
  ASSERT_TRUE(message.ParseFromString(*payload));
  ASSERT_EQ(message.threads_size(), 1);
  const file::CallTree& tree = message.threads(0).tree();
  ASSERT_EQ(tree.metrics_size(), 2);
  EXPECT_EQ(tree.metrics(0).name(), "calls");
  EXPECT_EQ(tree.metrics(1).name(), "min_wall_ns");
  EXPECT_EQ(tree.metrics(1).values(0), Metrics::kUnset);  // the root's min stays unset
  EXPECT_EQ(tree.parent(0), kNoNode);
  EXPECT_EQ(tree.function(0), kNoFunction);
}

TEST(ProfileFile, UnknownMetricColumnsAreIgnored) {
  file::Profile payload = test::minimal_payload();
  file::MetricColumn* future = payload.mutable_threads(0)->mutable_tree()->add_metrics();
  future->set_name("joules_from_the_future");
  future->add_values(1);  // also the wrong length: unknown columns are not looked at
  Result<Profile> profile = parse_profile(test::file_with_payload(payload), "f");
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  EXPECT_EQ(profile->threads[0].tree.base(1)[Metric::Calls], 1u);
}

// A reader told to skip metrics leaves their columns out and reads the others as they are;
// a skipped column is still checked (its value count).
TEST(ProfileFile, SkippedMetricsAreLeftOutAndStillChecked) {
  const Profile profile = test::small_profile();  // calls and min_wall_ns
  const std::vector<uint8_t> bytes = serialize_profile(profile).value();
  Result<Profile> read = parse_profile(bytes, "s", ReadOptions{{Metric::MinWallNs}});
  ASSERT_TRUE(read.ok()) << read.error().message;
  const MetricTable& got = read->threads[0].tree.base_table();
  const MetricTable& want = profile.threads[0].tree.base_table();
  EXPECT_FALSE(got.has(Metric::MinWallNs));
  ASSERT_TRUE(got.has(Metric::Calls));
  EXPECT_TRUE(std::ranges::equal(got.column(Metric::Calls), want.column(Metric::Calls)));

  file::Profile payload = test::minimal_payload();
  file::MetricColumn* calls = payload.mutable_threads(0)->mutable_tree()->mutable_metrics(0);
  ASSERT_EQ(calls->name(), "calls");
  calls->add_values(5);  // one value too many
  test::expect_error(parse_profile(test::file_with_payload(payload), "c", ReadOptions{{Metric::Calls}}), "c",
                     "metric column calls has 3 values for 2 nodes");
}

TEST(ProfileFile, HeaderHasTheDocumentedLayout) {
  Result<std::vector<uint8_t>> bytes = serialize_profile(test::small_profile());
  ASSERT_TRUE(bytes.ok());
  ASSERT_GT(bytes->size(), trace::kHeaderSize);
  EXPECT_EQ(std::string(bytes->begin(), bytes->begin() + 8), "CALLPROF");
  EXPECT_EQ(le(*bytes, 8, 4), kProfileFormatVersion);
  EXPECT_EQ(le(*bytes, 12, 4), 0u);
  EXPECT_EQ(le(*bytes, 24, 8), bytes->size() - trace::kHeaderSize);
  const uint8_t zstd_magic[] = {0x28, 0xB5, 0x2F, 0xFD};
  EXPECT_TRUE(std::equal(std::begin(zstd_magic), std::end(zstd_magic), bytes->begin() + 32));
  EXPECT_TRUE((*bytes)[36] & 0x04) << "zstd content checksum flag";
}

TEST(ProfileFile, SerializationIsDeterministic) {
  EXPECT_EQ(serialize_profile(test::rich_profile()).value(), serialize_profile(test::rich_profile()).value());
}

TEST(ProfileFile, WriteThenReadAndOverwrite) {
  TempDir dir;
  const std::string path = dir.file("run.callprof");
  ASSERT_TRUE(write_profile(test::small_profile(), path).ok());
  ASSERT_TRUE(write_profile(test::rich_profile(), path).ok());
  Result<Profile> back = read_profile(path);
  ASSERT_TRUE(back.ok()) << back.error().message;
  test::expect_same_profile(test::rich_profile(), *back);
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1u) << "a temporary file was left behind";
}

TEST(ProfileFile, WrittenFileRespectsUmask) {
  TempDir dir;
  const std::string path = dir.file("p.callprof");
  const mode_t old = ::umask(022);
  ASSERT_TRUE(write_profile(Profile{}, path).ok());
  ::umask(old);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST(ProfileFile, WriteErrorsNameThePathAndReason) {
  TempDir dir;
  const std::string missing_dir = dir.file("no/such/dir/p.callprof");
  Status s = write_profile(Profile{}, missing_dir);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "cannot write " + missing_dir + ": No such file or directory");
  s = write_profile(Profile{}, dir.path());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "cannot write " + dir.path() + ": Is a directory");
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 0u) << "a failed write left a temporary file";
}

TEST(ProfileFile, WriteIntoReadOnlyDirectoryFails) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores directory permissions";
  TempDir dir;
  fs::permissions(dir.path(), fs::perms::owner_read | fs::perms::owner_exec);
  const std::string path = dir.file("p.callprof");
  Status s = write_profile(Profile{}, path);
  fs::permissions(dir.path(), fs::perms::owner_all);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "cannot write " + path + ": Permission denied");
}

TEST(ProfileFile, ReadErrorsNameThePathAndReason) {
  TempDir dir;
  const std::string missing = dir.file("missing.callprof");
  Result<Profile> r = read_profile(missing);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "cannot read " + missing + ": No such file or directory");
  r = read_profile(dir.path());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "cannot read " + dir.path() + ": not a regular file, pipe or FIFO");
  std::ofstream(dir.file("empty")).close();
  test::expect_error(read_profile(dir.file("empty")), dir.file("empty"), "truncated");
}

TEST(ProfileFile, ReaderStopsAtTheDeclaredEnd) {
  TempDir dir;
  const std::string path = dir.file("long.callprof");
  std::vector<uint8_t> bytes = serialize_profile(test::small_profile()).value();
  bytes.resize(bytes.size() + (4 << 20), 'x');  // megabytes of junk after the frame
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  test::expect_error(read_profile(path), path, "corrupted (1 byte after the");
}

// A v1 file committed to the repository (written once by write_profile(test::rich_profile())
// when v1 was current; never regenerate it): every future reader must still read it.
TEST(ProfileFile, ReadsCommittedVersion1File) {
  const std::string path = std::string(CALLPROF_TRACE_TEST_DATA) + "/v1_rich.bin";
  Result<Profile> profile = read_profile(path);
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  test::expect_same_profile(test::rich_profile(), *profile);
}

}  // namespace
}  // namespace callprof
