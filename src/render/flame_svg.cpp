// The flame graph SVG: the layout (graph/flame.h) drawn as one <g> per frame in depth-first
// order — <title>NAME\nNUMBERS</title>, <rect>, <text> when a label fits — under a header
// (title, numbers, legend, search box) and the embedded script (flame.js) that reads them.
// Every name is made inert (render/graph_text.h) and XML-escaped before it is written.
#include "render/flame_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "graph/flame.h"
#include "render/flame_colors.h"
#include "render/flame_diff.h"
#include "render/flame_script.h"
#include "render/graph_text.h"

namespace callprof {
namespace {

enum class Unit : uint8_t { Ns, Count, Bytes };

struct MetricDef {
  FlameMetric id;
  std::string_view key;  // --metric
  Metric metric;
  std::string_view title;  // in the picture's subtitle
  Unit unit;
  std::string_view noun;         // counts: "1,234 <noun>"
  Metric plus = Metric::kCount;  // a second metric added to `metric`
};

constexpr std::array<MetricDef, 9> kMetrics = {{
    {FlameMetric::Self, "self", Metric::WallNs, "wall time", Unit::Ns, ""},
    {FlameMetric::Cpu, "cpu", Metric::CpuNs, "CPU time", Unit::Ns, ""},
    // Off-CPU as perf and bcc's offcputime flame graphs have it: every switched-out interval,
    // blocked or waiting for a CPU (model/time_split.h, switched_out_ns).
    {FlameMetric::OffCpu, "offcpu", Metric::OffCpuNs, "off-CPU time", Unit::Ns, "", Metric::PreemptedNs},
    {FlameMetric::Samples, "samples", Metric::Samples, "samples", Unit::Count, "samples"},
    {FlameMetric::Calls, "calls", Metric::Calls, "calls", Unit::Count, "calls"},
    {FlameMetric::Allocs, "allocs", Metric::AllocCalls, "allocations", Unit::Count, "allocations"},
    {FlameMetric::AllocBytes, "allocbytes", Metric::AllocBytes, "bytes allocated", Unit::Bytes, ""},
    {FlameMetric::Syscalls, "syscalls", Metric::Syscalls, "system calls", Unit::Count, "system calls"},
    {FlameMetric::SyscallTime, "syscalltime", Metric::SyscallNs, "system-call time", Unit::Ns, ""},
}};

constexpr bool in_enum_order() {
  for (size_t i = 0; i < kMetrics.size(); ++i)
    if (static_cast<size_t>(kMetrics[i].id) != i) return false;
  return true;
}
static_assert(in_enum_order(), "kMetrics is indexed by FlameMetric");

const MetricDef& def_of(FlameMetric m) { return kMetrics[static_cast<size_t>(m)]; }

// Geometry, in pixels (flamegraph.pl's proportions).
constexpr double kPad = 10;             // left and right margins
constexpr double kRow = 16;             // one depth level
constexpr double kBox = 15;             // a frame's height (1 px between rows)
constexpr double kTop = 84;             // frames start below the title, numbers and legend
constexpr double kCharWidth = 7.08;     // 12 px Verdana, as flamegraph.pl estimates it (0.59 em)
constexpr size_t kMaxNameChars = 2000;  // longer names keep their start and end around "…"

std::string format_bytes(uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  double v = double(bytes) / 1024;
  size_t u = 0;
  while (u < 3 && v >= 1024) v /= 1024, ++u;
  return fmt::format("{:.{}f} {}", v, v < 10 ? 2 : v < 100 ? 1 : 0, kUnits[u]);
}

std::string format_value(Unit unit, uint64_t v) {
  switch (unit) {
    case Unit::Ns:
      return format_duration(v);
    case Unit::Bytes:
      return format_bytes(v);
    case Unit::Count:
      return format_count(v);
  }
  return format_count(v);
}

// A coordinate with at most 4 decimals (zooming 10,000x into a 0.1 px frame stays exact to
// a pixel) and no trailing zeros.
std::string px(double v) {
  std::string s = fmt::format("{:.4f}", v);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

size_t code_points(std::string_view s) {
  return size_t(
      std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// The label that fits `width` pixels: the whole name, its start and "..", or nothing; the
// same rule as flame.js's label(), so zooming out restores the labels written here.
std::string label(std::string_view name, double width) {
  const double chars = std::floor((width - 6) / kCharWidth);
  if (double(code_points(name)) <= chars) return std::string(name);
  if (chars < 3) return "";
  size_t keep = size_t(chars) - 2, i = 0;
  while (i < name.size() && keep > 0) {
    ++i;
    while (i < name.size() && (static_cast<unsigned char>(name[i]) & 0xC0) == 0x80) ++i;
    --keep;
  }
  return std::string(name.substr(0, i)) + "..";
}

// "1 call", "1,234 calls".
std::string counted(uint64_t n, std::string_view noun) {
  return fmt::format("{} {}{}", format_count(n), noun, n == 1 ? "" : "s");
}

std::string signed_value(Unit unit, int64_t delta) {
  const uint64_t magnitude = delta < 0 ? uint64_t(-delta) : uint64_t(delta);
  return (delta < 0 ? "-" : "+") + format_value(unit, magnitude);
}

class FlameSvgWriter {
 public:
  FlameSvgWriter(const Analysis& a, const FlameOptions& o) : a_(a), o_(o), def_(def_of(o.metric)) {}

  FlamePicture write() {
    lay_out();
    if (o_.base) base_ = match_flame_base(a_, layout_, *o_.base, def_.metric, def_.plus, o_.normalize);
    out_.reserve(layout_.frames.size() * 200 + 16384);
    write_header();
    write_controls();
    write_frames();
    out_ += "<script type=\"text/ecmascript\"><![CDATA[\n";
    out_ += flame_script();
    out_ += "]]></script>\n</svg>\n";
    return FlamePicture{std::move(out_), layout_.frames.size(), layout_.paths, layout_.elided_paths};
  }

 private:
  void lay_out();
  void write_header();
  void write_controls();
  void write_legend();
  void write_frames();
  void write_frame(size_t index);
  std::string_view name(FunctionId f);
  std::string frame_name(const FlameFrame& f);
  std::string numbers(const FlameFrame& f, size_t index) const;
  std::string diff_numbers(const FlameFrame& f, size_t index) const;
  FrameFill fill(const FlameFrame& f, size_t index);
  std::string title() const;
  std::string subtitle() const;
  double frame_y(uint32_t depth) const {
    return kTop + (o_.icicle ? double(depth) : double(layout_.max_depth - depth)) * kRow;
  }
  double height() const { return kTop + double(layout_.max_depth + 1) * kRow + 30; }
  void text(std::string_view s) { out_ += html_label_escape(s); }

  const Analysis& a_;
  const FlameOptions& o_;
  const MetricDef& def_;
  FlameLayout layout_;
  std::optional<FlameBase> base_;
  double scale_ = 0;  // pixels per metric unit
  std::string out_;
  std::vector<std::string> names_;  // inert display names by FunctionId, made on first use
  std::vector<bool> named_;
  std::string other_name_;  // for an id outside the table
  std::array<bool, kFunctionKindCount> kinds_seen_{};
};

void FlameSvgWriter::lay_out() {
  const size_t functions = a_.profile().functions.size();
  names_.resize(functions);
  named_.assign(functions, false);
  // Siblings in name order, as flamegraph.pl sorts them: the picture of a program stays the
  // same from run to run, and two profiles line up for comparison.
  std::vector<FunctionId> by_name(functions);
  std::iota(by_name.begin(), by_name.end(), FunctionId(0));
  std::sort(by_name.begin(), by_name.end(), [&](FunctionId x, FunctionId y) { return a_.name(x) < a_.name(y); });
  std::vector<uint32_t> rank(functions);
  for (size_t i = 0; i < functions; ++i) rank[by_name[i]] = uint32_t(i);

  const double area = o_.width_px - 2 * kPad;
  const uint64_t total = a_.total(def_.metric) + (def_.plus == Metric::kCount ? 0 : a_.total(def_.plus));
  FlameLayoutOptions lo{.metric = def_.metric, .plus = def_.plus, .rank = rank};
  lo.min_width = uint64_t(std::ceil(o_.min_width_px * double(total) / area));
  layout_ = flame_layout(a_.tree(), a_.nodes().cum, lo);
  scale_ = layout_.total > 0 ? area / double(layout_.total) : 0;
}

std::string_view FlameSvgWriter::name(FunctionId f) {
  if (f >= names_.size()) return other_name_ = safe_text(a_.name(f), kMaxNameChars);
  if (!named_[f]) {
    names_[f] = safe_text(a_.name(f), kMaxNameChars);
    named_[f] = true;
  }
  return names_[f];
}

std::string FlameSvgWriter::frame_name(const FlameFrame& f) {
  if (f.node == kRootNode) return "all";
  if (f.node == kNoNode) return fmt::format("[{} narrow frames]", f.merged);
  if (a_.tree().node(f.node).inlined) return std::string(name(f.function)) + " [inlined]";
  return std::string(name(f.function));
}

std::string FlameSvgWriter::title() const {
  const std::string_view kind = o_.base ? "Differential flame graph" : o_.icicle ? "Icicle graph" : "Flame graph";
  const std::string& command = a_.profile().meta.command;
  // The title is centred between the buttons: about 64 characters fit at 1200 px.
  const size_t room = size_t(std::max(20.0, (o_.width_px - 560) / 10));
  return command.empty() ? std::string(kind) : fmt::format("{}: {}", kind, safe_text(command, room));
}

std::string FlameSvgWriter::subtitle() const {
  std::string s = def_.unit == Unit::Count
                      ? fmt::format("{}: {} {}", def_.key, format_count(layout_.total), def_.noun)
                      : fmt::format("{} ({}): {}", def_.key, def_.title, format_value(def_.unit, layout_.total));
  s += fmt::format(" · {} frames", format_count(layout_.frames.size()));
  if (layout_.elided_paths > 0)
    s += fmt::format(" · {} of {} call paths narrower than {} px elided", format_count(layout_.elided_paths),
                     format_count(layout_.paths), px(o_.min_width_px));
  if (base_) {
    s += fmt::format(" · against {}: {}", o_.base_label.empty() ? "the base" : safe_text(o_.base_label, 60),
                     format_value(def_.unit, base_->total));
    if (o_.normalize) s += fmt::format(" (scaled ×{:.3g})", base_->scale);
    if (base_->only_in_base > 0)
      s += fmt::format(", {} on paths only in the base (not drawn)", format_value(def_.unit, base_->only_in_base));
  }
  return s;
}

void FlameSvgWriter::write_header() {
  const double w = o_.width_px, h = height();
  out_ += "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n";
  out_ += fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\""
      " data-width=\"{0}\" data-pad=\"{2}\" data-row=\"{3}\" data-top=\"{4}\" data-depth=\"{5}\" data-char=\"{6}\""
      " data-icicle=\"{7}\">\n",
      px(w), px(h), px(kPad), px(kRow), px(kTop), layout_.max_depth, px(kCharWidth), o_.icicle ? 1 : 0);
  out_ += "<title>";
  text(title());
  out_ += "</title>\n";
  out_ +=
      "<style>\n"
      "text{font-family:Verdana,sans-serif;font-size:12px;fill:#000}\n"
      "#frames g{cursor:pointer}\n"
      "#frames text{pointer-events:none}\n"
      "#frames g:hover rect{stroke:#000;stroke-width:0.7}\n"
      ".title{font-size:17px;text-anchor:middle}\n"
      ".sub{fill:#444;text-anchor:middle}\n"
      ".legend text{font-size:11px;fill:#333}\n"
      "#reset{cursor:pointer;fill:#0645ad;text-decoration:underline}\n"
      "#matched{text-anchor:end;fill:#8a008a}\n"
      "</style>\n"
      "<defs>\n"
      "<linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
      "<stop stop-color=\"#eeeeee\" offset=\"5%\"/><stop stop-color=\"#eeeeb0\" offset=\"95%\"/></linearGradient>\n"
      "<pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
      "<rect width=\"6\" height=\"6\" fill=\"#c4c4c4\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#8c8c8c\""
      " stroke-width=\"3\"/></pattern>\n"
      "</defs>\n";
  out_ += fmt::format("<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"url(#background)\"/>\n", px(w), px(h));
}

void FlameSvgWriter::write_controls() {
  const double w = o_.width_px, h = height();
  out_ += fmt::format("<text class=\"title\" x=\"{}\" y=\"24\">", px(w / 2));
  text(title());
  out_ += fmt::format("</text>\n<text class=\"sub\" x=\"{}\" y=\"44\">", px(w / 2));
  text(subtitle());
  out_ += "</text>\n";
  out_ += fmt::format("<text id=\"reset\" x=\"{}\" y=\"24\" visibility=\"hidden\">Reset zoom</text>\n", px(kPad));
  out_ += fmt::format(
      "<foreignObject x=\"{}\" y=\"8\" width=\"230\" height=\"26\"><input xmlns=\"http://www.w3.org/1999/xhtml\""
      " id=\"search\" type=\"search\" placeholder=\"Search (regex) — Ctrl-F\" autocomplete=\"off\""
      " style=\"width:220px;font:12px Verdana,sans-serif\"/></foreignObject>\n",
      px(w - kPad - 230));
  out_ += fmt::format("<text id=\"details\" x=\"{}\" y=\"{}\">Hover a frame for details, click to zoom</text>\n",
                      px(kPad), px(h - 12));
  out_ += fmt::format("<text id=\"matched\" x=\"{}\" y=\"{}\"></text>\n", px(w - kPad), px(h - 12));
}

void FlameSvgWriter::write_frames() {
  out_ += "<g id=\"frames\">\n";
  for (size_t i = 0; i < layout_.frames.size(); ++i) write_frame(i);
  out_ += "</g>\n";
  write_legend();  // after the frames: it lists the kinds they showed
}

FrameFill FlameSvgWriter::fill(const FlameFrame& f, size_t index) {
  if (f.node == kRootNode)
    return base_ ? diff_fill(double(base_->value[index]), double(f.width)) : std::string(kRootFill);
  if (f.node == kNoNode) return std::string(kMergedFill);
  const FunctionKind kind = a_.kind(f.function);
  kinds_seen_[static_cast<size_t>(kind)] = true;
  if (base_) return diff_fill(double(base_->value[index]), double(f.width));
  if (kind != FunctionKind::Normal) return kind_fill(kind, name(f.function));
  if (o_.colors == FlameColors::Module) return module_fill(a_.module(f.function), name(f.function));
  return name_fill(name(f.function));
}

std::string FlameSvgWriter::numbers(const FlameFrame& f, size_t index) const {
  if (base_) return diff_numbers(f, index);
  std::string s = "(";
  if (f.node == kNoNode) s += counted(f.merged, "call path") + " merged, ";
  if (f.node != kNoNode && f.node != kRootNode && def_.unit != Unit::Count) {
    const auto& stats = a_.stats();
    if (stats.present[static_cast<size_t>(Metric::Calls)] && !stats.has_samples)
      s += counted(a_.tree().base(f.node)[Metric::Calls], "call") + ", ";
    else if (stats.has_samples)
      s += counted(a_.nodes().cum[f.node][Metric::Samples], "sample") + ", ";
  }
  s += format_value(def_.unit, f.width);
  if (def_.unit == Unit::Count) s += fmt::format(" {}", def_.noun);
  s += ", " + format_share(f.width, layout_.total);
  if (f.self > 0 && f.self != f.width) s += ", self " + format_value(def_.unit, f.self);
  if (f.node == kRootNode && layout_.elided_paths > 0)
    s +=
        fmt::format("; {} narrower than {} px elided", counted(layout_.elided_paths, "call path"), px(o_.min_width_px));
  return s + ")";
}

std::string FlameSvgWriter::diff_numbers(const FlameFrame& f, size_t index) const {
  const uint64_t before = base_->value[index], after = f.width;
  if (f.node == kNoNode)
    return fmt::format("({} merged, {})", counted(f.merged, "call path"), format_value(def_.unit, after));
  if (!base_->present[index]) return fmt::format("(only in this profile: {})", format_value(def_.unit, after));
  const int64_t delta = int64_t(after) - int64_t(before);
  std::string s = fmt::format("(base {} → {}, {}", format_value(def_.unit, before), format_value(def_.unit, after),
                              signed_value(def_.unit, delta));
  if (before > 0) s += fmt::format(", {:+.1f}%", 100.0 * double(delta) / double(before));
  return s + ")";
}

void FlameSvgWriter::write_frame(size_t index) {
  const FlameFrame& f = layout_.frames[index];
  const std::string label_name = frame_name(f);
  const double x = kPad + double(f.x) * scale_, w = double(f.width) * scale_, y = frame_y(f.depth);
  out_ += f.node == kRootNode ? "<g class=\"r\"><title>" : f.node == kNoNode ? "<g class=\"m\"><title>" : "<g><title>";
  text(label_name);
  out_ += '\n';
  text(numbers(f, index));
  out_ += fmt::format("</title><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>", px(x), px(y), px(w),
                      px(kBox), fill(f, index));
  if (const std::string shown = label(label_name, w); !shown.empty()) {
    out_ += fmt::format("<text x=\"{}\" y=\"{}\">", px(x + 3), px(y + 10.5));
    text(shown);
    out_ += "</text>";
  }
  out_ += "</g>\n";
}

void FlameSvgWriter::write_legend() {
  std::vector<std::pair<std::string, std::string>> entries;  // fill, label
  if (base_) {
    entries = {{diff_fill(1, 2), "grew (slower)"},
               {diff_fill(2, 1), "shrank (faster)"},
               {diff_fill(1, 1), "unchanged"},
               {diff_fill(0, 1), "only in this profile"}};
  } else {
    entries.emplace_back(name_fill("main"), o_.colors == FlameColors::Module ? "function (by module)" : "function");
    static constexpr std::array<std::pair<FunctionKind, std::string_view>, 6> kKinds = {{
        {FunctionKind::Syscall, "system call"},
        {FunctionKind::Kernel, "kernel"},
        {FunctionKind::Pruned, "pruned"},
        {FunctionKind::Truncated, "truncated stack"},
        {FunctionKind::ThreadGroup, "thread group"},
        {FunctionKind::Unhooked, "calls counted after their hooks were removed"},
    }};
    for (const auto& [kind, what] : kKinds)
      if (kinds_seen_[static_cast<size_t>(kind)]) entries.emplace_back(kind_fill(kind, "write"), what);
  }
  if (std::any_of(layout_.frames.begin(), layout_.frames.end(), [](const FlameFrame& f) { return f.node == kNoNode; }))
    entries.emplace_back(kMergedFill, "narrow frames merged");
  entries.emplace_back("#e600e6", "search match");
  out_ += "<g class=\"legend\">";
  double x = kPad;
  for (const auto& [color, what] : entries) {
    out_ +=
        fmt::format("<rect x=\"{}\" y=\"56\" width=\"12\" height=\"12\" fill=\"{}\" stroke=\"#888\"/>", px(x), color);
    out_ += fmt::format("<text x=\"{}\" y=\"66\">", px(x + 16));
    text(what);
    out_ += "</text>";
    x += 16 + double(what.size()) * 6.3 + 14;
  }
  out_ += "</g>\n";
}

// The metric's measured in the profile: self (wall time) always is.
bool measured(const Analysis& a, const MetricDef& d) {
  const auto present = [&](Metric m) { return m != Metric::kCount && a.stats().present[static_cast<size_t>(m)]; };
  return d.id == FlameMetric::Self || present(d.metric) || present(d.plus);
}

Status check_measured(const Analysis& a, const MetricDef& d, std::string_view which) {
  if (measured(a, d)) return Ok{};
  std::string names;
  for (const MetricDef& m : kMetrics)
    if (measured(a, m)) names += (names.empty() ? "" : ", ") + std::string(m.key);
  return make_error(
      fmt::format("--metric {} ({}) was not measured in {} (measured: {})", d.key, d.title, which, names));
}

}  // namespace

std::optional<FlameMetric> parse_flame_metric(std::string_view name) {
  for (const MetricDef& m : kMetrics)
    if (m.key == name) return m.id;
  return std::nullopt;
}

std::string_view flame_metric_name(FlameMetric m) { return def_of(m).key; }

std::string flame_metric_names() {
  std::string s;
  for (const MetricDef& m : kMetrics) s += (s.empty() ? "" : ", ") + std::string(m.key);
  return s;
}

Result<FlamePicture> render_flame(const Analysis& analysis, const FlameOptions& options) {
  if (!(options.width_px >= 200 && options.width_px <= 100000))
    return make_error(fmt::format("--width {}: must be between 200 and 100000 pixels", options.width_px));
  if (!(options.min_width_px >= 0 && options.min_width_px <= options.width_px))
    return make_error(fmt::format("--min-width {}: must be between 0 and the width", options.min_width_px));
  const MetricDef& def = def_of(options.metric);
  if (Status s = check_measured(analysis, def, "this profile"); !s) return s.error();
  if (options.base)
    if (Status s = check_measured(*options.base, def, "the base profile"); !s) return s.error();
  return FlameSvgWriter(analysis, options).write();
}

Result<std::string> render_flame_svg(const Analysis& analysis, const FlameOptions& options) {
  auto picture = render_flame(analysis, options);
  if (!picture) return picture.error();
  return std::move(picture->svg);
}

}  // namespace callprof
