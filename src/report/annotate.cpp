// The annotate view (see annotate.h): per function, a header, its source lines with their
// costs (unannotated stretches elided), and with --disasm its instructions.
#include "report/annotate.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "report/text.h"
#include "util/pattern.h"

namespace callprof {
namespace {

using Columns = LineColumns;

std::string dot_or(uint64_t v, const std::string& text) { return v ? text : "."; }

// "1 sample", "2 samples".
std::string counted(uint64_t n, std::string_view what) { return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s"); }

// Source text for a terminal: tabs expanded, then escaped (it is the profiled program's).
std::string source_line(const std::string& raw) {
  std::string out;
  for (char c : raw) {
    if (c == '\t')
      out.append(8 - out.size() % 8, ' ');
    else
      out += c;
  }
  return escape_text(out);
}

// The columns before the text: samples, share of the function's, calls, callees' time.
std::string cost_cells(const CodeCost* c, const FunctionCode& code, const Columns& cols) {
  std::string out;
  uint64_t calls = 0, time = 0;
  if (c)
    for (const CallsFrom& f : c->calls) {
      calls += f.calls;
      time += cols.calls ? f.wall_ns : f.cpu_ns;
    }
  if (cols.samples) {
    const uint64_t s = c ? c->samples : 0;
    out += fmt::format("{:>8} {:>7}", dot_or(s, std::to_string(s)), dot_or(s, format_pct(s, code.samples)));
  }
  if (cols.calls) out += fmt::format(" {:>9}", dot_or(calls, std::to_string(calls)));
  out += fmt::format(" {:>9}", dot_or(time, format_ns(time)));
  return out;
}

std::string header_cells(const Columns& cols) {
  std::string out;
  if (cols.samples) out += fmt::format("{:>8} {:>7}", "samples", "self%");
  if (cols.calls) out += fmt::format(" {:>9}", "calls");
  out += fmt::format(" {:>9}", "callees");
  return out;
}

// The callees called from a place, one line each under it.
void callee_lines(const CodeCost& c, const Analysis& a, const Columns& cols, size_t indent, std::ostream& out) {
  for (const CallsFrom& f : c.calls) {
    std::string what;
    if (cols.calls) what += counted(f.calls, "call") + ", ";
    what += cols.calls ? format_ns(f.wall_ns) : format_ns(f.cpu_ns);
    if (cols.samples && f.samples) what += ", " + counted(f.samples, "sample");
    out << std::string(indent, ' ') << "-> " << escape_text(a.name(f.callee)) << " (" << what << ")\n";
  }
}

void render_file(const Analysis& a, const FunctionCode& code, uint32_t file, SourceText& sources,
                 const AnnotateOptions& o, const Columns& cols, std::ostream& out) {
  const Profile& p = a.profile();
  const Function& fn = p.functions[code.function];
  const std::string& path = p.source_files[file];
  std::vector<const CodeCost*> costs;
  std::map<uint32_t, const CodeCost*> by_line;
  std::vector<uint32_t> annotated;
  for (const CodeCost& c : code.lines)
    if (c.file == file) {
      costs.push_back(&c), by_line[c.line] = &c;
      if (c.line) annotated.push_back(c.line);
    }
  const std::vector<std::string>* text = path.empty() ? nullptr : sources.lines(path);
  out << "  " << (path.empty() ? "(no line information)" : escape_text(text ? sources.found_at(path) : path))
      << (text || path.empty() ? "" : "  (source not found; --source-path DIR looks elsewhere)") << "\n";
  const std::string head = header_cells(cols);
  out << head << fmt::format(" {:>6}  ", "line") << "source\n";
  const size_t indent = head.size() + 9;
  if (!text) {  // the annotated lines alone
    for (const CodeCost* c : costs) {
      out << cost_cells(c, code, cols) << fmt::format(" {:>6}", c->line ? std::to_string(c->line) : "?") << "\n";
      callee_lines(*c, a, cols, indent, out);
    }
    return;
  }
  const uint32_t first = fn.file == path ? fn.line : 0;
  uint32_t previous = 0;
  for (uint32_t line : lines_to_show(annotated, first, o.context, text->size())) {
    if (previous && line > previous + 1) out << fmt::format("{:>{}}\n", "...", head.size() + 7);
    previous = line;
    auto it = by_line.find(line);
    const CodeCost* c = it == by_line.end() ? nullptr : it->second;
    out << cost_cells(c, code, cols) << fmt::format(" {:>6}  ", line)
        << (line <= text->size() ? source_line((*text)[line - 1])
                                 : "(past the end of the file: it changed since the build)")
        << "\n";
    if (c) callee_lines(*c, a, cols, indent, out);
  }
  if (auto it = by_line.find(0); it != by_line.end()) {
    out << cost_cells(it->second, code, cols) << fmt::format(" {:>6}", "?") << "  (no line information)\n";
    callee_lines(*it->second, a, cols, indent, out);
  }
}

// The instructions, each with its samples, under a line heading where the line is known.
void render_disassembly(const Analysis& a, const FunctionCode& code, SourceText& sources, const AnnotateOptions& o,
                        const Columns& cols, std::ostream& out) {
  const Profile& p = a.profile();
  const Function& fn = p.functions[code.function];
  if (fn.module == kNoModule || fn.module >= p.modules.size()) {
    out << "  disassembly: the function is in no module\n";
    return;
  }
  if (fn.address == 0) {  // known only from inlined frames: no entry, no code of its own
    out << "  disassembly: the function has no code of its own (it ran inlined into its callers: --disasm them)\n";
    return;
  }
  auto decoded = o.disassemble(fn, p.modules[fn.module]);
  if (!decoded) {
    out << "  disassembly: " << escape_text(decoded.error().message) << "\n";
    return;
  }
  // A located address (a call site's is inside its call) belongs to the instruction at or before it.
  std::map<uint64_t, CodeCost> at;
  for (const CodeCost& c : code.instructions) {
    auto next = std::upper_bound(decoded->begin(), decoded->end(), c.address,
                                 [](uint64_t x, const DecodedInstructionText& i) { return x < i.address; });
    const uint64_t start = next == decoded->begin() ? c.address : std::prev(next)->address;
    CodeCost& into = at[start];
    into.file = c.file, into.line = c.line;
    into.samples += c.samples;
    into.calls.insert(into.calls.end(), c.calls.begin(), c.calls.end());
  }
  const std::string head = header_cells(cols);
  out << "  disassembly of " << escape_text(p.modules[fn.module].path) << "\n" << head << "  address  instruction\n";
  std::string file;
  uint32_t line = 0;
  for (const DecodedInstructionText& i : *decoded) {
    auto it = at.find(i.address);
    const CodeCost* c = it == at.end() ? nullptr : &it->second;
    // The recorded line where the profile has one, else the debug info's.
    const bool recorded = c && c->line;
    const std::string& f = recorded ? p.source_files[c->file] : i.file;
    const uint32_t l = recorded ? c->line : i.line;
    if (l && (l != line || f != file)) {
      line = l, file = f;
      const std::vector<std::string>* text = file.empty() ? nullptr : sources.lines(file);
      out << fmt::format("{:>{}}  {}:{}", "", head.size(), escape_text(base_name(file)), line);
      if (text && line <= text->size()) out << "  " << source_line((*text)[line - 1]);
      out << "\n";
    }
    out << cost_cells(c, code, cols) << fmt::format("  {:>#8x}  ", i.address) << escape_text(i.text) << "\n";
    if (c) callee_lines(*c, a, cols, head.size() + 12, out);
  }
}

void render_function(const Analysis& a, const FunctionCode& code, SourceText& sources, const AnnotateOptions& o,
                     const Columns& cols, std::ostream& out) {
  const Profile& p = a.profile();
  out << "Function " << escape_text(a.full_name(code.function));
  if (!a.module(code.function).empty()) out << "  [" << escape_text(a.module(code.function)) << "]";
  std::vector<std::string> facts;
  if (cols.calls) {
    facts.push_back(fmt::format("calls {}, self {}", code.calls, format_ns(code.self_wall_ns)));
    if (const FunctionRow* row = a.row(code.function)) facts.push_back("total " + format_ns(row->total_ns));
  }
  facts.push_back(cols.samples ? fmt::format("{} in its own code ({} on known lines)",
                                             counted(code.self_samples, "sample"), code.samples)
                               : "no samples (record -F HZ for the lines its own time is spent on)");
  out << "\n  " << fmt::format("{}", fmt::join(facts, ", ")) << "\n";
  for (uint32_t f : files_of(p, code)) render_file(a, code, f, sources, o, cols, out);
  if (!code.unplaced_calls.empty()) {
    out << "  from no known place (tail calls: they return to the caller's caller):\n";
    callee_lines(CodeCost{.calls = code.unplaced_calls}, a, cols, 4, out);
  }
  if (o.disassemble) render_disassembly(a, code, sources, o, cols, out);
  out << "\n";
}

nlohmann::json cost_json(const Analysis& a, const CodeCost& c, bool address) {
  nlohmann::json j = {{"file", a.profile().source_files[c.file]},
                      {"line", c.line},
                      {"samples", c.samples},
                      {"cpu_ns", c.cpu_ns},
                      {"calls", calls_json(a, c.calls)}};
  if (address) j["address"] = c.address;
  return j;
}

nlohmann::json function_json(const Analysis& a, const FunctionCode& code) {
  const Function& fn = a.profile().functions[code.function];
  nlohmann::json lines = nlohmann::json::array(), instructions = nlohmann::json::array();
  for (const CodeCost& c : code.lines) lines.push_back(cost_json(a, c, false));
  for (const CodeCost& c : code.instructions) instructions.push_back(cost_json(a, c, true));
  return {{"id", code.function},
          {"name", a.full_name(code.function)},
          {"module", std::string(a.module(code.function))},
          {"file", fn.file},
          {"line", fn.line},
          {"calls", code.calls},
          {"self_wall_ns", code.self_wall_ns},
          {"self_samples", code.self_samples},
          {"located_samples", code.samples},
          {"lines", std::move(lines)},
          {"instructions", std::move(instructions)},
          {"unplaced_calls", calls_json(a, code.unplaced_calls)}};
}

}  // namespace

nlohmann::json calls_json(const Analysis& a, const std::vector<CallsFrom>& calls) {
  nlohmann::json out = nlohmann::json::array();
  for (const CallsFrom& f : calls)
    out.push_back({{"callee", a.full_name(f.callee)},
                   {"callee_id", f.callee},
                   {"calls", f.calls},
                   {"wall_ns", f.wall_ns},
                   {"cpu_ns", f.cpu_ns},
                   {"samples", f.samples}});
  return out;
}

Status render_annotate(const Analysis& a, SourceText& sources, const AnnotateOptions& o, std::ostream& out) {
  auto pattern = Pattern::compile(o.function, "annotate FUNCTION");
  if (!pattern) return pattern.error();
  const Profile& p = a.profile();
  const std::vector<bool> matches = matching_functions(p, *pattern);
  if (std::find(matches.begin(), matches.end(), true) == matches.end())
    return make_error(fmt::format("no function matches '{}'", escape_text(o.function)));
  const CodeIndex index(a);
  std::vector<FunctionId> shown;
  for (FunctionId f : index.functions())
    if (f < matches.size() && matches[f] && shown.size() < o.limit) shown.push_back(f);
  if (shown.empty())
    return make_error(fmt::format(
        "nothing located in '{}': the profile has no samples or call sites in it (sample it: record -F HZ, or "
        "--mode sample)",
        escape_text(o.function)));
  if (o.json) {
    nlohmann::json functions = nlohmann::json::array();
    for (FunctionId f : shown) functions.push_back(function_json(a, index.of(f)));
    out << inert_json(nlohmann::json{{"functions", std::move(functions)}}.dump(
               2, ' ', false, nlohmann::json::error_handler_t::replace))
        << "\n";
    return Ok{};
  }
  const Columns cols = line_columns(a);
  for (FunctionId f : shown) render_function(a, index.of(f), sources, o, cols, out);
  for (const std::string& m : sources.missing()) out << "# " << escape_text(m) << "\n";
  return Ok{};
}

}  // namespace callprof
