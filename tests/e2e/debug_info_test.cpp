// End-to-end: names for stripped programs (docs/symbols.md).
// programs/debug_names.c is built -O2 -g, then split as distributions ship it (a stripped
// program and a debug file) and sampled: without debug info its addresses group into one row
// per function; with the debug file beside it (.gnu_debuglink), in a build-id tree (under
// --symfs, and under the real /usr/lib/debug), under --symfs, or served by a real debuginfod,
// the functions get their names, when recording and later in `report`.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "e2e_support.h"

namespace e2e {
namespace {

namespace fs = std::filesystem;

// The program's own functions that the sampled stacks go through (programs/debug_names.c).
const std::set<std::string> kSampledFunctions = {"main", "outer", "hot", "warm", "spin"};

// An environment variable set (or unset, for a null value) while it lives: run() passes the
// test's environment to callprof, and libdwfl reads DEBUGINFOD_URLS there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    value ? ::setenv(name, value, 1) : ::unsetenv(name);
  }
  ~ScopedEnv() { old_ ? ::setenv(name_, old_->c_str(), 1) : ::unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// The program as a distribution ships it.
struct Split {
  std::string unstripped;  // -O2 -g, symbols and all
  std::string bare;        // bare/debug_names: stripped, no .gnu_debuglink (its build id is all)
  std::string linked;      // linked/debug_names: stripped, with a .gnu_debuglink to debug_names.debug beside it
  std::string debug_file;  // objcopy --only-keep-debug of the unstripped program
  std::string build_id;
  std::string build_id_path(const fs::path& root) const {
    return (root / ".build-id" / build_id.substr(0, 2) / (build_id.substr(2) + ".debug")).string();
  }
};

std::string output_of(const std::vector<std::string>& argv, const fs::path& dir) {
  RunResult r = run(argv, dir);
  if (r.exit != exited(0)) throw std::runtime_error(argv[0] + " failed: " + r.err);
  return r.out;
}

void copy_to(const fs::path& from, const fs::path& to) {
  fs::create_directories(to.parent_path());
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
}

// The function symbols of a binary, by address (nm: "addr T name").
std::map<uint64_t, std::string> function_symbols(const std::string& binary, const fs::path& dir) {
  std::map<uint64_t, std::string> out;
  std::istringstream lines(output_of({E2E_NM, "--defined-only", binary}, dir));
  std::string address, type, name;
  while (lines >> address >> type >> name)
    if (type == "T" || type == "t") out.emplace(std::stoull(address, nullptr, 16), name);
  return out;
}

// The report's functions of the module whose path ends with `/file`, but for its PLT stubs
// ("clock_gettime@plt"), which are named without any symbols.
std::vector<json> functions_of(const Report& r, const std::string& file) {
  std::vector<json> out;
  for (const json& f : r.doc().at("functions"))
    if (f.at("module").is_string() && f.at("module").get<std::string>().ends_with("/" + file) &&
        !f.at("name").get<std::string>().ends_with("@plt"))
      out.push_back(f);
  return out;
}

std::set<std::string> names_of(const Report& r, const std::string& file) {
  std::set<std::string> names;
  for (const json& f : functions_of(r, file)) names.insert(f.at("name").get<std::string>());
  return names;
}

bool has_all_sampled_functions(const std::set<std::string>& names) {
  for (const std::string& f : kSampledFunctions)
    if (!names.count(f)) return false;
  return true;
}

std::string joined(const std::set<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += n + " ";
  return s;
}

class DebugInfo : public E2ETest {
 protected:
  void SetUp() override {
    E2ETest::SetUp();
    // A machine-wide DEBUGINFOD_URLS (Debian's /etc/profile.d) would make every recording ask
    // the network: the tests that want debuginfod set their own server.
    no_debuginfod_.emplace("DEBUGINFOD_URLS", nullptr);
  }
  void TearDown() override {
    no_debuginfod_.reset();
    E2ETest::TearDown();
  }

  Split split() {
    Split s;
    s.unstripped = build_plain("debug_names.c");
    s.bare = (dir() / "bare" / "debug_names").string();
    s.linked = (dir() / "linked" / "debug_names").string();
    s.debug_file = (dir() / "linked" / "debug_names.debug").string();
    fs::create_directories(dir() / "bare");
    fs::create_directories(dir() / "linked");
    output_of({E2E_OBJCOPY, "--only-keep-debug", s.unstripped, s.debug_file}, dir());
    output_of({E2E_STRIP, "--strip-all", "-o", s.bare, s.unstripped}, dir());
    output_of({E2E_STRIP, "--strip-all", "-o", s.linked, s.unstripped}, dir());
    output_of({E2E_OBJCOPY, "--add-gnu-debuglink=" + s.debug_file, s.linked}, dir() / "linked");
    std::smatch m;
    const std::string notes = output_of({E2E_READELF, "-n", s.unstripped}, dir());
    if (!std::regex_search(notes, m, std::regex("Build ID: ([0-9a-f]+)"))) throw std::runtime_error("no build id");
    s.build_id = m[1];
    return s;
  }

  // `callprof record --mode sample` (not quiet: its warnings are checked), which must succeed.
  RunResult record_sampled(const std::string& binary, const std::vector<std::string>& options = {}) {
    std::vector<std::string> argv = {E2E_CALLPROF, "record", "--mode", "sample", "-o", "profile.callprof"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.insert(argv.end(), {"--", binary});
    RunResult r = run(argv, dir());
    EXPECT_EQ(r.exit, exited(0)) << r.err;
    return r;
  }

  // The functions of the program are named (from DWARF: with their source file).
  void expect_named(const Report& r) {
    const std::set<std::string> names = names_of(r, "debug_names");
    EXPECT_TRUE(has_all_sampled_functions(names)) << joined(names);
    if (const json* hot = r.find_function("hot")) {
      EXPECT_TRUE(hot->at("file").is_string()) << hot->dump();
    }
  }

 private:
  std::optional<ScopedEnv> no_debuginfod_;
};
E2E_INSTANTIATE(DebugInfo);

bool crt_function(const std::string& name) {
  return name == "__do_global_dtors_aux" || name == "frame_dummy" || name == "register_tm_clones" ||
         name == "deregister_tm_clones";
}

// Without debug info a stripped function is one row named by its start, not one per sampled
// address; once the debug file is given (report --symfs), each row is one function.
TEST_P(DebugInfo, StrippedProgramGetsOneRowPerFunction) {
  const Split s = split();
  const RunResult recorded = record_sampled(s.bare);
  EXPECT_NE(recorded.err.find("bare/debug_names: stripped (no symbol table, no debug info)"), std::string::npos)
      << recorded.err;
  EXPECT_NE(recorded.err.find("debug_names+0xSTART"), std::string::npos) << recorded.err;
  EXPECT_NE(recorded.err.find("build id " + s.build_id), std::string::npos) << recorded.err;
  const Report unnamed = report();
  const std::map<uint64_t, std::string> symbols = function_symbols(s.unstripped, dir());
  std::set<std::string> functions;  // the functions the rows stand for, by the symbols
  const std::regex label("debug_names\\+0x([0-9a-f]+)");
  for (const json& f : functions_of(unnamed, "debug_names")) {
    const std::string name = f.at("name").get<std::string>();
    std::smatch m;
    ASSERT_TRUE(std::regex_match(name, m, label)) << name;
    const uint64_t address = std::stoull(m[1], nullptr, 16);
    auto symbol = symbols.find(address);
    // GCC's start files (crtstuff.c) have no unwind entries to give their functions' starts:
    // a sample while __cxa_finalize runs at exit names its caller, __do_global_dtors_aux, by
    // the return address (seen once in some 40 runs). Still one row for that function.
    if (auto holder = symbols.upper_bound(address);
        symbol == symbols.end() && holder != symbols.begin() && crt_function(std::prev(holder)->second)) {
      EXPECT_TRUE(functions.insert(std::prev(holder)->second).second) << std::prev(holder)->second << " has two rows";
      continue;
    }
    ASSERT_NE(symbol, symbols.end()) << name << " is not the start of a function";
    EXPECT_TRUE(functions.insert(symbol->second).second) << symbol->second << " has two rows";
  }
  EXPECT_TRUE(has_all_sampled_functions(functions)) << joined(functions);
  // Named later: the same rows, now with the functions' names.
  const fs::path root = dir() / "symfs";
  copy_to(s.debug_file, s.build_id_path(root / "usr/lib/debug"));
  const Report named = report({"--symfs", root.string()});
  EXPECT_EQ(names_of(named, "debug_names"), functions);
  EXPECT_EQ(functions_of(named, "debug_names").size(), functions.size());
}

TEST_P(DebugInfo, DebuglinkBesideTheProgram) {
  const Split s = split();
  const RunResult recorded = record_sampled(s.linked);
  EXPECT_EQ(recorded.err.find("warning: " + s.linked), std::string::npos) << recorded.err;
  expect_named(report());
}

TEST_P(DebugInfo, BuildIdTreeUnderSymfs) {
  const Split s = split();
  const fs::path root = dir() / "symfs";
  copy_to(s.debug_file, s.build_id_path(root / "usr/lib/debug"));
  record_sampled(s.bare, {"--symfs", root.string()});
  expect_named(report());
}

// The real /usr/lib/debug/.build-id, where Debian's -dbgsym packages put debug files: the
// file is this build's own (its build id is new), created and removed by the test.
TEST_P(DebugInfo, BuildIdTreeUnderUsrLibDebug) {
  const Split s = split();
  const fs::path planted = s.build_id_path("/usr/lib/debug");
  std::error_code ec;
  if (fs::exists(planted, ec)) GTEST_SKIP() << planted << " exists already; not touching it";
  // Removed on every way out: the file, then the directories the test made, deepest first.
  struct Remove {
    std::vector<fs::path> paths;
    ~Remove() {
      std::error_code ignored;
      for (const fs::path& p : paths) fs::remove(p, ignored);  // a directory only when empty
    }
  } remove{{planted}};
  for (fs::path d = planted.parent_path(); d != "/usr/lib" && !fs::exists(d, ec); d = d.parent_path())
    remove.paths.push_back(d);
  fs::create_directories(planted.parent_path(), ec);
  if (ec || ::access(planted.parent_path().c_str(), W_OK) != 0)
    GTEST_SKIP() << "cannot write " << planted.parent_path() << " (needs root); the --symfs variant covers the layout";
  fs::copy_file(s.debug_file, planted);
  record_sampled(s.bare);
  expect_named(report());
}

// perf's --symfs: a root holding the unstripped program at the stripped one's path; `report`
// names a profile recorded without it.
TEST_P(DebugInfo, SymfsNamesARecordedProfileLater) {
  const Split s = split();
  record_sampled(s.bare);
  const std::set<std::string> before = names_of(report(), "debug_names");
  EXPECT_FALSE(before.count("spin")) << joined(before);
  const fs::path root = dir() / "symfs";
  copy_to(s.unstripped, root.string() + s.bare);
  RunResult text = run({E2E_CALLPROF, "report", "-i", "profile.callprof", "--symfs", root.string()}, dir());
  EXPECT_EQ(text.exit, exited(0)) << text.err;
  EXPECT_NE(text.err.find("symbols: " + s.bare + ": named "), std::string::npos) << text.err;
  EXPECT_NE(text.out.find("spin"), std::string::npos) << text.out;
  expect_named(report({"--symfs", root.string()}));
}

// A debuginfod server, started on 127.0.0.1 at a free port, serving a directory.
class Debuginfod {
 public:
  static std::string program() {
    for (const char* dir : {"/usr/bin", "/usr/local/bin", "/usr/sbin"})
      if (::access((std::string(dir) + "/debuginfod").c_str(), X_OK) == 0) return std::string(dir) + "/debuginfod";
    return {};
  }
  Debuginfod(const std::string& program, const fs::path& served, const fs::path& work) {
    for (int attempt = 0; attempt < 3 && !started_; ++attempt) {
      port_ = free_port();
      server_ = start({program, "-F", "-p", std::to_string(port_), "-d", (work / "db.sqlite").string(), "-t", "0", "-g",
                       "0", served.string()},
                      work);
      started_ = wait_until_listening();
      if (!started_) stop();
    }
  }
  ~Debuginfod() { stop(); }
  bool started() const { return started_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // Whether the server has scanned the file: it answers 200 for its debug info.
  bool serves(const std::string& build_id, int timeout_s) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
    while (std::chrono::steady_clock::now() < deadline) {
      if (http_status("/buildid/" + build_id + "/debuginfo") == 200) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

 private:
  static int free_port() {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof a;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &size) != 0)
      throw std::runtime_error("cannot find a free port");
    ::close(fd);
    return ntohs(a.sin_port);
  }
  bool wait_until_listening() const {
    for (int i = 0; i < 100; ++i) {
      if (http_status("/metrics") > 0) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
  // The status of GET path, 0 when nothing answers.
  int http_status(const std::string& path) const {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(uint16_t(port_));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int status = 0;
    if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
      const std::string request = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
      char reply[64] = {};
      if (::write(fd, request.data(), request.size()) == ssize_t(request.size()) && ::read(fd, reply, 63) > 12)
        status = std::atoi(reply + 9);  // "HTTP/1.x NNN"
    }
    if (fd >= 0) ::close(fd);
    return status;
  }
  void stop() {
    if (server_.pid <= 0) return;
    ::kill(-server_.pid, SIGTERM);
    try {
      finish(server_, 20);
    } catch (const std::exception&) {  // finish() killed it after the timeout
    }
    server_.pid = 0;
  }

  Started server_;
  int port_ = 0;
  bool started_ = false;
};

TEST_P(DebugInfo, DebuginfodServerNamesWhenRecordingAndLater) {
  const std::string program = Debuginfod::program();
  if (program.empty())
    GTEST_SKIP() << "debuginfod is not installed (Debian: apt-get install debuginfod; scripts/install-deps.sh test)";
  const Split s = split();
  const fs::path served = dir() / "served";
  copy_to(s.debug_file, served / "debug_names.debug");
  Debuginfod server(program, served, dir());
  ASSERT_TRUE(server.started()) << "debuginfod did not start on 127.0.0.1";
  ASSERT_TRUE(server.serves(s.build_id, 60)) << "debuginfod never served the debug file";
  // Recorded without it: unnamed, then named by `report` through the server.
  record_sampled(s.bare);
  EXPECT_FALSE(names_of(report(), "debug_names").count("spin"));
  {
    ScopedEnv urls("DEBUGINFOD_URLS", server.url().c_str());
    ScopedEnv cache("DEBUGINFOD_CACHE_PATH", (dir() / "cache-report").c_str());
    expect_named(report());
    // Asking a server is said, module by module.
    const RunResult text = run({E2E_CALLPROF, "report", "-i", "profile.callprof"}, dir());
    EXPECT_NE(text.err.find("symbols: " + s.bare + ": named "), std::string::npos) << text.err;
  }
  // Recorded with it: named from the start.
  ScopedEnv urls("DEBUGINFOD_URLS", server.url().c_str());
  ScopedEnv cache("DEBUGINFOD_CACHE_PATH", (dir() / "cache-record").c_str());
  const RunResult recorded = record_sampled(s.bare);
  EXPECT_EQ(recorded.err.find("warning: " + s.bare), std::string::npos) << recorded.err;
  {
    ScopedEnv no_urls("DEBUGINFOD_URLS", nullptr);  // the names are in the profile now
    expect_named(report());
  }
  EXPECT_TRUE(fs::exists(dir() / "cache-record" / s.build_id / "debuginfo")) << "not fetched through the cache";
}

}  // namespace
}  // namespace e2e
