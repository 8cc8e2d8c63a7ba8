// callprof's entry point: dispatch to a subcommand; turn parse errors into one line.
#include <cstdio>
#include <iostream>
#include <map>
#include <string_view>

#include "cli/commands.h"
#include "util/analysis_heap.h"
#include "util/escape.h"

namespace callprof::cli {

// Messages quote names from profiles, programs and users: escaped like every other text for
// the terminal, which also keeps each message on one line.
int fail(const std::string& message) {
  std::fprintf(stderr, "callprof: error: %s\n", escape_text(message).c_str());
  return 2;
}
void warn(const std::string& message) { std::fprintf(stderr, "callprof: warning: %s\n", escape_text(message).c_str()); }
void note(const std::string& message) { std::fprintf(stderr, "callprof: %s\n", escape_text(message).c_str()); }

}  // namespace callprof::cli

int main(int argc, char** argv) {
  using namespace callprof::cli;
  // Every command but those that run or attach to a program reads and analyses profiles.
  const std::string_view command = argc > 1 ? argv[1] : "";
  if (command != "record" && command != "attach") callprof::tune_heap_for_analysis();
  CLI::App app{"callprof: exact, sampling, probe and system-call profiling for native programs"};
  app.set_version_flag("--version", std::string("callprof ") + CALLPROF_VERSION);
  app.require_subcommand(1);
  std::map<CLI::App*, Run> runs;
  // Only the command named gets its options (a recording's start-up is part of what it
  // costs: all ten commands' options took 0.7 ms); the others stay names with a line of
  // help. Without a command first (callprof --help, callprof --bogus) every command gets
  // them, for the help and the error that lists them.
  const bool named = argc > 1 && argv[1][0] != '-';
  auto add = [&](Run (*adder)(CLI::App&), const char* name, const char* help) {
    CLI::App* sub = app.add_subcommand(name, help);
    if (!named || command == name) runs[sub] = adder(*sub);
  };
  add(add_record, "record", "Run a program and record a profile");
  add(add_report, "report", "Show a recorded profile as text or JSON");
  add(add_attach, "attach", "Profile a running process: sampling, probes, system calls, or exact mode (no restart)");
  add(add_export, "export",
      "Write a profile for pprof, KCachegrind, speedscope, Perfetto (chrome) or flamegraph scripts");
  add(add_merge, "merge", "Merge profiles of several runs or hosts into one");
  add(add_diff, "diff", "Compare two profiles by function and by call path");
  add(add_graph, "graph", "Draw the call graph (SVG, DOT or PNG), edges as wide as the time along them");
  add(add_flame, "flame", "Draw a flame graph (interactive SVG)");
  add(add_html, "html", "Write a self-contained web report (one HTML file)");
  add(add_annotate, "annotate", "Show a function's source and instructions with the samples and calls on each line");
  app.footer(
      "Example: callprof record -- ./prog args && callprof report\n"
      "`callprof COMMAND --help` lists a command's options.");
  auto known = [&](const char* name) {
    return app.get_subcommands([&](CLI::App* s) { return s->get_name() == name; }).size() == 1;
  };
  if (argc > 1 && argv[1][0] != '-' && !known(argv[1]))
    return fail(
        std::string("unknown command '") + argv[1] +
        "' (commands: record, attach, report, annotate, export, merge, diff, graph, flame, html; see callprof --help)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // Point at the help of the command being parsed: its options are the ones to read.
    std::string help = "callprof --help";
    if (!app.get_subcommands().empty())
      help = "callprof " + app.get_subcommands().front()->get_name() + " --help";
    else if (argc > 1 && argv[1][0] != '-' && known(argv[1]))
      help = std::string("callprof ") + argv[1] + " --help";
    return fail(std::string(e.what()) + " (see " + help + ")");
  }
  for (auto& [sub, run] : runs)
    if (sub->parsed()) return run();
  return fail("no command given (see callprof --help)");
}
