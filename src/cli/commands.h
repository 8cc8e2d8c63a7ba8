// Subcommands of the callprof CLI. Each registers its options on the app and returns the
// function to run after parsing; that function returns the process exit status.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace callprof::cli {

using Run = std::function<int()>;

Run add_record(CLI::App& app);
Run add_report(CLI::App& app);
Run add_attach(CLI::App& app);
Run add_export(CLI::App& app);
Run add_merge(CLI::App& app);
Run add_diff(CLI::App& app);
Run add_graph(CLI::App& app);
Run add_flame(CLI::App& app);
Run add_html(CLI::App& app);
Run add_annotate(CLI::App& app);

// The one place errors become output: "callprof: error: <message>".
int fail(const std::string& message);
void warn(const std::string& message);
void note(const std::string& message);  // progress and summaries, to stderr

}  // namespace callprof::cli
