// `callprof annotate`: a function's source (and with --disasm its instructions) with the
// samples on each line and the calls made from it.
#include <fmt/format.h>

#include <sstream>

#include "cli/commands.h"
#include "cli/number_options.h"
#include "cli/pager.h"
#include "cli/selection_options.h"
#include "report/annotate.h"
#include "symbols/function_code.h"

namespace callprof::cli {
namespace {

struct AnnotateArgs {
  std::string input = "callprof.data";
  std::string function;
  std::vector<std::string> source_path;
  SelectionOptions selection;
  AnnotateOptions options;
  bool disasm = false, no_pager = false;
};

Result<std::vector<DecodedInstructionText>> decode(const Function& f, const Module& m) {
  auto code = disassemble_function(m.path, m.build_id, f.address);
  if (!code) return code.error();
  std::vector<DecodedInstructionText> out;
  for (DecodedInstruction& i : *code) out.push_back({i.address, std::move(i.text), std::move(i.file), i.line});
  return out;
}

}  // namespace

Run add_annotate(CLI::App& app) {
  auto a = std::make_shared<AnnotateArgs>();
  app.add_option("function", a->function, "The functions to show (regex over full names); the most sampled first")
      ->type_name("REGEX")
      ->required();
  app.add_option("-i,--input", a->input, "Profile to read (- for standard input)")
      ->type_name("FILE")
      ->capture_default_str();
  app.add_flag("--disasm", a->disasm,
               "Also show the instructions with their samples (reads the module's file, as perf annotate does)");
  app.add_option("--source-path", a->source_path,
                 "Look for source files under DIR too, with fewer and fewer of their leading directories "
                 "(repeatable)")
      ->type_name("DIR");
  add_count_option(app, "--limit", a->options.limit, "At most this many functions", 1)->capture_default_str();
  add_count_option(app, "--context", a->options.context, "Unannotated lines shown around annotated ones", 0, 1000)
      ->capture_default_str();
  app.add_flag("--json", a->options.json, "The lines and instructions as JSON (docs/json.md, \"annotate\")");
  a->selection.add_to(app);
  app.add_flag("--no-pager", a->no_pager, "Write to the terminal directly, without $PAGER (default less -FRSX)");
  app.footer(
      "Each line shows the samples that fell on it (self, and its share of the function's), the calls made\n"
      "from it and the time of the callees called there; --disasm shows the instructions too.\n"
      "Example: callprof annotate -i prog.callprof '^parse$' --source-path ~/src/prog");
  return [a]() {
    auto query = a->selection.resolve();
    if (!query) return fail(query.error().message);
    // A function's lines come from the threads' own trees (with --focus and --hide applied to
    // each), not from the merged one.
    if (query->merge != ThreadMerge::Paths)
      return fail("--graft and --merge-threads do not apply to annotate (it shows one function's lines)");
    query->keep_thread_trees = true;
    auto analysis = analyse_profile(a->input, *query);
    if (!analysis) return fail(analysis.error().message);
    a->options.function = a->function;
    if (a->disasm) a->options.disassemble = decode;
    SourceText sources(a->source_path);
    std::ostringstream out;
    if (Status s = render_annotate(*analysis, sources, a->options, out); !s) return fail(s.error().message);
    return write_paged(out.str(), !a->no_pager) ? 0 : 1;
  };
}

}  // namespace callprof::cli
