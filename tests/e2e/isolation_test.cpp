// End-to-end: the runtime stays out of the program's way. Its own work never calls the
// program's functions (a program may define malloc, free, calloc, memcpy or strlen itself,
// instrumented like the rest), so the program counts the same calls as without callprof
// and no call of the runtime's shows in the profile as the program's.
#include <cstdio>
#include <set>

#include "e2e_support.h"

namespace e2e {
namespace {

class Isolation : public E2ETest {};
E2E_INSTANTIATE(Isolation);

struct CallCounts {
  unsigned long malloc = 0, free = 0, calloc = 0, realloc = 0, aligned = 0, memcpy = 0, strlen = 0;
};

CallCounts parse_counts(const std::string& out) {
  CallCounts c;
  if (std::sscanf(out.c_str(), "malloc %lu free %lu calloc %lu realloc %lu aligned %lu memcpy %lu strlen %lu",
                  &c.malloc, &c.free, &c.calloc, &c.realloc, &c.aligned, &c.memcpy, &c.strlen) != 7)
    ADD_FAILURE() << "unexpected output: " << out;
  return c;
}

std::set<std::string> top_level_names(const Report& r) {
  std::set<std::string> names;
  for (const json& n : r.doc().at("tree")) names.insert(n.at("name").get<std::string>());
  return names;
}

// Issue 14.10: a failed dlsym (no __cxa_begin_catch in a C program) allocated its error
// string with the program's malloc, and pthread_create's interposer passed the start
// arguments in a malloc'd block: 2 malloc and 2 free at the root of the main thread,
// malloc 13 / free 14 counted where the program makes 10 / 11. With snapshots the
// program's calloc, called by glibc while the runtime started its thread, re-entered the
// runtime's set-up and the program hung; so did any program with its own strlen (the
// runtime's configuration code called it). The runtime's memcpy calls (reading the
// off-CPU ring, writing the dump) went to the program's memcpy.
TEST_P(Isolation, RuntimeNeverCallsTheProgramsOwnLibcFunctions) {
  const std::string binary = build("own_libc.c");
  const RunResult plain = run({binary}, dir());
  ASSERT_EQ(plain.exit, exited(0)) << plain.err;
  const CallCounts truth = parse_counts(plain.out);
  ASSERT_EQ(truth.memcpy, 5u) << "the program's own calls only";
  ASSERT_EQ(truth.strlen, 5u);
  for (const std::vector<std::string>& options :
       {std::vector<std::string>{}, {"--libcalls"}, {"--alloc"}, {"--snapshot-interval", "0.05"}}) {
    const std::string label = options.empty() ? "plain" : options[0];
    SCOPED_TRACE(label);
    std::vector<std::string> argv = {E2E_CALLPROF, "record", "-q", "-o", "profile.callprof"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.insert(argv.end(), {"--", binary});
    const RunResult rec = run(argv, dir(), "", 30);
    ASSERT_EQ(rec.exit, exited(0)) << rec.err;
    const CallCounts got = parse_counts(rec.out);
    EXPECT_EQ(got.malloc, truth.malloc);
    EXPECT_EQ(got.free, truth.free);
    EXPECT_EQ(got.realloc, truth.realloc);
    EXPECT_EQ(got.aligned, truth.aligned);
    EXPECT_EQ(got.memcpy, truth.memcpy);
    EXPECT_EQ(got.strlen, truth.strlen);
    // glibc allocates the TLS vector of the runtime's snapshot thread with calloc
    // (docs/modes.md): the one call the runtime cannot avoid.
    EXPECT_EQ(got.calloc, truth.calloc + (label == "--snapshot-interval" ? 1 : 0));

    const Report r = report();
    expect_path_calls(r, {{{"main", "make_list", "malloc"}, 10},
                          {{"main", "make_list", "free"}, 10},
                          {{"worker", "calloc"}, 1},
                          {{"worker", "free"}, 1},
                          {{"main", "copy_text", "memcpy"}, 5},
                          {{"main", "copy_text", "strlen"}, 5}});
    expect_function_calls(r, {{"memcpy", 5}, {"strlen", 5}});
    for (const char* f : {"malloc", "calloc", "realloc", "memalign", "memcpy", "strlen"})
      EXPECT_EQ(top_level_names(r).count(f), 0u) << f << " called outside any of the program's frames";
    const Report main_thread = report({"--thread", std::to_string(u64(r.processes().at(0), "pid"))});
    EXPECT_EQ(top_level_names(main_thread), std::set<std::string>{"main"});
  }
}

}  // namespace
}  // namespace e2e
