// The Source panel's document (see source_data.h): what `callprof annotate` prints, as JSON
// the page lays out (its shape is in docs/html.md, "Source").
#include "html/source_data.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "query/lines.h"
#include "report/annotate.h"
#include "report/source_text.h"
#include "util/escape.h"

namespace callprof::html {
namespace {

using json = nlohmann::json;

// The line's first `max` bytes, never ending inside a UTF-8 sequence.
std::string cut_line(const std::string& text, size_t max) {
  if (text.size() <= max) return text;
  size_t end = max;
  while (end > 0 && (uint8_t(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

// A place with costs; a line shown only for context is {"line": n} (and its text).
json cost_json(const Analysis& a, const CodeCost& c) {
  return {{"line", c.line}, {"samples", c.samples}, {"cpu_ns", c.cpu_ns}, {"calls", calls_json(a, c.calls)}};
}

// Builds the functions' entries, reading each source file once and spending the text budget.
class Builder {
 public:
  Builder(const Analysis& a, const std::vector<std::string>& dirs, const SourceLimits& limits)
      : a_(a), sources_(dirs), limits_(limits), text_left_(limits.text_bytes) {}

  json function(const FunctionCode& code) {
    const Function& fn = a_.profile().functions[code.function];
    json file_list = json::array();
    for (uint32_t f : files_of(a_.profile(), code)) file_list.push_back(file(code, f));
    return {{"id", code.function},
            {"name", a_.full_name(code.function)},
            {"file", fn.file},
            {"line", fn.line},
            {"samples", code.samples},
            {"cpu_ns", code.cpu_ns},
            {"self_samples", code.self_samples},
            {"calls", code.calls},
            {"self_wall_ns", code.self_wall_ns},
            {"files", std::move(file_list)}};
  }

  const std::vector<std::string>& missing() const { return sources_.missing(); }

 private:
  const std::string& path_of(uint32_t file) const {
    static const std::string none;
    const Profile& p = a_.profile();
    return file < p.source_files.size() ? p.source_files[file] : none;
  }

  // One file's lines: with their text when it was found and fits the budget, else the
  // annotated lines alone; the places with no line last.
  json file(const FunctionCode& code, uint32_t file) {
    const std::string& path = path_of(file);
    std::map<uint32_t, const CodeCost*> costs;
    std::vector<uint32_t> annotated;
    for (const CodeCost& c : code.lines)
      if (c.file == file) {
        costs[c.line] = &c;
        if (c.line) annotated.push_back(c.line);
      }
    const std::vector<std::string>* text = path.empty() ? nullptr : sources_.lines(path);
    json out = {{"path", text ? sources_.found_at(path) : path}, {"found", text != nullptr}};
    std::vector<uint32_t> shown;
    if (text) {
      const Function& fn = a_.profile().functions[code.function];
      shown = lines_to_show(annotated, fn.file == path ? fn.line : 0, limits_.context, text->size());
      size_t bytes = 0;
      for (uint32_t line : shown)
        if (line <= text->size()) bytes += std::min((*text)[line - 1].size(), limits_.line_bytes);
      if (bytes > text_left_) {
        out["text_left_out"] = true;  // the report's text budget is spent
        text = nullptr;
      } else {
        text_left_ -= bytes;
      }
    }
    if (!text) shown = annotated;
    json lines = json::array();
    for (uint32_t line : shown) {
      auto it = costs.find(line);
      json l = it == costs.end() ? json{{"line", line}} : cost_json(a_, *it->second);
      if (text && line <= text->size()) {
        const std::string& raw = (*text)[line - 1];
        l["text"] = cut_line(raw, limits_.line_bytes);
        if (raw.size() > limits_.line_bytes) l["cut"] = true;
      }
      lines.push_back(std::move(l));
    }
    if (auto it = costs.find(0); it != costs.end()) lines.push_back(cost_json(a_, *it->second));
    out["lines"] = std::move(lines);
    return out;
  }

  const Analysis& a_;
  SourceText sources_;
  const SourceLimits& limits_;
  size_t text_left_;
};

json why(std::string text) { return {{"why", std::move(text)}}; }

json document(const Analysis& a, const std::vector<std::string>& source_path, const SourceLimits& limits) {
  if (a.profile().locations.empty())
    return why(
        "this profile locates no cost inside functions: record with samples (-F HZ, or --mode sample) "
        "for samples per line, or in exact mode for the lines calls are made from");
  const CodeIndex index(a);
  const std::vector<FunctionId> located = index.functions();
  if (located.empty()) return why("the selected threads have no samples or call sites located in any function");
  Builder b(a, source_path, limits);
  json functions = json::array(), left_out = json::array();
  for (size_t k = 0; k < located.size(); ++k) {
    if (k < limits.functions)
      functions.push_back(b.function(index.of(located[k])));
    else
      left_out.push_back(located[k]);
  }
  const LineColumns columns = line_columns(a);
  return {{"columns", {{"samples", columns.samples}, {"calls", columns.calls}}},
          {"functions", std::move(functions)},
          {"left_out", std::move(left_out)},
          {"missing", b.missing()},
          {"limits",
           {{"functions", limits.functions}, {"text_bytes", limits.text_bytes}, {"line_bytes", limits.line_bytes}}}};
}

}  // namespace

std::string source_document(const Analysis& analysis, const std::vector<std::string>& source_path,
                            const SourceLimits& limits) {
  // Invalid UTF-8 in a name or a source line becomes U+FFFD rather than an exception.
  return inert_json(document(analysis, source_path, limits).dump(-1, ' ', false, json::error_handler_t::replace));
}

}  // namespace callprof::html
