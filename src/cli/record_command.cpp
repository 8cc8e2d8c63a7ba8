// `callprof record`: run a program under the exact-mode runtime, then build, symbolize and
// write the profile. The program's streams, exit status and death signal pass through.
#include <dirent.h>
#include <limits.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "collect/runtime/profile_builder.h"
#include "target/executable.h"
#include "target/launcher.h"
#include "trace/profile_file.h"
#include "util/strings.h"

namespace callprof::cli {
namespace fs = std::filesystem;

namespace {

struct RecordArgs {
  std::string output = "callprof.data";
  std::string mode = "auto";
  bool quiet = false;
  std::vector<std::string> command;
};

Result<std::string> find_runtime() {
  if (const char* env = getenv("CALLPROF_RUNTIME"); env && *env) return std::string(env);
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  for (const char* rel : {"libcallprof-rt.so", "../lib/libcallprof-rt.so"}) {
    fs::path p = exe.parent_path() / rel;
    if (fs::exists(p, ec)) return fs::canonical(p, ec).string();
  }
  return make_error("cannot find libcallprof-rt.so next to the callprof executable (set CALLPROF_RUNTIME)");
}

Result<std::string> choose_mode(const RecordArgs& a, const ExecutableInfo& exe) {
  if (a.mode != "auto" && a.mode != "exact")
    return make_error("unknown mode '" + a.mode + "' (exact is available; sample arrives later)");
  if (!exe.dynamic && exe.has_hooks)
    return make_error(exe.path + " is statically linked: exact mode loads its runtime with LD_PRELOAD, so link it dynamically");
  if (!exe.has_hooks && a.mode == "auto")
    return make_error(exe.path + " has no instrumentation hooks (__cyg_profile_func_enter), and sampling mode " +
                      "is not available yet: rebuild it with -finstrument-functions (docs/modes.md), or use " +
                      "--mode exact if it starts instrumented programs");
  return std::string("exact");
}

std::string make_temp_dir() {
  const char* tmp = getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/callprof-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back(0);
  if (!mkdtemp(buf.data())) return std::string();
  // Absolute, so that a program that changes directory still finds it.
  std::error_code ec;
  return fs::absolute(buf.data(), ec).string();
}

// Every process image left one dump; a damaged or unfinished one is reported and skipped.
std::vector<RawProcessDump> read_dumps(const std::string& dir, bool quiet) {
  std::vector<RawProcessDump> dumps;
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    if (f.extension() != ".cpraw") {
      if (!quiet) warn(f.filename().string() + ": a process could not finish writing its data; its profile is missing");
      continue;
    }
    auto d = read_raw_dump(f.string());
    if (!d) {
      if (!quiet) warn(d.error().message);
      continue;
    }
    dumps.push_back(std::move(d.value()));
  }
  return dumps;
}

void fill_metadata(Profile& p, const RecordArgs& a, const std::string& mode, int64_t start_realtime, int64_t duration) {
  char host[HOST_NAME_MAX + 1] = {};
  gethostname(host, sizeof host - 1);
  p.meta.command = join(a.command);
  p.meta.mode = mode;
  p.meta.hostname = host;
  p.meta.start_realtime_ns = start_realtime;
  p.meta.duration_ns = duration;
  p.meta.callprof_version = CALLPROF_VERSION;
}

void keep_previous(const std::string& path) {
  std::error_code ec;
  if (fs::exists(path, ec)) fs::rename(path, path + ".old", ec);
}

size_t node_count(const Profile& p) {
  size_t n = 0;
  for (const auto& t : p.threads) n += t.tree.size() - 1;
  return n;
}

// Build the profile from the dumps and write it; returns false after reporting a failure.
bool save_profile(const RecordArgs& a, const std::string& dir, const std::string& mode, int64_t start_realtime,
                  int64_t duration) {
  std::vector<RawProcessDump> dumps = read_dumps(dir, a.quiet);
  if (dumps.empty()) {
    if (!a.quiet) warn("the program wrote no profile data (was it killed, or did it never call an instrumented function?)");
    return false;
  }
  BuildResult built = build_profile(dumps);
  if (!a.quiet)
    for (const auto& w : built.warnings) warn(w);
  fill_metadata(built.profile, a, mode, start_realtime, duration);
  keep_previous(a.output);
  if (auto s = write_profile(built.profile, a.output); !s) {
    fail(s.error().message);
    return false;
  }
  if (!a.quiet) {
    const Profile& p = built.profile;
    std::error_code ec;
    note(fmt::format("wrote {}: {} process{}, {} thread{}, {} call paths, {} functions ({:.1f} KiB)", a.output,
                     p.processes.size(), p.processes.size() == 1 ? "" : "es", p.threads.size(),
                     p.threads.size() == 1 ? "" : "s", node_count(p), p.functions.size(),
                     double(fs::file_size(a.output, ec)) / 1024));
  }
  return true;
}

int record(const RecordArgs& a) {
  auto exe = inspect_executable(a.command.front());
  if (!exe) return fail(exe.error().message);
  auto mode = choose_mode(a, *exe);
  if (!mode) return fail(mode.error().message);
  auto runtime = find_runtime();
  if (!runtime) return fail(runtime.error().message);
  std::string dir = make_temp_dir();
  if (dir.empty()) return fail(std::string("cannot create a temporary directory: ") + std::strerror(errno));
  if (!a.quiet)
    note(exe->has_hooks ? "exact mode: " + exe->path + " has -finstrument-functions hooks"
                        : "exact mode: " + exe->path + " has no hooks itself; profiling the instrumented programs it starts");

  LaunchSpec spec{a.command, {{"CALLPROF_OUTPUT_DIR", dir}}};
  const char* preload = getenv("LD_PRELOAD");
  spec.env.push_back({"LD_PRELOAD", *runtime + (preload && *preload ? std::string(":") + preload : "")});
  auto wall_start = std::chrono::system_clock::now();
  auto start = std::chrono::steady_clock::now();
  auto pid = launch(spec);
  if (!pid) {
    fs::remove_all(dir);
    return fail(pid.error().message);
  }
  auto status = wait_for_exit(*pid);
  int64_t duration = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
  int64_t start_realtime = std::chrono::duration_cast<std::chrono::nanoseconds>(wall_start.time_since_epoch()).count();
  bool saved = save_profile(a, dir, *mode, start_realtime, duration);
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (!status) return fail(status.error().message);
  if (status->signaled && !a.quiet) note(fmt::format("the program was killed by signal {} ({})", status->signal, strsignal(status->signal)));
  if (!saved && !status->signaled && status->code == 0) return 1;
  exit_like(*status);
}

}  // namespace

Run add_record(CLI::App& app) {
  auto args = std::make_shared<RecordArgs>();
  app.add_option("-o,--output", args->output, "Profile file to write")->capture_default_str();
  app.add_option("--mode", args->mode, "auto | exact (auto: exact when the program has hooks)")->capture_default_str();
  app.add_flag("-q,--quiet", args->quiet, "Print nothing of our own (errors excepted)");
  app.add_option("command", args->command, "The program to run and its arguments (after --)")->required();
  app.positionals_at_end();
  app.footer("Example: callprof record -o prog.callprof -- ./prog --input data.txt");
  return [args]() { return record(*args); };
}

}  // namespace callprof::cli
