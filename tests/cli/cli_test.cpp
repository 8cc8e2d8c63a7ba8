// The callprof command line: help, and bad arguments or inputs giving exactly one clear
// line on stderr, nothing on stdout, and exit status 2.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

struct CliRun {
  int status = -1;
  std::string out, err;
};

CliRun run(const std::string& args) {
  std::string err_file = testing::TempDir() + "/cli_stderr";
  std::string cmd = std::string(CALLPROF_BIN) + " " + args + " 2>" + err_file;
  CliRun r;
  FILE* p = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  std::ifstream e(err_file);
  r.err.assign(std::istreambuf_iterator<char>(e), {});
  return r;
}

void expect_one_line_error(const std::string& args, const std::string& needle) {
  SCOPED_TRACE(args);
  CliRun r = run(args);
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.rfind("callprof: error: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
}

std::string profile_path() {
  static std::string path = [] {
    // One per test process: ctest runs the Cli tests in parallel, and a recording moves the
    // previous profile at this path aside before it writes its own.
    std::string p = testing::TempDir() + "/cli_wordfreq." + std::to_string(getpid()) + ".callprof";
    std::string cmd = std::string(CALLPROF_BIN) + " record -q -o " + p + " -- " + WORDFREQ_BIN + " 2000 >/dev/null";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
    return p;
  }();
  return path;
}

const std::vector<std::string> kCommands = {"record", "attach", "report", "export", "merge",
                                            "diff",   "graph",  "flame",  "html"};

// Issue 29 item 7: every command's help has a usage line, an example of the command, and a
// name for the value of every option that takes one (never CLI11's TEXT, UINT, FLOAT).
TEST(Cli, HelpForEveryCommand) {
  CliRun top = run("--help");
  EXPECT_EQ(top.status, 0);
  EXPECT_NE(top.out.find("Usage"), std::string::npos);
  EXPECT_NE(top.out.find("Example: callprof record"), std::string::npos) << top.out;
  for (const std::string& cmd : kCommands) {
    SCOPED_TRACE(cmd);
    CliRun r = run(cmd + " --help");
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("Usage: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\nExample: callprof " + cmd + " "), std::string::npos) << r.out;
    std::istringstream lines(r.out);
    for (std::string l; std::getline(lines, l);)
      for (const char* generic : {" TEXT", " UINT", " INT", " FLOAT", " BOOLEAN"})
        EXPECT_EQ(l.find(generic), std::string::npos) << "an option without a value name: " << l;
  }
  const std::vector<std::pair<std::string, std::string>> shown = {
      {"report", "--limit N"},          {"report", "--percent-limit PCT"},
      {"report", "-s,--sort COLUMN"},   {"report", "--view VIEW=flat"},
      {"report", "--filter REGEX"},     {"report", "--thread TID"},
      {"report", "--pid PID"},          {"report", "-i,--input FILE"},
      {"attach", "-d,--duration TIME"}, {"attach", "[OPTIONS] PID"},
      {"record", "-F,--freq HZ"},       {"record", "--min-duration TIME"},
      {"record", "--stack-bytes SIZE"}, {"record", "--syscalls LIST"},
      {"record", "--call-graph MODE"},  {"record", "[OPTIONS] [--] PROG [ARGS...]"},
      {"export", "-f,--format FORMAT"}, {"diff", "[OPTIONS] BASE NEW"},
      {"flame", "--width PX"},          {"graph", "--node-fraction FRACTION"},
      {"html", "--graph-timeout TIME"}};
  for (const auto& [cmd, text] : shown)
    EXPECT_NE(run(cmd + " --help").out.find(text), std::string::npos) << cmd << ": " << text;
}

// `report --help` lists every view --view takes (the list its error gives), one line each.
TEST(Cli, ReportHelpListsTheViews) {
  const std::string help = run("report --help").out;
  EXPECT_NE(help.find("\nViews (--view):\n"), std::string::npos) << help;
  const std::string err = run("report --view nope").err;
  const size_t valid = err.find("(valid: ");
  ASSERT_NE(valid, std::string::npos) << err;
  std::istringstream names(err.substr(valid + 8, err.find(')', valid) - valid - 8));
  size_t views = 0;
  for (std::string name; std::getline(names >> std::ws, name, ',');) {
    ++views;
    const size_t at = help.find("\n  " + name + " ");
    ASSERT_NE(at, std::string::npos) << name << " is not in:\n" << help;
    const std::string line = help.substr(at + 1, help.find('\n', at + 1) - at - 1);
    EXPECT_GT(line.size(), name.size() + 20) << "no description: " << line;
  }
  EXPECT_EQ(views, 9u) << err;
  // --sort names its keys: the metric columns, the names, the threads view's own.
  for (const char* key : {"calls | ", "self% | ", "allocbytestotal", "module | name", "tid | name"})
    EXPECT_NE(help.find(key), std::string::npos) << key;
}

TEST(Cli, BadCommandsAndOptions) {
  expect_one_line_error("", "subcommand is required");
  expect_one_line_error("frobnicate", "unknown command 'frobnicate'");
  expect_one_line_error("report --no-such-option", "no-such-option");
  expect_one_line_error("report --limit -3", "--limit");
}

// A usage error names the help of the command it is about.
TEST(Cli, UsageErrorsNameTheCommandsHelp) {
  expect_one_line_error("--no-such-option", "(see callprof --help)");
  // (with what each requires, which CLI11 would otherwise report first)
  const std::map<std::string, std::string> required = {
      {"attach", " 1"}, {"export", " -f pprof"}, {"merge", " -o m.callprof a b"}, {"diff", " a b"}};
  for (const std::string& cmd : kCommands) {
    const std::string args = required.count(cmd) ? required.at(cmd) : "";
    expect_one_line_error(cmd + args + " --no-such-option",
                          "not expected: --no-such-option (see callprof " + cmd + " --help)");
  }
  expect_one_line_error("report --limit -3", "(see callprof report --help)");
  expect_one_line_error("attach -d 0 1", "(see callprof attach --help)");
  expect_one_line_error("merge a.callprof", "(see callprof merge --help)");
}

// Without a program, record says how to give one.
TEST(Cli, RecordWithoutAProgramSaysHowToGiveOne) {
  for (const char* args : {"record", "record -q -o /tmp/cli_never.callprof", "record --mode sample --"})
    expect_one_line_error(args, "no program given: callprof record [OPTIONS] -- PROG [ARGS...]");
}

// export writes full names (its readers shorten them): --names is not offered, and refused
// with the reason rather than taken and ignored; the commands that draw names take it.
TEST(Cli, ExportRefusesNamesTheOthersTakeIt) {
  const std::string in = " -i " + profile_path();
  EXPECT_EQ(run("export --help").out.find("--names"), std::string::npos);
  expect_one_line_error("export -f collapsed --names short" + in,
                        "--names: export writes names in full (demangled, with parameters)");
  CliRun collapsed = run("export -f collapsed" + in);
  EXPECT_EQ(collapsed.status, 0) << collapsed.err;
  EXPECT_NE(collapsed.out.find("count_words("), std::string::npos) << "full names, with parameters";
  for (const std::string& cmd : {"report", "diff", "graph", "flame", "html"})
    EXPECT_NE(run(cmd + " --help").out.find("--names STYLE"), std::string::npos) << cmd;
  CliRun flame = run("flame --names full" + in);
  EXPECT_EQ(flame.status, 0) << flame.err;
  EXPECT_NE(flame.out.find("count_words("), std::string::npos);
  CliRun flame_short = run("flame --names short" + in);
  EXPECT_EQ(flame_short.out.find("count_words("), std::string::npos);
}

TEST(Cli, RecordRefusesWhatItCannotRun) {
  expect_one_line_error("record -- /nonexistent/program", "cannot open /nonexistent/program");
  expect_one_line_error("record -- no-such-program-in-path", "cannot find 'no-such-program-in-path'");
  expect_one_line_error("record --mode bogus -- /bin/true", "unknown mode 'bogus'");
  expect_one_line_error("record --syscall-stacks some -- /bin/true", "--syscall-stacks");
  expect_one_line_error("record --mode syscall --syscalls write,nosuch -- /bin/true", "nosuch");
  expect_one_line_error("record -e bogus -- /bin/true", "--event");
  expect_one_line_error("attach --mode exact 1", "process 1");  // no hooks, or not readable
}

TEST(Cli, RecordOptionsTakeOneValueEach) {
  // A filter option must not swallow the program that follows it (no `--` needed).
  const std::string p = testing::TempDir() + "/cli_filtered.callprof";
  CliRun r = run("record -q --exclude '^count' --exclude '^print' -o " + p + " " + WORDFREQ_BIN + " 100");
  EXPECT_EQ(r.status, 0) << r.err;
  expect_one_line_error("record --max-nodes 10 -- " + std::string(WORDFREQ_BIN),
                        "--max-nodes: '10' is out of range (expected 1024 to");
  expect_one_line_error("record --snapshot-interval -1 -- " + std::string(WORDFREQ_BIN), "--snapshot-interval");
  expect_one_line_error("record --snapshot-signal KILL -- " + std::string(WORDFREQ_BIN), "cannot be caught");
}

// Every numeric option parses through one family (util/numbers.h) with a range: no NaN or
// infinity, no overflow into a tiny or negative value, no empty string read as "none".
TEST(Cli, NumbersAndDurations) {
  const std::string prog = " -- " + std::string(WORDFREQ_BIN);
  const std::string in = " -i " + profile_path();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"attach -d 1e10 1", "--duration: '1e10' is out of range"},
      {"attach -d 1e30 1", "--duration: '1e30' is out of range"},
      {"attach -d inf 1", "--duration: 'inf' is not a number of seconds"},
      {"attach -d 0 1", "--duration: '0' is out of range (expected more than 0"},
      {"attach -d nan 1", "--duration: 'nan' is not a number of seconds"},
      {"attach -d -1 1", "--duration"},
      {"attach 0", "pid: '0' is out of range"},
      {"attach 99999999999", "pid: '99999999999' is out of range"},
      {"attach -F 0 1", "--freq: '0' is out of range"},
      {"attach -F nan 1", "--freq: 'nan' is not a whole number"},
      {"record --min-duration ''" + prog, "--min-duration: '' is not a duration"},
      {"record --min-duration nanms" + prog, "--min-duration: 'nanms' is not a duration"},
      {"record --min-duration 0" + prog, "--min-duration: '0' is not a duration"},
      {"record --min-duration 1e30s" + prog, "--min-duration: '1e30s' is not a duration"},
      {"record --snapshot-interval nan" + prog, "--snapshot-interval: 'nan' is not a number of seconds"},
      {"record --snapshot-interval 0" + prog, "--snapshot-interval: '0' is out of range"},
      {"record --snapshot-interval inf" + prog, "--snapshot-interval"},
      {"record --max-depth -1" + prog, "--max-depth: '-1' is not a whole number"},
      {"record --max-nodes 99999999999" + prog, "--max-nodes: '99999999999' is out of range"},
      {"record --stack-bytes 1e3" + prog, "--stack-bytes: '1e3' is not a whole number"},
      {"record --syscall-stack-bytes 9000" + prog, "--syscall-stack-bytes: '9000' is out of range"},
      {"report --limit 2^64" + in, "--limit: '2^64' is not a whole number"},
      {"report --limit 18446744073709551616" + in, "--limit: '18446744073709551616' is out of range"},
      {"report --limit -3" + in, "--limit: '-3' is not a whole number"},
      {"report --percent-limit nan" + in, "--percent-limit: 'nan' is not a number"},
      {"report --percent-limit 1e999" + in, "--percent-limit: '1e999' is out of range"},
      {"report --width 0x50" + in, "--width: '0x50' is not a whole number"},
      {"report --thread 4294967296" + in, "--thread: '4294967296' is out of range"},
      {"report --pid abc" + in, "--pid: 'abc' is not a whole number"},
      {"diff --limit 1.5 a b", "--limit: '1.5' is not a whole number"},
      {"graph --nodes 1e9" + in, "--nodes: '1e9' is not a whole number"},
      {"graph --edges -1" + in, "--edges: '-1' is not a whole number"},
      {"graph --node-fraction nan" + in, "--node-fraction: 'nan' is not a number"},
      {"graph --edge-fraction 2" + in, "--edge-fraction: '2' is out of range"},
      {"flame --width inf" + in, "--width: 'inf' is not a number"},
      {"flame --min-width -1" + in, "--min-width: '-1' is out of range"},
      {"html --graph-timeout nan -o /tmp/x.html" + in, "--graph-timeout: 'nan' is not a number of seconds"},
      {"html --graph-nodes 2^64 -o /tmp/x.html" + in, "--graph-nodes: '2^64' is not a whole number"},
  };
  for (const auto& [args, needle] : cases) expect_one_line_error(args, needle);
  // In range, they still work.
  CliRun ok = run("report --limit 3 --percent-limit 0.5 --width 100" + in);
  EXPECT_EQ(ok.status, 0) << ok.err;
}

TEST(Cli, RecordSamplesProgramsWithoutHooks) {
  // /bin/true has no hooks: sample mode. It usually ends before the first sample; the
  // profile is written all the same and says so, and the status is true's own.
  const std::string out = testing::TempDir() + "/true.callprof";
  CliRun r = run("record -o " + out + " -- /bin/true");
  EXPECT_NE(r.err.find("sample mode"), std::string::npos) << r.err;
  EXPECT_EQ(r.status, 0) << r.err;
  CliRun report = run("report -i " + out);
  EXPECT_EQ(report.status, 0) << report.err;
}

// Issue 15 item 4: the program's exit status passes through whatever happened to the
// profile, and a recording without data still writes a profile that says why (replacing
// the older one, kept as .old, which `report` would otherwise show).
TEST(Cli, ExitStatusPassesThroughAndAnEmptyRecordingSaysWhy) {
  const std::string out = testing::TempDir() + "/cli_empty.callprof";
  std::remove(out.c_str());
  CliRun first = run("record -q -o " + out + " -- " + WORDFREQ_BIN + " 100 >/dev/null");
  ASSERT_EQ(first.status, 0) << first.err;
  struct Case {
    std::string command, warning;
    int status;
  };
  // (Sampling a short program: its exec alone usually gives a few samples, so whether
  // these have data varies; attaching to a sleeping process below has none for sure.)
  for (const Case& c :
       {Case{"--mode sample -- sh -c 'exit 7'", "", 7},
        Case{"--mode exact --children -- sh -c 'exit 4'", "the program wrote no profile data", 4},
        Case{"--mode sample -- /bin/true", "", 0}, Case{"--mode syscall --syscalls mount -- sh -c 'exit 3'", "", 3}}) {
    SCOPED_TRACE(c.command);
    CliRun r = run("record -q -o " + out + " " + c.command);
    EXPECT_EQ(r.status, c.status) << r.err;
    EXPECT_TRUE(r.err.empty()) << "-q: " << r.err;
    CliRun report = run("report -i " + out);
    EXPECT_EQ(report.status, 0) << report.err;
    EXPECT_EQ(report.out.find("count_words"), std::string::npos) << "the older profile was left in place";
    if (!c.warning.empty()) {
      EXPECT_NE(report.out.find("# warning:  " + c.warning), std::string::npos) << report.out;
      CliRun json = run("report --json -i " + out);
      EXPECT_NE(json.out.find("\"warnings\":[\"" + c.warning), std::string::npos) << json.out.substr(0, 2000);
    }
    EXPECT_EQ(access((out + ".old").c_str(), F_OK), 0);
  }
  // Without -q the warning is on stderr too; attached, the status says the profile was written.
  const pid_t sleeper = fork();
  if (sleeper == 0) {
    execlp("sleep", "sleep", "10", nullptr);
    _exit(127);
  }
  CliRun idle = run("attach " + std::to_string(sleeper) + " -d 0.3 -o " + out);
  kill(sleeper, SIGKILL);
  waitpid(sleeper, nullptr, 0);
  EXPECT_EQ(idle.status, 0) << idle.err;
  EXPECT_NE(idle.err.find("callprof: warning: no samples were taken"), std::string::npos) << idle.err;
  EXPECT_NE(run("report -i " + out).out.find("# warning:  no samples were taken"), std::string::npos);
  // A profile that cannot be written (its directory went away while the program ran) is
  // callprof's own failure: one line, and still the program's status.
  const std::string dir = testing::TempDir() + "/cli_vanishing";
  std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str());
  CliRun gone = run("record -q -o " + dir + "/p.callprof --mode sample -- sh -c 'rmdir " + dir + "; exit 5'");
  EXPECT_EQ(gone.status, 5) << gone.err;
  EXPECT_EQ(gone.err.rfind("callprof: error: ", 0), 0u) << gone.err;
  EXPECT_EQ(std::count(gone.err.begin(), gone.err.end(), '\n'), 1) << gone.err;
}

TEST(Cli, ReportRefusesBadInputs) {
  std::string dir = testing::TempDir();
  std::ofstream(dir + "/not_a_profile") << "hello\n";
  expect_one_line_error("report -i /nonexistent/profile", "cannot read /nonexistent/profile");
  expect_one_line_error("report -i " + dir + "/not_a_profile", "not a callprof profile");
  expect_one_line_error("report -i " + dir, "cannot read");

  std::string good = profile_path();
  std::ifstream in(good, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  std::ofstream(dir + "/truncated", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  expect_one_line_error("report -i " + dir + "/truncated", "truncated");
}

// Profiles come through pipes too: standard input (-i -) and process substitution, as
// they did before the reader was hardened (issue 30.5); the same checks, the same report.
// Every picture and page written to a file says where it went and what it holds, as flame
// and html do (issue 29.2: graph wrote silently); to standard output, nothing is said.
TEST(Cli, PicturesSayWhereTheyWrote) {
  const std::string in = " -i " + profile_path(), dir = testing::TempDir();
  const CliRun graph = run("graph" + in + " -o " + dir + "/cli_graph.svg");
  EXPECT_EQ(graph.status, 0) << graph.err;
  EXPECT_EQ(graph.err.rfind("callprof: wrote " + dir + "/cli_graph.svg: ", 0), 0u) << graph.err;
  EXPECT_NE(graph.err.find(" functions, "), std::string::npos) << graph.err;
  const CliRun to_stdout = run("graph" + in + " --format dot");
  EXPECT_EQ(to_stdout.status, 0);
  EXPECT_EQ(to_stdout.err, "");
  const CliRun flame = run("flame" + in + " -o " + dir + "/cli_flame.svg");
  EXPECT_EQ(flame.err.rfind("callprof: wrote " + dir + "/cli_flame.svg: ", 0), 0u) << flame.err;
}

TEST(Cli, ProfilesAreReadFromPipesAndStandardInput) {
  const std::string p = profile_path(), bin = CALLPROF_BIN;
  const CliRun file = run("report -i " + p + " --view flat --no-pager");
  ASSERT_EQ(file.status, 0) << file.err;
  const CliRun piped = run("report -i - --view flat --no-pager < " + p);
  EXPECT_EQ(piped.status, 0) << piped.err;
  EXPECT_EQ(piped.out, file.out);
  const std::string out = testing::TempDir() + "/cli_substituted";
  const std::string substituted =
      "bash -c '" + bin + " report -i <(cat " + p + ") --view flat --no-pager > " + out + " 2>&1'";
  EXPECT_EQ(std::system(substituted.c_str()), 0);
  std::ifstream in(out);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), file.out);
  expect_one_line_error("report -i - < /dev/null", "cannot read standard input (-i -): not a file or pipe");
  expect_one_line_error("report -i - < /dev/zero", "not a file or pipe");
  const std::string half = "head -c 100 " + p + " | ";
  const std::string cmd = half + bin + " report -i - --no-pager 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  char buf[512] = {};
  const size_t n = fread(buf, 1, sizeof buf - 1, f);
  EXPECT_NE(WEXITSTATUS(pclose(f)), 0);
  EXPECT_NE(std::string(buf, n).find("callprof: error: -: truncated"), std::string::npos) << buf;
}

TEST(Cli, ReportRefusesBadViewOptions) {
  std::string in = "report -i " + profile_path();
  expect_one_line_error(in + " --view nope", "unknown view 'nope'");
  expect_one_line_error(in + " --sort nope", "unknown sort column 'nope'");
  expect_one_line_error(in + " --filter '('", "invalid --filter regex");
  expect_one_line_error(in + " --focus '('", "invalid --focus regex");
  expect_one_line_error(in + " --hide '[z-a]'", "invalid --hide regex");
  expect_one_line_error(in + " --thread 1", "thread 1 is not in the profile");
  expect_one_line_error(in + " --pid 1", "process 1 is not in the profile");
  expect_one_line_error(in + " --names nope", "unknown --names style 'nope'");
  expect_one_line_error(in + " --percent-limit 101", "--percent-limit");
  expect_one_line_error(in + " --width 80 -w", "exclude each other");
  expect_one_line_error(in + " --view callers-of", "needs --function");
  expect_one_line_error(in + " --view callers-of --function '^nothing_matches$'",
                        "no function in the selection matches");
  expect_one_line_error(in + " --view callees-of --function main --focus x", "without --focus");
}

TEST(Cli, ReportOptionsForExactModeInDepth) {
  const std::string in = "report -i " + profile_path();
  for (std::string options :
       {"--raw", "--columns calls,self,cputotal", "--view tree --graft", "--view tree --merge-threads=start",
        "--view threads --function count", "--json --graft"}) {
    CliRun r = run(in + " " + options);
    EXPECT_EQ(r.status, 0) << options << ": " << r.err;
    EXPECT_FALSE(r.out.empty()) << options;
  }
  expect_one_line_error(in + " --merge-threads nope", "unknown --merge-threads mode 'nope'");
  expect_one_line_error(in + " --columns nope", "unknown column 'nope'");
  expect_one_line_error(in + " --function x", "--function applies to the threads view");
}

TEST(Cli, EveryViewRendersTheDemoProfile) {
  // No noise threshold: count_words is ~3 % of a 15 ms run, and a preemption under CI's load
  // can push it below the default 0.5 %. The summary's top lists have a fixed length, which
  // count_words can miss under load: main, the caller of its hottest edges, is always there.
  for (std::string view : {"flat", "callers", "tree", "threads", "summary", "modules",
                           "callers-of --function count_words", "callees-of --function main"}) {
    CliRun r = run("report -i " + profile_path() + " --percent-limit 0 --view " + view);
    EXPECT_EQ(r.status, 0) << view << ": " << r.err;
    const char* expected = view == "threads" || view == "modules" ? "wordfreq"
                           : view == "summary"                    ? "main > "
                                                                  : "count_words";
    EXPECT_NE(r.out.find(expected), std::string::npos) << view << ":\n" << r.out;
  }
}

}  // namespace

// Runs `shell_command` on a pseudo-terminal of `columns` columns (util-linux `script`), so
// callprof sees a terminal on stdout.
int on_terminal(const std::string& shell_command, int columns) {
  const std::string inner = "stty cols " + std::to_string(columns) + "; " + shell_command;
  std::string quoted;
  for (char c : inner) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return std::system(("script -qec '" + quoted + "' /dev/null >/dev/null 2>&1").c_str());
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(Cli, ReportPagesOnATerminalAndFitsItsWidth) {
  if (std::system("command -v script >/dev/null") != 0) GTEST_SKIP() << "util-linux script is not installed";
  const std::string paged = testing::TempDir() + "/cli_paged.txt";
  std::remove(paged.c_str());
  // A fixed column set: the default one grows a preempted column when the machine was busy,
  // and the test must cut names whatever the load was when the profile was recorded.
  const std::string report = std::string(CALLPROF_BIN) + " report -i " + profile_path() +
                             " --view flat --percent-limit 0 --columns calls,self,total";
  ASSERT_EQ(on_terminal("PAGER=\"cat > " + paged + "\" " + report, 50), 0);
  const std::string text = slurp(paged);
  EXPECT_NE(text.find("# callprof flat profile"), std::string::npos) << "the pager got the report: " << text;
  bool cut = false;
  std::istringstream lines(text);
  for (std::string l; std::getline(lines, l);) {
    if (l.empty() || l[0] == '#' || l[0] == '-') continue;
    size_t cols = 0;
    for (char c : l) cols += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    cut = cut || l.find("…") != std::string::npos;
    // Names are cut to the width (the three numeric columns, never cut, take ~25).
    EXPECT_LE(cols, 50u) << l;
  }
  EXPECT_TRUE(cut) << text;
  std::remove(paged.c_str());
  ASSERT_EQ(on_terminal("PAGER=\"cat > " + paged + "\" " + report + " --no-pager", 50), 0);
  EXPECT_TRUE(slurp(paged).empty()) << "--no-pager writes to the terminal directly";
  // Not a terminal: no pager, names whole.
  CliRun piped = run("report -i " + profile_path() + " --view flat --percent-limit 0");
  EXPECT_EQ(piped.out.find("…"), std::string::npos);
}

// SPEC: -o never destroys what is there. Devices, FIFOs, directories and the program itself
// are refused before the program runs (its output file stays absent); a missing or
// unwritable directory too. An earlier profile moves to .old, in every mode.
TEST(Cli, OutputMustBeARegularFileCheckedBeforeTheProgramRuns) {
  const std::string dir = testing::TempDir() + "/cli_output";
  std::system(("rm -rf " + dir + " && mkdir -p " + dir + "/sub && mkfifo " + dir + "/fifo").c_str());
  const std::string program = dir + "/wordfreq";
  std::system(("cp " + std::string(WORDFREQ_BIN) + " " + program).c_str());
  const std::string marker = dir + "/ran";
  // The program would leave `marker` behind if it ran.
  const std::string cmd = " -- sh -c 'touch " + marker + "'";
  struct Case {
    std::string output, needle;
  };
  for (const Case& c :
       {Case{"/dev/null", "a character device, not a regular file"}, Case{dir + "/fifo", "a FIFO, not a regular file"},
        Case{dir + "/sub", "a directory, not a regular file"}, Case{dir + "/missing/p.callprof", "does not exist"}}) {
    for (const char* mode : {"exact", "sample"}) {
      expect_one_line_error(std::string("record -q --mode ") + mode + " -o " + c.output + cmd, c.needle);
      EXPECT_NE(access(marker.c_str(), F_OK), 0) << c.output << ": the program ran";
    }
  }
  expect_one_line_error("record -q -o " + program + " -- " + program + " 10", "that is the program to be profiled");
  expect_one_line_error("attach 1 -d 0.1 -o " + dir + "/fifo", "a FIFO, not a regular file");
  struct stat st {};
  ASSERT_EQ(stat((dir + "/fifo").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));

  // Sampled and exact recordings both keep the previous profile as .old.
  for (const char* mode : {"exact", "sample"}) {
    const std::string out = dir + "/p_" + mode + ".callprof";
    for (int i = 0; i < 2; ++i) {
      CliRun r = run(std::string("record -q --mode ") + mode + " -o " + out + " -- " + program + " 50 >/dev/null");
      ASSERT_EQ(r.status, 0) << mode << ": " << r.err;
    }
    EXPECT_EQ(access((out + ".old").c_str(), F_OK), 0) << mode << ": no .old";
  }
  std::system(("rm -rf " + dir).c_str());
}

// Issue 13 item 2: an option the mode would ignore is refused before the program runs (it
// would print to stdout), with one line naming the option and the mode. "Given" means on
// the command line, even with the default value (-F 999).
TEST(Cli, OptionsOfAnotherModeAreRefused) {
  const std::string w = std::string(" -- ") + WORDFREQ_BIN + " 100";  // hooks: auto is exact
  const std::string plain = " -- /bin/true";                          // no hooks: auto is sample
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"record --mode sample --alloc" + w, "--alloc is an exact-mode option, but this recording is in sample mode"},
      {"record --alloc" + plain,
       "--alloc is an exact-mode option, but this recording is in sample mode (/bin/true "
       "has no -finstrument-functions hooks)"},
      {"record --mode syscall --include main" + w,
       "--include is an exact-mode filter, but this recording is in syscall"},
      {"record --mode sample --exclude-module libc" + w, "--exclude-module is an exact-mode filter"},
      {"record --mode sample --libcalls" + w, "--libcalls is an exact-mode option"},
      {"record --mode sample --faults" + w, "--faults is an exact-mode option"},
      {"record --mode sample --max-depth 3" + w, "--max-depth is an exact-mode limit"},
      {"record --mode sample --snapshot-interval 1" + w, "--snapshot-interval is an exact-mode snapshot option"},
      {"record --mode sample --checkpoint main" + w, "--checkpoint is an exact-mode snapshot option"},
      {"record --mode syscall --timeline-min-duration 1us" + w, "--timeline-min-duration is an exact-mode option"},
      {"record -e cycles -F 999" + w, "--event is a sampling option, but this recording is in exact mode ("},
      {"record --call-graph dwarf" + w, "--call-graph is a sampling option, but this recording is in exact mode"},
      {"record --off-cpu" + w, "--off-cpu is a sampling option"},
      {"record -e cycles" + w, "--event is a sampling option"},
      {"record --mode syscall --no-kernel" + w, "--no-kernel is a sampling option, but this recording is in syscall"},
      {"record --mode sample --call-graph fp --stack-bytes 4096" + w,
       "--stack-bytes sizes the stack copies of --call-graph dwarf"},
      {"record --syscall-stacks full" + w, "--syscall-stacks applies to traced system calls: add --syscalls"},
      {"record --mode exact" + plain, "--mode exact: /bin/true has no -finstrument-functions hooks"},
      {"attach --mode syscall -F 99 1", "--freq is a sampling option, but attach records in syscall mode"},
  };
  for (const auto& [args, needle] : cases) expect_one_line_error(args, needle);
  // What does apply still works: exact mode's own options, sampling's in sample mode,
  // and --children saying that a program without hooks starts instrumented ones.
  const std::string p = " -o " + testing::TempDir() + "/cli_modes.callprof";
  for (std::string ok : {"record -q --max-depth 3 --timeline" + p + w + " >/dev/null",
                         "record -q --mode sample -F 999 --call-graph dwarf --stack-bytes 4096 --timeline" + p +
                             " -- " + WORDFREQ_BIN + " 20000 >/dev/null",
                         "record -q --mode exact --children" + p + " -- sh -c '" + WORDFREQ_BIN + " 100' >/dev/null"}) {
    CliRun r = run(ok);
    EXPECT_EQ(r.status, 0) << ok << ": " << r.err;
  }
}

// A statically linked program with hooks cannot preload the runtime: said before it runs.
TEST(Cli, ExactModeRefusesAStaticProgram) {
  const std::string dir = testing::TempDir();
  const std::string src = dir + "/cli_static.c", bin = dir + "/cli_static";
  std::ofstream(src) << "#include <stdio.h>\nint main(void) { puts(\"ran\"); return 0; }\n";
  if (std::system(("cc -static -finstrument-functions -o " + bin + " " + src + " 2>/dev/null").c_str()) != 0)
    GTEST_SKIP() << "no static C library to link with";
  expect_one_line_error("record -- " + bin, "is statically linked: exact mode loads its runtime with LD_PRELOAD");
}

namespace {

void put16(std::string& s, uint16_t v) { s.append({char(v & 0xff), char(v >> 8)}); }
void put32(std::string& s, uint32_t v) {
  put16(s, uint16_t(v));
  put16(s, uint16_t(v >> 16));
}

// A whole 32-bit i386 program: header, one PT_LOAD, code; by default exit(0) through
// int 0x80.
std::string elf32_program(const std::string& text = {'\x31', '\xdb', '\x31', '\xc0', '\x40', '\xcd', '\x80'}) {
  std::string e = {0x7f, 'E', 'L', 'F', 1 /* ELFCLASS32 */, 1 /* LSB */, 1};
  e.resize(16, '\0');
  const uint32_t base = 0x08048000, code = 52 + 32;
  put16(e, 2), put16(e, 3), put32(e, 1), put32(e, base + code), put32(e, 52), put32(e, 0), put32(e, 0);
  put16(e, 52), put16(e, 32), put16(e, 1), put16(e, 0), put16(e, 0), put16(e, 0);
  put32(e, 1), put32(e, 0), put32(e, base), put32(e, base), put32(e, code + uint32_t(text.size()));
  put32(e, code + uint32_t(text.size())), put32(e, 5), put32(e, 0x1000);
  return e + text;
}

std::string executable_file(const std::string& name, const std::string& bytes) {
  const std::string path = testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  chmod(path.c_str(), 0755);
  return path;
}

}  // namespace

// Issue 16 item 7: odd targets get one line saying what callprof cannot do with them,
// decided before anything runs: the program's own streams stay untouched (the garbage
// file, handed to /bin/sh, would complain on stderr; nothing may reach stdout).
TEST(Cli, OddTargetsAreRefusedBeforeTheyRun) {
  const std::string elf32 = executable_file("cli_elf32", elf32_program());
  const std::string garbage = executable_file("cli_garbage", "echo ran\nthis is not a program\n");
  for (const char* mode : {"", "--mode sample ", "--mode syscall "}) {
    expect_one_line_error(std::string("record ") + mode + "-- " + elf32, "is a 32-bit ELF program");
    expect_one_line_error(std::string("record ") + mode + "-- " + garbage, "is neither an ELF program nor a script");
  }
  expect_one_line_error("record -- /tmp", "/tmp is not a program (a directory)");
  // Scripts are programs: a #! script without hooks is sampled.
  const std::string script = executable_file("cli_script", "#!/bin/sh\nexit 6\n");
  EXPECT_EQ(run("record -q -o " + testing::TempDir() + "/cli_script.callprof -- " + script).status, 6);

  if (geteuid() == 0) {  // a set-user-ID program of another user (needs chown)
    const std::string setuid = testing::TempDir() + "/cli_setuid";
    std::system(("cp /bin/true " + setuid + " && chown 65534 " + setuid + " && chmod 4755 " + setuid).c_str());
    expect_one_line_error("record -- " + setuid, "is set-user-ID or set-group-ID to another identity");
  }
}

// A running 32-bit process is refused by attach as a 32-bit program is by record: its
// stacks and system calls would come out wrong (README, "Profiling a program you cannot
// rebuild"). The process waits in pause() (int 0x80, eax 29) and is left running.
TEST(Cli, AttachRefusesA32BitProcess) {
  const std::string pauser = executable_file(
      "cli_elf32_pause", elf32_program({'\xb8', '\x1d', '\0', '\0', '\0', '\xcd', '\x80', '\xeb', '\xf7'}));
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    execl(pauser.c_str(), pauser.c_str(), nullptr);
    _exit(127);
  }
  usleep(200000);
  int status = 0;
  if (waitpid(pid, &status, WNOHANG) == pid) GTEST_SKIP() << "this kernel runs no 32-bit programs";
  for (const char* mode : {"", "--mode syscall "})
    expect_one_line_error(std::string("attach ") + mode + "-d 0.1 " + std::to_string(pid), "is a 32-bit process");
  EXPECT_EQ(waitpid(pid, &status, WNOHANG), 0) << "left running";
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
}

TEST(Cli, AttachRefusesProcessesThatWouldGiveNoSamples) {
  // pid 2 is kthreadd on Linux: the parent of every kernel thread.
  std::ifstream comm("/proc/2/comm");
  std::string name;
  if (comm >> name && name == "kthreadd") expect_one_line_error("attach 2 -d 0.2", "(kthreadd) is a kernel thread");
  const pid_t stopped = fork();
  if (stopped == 0) {
    execlp("sleep", "sleep", "10", nullptr);
    _exit(127);
  }
  for (int i = 0; i < 100; ++i) {  // until it is sleep (exec'd), then until /proc says it stopped
    std::ifstream comm_file("/proc/" + std::to_string(stopped) + "/comm");
    std::string now;
    if (comm_file >> now && now == "sleep") break;
    usleep(10000);
  }
  kill(stopped, SIGSTOP);
  for (int i = 0; i < 100; ++i) {
    std::ifstream stat("/proc/" + std::to_string(stopped) + "/stat");
    std::string line;
    std::getline(stat, line);
    if (line.find(") T ") != std::string::npos) break;
    usleep(10000);
  }
  expect_one_line_error("attach " + std::to_string(stopped) + " -d 0.2", "(sleep) is stopped");
  kill(stopped, SIGKILL);
  waitpid(stopped, nullptr, 0);
  // Stopped under a tracer (this test): the tracer is named.
  const pid_t traced = fork();
  if (traced == 0) {
    ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
    raise(SIGSTOP);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(traced, &status, 0), traced);
  ASSERT_TRUE(WIFSTOPPED(status));
  expect_one_line_error("attach " + std::to_string(traced) + " -d 0.2",
                        "is stopped by a debugger, " + std::to_string(getpid()) + " (");
  kill(traced, SIGKILL);
  waitpid(traced, nullptr, 0);
  // This test runs callprof and waits for it: an ancestor.
  expect_one_line_error("attach " + std::to_string(getpid()) + " -d 0.2", "is an ancestor of callprof");
}

// Issue 15 item 6: `record -- sh -c '...'` samples the shell only: said at the start, with
// what to do, and in the profile when the started programs' records were dropped; the
// status is the command's.
TEST(Cli, RecordSaysAWrapperIsAWrapper) {
  const std::string out = testing::TempDir() + "/cli_wrapper.callprof";
  CliRun r = run("record -o " + out + " -- sh -c '" + std::string(WORDFREQ_BIN) + " 20000 >/dev/null; exit 3'");
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("/sh is a wrapper: the work is in the programs it starts, and sample mode follows only it; "
                       "add --children"),
            std::string::npos)
      << r.err;
  EXPECT_NE(
      run("report -i " + out).out.find("# warning:  the program started other processes, which were not recorded"),
      std::string::npos);
  CliRun children =
      run("record -q --children -o " + out + " -- sh -c '" + std::string(WORDFREQ_BIN) + " 20000 >/dev/null'");
  EXPECT_EQ(children.status, 0) << children.err;
  EXPECT_TRUE(children.err.empty()) << children.err;
  // The started program's own thread is in the profile (named by its comm).
  EXPECT_NE(run("report --json -i " + out).out.find("\"name\":\"wordfreq\""), std::string::npos);
}

// Issue 15 item 6: threads still running when attach detaches are not shown as finished.
TEST(Cli, AttachedThreadsStillRunningAreNotFinished) {
  const pid_t busy = fork();
  if (busy == 0) {
    execlp("sh", "sh", "-c", "while :; do :; done", nullptr);
    _exit(127);
  }
  usleep(100000);
  const std::string out = testing::TempDir() + "/cli_attached.callprof";
  CliRun r = run("attach " + std::to_string(busy) + " -q -d 0.3 -o " + out);
  EXPECT_EQ(r.status, 0) << r.err;
  CliRun json = run("report --json -i " + out);
  kill(busy, SIGKILL);
  waitpid(busy, nullptr, 0);
  EXPECT_NE(json.out.find("\"finished\":false"), std::string::npos) << json.out.substr(0, 3000);
  EXPECT_EQ(json.out.find("\"finished\":true"), std::string::npos);
}

namespace {

// --alloc without its interposer beside the runtime would run the program and count
// nothing: refused before it runs.
TEST(Cli, AllocWithoutItsLibraryIsRefused) {
  const std::string dir = testing::TempDir() + "/cli_alloc_missing";
  std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str());
  const std::string runtime =
      std::string(CALLPROF_BIN).substr(0, std::string(CALLPROF_BIN).rfind('/')) + "/libcallprof-rt.so";
  std::system(("cp " + runtime + " " + dir + "/").c_str());
  setenv("CALLPROF_RUNTIME", (dir + "/libcallprof-rt.so").c_str(), 1);
  expect_one_line_error("record --alloc -o " + dir + "/p.callprof -- " + WORDFREQ_BIN,
                        "--alloc needs " + dir + "/libcallprof-alloc.so, which is missing");
  unsetenv("CALLPROF_RUNTIME");
}

}  // namespace
