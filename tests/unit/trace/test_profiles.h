// Shared helpers for the profile file tests: sample profiles, a field-by-field comparison,
// and payload-level helpers for building files the writer would never produce.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/profile.h"
#include "trace/profile.pb.h"
#include "util/result.h"

namespace callprof::test {

Thread make_thread(uint32_t tid, uint32_t pid);

// Every field set: several threads, recursion, min/max metrics with some mins unset,
// metrics on the root, extra metadata, non-ASCII and non-UTF-8 names. Frozen:
// data/v1_rich.bin was written from it, and ReadsCommittedVersion1File compares the two.
Profile rich_profile();
// A handful of nodes, used where every byte offset of a file is tried.
Profile small_profile();

void expect_same_profile(const Profile& expected, const Profile& actual);

// Asserts that `result` failed with a single-line message starting with "<name>: " and
// containing `needle`.
void expect_error(const Result<Profile>& result, std::string_view name, std::string_view needle);

// A complete file around an arbitrary payload message (valid container, any content).
std::vector<uint8_t> file_with_payload(const file::Profile& payload);
// A payload with one function and one thread whose tree is root -> f0; tests then break it.
file::Profile minimal_payload();

}  // namespace callprof::test
