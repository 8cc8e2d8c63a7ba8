// The analysis-layer options every reading command shares (report, export, and the
// pictures to come): which process and threads, how threads merge, focus, hide, names.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "query/query.h"
#include "util/result.h"

namespace callprof::cli {

class SelectionOptions {
 public:
  // Registers --pid, --thread, --graft, --merge-threads, --focus, --hide, --names, --raw, --time, --symfs;
  // --names not when !with_names (export: its formats carry full names).
  void add_to(CLI::App& app, bool with_names = true);
  // The typed options; one error line for a value that is not known.
  Result<QueryOptions> resolve() const;

 private:
  QueryOptions query_;
  std::string names_ = "short", merge_threads_ = "paths", time_ = "measured";
  uint32_t thread_ = 0, pid_ = 0;
  bool graft_ = false;
  CLI::Option* thread_option_ = nullptr;
  CLI::Option* pid_option_ = nullptr;
};

// Reads the profile at `path`, names what the recording left unnamed if it can now
// (symbol_options.h), and runs the analysis on it: the start of every reading command. A
// command that reads only the analysed tree sets query.keep_thread_trees false: the
// threads are then merged as they are read (query/thread_intake.h).
Result<Analysis> analyse_profile(const std::string& path, const QueryOptions& query);

}  // namespace callprof::cli
