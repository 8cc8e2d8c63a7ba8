// Helpers for symbols_test (see fixture_support.h).
#include "fixture_support.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace callprof::test_support {
namespace {

void parse_line(const std::string& line, FixtureRun& run) {
  std::istringstream in(line);
  std::string kind;
  in >> kind;
  if (kind == "entry") {
    uint64_t address = 0;
    in >> std::hex >> address;
    run.entries.push_back(address);
  } else if (kind == "return") {
    in >> std::hex >> run.return_address;
  } else if (kind == "module") {
    LoadedModule module;
    in >> std::hex >> module.bias >> module.start >> module.end >> module.build_id;
    if (module.build_id == "-") module.build_id.clear();
    in >> std::ws;
    std::getline(in, module.path);
    run.modules.push_back(module);
  }
}

}  // namespace

FixtureRun run_fixture(const std::string& program) {
  FixtureRun run;
  std::string command = "'" + program + "'";  // build paths have no quotes
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) {
    ADD_FAILURE() << "cannot run " << program;
    return run;
  }
  std::string line;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) {
    line += buffer;
    if (line.empty() || line.back() != '\n') continue;
    line.pop_back();
    parse_line(line, run);
    line.clear();
  }
  int status = ::pclose(pipe);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << program << " failed";
  EXPECT_FALSE(run.modules.empty()) << program << " reported no modules";
  EXPECT_FALSE(run.entries.empty()) << program << " reported no entries";
  return run;
}

int find_module(const std::vector<LoadedModule>& modules, const std::string& suffix) {
  for (size_t i = 0; i < modules.size(); ++i) {
    const std::string& path = modules[i].path;
    if (path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

uint32_t marker_line(const std::string& source, const std::string& marker) {
  std::ifstream in(source);
  std::string line;
  for (uint32_t number = 1; std::getline(in, line); ++number) {
    size_t at = line.find(marker);
    if (at == std::string::npos) continue;
    size_t after = at + marker.size();
    if (after == line.size() || line[after] == ' ') return number;
  }
  return 0;
}

std::string base_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

std::unique_ptr<Symbolizer> make_symbolizer(std::vector<LoadedModule> modules, SymbolizerOptions options, bool cache) {
  ::unsetenv("DEBUGINFOD_URLS");
  options.cache = cache;
  auto created = Symbolizer::create(std::move(modules), std::move(options));
  if (!created.ok()) {
    ADD_FAILURE() << created.error().message;
    return nullptr;
  }
  return std::move(created).value();
}

}  // namespace callprof::test_support
