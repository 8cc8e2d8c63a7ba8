// Callgrind's profile format (valgrind's "Callgrind Format Specification", version 1), as
// KCachegrind and callgrind_annotate read it. The format is function level: one block
// per function (`ob=` module, `fl=` source file, `fn=` name) with its self cost line,
// then one call per callee (`cob=`/`cfi=`/`cfn=`, `calls=COUNT LINE` and the cost that
// flowed along the edge). Names, files and modules use name compression: "(id) name" the
// first time, "(id)" after. Positions are lines: a function's entry line (0 unknown) for
// its self cost and its calls, the callee's entry line as the call's target.
//
// Events: Time (wall ns; for sampled profiles samples x period), Calls, and Cpu/OffCpu
// when the profile measured them (OffCpu: blocked or waiting for a CPU, all the time not
// running; Preempted, the part waiting for a CPU, where some node waited), Samples when it
// was sampled (Calls is left out when it counted none). A cost line gives, for a
// function's self cost, its self time and the calls *into* it (FunctionRow::calls,
// recursive ones included); for a call, the callee's total under that caller and the calls
// made within it, itself included (EdgeRow::total). So callgrind_annotate shows per
// function: self Time = self_ns and self Calls = calls; with --inclusive=yes, Time =
// total_ns and Calls = every call made while the function was active (its own included),
// FunctionRow::total's calls.
//
// Recursion. Both readers take a called function's inclusive cost from the calls into
// it (KCachegrind skipping f -> f; callgrind_annotate summing every `calls=` cost to it),
// and an uncalled one's from its self cost plus its calls out. Edge totals count only
// the callee's outermost instances under the caller, so the calls into a function add
// up exactly to its total (recursion counted once), a recursive edge (f -> f, or the
// closing edge of a cycle a -> b -> a) carries its exact call count and zero cost, and
// nothing is negative. A function that is both spontaneous (a root of the tree, e.g. a
// thread's start routine) and called gets its root part as a call from a synthetic
// `<spontaneous>` function, else both readers would lose it.
//
// What the format cannot hold. Every name, file, module and the command is one line:
// line breaks and other control characters are written as C escapes ("\n", "\r", "\t",
// "\x1b"), and an empty name as "???", which is also the file and module of a function
// without one (as callgrind writes them). Both readers identify a function by its name
// (with file or module), so distinct functions whose names come out equal get " [2]",
// " [3]", ... appended. A `calls=0` line (a sampled profile counts no calls) would make
// callgrind_annotate take the next line as self cost and KCachegrind the callee as never
// called, so an uncounted edge is written as `calls=1`. callgrind_annotate strips its
// working directory from `fl=` but not `cfi=` paths, so run under the source tree it
// loses the inclusive cost of functions called from another file (`cfi=` is written only
// then, as callgrind does).
//
// In a cycle a -> b -> a, b's total includes the nested a, so a's self plus its call of
// b exceeds a's total by that nested time: the same overlap callgrind's own data has,
// which KCachegrind's cycle detection groups; inclusive costs stay exact.
//
// Source lines (query/lines.h), where the profile located costs and the tree is the
// threads' own (no --focus or --hide): a function's samples (and for a sampled profile
// their time) go on the lines of its file they fell on, the rest on its entry line; a call
// goes on the line it was made from, shared out by the calls (or samples) from each line
// when it was made from several. callgrind_annotate then annotates each source line.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "export/export.h"
#include "query/lines.h"
#include "util/escape.h"

namespace callprof {
namespace {

// A name as one line of the format can hold it: control characters (and C1 controls,
// bidirectional overrides, invalid UTF-8) as C escapes, the terminal's escaping.
std::string one_line(std::string_view s) {
  std::string out = escape_text(s);
  if (out.empty()) out = "???";
  return out;
}

struct Event {
  Metric metric;
  std::string_view name;  // callgrind event names: letters and digits only
  std::string_view long_name;
  Metric plus = Metric::kCount;  // a second metric added to the first
  uint64_t of(const Metrics& m) const { return m[metric] + (plus == Metric::kCount ? 0 : m[plus]); }
};

// Interned strings of one compression namespace ("ob" or "fl"): ids from 1.
class Strings {
 public:
  uint32_t id(std::string text) {
    auto [it, inserted] = ids_.try_emplace(std::move(text), uint32_t(texts_.size() + 1));
    if (inserted) texts_.push_back(&it->first);
    return it->second;
  }
  const std::string& text(uint32_t id) const { return *texts_[id - 1]; }
  size_t size() const { return texts_.size(); }

 private:
  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<const std::string*> texts_;  // node-based map: the keys stay put
};

class Writer {
 public:
  Writer(const Analysis& analysis, std::ostream& out) : a_(analysis), out_(out) {}

  Status write() {
    if (!a_.profile().locations.empty()) code_.emplace(a_);
    choose_events();
    name_functions();
    header();
    const std::vector<FunctionRow>& rows = a_.functions();
    const std::vector<EdgeRow>& edges = a_.edges();
    // Edges are ordered by (caller, callee), the spontaneous ones (kNoFunction) last;
    // rows by function: one forward pass pairs each function with its calls out.
    size_t e = 0;
    for (size_t r = 0; r < rows.size(); ++r) {
      while (e < edges.size() && edges[e].caller < rows[r].function) ++e;
      function_block(r, rows[r].self);
      for (; e < edges.size() && edges[e].caller == rows[r].function; ++e) call(r, edges[e]);
    }
    spontaneous_block(edges);
    buf_ += "\ntotals:";
    costs(totals_);
    buf_ += '\n';
    flush();
    return out_ ? Status(Ok{}) : make_error("writing the callgrind profile failed");
  }

 private:
  void choose_events() {
    const TreeStats& s = a_.stats();
    events_.push_back({Metric::WallNs, "Time", s.has_samples ? "Time (ns, samples x period)" : "Wall time (ns)"});
    if (!s.has_samples || s.calls > 0)
      events_.push_back({Metric::Calls, "Calls", "Calls (self: into the function; inclusive: made within it)"});
    if (a_.cpu_measured()) {
      events_.push_back({Metric::CpuNs, "Cpu", "On-CPU time (ns)"});
      // Off-CPU as perf and bcc's offcputime count it: all the time not running, blocked or
      // waiting for a CPU; Preempted, where some node waited, is the part waiting for a CPU.
      events_.push_back(
          {Metric::OffCpuNs, "OffCpu", "Off-CPU time, blocked or waiting for a CPU (ns)", Metric::PreemptedNs});
      if (s.present[size_t(Metric::PreemptedNs)])
        events_.push_back({Metric::PreemptedNs, "Preempted", "Waiting for a CPU (ns, part of OffCpu)"});
    }
    if (s.has_samples) events_.push_back({Metric::Samples, "Samples", "Samples"});
    totals_.assign(events_.size(), 0);
  }

  // Per function row: its unique name, module and file ids, entry line.
  void name_functions() {
    const std::vector<FunctionRow>& rows = a_.functions();
    const Profile& p = a_.profile();
    std::unordered_map<std::string, uint32_t> uses;  // name -> how many functions have it
    auto unique = [&](std::string name) {
      uint32_t& n = uses[name];
      if (++n == 1) return name;
      for (;;) {  // "f [2]" could itself be a function's name
        std::string candidate = fmt::format("{} [{}]", name, n);
        if (uses.try_emplace(candidate, 1).second) return candidate;
        ++n;
      }
    };
    info_.reserve(rows.size() + 1);
    for (const FunctionRow& r : rows) {
      Info i;
      i.name = unique(one_line(a_.full_name(r.function)));
      const Function* fn = r.function < p.functions.size() ? &p.functions[r.function] : nullptr;
      const bool has_module = fn && fn->module < p.modules.size();
      i.ob = obs_.id(has_module ? one_line(p.modules[fn->module].path) : "???");
      i.fl = fls_.id(fn && !fn->file.empty() ? one_line(fn->file) : "???");
      i.line = fn ? fn->line : 0;
      info_.push_back(std::move(i));
    }
    // The synthetic caller of functions that are roots and called too (the last row).
    info_.push_back(Info{unique("<spontaneous>"), obs_.id("???"), fls_.id("???"), 0});
    ob_written_.assign(obs_.size() + 1, false);
    fl_written_.assign(fls_.size() + 1, false);
    fn_written_.assign(info_.size(), false);
  }

  void header() {
    const Profile& p = a_.profile();
    line("# callgrind format");
    line("version: 1");
    line("creator: callprof");
    if (!p.meta.command.empty()) line("cmd: " + one_line(p.meta.command));
    if (!p.meta.mode.empty()) line("desc: Mode: " + one_line(p.meta.mode.text()));
    line(fmt::format("desc: Threads: {}", a_.threads().size()));
    line("positions: line");
    for (const Event& ev : events_) line(fmt::format("event: {} : {}", ev.name, ev.long_name));
    buf_ += "events:";
    for (const Event& ev : events_) fmt::format_to(std::back_inserter(buf_), " {}", ev.name);
    buf_ += '\n';
    // The summary is the sum of every self cost line, written before the body.
    std::vector<uint64_t> summary(events_.size(), 0);
    for (const FunctionRow& r : a_.functions())
      for (size_t k = 0; k < events_.size(); ++k) summary[k] += events_[k].of(r.self);
    buf_ += "summary:";
    for (uint64_t v : summary) fmt::format_to(std::back_inserter(buf_), " {}", v);
    buf_ += '\n';
  }

  void function_block(size_t r, const Metrics& self) {
    const Info& i = info_[r];
    buf_ += '\n';
    if (i.ob != ob_) name("ob", obs_, ob_ = i.ob, ob_written_);
    if (i.fl != fl_) name("fl", fls_, fl_ = i.fl, fl_written_);
    function_name("fn", r);
    for (size_t k = 0; k < events_.size(); ++k) totals_[k] += events_[k].of(self);
    lines_ = {};
    if (code_ && r < a_.functions().size()) lines_ = code_->of(a_.functions()[r].function);
    Metrics rest = self;
    const Profile& p = a_.profile();
    const Function* fn = lines_.function < p.functions.size() ? &p.functions[lines_.function] : nullptr;
    for (const CodeCost& c : lines_.lines) {  // the samples on the lines of the function's file
      if (!fn || c.line == 0 || c.samples == 0 || p.source_files[c.file] != fn->file) continue;
      Metrics m;
      m[Metric::Samples] = std::min<uint64_t>(c.samples, rest[Metric::Samples]);
      m[Metric::CpuNs] = std::min<uint64_t>(c.cpu_ns, rest[Metric::CpuNs]);
      m[Metric::WallNs] = a_.stats().calls == 0 ? std::min<uint64_t>(c.cpu_ns, rest[Metric::WallNs]) : 0;
      for (Metric k : {Metric::Samples, Metric::CpuNs, Metric::WallNs}) rest[k] -= m[k];
      fmt::format_to(std::back_inserter(buf_), "{}", c.line);
      costs(m);
    }
    fmt::format_to(std::back_inserter(buf_), "{}", i.line);
    costs(rest);
  }

  // The lines of the caller's file the calls of `callee` were made from, with their weight:
  // calls, or samples where none were counted.
  std::vector<std::pair<uint32_t, uint64_t>> call_lines(FunctionId callee) const {
    std::vector<std::pair<uint32_t, uint64_t>> out;
    const Profile& p = a_.profile();
    if (lines_.function >= p.functions.size()) return out;
    for (const CodeCost& c : lines_.lines)
      for (const CallsFrom& f : c.calls)
        if (f.callee == callee && c.line != 0 && p.source_files[c.file] == p.functions[lines_.function].file)
          out.push_back({c.line, f.calls ? f.calls : f.samples});
    return out;
  }

  void call(size_t caller, const EdgeRow& e) {
    const std::vector<std::pair<uint32_t, uint64_t>> at = call_lines(e.callee);
    uint64_t weight = 0;
    for (auto [line, w] : at) weight += w;
    if (weight == 0) {
      call_line(caller, e.callee, e.calls, info_[caller].line);
      costs(e.total);
    } else {  // shared out by line; the last line takes what rounding left
      std::vector<uint64_t> left(events_.size());
      for (size_t k = 0; k < events_.size(); ++k) left[k] = events_[k].of(e.total);
      uint64_t calls_left = e.calls;
      for (size_t n = 0; n < at.size(); ++n) {
        const double share = double(at[n].second) / double(weight);
        const bool last = n + 1 == at.size();
        const uint64_t calls = last ? calls_left : std::min(calls_left, uint64_t(double(e.calls) * share + 0.5));
        calls_left -= calls;
        call_line(caller, e.callee, calls, at[n].first);
        for (size_t k = 0; k < events_.size(); ++k) {
          const uint64_t whole = events_[k].of(e.total);
          const uint64_t v = last ? left[k] : std::min(left[k], uint64_t(double(whole) * share + 0.5));
          left[k] -= v;
          fmt::format_to(std::back_inserter(buf_), " {}", v);
        }
        buf_ += '\n';
      }
    }
    if (buf_.size() > (1u << 16)) flush();
  }

  // A call's target and `calls=` line, and the position of its cost line (the cost follows).
  void call_line(size_t caller, FunctionId callee_id, uint64_t calls, uint32_t from_line) {
    const size_t callee = row_of(callee_id);
    const Info& c = info_[callee];
    // As callgrind writes them: only where they differ from the caller's.
    if (c.ob != info_[caller].ob) name("cob", obs_, c.ob, ob_written_);
    if (c.fl != info_[caller].fl) name("cfi", fls_, c.fl, fl_written_);
    function_name("cfn", callee);
    fmt::format_to(std::back_inserter(buf_), "calls={} {}\n{}", std::max<uint64_t>(calls, 1), c.line, from_line);
  }

  // Roots that are also called: their root part as calls from `<spontaneous>`.
  void spontaneous_block(const std::vector<EdgeRow>& edges) {
    std::vector<bool> called(a_.functions().size(), false);
    for (const EdgeRow& e : edges)
      if (e.caller != kNoFunction) called[row_of(e.callee)] = true;
    bool any = false;
    for (const EdgeRow& e : edges) {
      if (e.caller != kNoFunction || !called[row_of(e.callee)]) continue;
      if (!any) function_block(info_.size() - 1, Metrics());
      any = true;
      call(info_.size() - 1, e);
    }
  }

  size_t row_of(FunctionId f) const {
    const std::vector<FunctionRow>& rows = a_.functions();
    return size_t(std::lower_bound(rows.begin(), rows.end(), f,
                                   [](const FunctionRow& r, FunctionId id) { return r.function < id; }) -
                  rows.begin());
  }

  void name(std::string_view spec, const Strings& strings, uint32_t id, std::vector<bool>& written) {
    if (written[id]) {
      fmt::format_to(std::back_inserter(buf_), "{}=({})\n", spec, id);
      return;
    }
    written[id] = true;
    fmt::format_to(std::back_inserter(buf_), "{}=({}) {}\n", spec, id, strings.text(id));
  }

  void function_name(std::string_view spec, size_t r) {
    if (fn_written_[r]) {
      fmt::format_to(std::back_inserter(buf_), "{}=({})\n", spec, r + 1);
      return;
    }
    fn_written_[r] = true;
    fmt::format_to(std::back_inserter(buf_), "{}=({}) {}\n", spec, r + 1, info_[r].name);
  }

  // The rest of a cost line: one number per event.
  void costs(const Metrics& m) {
    for (const Event& ev : events_) fmt::format_to(std::back_inserter(buf_), " {}", ev.of(m));
    buf_ += '\n';
  }
  void costs(const std::vector<uint64_t>& values) {
    for (uint64_t v : values) fmt::format_to(std::back_inserter(buf_), " {}", v);
  }

  void line(std::string_view text) {
    buf_ += text;
    buf_ += '\n';
  }

  void flush() {
    out_.write(buf_.data(), std::streamsize(buf_.size()));
    buf_.clear();
  }

  struct Info {
    std::string name;
    uint32_t ob = 0, fl = 0;
    uint32_t line = 0;
  };

  const Analysis& a_;
  std::ostream& out_;
  std::optional<CodeIndex> code_;  // set when the lines can be placed
  FunctionCode lines_;             // the current function block's
  std::string buf_;
  std::vector<Event> events_;
  std::vector<uint64_t> totals_;
  std::vector<Info> info_;  // by function row; the last one is <spontaneous>
  Strings obs_, fls_;
  std::vector<bool> ob_written_, fl_written_, fn_written_;
  uint32_t ob_ = 0, fl_ = 0;  // the current `ob=` and `fl=` (0: none yet)
};

}  // namespace

Status write_callgrind(const Analysis& analysis, std::ostream& out) { return Writer(analysis, out).write(); }

}  // namespace callprof
