// Truncated, corrupted, foreign and newer-version files are rejected with one clear line,
// never accepted as something else and never a crash.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "test_profiles.h"
#include "trace/container.h"
#include "trace/profile_file.h"
#include "trace/proto_convert.h"

namespace callprof {
namespace {

std::vector<uint8_t> small_file() { return serialize_profile(test::small_profile()).value(); }

void put_le(std::vector<uint8_t>& b, size_t at, uint64_t v, size_t width) {
  for (size_t i = 0; i < width; ++i) b[at + i] = uint8_t(v >> (8 * i));
}

bool same_profile(const Profile& a, const Profile& b) {
  const Result<std::vector<uint8_t>> x = serialize_profile(a), y = serialize_profile(b);
  return x.ok() && y.ok() && x.value() == y.value();
}

TEST(DamagedFile, TruncationAtEveryOffsetIsReported) {
  const std::vector<uint8_t> file = small_file();
  for (size_t len = 0; len < file.size(); ++len) {
    SCOPED_TRACE("length " + std::to_string(len));
    test::expect_error(parse_profile(std::span(file).first(len), "t.callprof"), "t.callprof", "truncated");
  }
}

TEST(DamagedFile, TruncatedPayloadMessageGivesBothSizes) {
  const std::vector<uint8_t> file = small_file();
  const size_t payload = file.size() - trace::kHeaderSize;
  test::expect_error(parse_profile(std::span(file).first(file.size() - 3), "t"), "t",
                     "truncated (header says " + std::to_string(payload) + " bytes of payload, file has " +
                         std::to_string(payload - 3) + ")");
}

// With the zstd checksum every byte matters: a flip may only "succeed" where the decoder
// ignores the bit (libzstd does not check a few reserved bits inside compressed blocks; two
// such flips exist in this file), and then it must decode to the very same profile.
TEST(DamagedFile, EveryCorruptedByteIsDetected) {
  const std::vector<uint8_t> file = small_file();
  const Profile original = test::small_profile();
  size_t accepted = 0;
  for (size_t at = 0; at < file.size(); ++at) {
    for (uint8_t mask : {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0xff}) {
      std::vector<uint8_t> damaged = file;
      damaged[at] ^= mask;
      Result<Profile> r = parse_profile(damaged, "c");
      if (r.ok()) {
        ++accepted;
        EXPECT_TRUE(same_profile(original, *r)) << "offset " << at << " mask " << int(mask);
        continue;
      }
      EXPECT_EQ(r.error().message.find('\n'), std::string::npos) << r.error().message;
      EXPECT_EQ(r.error().message.rfind("c: ", 0), 0u) << r.error().message;
    }
  }
  EXPECT_LE(accepted, 4u) << "far more flips than zstd's ignored bits went unnoticed";
}

TEST(DamagedFile, PayloadCorruptionIsReportedAsCorrupted) {
  std::vector<uint8_t> file = small_file();
  file[file.size() - 6] ^= 0x55;  // inside the compressed data or the checksum
  test::expect_error(parse_profile(file, "p"), "p", "corrupted (zstd: ");
  file = small_file();
  file.back() ^= 0x01;  // the checksum itself
  test::expect_error(parse_profile(file, "p"), "p", "checksum");
}

TEST(DamagedFile, BadMagicIsNotAProfile) {
  const std::string text = "perf data, or a text file that happens to be long enough";
  const std::span<const uint8_t> text_bytes(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  test::expect_error(parse_profile(text_bytes, "x"), "x", "not a callprof profile (bad magic)");
  std::vector<uint8_t> file = small_file();
  file[7] = 'G';
  test::expect_error(parse_profile(file, "x"), "x", "not a callprof profile");
  test::expect_error(parse_profile(std::span(file).first(3), "x"), "x", "truncated");  // "CAL": a prefix
}

TEST(DamagedFile, NewerVersionAsksForAnUpgrade) {
  std::vector<uint8_t> file = small_file();
  put_le(file, 8, 2, 4);
  test::expect_error(parse_profile(file, "new.callprof"), "new.callprof",
                     "newer format version 2 (this callprof reads up to 1; upgrade callprof)");
  put_le(file, 8, 0xffffffff, 4);
  test::expect_error(parse_profile(file, "n"), "n", "newer format version 4294967295");
  put_le(file, 8, 0, 4);
  test::expect_error(parse_profile(file, "n"), "n", "corrupted (format version 0 does not exist)");
}

TEST(DamagedFile, UnknownFlagsAreRejected) {
  std::vector<uint8_t> file = small_file();
  put_le(file, 12, 0x100, 4);
  test::expect_error(parse_profile(file, "f"), "f", "corrupted (unknown header flags 0x100)");
}

TEST(DamagedFile, InflatedUncompressedSizeIsRefused) {
  std::vector<uint8_t> file = small_file();
  put_le(file, 16, uint64_t(1) << 40, 8);
  test::expect_error(parse_profile(file, "b"), "b", "above the limit of 1073741824");
  // Within the cap, but not what this small frame can hold: a decompression bomb's header.
  put_le(file, 16, trace::kMaxPayloadSize, 8);
  test::expect_error(parse_profile(file, "b"), "b", "a ratio above the limit of 1024");
  // Within both, but the frame disagrees.
  put_le(file, 16, 1 << 20, 8);
  test::expect_error(parse_profile(file, "b"), "b", "corrupted (zstd frame holds");
}

TEST(DamagedFile, CompressedSizeMustMatchTheFile) {
  std::vector<uint8_t> file = small_file();
  const uint64_t payload = file.size() - trace::kHeaderSize;
  put_le(file, 24, payload + 1, 8);
  test::expect_error(parse_profile(file, "s"), "s", "truncated");
  put_le(file, 24, payload - 1, 8);
  test::expect_error(parse_profile(file, "s"), "s", "corrupted (1 byte after the");
  put_le(file, 24, uint64_t(1) << 62, 8);
  test::expect_error(parse_profile(file, "s"), "s", "compressed bytes for");
  file = small_file();
  file.push_back(0);
  test::expect_error(parse_profile(file, "s"), "s", "corrupted (1 byte after the");
}

TEST(DamagedFile, PayloadMustBeOneChecksummedZstdFrame) {
  std::vector<uint8_t> raw(trace::kHeaderSize + 8, 0);
  std::copy(trace::kMagic.begin(), trace::kMagic.end(), raw.begin());
  put_le(raw, 8, 1, 4);
  put_le(raw, 16, 8, 8);
  put_le(raw, 24, 8, 8);
  test::expect_error(parse_profile(raw, "z"), "z", "corrupted (payload is not a zstd frame)");

  // A second (skippable, empty) frame after ours: not part of the format.
  std::vector<uint8_t> two = small_file();
  for (uint8_t b : {0x50, 0x2A, 0x4D, 0x18, 0, 0, 0, 0}) two.push_back(b);
  put_le(two, 24, two.size() - trace::kHeaderSize, 8);
  test::expect_error(parse_profile(two, "z"), "z", "corrupted (8 bytes follow the zstd frame)");

  std::vector<uint8_t> no_checksum = small_file();
  no_checksum[trace::kHeaderSize + 4] &= uint8_t(~0x04);
  test::expect_error(parse_profile(no_checksum, "z"), "z", "zstd frame has no content checksum");
}

TEST(DamagedFile, PayloadThatIsNotAProfileMessage) {
  const uint8_t garbage[] = {0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01};  // field 1, absurd length
  test::expect_error(parse_profile(trace::wrap_payload(garbage).value(), "g"), "g",
                     "corrupted (the payload is not a valid profile message)");
}

// The reader takes the payload one thread (field 5) at a time: the other fields may come
// in any order around them, as in any protobuf message, and a damaged thread is reported.
// A length-delimited field: its tag byte, the length as a varint, the bytes.
std::vector<uint8_t> length_delimited(uint8_t tag, const std::string& bytes) {
  std::vector<uint8_t> field = {tag};
  for (size_t n = bytes.size();; n >>= 7) {
    field.push_back(uint8_t((n & 0x7F) | (n > 0x7F ? 0x80 : 0)));
    if (n <= 0x7F) break;
  }
  field.insert(field.end(), bytes.begin(), bytes.end());
  return field;
}

std::vector<uint8_t> thread_field(const file::Thread& thread) {
  return length_delimited((5 << 3) | 2, thread.SerializeAsString());
}

std::vector<uint8_t> thread_before_head(const file::Profile& payload, std::vector<uint8_t> thread) {
  file::Profile head = payload;
  head.clear_threads();
  const std::string rest = head.SerializeAsString();
  thread.insert(thread.end(), rest.begin(), rest.end());
  return thread;
}

TEST(DamagedFile, ThreadsMayPrecedeTheOtherFields) {
  const file::Profile payload = test::minimal_payload();
  const std::vector<uint8_t> bytes = thread_before_head(payload, thread_field(payload.threads(0)));
  Result<Profile> reordered = parse_profile(trace::wrap_payload(bytes).value(), "r");
  Result<Profile> ordered = parse_profile(test::file_with_payload(payload), "o");
  ASSERT_TRUE(reordered.ok()) << reordered.error().message;
  ASSERT_TRUE(ordered.ok());
  EXPECT_TRUE(same_profile(*reordered, *ordered));
}

TEST(DamagedFile, DamagedThreadIsReported) {
  const file::Profile payload = test::minimal_payload();
  std::vector<uint8_t> thread = thread_field(payload.threads(0));
  thread.push_back(0xff);  // one byte past the thread's declared length: no valid tag follows
  test::expect_error(parse_profile(trace::wrap_payload(thread_before_head(payload, thread)).value(), "d"), "d",
                     "corrupted (the payload is not a valid profile message)");
  std::vector<uint8_t> inner = thread_field(payload.threads(0));
  inner[1] += 1;  // the thread's length covers a byte of what follows: its message is cut wrong
  inner.push_back(0xff);
  test::expect_error(parse_profile(trace::wrap_payload(thread_before_head(payload, inner)).value(), "d"), "d",
                     "corrupted (the payload is not a valid profile message)");
}

// The reader decodes a tree's metric values from their packed bytes (PackedCallTree): a
// column that ends inside a value, or holds one longer than ten bytes, is one clear error.
// From a file, the payload's budget count (which reads every value) finds it first.
TEST(DamagedFile, MalformedMetricValuesAreReported) {
  const file::Profile payload = test::minimal_payload();
  for (auto [values, error] : {std::pair{std::string("\x01\x01\x80", 3), "metric column calls ends inside a value"},
                               std::pair{std::string("\x01") + std::string(10, '\xff') + '\x01',
                                         "metric column calls holds a malformed value"}}) {
    file::PackedCallTree tree;
    ASSERT_TRUE(tree.ParseFromString(payload.threads(0).tree().SerializeAsString()));
    ASSERT_EQ(tree.metrics(0).name(), "calls");
    tree.mutable_metrics(0)->set_values(values);
    file::Thread thread = payload.threads(0);
    thread.clear_tree();
    std::string thread_bytes = thread.SerializeAsString();
    const std::vector<uint8_t> tree_field = length_delimited((11 << 3) | 2, tree.SerializeAsString());
    thread_bytes.append(tree_field.begin(), tree_field.end());
    const std::vector<uint8_t> bytes = thread_before_head(payload, length_delimited((5 << 3) | 2, thread_bytes));
    const Result<Profile> parsed = trace::parse_payload(bytes);
    ASSERT_FALSE(parsed.ok());
    EXPECT_NE(parsed.error().message.find(error), std::string::npos) << parsed.error().message;
    test::expect_error(parse_profile(trace::wrap_payload(bytes).value(), "m"), "m",
                       "corrupted (the payload is not a valid profile message)");
  }
}

}  // namespace
}  // namespace callprof

namespace callprof {
namespace {

// A directory or a device is never a profile: one clear error, at once.
TEST(NotAFile, DirectoryAndDeviceAreRefusedAtOnce) {
  const std::string dir = ::testing::TempDir() + "/not_a_file";
  std::filesystem::create_directories(dir);
  for (const std::string& path : {dir, std::string("/dev/null")}) {
    Result<Profile> p = read_profile(path);
    ASSERT_FALSE(p.ok()) << path;
    EXPECT_EQ(p.error().message, "cannot read " + path + ": not a regular file, pipe or FIFO");
  }
}

// A named FIFO is read as `cat` reads it: the reader waits for a writer, then takes the
// profile as it comes, with the same checks as a file (issue 30.5: refused while hardening).
TEST(NotAFile, AFifoIsReadAsItComes) {
  const std::string fifo = ::testing::TempDir() + "/profile_fifo";
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::vector<uint8_t> bytes = serialize_profile(test::small_profile()).value();
  for (const size_t cut : {bytes.size(), bytes.size() / 2}) {
    std::thread writer([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));  // after the reader opened it
      const int fd = ::open(fifo.c_str(), O_WRONLY);
      ASSERT_GE(fd, 0);
      EXPECT_EQ(::write(fd, bytes.data(), cut), ssize_t(cut));
      ::close(fd);
    });
    Result<Profile> p = read_profile(fifo);
    writer.join();
    if (cut == bytes.size()) {
      ASSERT_TRUE(p.ok()) << p.error().message;
      EXPECT_EQ(p->threads.size(), test::small_profile().threads.size());
    } else {
      ASSERT_FALSE(p.ok());
      EXPECT_NE(p.error().message.find(": truncated"), std::string::npos) << p.error().message;
    }
  }
  ::unlink(fifo.c_str());
}

}  // namespace
}  // namespace callprof
