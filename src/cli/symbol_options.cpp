// --symfs, --no-symbol-cache and late naming for the CLI (see symbol_options.h).
#include "cli/symbol_options.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#include "cli/commands.h"
#include "collect/runtime/late_names.h"
#include "symbols/symbolizer.h"

namespace callprof::cli {
namespace {

// DIR as an absolute path without a trailing '/'; a CLI11 validation error when it cannot serve.
std::string checked_symfs(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw CLI::ValidationError("--symfs", "not a directory: " + dir);
  std::string absolute = fs::absolute(dir, ec).lexically_normal().string();
  while (absolute.size() > 1 && absolute.back() == '/') absolute.pop_back();
  // libdwfl's search path separates roots with ':'.
  if (absolute.find(':') != std::string::npos)
    throw CLI::ValidationError("--symfs", "a directory whose path has no ':' is needed: " + absolute);
  return absolute;
}

std::string module_note(const Profile& profile, const ModuleNaming& m) {
  const std::string& path = profile.modules[m.module].path;
  if (m.named == 0) {
    // The symbolizer's warning starts with the path too.
    std::string why = m.problems.empty() ? "no symbol covers them" : m.problems.front();
    if (why.starts_with(path + ": ")) why.erase(0, path.size() + 2);
    return fmt::format("symbols: {}: its {} unnamed functions stay unnamed: {}", path, m.unnamed, why);
  }
  const std::string& from = m.debug_file.empty() ? m.file : m.debug_file;
  return fmt::format("symbols: {}: named {} of its {} unnamed functions, from {}", path, m.named, m.unnamed, from);
}

}  // namespace

void add_symbol_options(CLI::App& app) {
  app.add_option_function<std::string>(
         "--symfs",
         [](const std::string& dir) {
           SymbolizerOptions options = default_symbolizer_options();
           options.symfs = checked_symfs(dir);
           set_default_symbolizer_options(std::move(options));
         },
         "Look for binaries and debug info under DIR first, as if it were / (DIR/<path of the binary>, "
         "DIR/usr/lib/debug/.build-id/..., DIR/.build-id/...); docs/symbols.md")
      ->type_name("DIR");
  app.add_flag_callback(
      "--no-symbol-cache",
      [] {
        SymbolizerOptions options = default_symbolizer_options();
        options.cache = false;
        set_default_symbolizer_options(std::move(options));
      },
      "Read every name, source file and line from the modules' files, not from callprof's cache of what earlier "
      "recordings of the same files resolved (~/.cache/callprof), and the hook call sites, a program's start-up "
      "libraries, the kernel's function names and decompressed copies of debug files too; docs/symbols.md");
}

void name_unnamed_functions_now(Profile& profile) {
  const LateNaming naming = name_unnamed_functions(profile);
  // Said when the user asked for a search beyond the local files: --symfs, or a debuginfod
  // server (asked once per module with unnamed functions, at every read).
  const char* servers = std::getenv("DEBUGINFOD_URLS");
  if (default_symbolizer_options().symfs.empty() && (servers == nullptr || *servers == '\0')) return;
  for (const ModuleNaming& m : naming) note(module_note(profile, m));
}

}  // namespace callprof::cli
