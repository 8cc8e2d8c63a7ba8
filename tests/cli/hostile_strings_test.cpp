// Every string field of a profile set to terminal escapes and markup, found by walking the
// payload schema (so a field added later is covered without touching this test), then
// every view, picture and export is checked for raw control bytes and live markup. The
// generated code is lite (no descriptors: they cost every start of callprof 0.2 ms), so the
// schema comes from protoc's descriptor set and the payload is poisoned as a dynamic message.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/reflection.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "trace/container.h"
#include "trace/proto_convert.h"

namespace callprof {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

// The payload's root message, from the descriptor set protoc wrote for trace/profile.proto.
const Descriptor* profile_schema() {
  static google::protobuf::DescriptorPool pool;
  static const Descriptor* schema = [] {
    google::protobuf::FileDescriptorSet set;
    std::ifstream in(CALLPROF_PROFILE_SCHEMA, std::ios::binary);
    if (!set.ParseFromIstream(&in)) return static_cast<const Descriptor*>(nullptr);
    for (const auto& file : set.file())
      if (pool.BuildFile(file) == nullptr) return static_cast<const Descriptor*>(nullptr);
    return pool.FindMessageTypeByName("callprof.file.Profile");
  }();
  return schema;
}

// OSC (set the window title), CSI (clear the screen), a C1 CSI (U+009B), a bell, a
// script element and a bidirectional override.
const std::string kHostile =
    "\x1b]0;pwned\x07\x1b[2J\xc2\x9b"
    "31m<script>alert(1)</script>\xe2\x80\xae";

// A profile with one of each repeated message (the walk can only reach fields of messages
// that exist): every kind of facts, a process, a thread with a tree and a system call.
Profile base_profile() {
  Profile p;
  p.meta.command = "app";
  p.meta.mode = RecordingMode::Exact;
  p.meta.duration_ns = 1'000'000;
  p.meta.exact = ExactFacts{};
  p.meta.sampling = SamplingFacts{.frequency_hz = 999, .unwind = Unwinding::FramePointers, .samples = 10};
  p.meta.syscalls = SyscallFacts{.selection = "write", .stacks = "user", .events = 3};
  p.meta.probes = ProbeFacts{.functions = "work",
                             .probed = 1,
                             .budget_percent = 10,
                             .stopped = {{.function = "work", .at_ns = 1000, .calls = 3, .added_percent = 50}},
                             .unmeasurable_calls = 3,
                             .unmeasurable = {"work"}};
  p.meta.extra = {{"key", "value"}};
  p.meta.warnings = {"a warning"};
  p.modules = {{"/bin/app", "abcd"}};
  p.functions = {{"main", "main", 0, 0x10, "app.c", 3, FunctionKind::Normal},
                 {"work", "work", 0, 0x20, "app.c", 9, FunctionKind::Normal},
                 {"[syscall] write", "", kNoModule, 0, "", 0, FunctionKind::Syscall}};
  p.processes = {{.pid = 10, .command = "app", .start_ns = 0, .end_ns = 1'000'000}};
  Thread t;
  t.tid = t.pid = 10;
  t.name = "app";
  t.end_ns = 1'000'000;
  t.finished = true;
  t.creator_path = {0};
  const NodeId main = t.tree.child(kRootNode, 0), work = t.tree.child(main, 1), sys = t.tree.child(work, 2);
  for (NodeId n : {main, work, sys}) {
    t.tree.base(n)[Metric::Calls] = 3;
    t.tree.base(n)[Metric::WallNs] = 300'000;
    t.tree.base(n)[Metric::CpuNs] = 200'000;
    t.tree.base(n)[Metric::Samples] = 3;
    t.tree.base(n)[Metric::Syscalls] = 1;
  }
  SyscallStats s;
  s.name = "write";
  s.number = 1;
  s.calls = 3;
  s.errors = 1;
  s.errnos[9] = 1;
  s.total_ns = 30;
  s.min_ns = 10;
  s.max_ns = 10;
  s.durations.add(10, 3);
  t.syscalls.push_back(s);
  LocationTable locations(p);
  t.code.instructions.push_back({work, locations.add(1, 0x24, "app.c", 10), 3, 3000});
  t.code.call_sites.push_back({work, locations.add(0, 0x14, "app.c", 4)});
  p.threads.push_back(std::move(t));
  return p;
}

// Sets every string and bytes field of `m` and of the messages under it (creating singular
// sub-messages) to `value`, and records which fields it set.
void poison(Message& m, const std::string& value, std::set<std::string>& set_fields,
            const std::set<std::string>& spared) {
  const auto* d = m.GetDescriptor();
  const auto* r = m.GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (spared.count(f->full_name())) continue;
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
      if (f->is_repeated()) {
        for (int k = 0; k < r->FieldSize(m, f); ++k)
          r->SetRepeatedString(&m, f, k, r->GetRepeatedString(m, f, k) + value);
        if (r->FieldSize(m, f) > 0) set_fields.insert(f->full_name());
      } else {
        r->SetString(&m, f, r->GetString(m, f) + value);
        set_fields.insert(f->full_name());
      }
    } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (f->is_repeated())
        for (int k = 0; k < r->FieldSize(m, f); ++k)
          poison(*r->MutableRepeatedMessage(&m, f, k), value, set_fields, spared);
      else
        poison(*r->MutableMessage(&m, f), value, set_fields, spared);
    }
  }
}

// Every string field reachable from the payload's root message, by full name.
void string_fields(const google::protobuf::Descriptor* d, std::set<std::string>& out, std::set<const void*>& seen) {
  if (!seen.insert(d).second) return;
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_STRING) out.insert(f->full_name());
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) string_fields(f->message_type(), out, seen);
  }
}

std::string write_poisoned(const std::string& path, const std::set<std::string>& spared) {
  const Descriptor* schema = profile_schema();
  if (schema == nullptr) {
    ADD_FAILURE() << "cannot read the schema " << CALLPROF_PROFILE_SCHEMA;
    return path;
  }
  google::protobuf::DynamicMessageFactory factory;
  std::unique_ptr<Message> payload(factory.GetPrototype(schema)->New());
  EXPECT_TRUE(payload->ParseFromString(trace::to_proto(base_profile()).SerializeAsString()));
  std::set<std::string> set_fields;
  poison(*payload, kHostile, set_fields, spared);
  std::set<std::string> all;
  std::set<const void*> seen;
  string_fields(schema, all, seen);
  for (const std::string& name : all)
    EXPECT_TRUE(set_fields.count(name) || spared.count(name))
        << name << " was not set: give base_profile() a message that holds it";
  const std::string bytes = payload->SerializeAsString();
  auto file = trace::wrap_payload(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  EXPECT_TRUE(file.ok());
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(file->data()), std::streamsize(file->size()));
  return path;
}

struct Output {
  int status = -1;
  std::string out, err;
};

Output run(const std::string& args) {
  const std::string err_file = testing::TempDir() + "/hostile_stderr";
  FILE* p = popen((std::string(CALLPROF_BIN) + " " + args + " 2>" + err_file).c_str(), "r");
  Output r;
  std::array<char, 4096> buf;
  for (size_t n; (n = fread(buf.data(), 1, buf.size(), p)) > 0;) r.out.append(buf.data(), n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  std::ifstream e(err_file);
  r.err.assign(std::istreambuf_iterator<char>(e), {});
  return r;
}

// No byte a terminal acts on: ESC, BEL, and the C1 controls in UTF-8 (U+0080..U+009F).
void expect_inert(const std::string& what, const std::string& text) {
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << what << ": raw ESC";
  EXPECT_EQ(text.find('\x07'), std::string::npos) << what << ": raw BEL";
  for (size_t i = text.find('\xc2'); i != std::string::npos; i = text.find('\xc2', i + 1))
    EXPECT_FALSE(i + 1 < text.size() && uint8_t(text[i + 1]) >= 0x80 && uint8_t(text[i + 1]) <= 0x9f)
        << what << ": raw C1 control at " << i;
}

class HostileStrings : public testing::TestWithParam<bool> {
 protected:
  // Metric column names are matched against a fixed table and never shown; spared in one
  // of the two profiles so that its trees keep their numbers and every row shows.
  std::string profile() {
    const bool spare = GetParam();
    const std::set<std::string> spared =
        spare ? std::set<std::string>{"callprof.file.MetricColumn.name"} : std::set<std::string>{};
    return write_poisoned(testing::TempDir() + (spare ? "/hostile_named.callprof" : "/hostile_all.callprof"), spared);
  }
};

TEST_P(HostileStrings, EveryViewIsInert) {
  const std::string in = " -i " + profile() + " ";
  std::vector<std::string> commands;
  for (std::string view : {"flat", "callers", "tree", "threads", "summary", "syscalls", "modules",
                           "callers-of --function .", "callees-of --function .", "threads --function ."})
    for (std::string extra : {"", " --graft", " --merge-threads start", " --names full", " --json"})
      commands.push_back("report" + in + "--percent-limit 0 -w --view " + view + extra);
  for (std::string extra : {"--format dot", "--format svg"}) commands.push_back("graph" + in + extra);
  for (std::string extra : {"", "--icicle", "--colors module"}) commands.push_back("flame" + in + extra);
  for (std::string format : {"collapsed", "speedscope", "callgrind"})
    commands.push_back("export" + in + "-f " + format);
  for (std::string extra : {"", " --json"}) commands.push_back("diff " + profile() + " " + profile() + extra);
  for (std::string extra : {"", "--json", "--disasm"}) commands.push_back("annotate" + in + ". " + extra);
  const std::string html = testing::TempDir() + "/hostile.html";
  int shown = 0;
  for (const std::string& c : commands) {
    SCOPED_TRACE(c);
    const Output r = run(c);
    expect_inert(c + " (stderr)", r.err);
    if (r.status != 0) continue;  // e.g. no callers-of match; the error line is checked above
    ++shown;
    expect_inert(c, r.out);
    if (c.rfind("report", 0) == 0 && c.find("--json") == std::string::npos)
      EXPECT_NE(r.out.find("\\x1b]0;pwned\\x07"), std::string::npos) << "the escaped name shows: " << r.out;
    if (c.rfind("graph", 0) == 0 || c.rfind("flame", 0) == 0)
      EXPECT_EQ(r.out.find("<script>alert"), std::string::npos) << "live markup";
  }
  EXPECT_GE(shown, int(commands.size()) - 4) << "most commands succeed on the hostile profile";
  const Output page = run("html" + in + "-o " + html);
  ASSERT_EQ(page.status, 0) << page.err;
  std::ifstream h(html, std::ios::binary);
  const std::string text(std::istreambuf_iterator<char>(h), {});
  expect_inert("html", text);
  EXPECT_EQ(text.find("<script>alert"), std::string::npos) << "live markup in the page";
}

INSTANTIATE_TEST_SUITE_P(Profiles, HostileStrings, testing::Values(true, false),
                         [](const auto& info) { return info.param ? "MetricNamesKept" : "AllStrings"; });

}  // namespace
}  // namespace callprof
