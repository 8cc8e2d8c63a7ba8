// Chrome's trace-event JSON (the Trace Event Format that ui.perfetto.dev, chrome://tracing
// and speedscope open): a timeline per selected thread, from the profile's timeline
// (`record --timeline`). Exact mode's calls become complete ("X") events nested by time;
// sampled stacks become spans of the frames that stayed on consecutive samples; system
// calls go on a track of their own next to their thread. Metadata ("M") names processes
// and threads. Names are escaped by nlohmann-json; output is streamed in large blocks.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "export/block_output.h"
#include "export/export.h"
#include "export/function_texts.h"
#include "util/escape.h"

namespace callprof {
namespace {

// A span on one track, in ns.
struct Span {
  FunctionId function;
  int64_t start;
  int64_t end;
  uint32_t depth;  // orders spans that start together: outer first
};

class ChromeWriter : public BlockOutput {
 public:
  ChromeWriter(const Analysis& a, std::ostream& out) : BlockOutput(out), a_(a), names_(a, json_string) {}

  void write();

 private:
  void write_thread(const Thread& t);
  std::vector<Span> call_spans(const Thread& t, const std::vector<uint32_t>& depth) const;
  std::vector<Span> sample_spans(const Thread& t) const;
  std::vector<Span> syscall_spans(const Thread& t, const std::vector<uint32_t>& depth) const;
  void write_spans(std::vector<Span>& spans, uint32_t pid, uint32_t tid, const char* category);
  void metadata(const char* what, uint32_t pid, uint32_t tid, std::string_view name);
  uint32_t trace_pid(const Thread& t);
  uint32_t trace_tid(const std::string& host, uint32_t tid);
  void event_head(const char* ph, uint32_t pid, uint32_t tid, int64_t ts_ns) {
    buf_ += first_ ? "\n{\"ph\":\"" : ",\n{\"ph\":\"";
    first_ = false;
    buf_ += ph;
    buf_ += "\",\"pid\":";
    number(pid);
    buf_ += ",\"tid\":";
    number(tid);
    buf_ += ",\"ts\":";
    micros(ts_ns - base_ns_);
  }
  // The format's times are microseconds; ns are kept as three decimals.
  void micros(int64_t ns) {
    if (ns < 0) {
      buf_ += '-';
      ns = -ns;
    }
    number(uint64_t(ns) / 1000);
    const unsigned frac = unsigned(uint64_t(ns) % 1000);
    if (frac) fmt::format_to(std::back_inserter(buf_), ".{:03}", frac);
  }
  bool focus_keeps_path(const CallTree& tree, NodeId node) const;

  const Analysis& a_;
  FunctionTexts<std::string (*)(std::string_view)> names_;  // JSON string literals
  bool first_ = true;
  int64_t base_ns_ = 0;
  std::map<std::pair<std::string, uint32_t>, uint32_t> pids_, tids_;  // (host, id) -> trace id
  uint32_t next_synthetic_ = 0;  // ids for collisions and syscall tracks, above every real id
  uint64_t dropped_ = 0;
};

uint32_t ChromeWriter::trace_pid(const Thread& t) {
  auto [it, added] = pids_.try_emplace({t.host, t.pid}, t.pid);
  if (!added) return it->second;
  // A pid seen on another host keeps the first; the others get synthetic ids.
  for (const auto& [key, id] : pids_)
    if (key != it->first && id == t.pid) {
      it->second = next_synthetic_++;
      break;
    }
  std::string name;
  for (const Process& p : a_.profile().processes)
    if (p.pid == t.pid && p.host == t.host && !p.command.empty()) name = p.command;
  if (name.empty()) name = "pid " + std::to_string(t.pid);
  if (!t.host.empty()) name += " @" + t.host;
  metadata("process_name", it->second, 0, name);
  return it->second;
}

uint32_t ChromeWriter::trace_tid(const std::string& host, uint32_t tid) {
  auto [it, added] = tids_.try_emplace({host, tid}, tid);
  if (added)
    for (const auto& [key, id] : tids_)
      if (key != it->first && id == tid) {
        it->second = next_synthetic_++;
        break;
      }
  return it->second;
}

void ChromeWriter::metadata(const char* what, uint32_t pid, uint32_t tid, std::string_view name) {
  event_head("M", pid, tid, base_ns_);
  buf_ += ",\"name\":\"";
  buf_ += what;
  buf_ += "\",\"args\":{\"name\":";
  buf_ += json_string(name);
  buf_ += "}}";
}

// Whether a sample or system call path passes --focus: some frame of it is focused.
bool ChromeWriter::focus_keeps_path(const CallTree& tree, NodeId node) const {
  if (!a_.has_focus()) return true;
  for (NodeId n = node; n != kRootNode && n != kNoNode; n = tree.node(n).parent)
    if (a_.focuses(tree.node(n).function)) return true;
  return false;
}

// Calls are nested by construction; --hide drops a hidden function's calls, --focus keeps
// focused calls and what ran inside them.
std::vector<Span> ChromeWriter::call_spans(const Thread& t, const std::vector<uint32_t>& depth) const {
  std::vector<Span> spans;
  for (const TimelineEvent& e : t.timeline.events) {
    const FunctionId f = t.tree.node(e.node).function;
    if (kind_of(a_.profile(), f) == FunctionKind::Syscall || a_.hides(f)) continue;
    spans.push_back({f, e.start_ns, e.start_ns + int64_t(e.duration_ns), depth[e.node]});
  }
  std::sort(spans.begin(), spans.end(), [](const Span& x, const Span& y) {
    return std::tuple(x.start, -x.end, x.depth) < std::tuple(y.start, -y.end, y.depth);
  });
  if (!a_.has_focus()) return spans;
  std::vector<Span> kept;
  int64_t focus_end = INT64_MIN;
  for (const Span& s : spans) {
    if (a_.focuses(s.function))
      focus_end = std::max(focus_end, s.end);
    else if (s.start >= focus_end)
      continue;
    kept.push_back(s);
  }
  return kept;
}

// Consecutive samples share their common outer frames: a frame's span runs from the first
// sample that has it to the end of the last one in the run (a sample stands for its
// duration; a gap longer than that ends every span).
std::vector<Span> ChromeWriter::sample_spans(const Thread& t) const {
  std::vector<const TimelineEvent*> samples;
  for (const TimelineEvent& e : t.timeline.events)
    if (kind_of(a_.profile(), t.tree.node(e.node).function) != FunctionKind::Syscall &&
        focus_keeps_path(t.tree, e.node))
      samples.push_back(&e);
  std::sort(samples.begin(), samples.end(),
            [](const TimelineEvent* x, const TimelineEvent* y) { return x->start_ns < y->start_ns; });
  std::vector<Span> spans, open;
  std::vector<FunctionId> path;
  int64_t last_end = INT64_MIN;
  const auto close_from = [&](size_t keep, int64_t at) {
    while (open.size() > keep) {
      Span s = open.back();
      open.pop_back();
      s.end = std::max(at, s.start);
      spans.push_back(s);
    }
  };
  for (const TimelineEvent* e : samples) {
    path.clear();
    for (NodeId n = e->node; n != kRootNode && n != kNoNode; n = t.tree.node(n).parent)
      path.push_back(t.tree.node(n).function);
    std::reverse(path.begin(), path.end());
    if (!!a_.has_focus()) {  // the path from its outermost focused frame
      auto first = std::find_if(path.begin(), path.end(), [&](FunctionId f) { return a_.focuses(f); });
      path.erase(path.begin(), first);
    }
    std::erase_if(path, [&](FunctionId f) { return a_.hides(f); });
    if (e->start_ns > last_end) close_from(0, last_end);
    size_t common = 0;
    while (common < open.size() && common < path.size() && open[common].function == path[common]) ++common;
    close_from(common, e->start_ns);
    for (size_t d = common; d < path.size(); ++d) open.push_back({path[d], e->start_ns, 0, uint32_t(d)});
    last_end = std::max(last_end, e->start_ns + int64_t(std::max<uint64_t>(e->duration_ns, 1)));
  }
  close_from(0, last_end);
  return spans;
}

std::vector<Span> ChromeWriter::syscall_spans(const Thread& t, const std::vector<uint32_t>& depth) const {
  std::vector<Span> spans;
  for (const TimelineEvent& e : t.timeline.events) {
    const FunctionId f = t.tree.node(e.node).function;
    if (kind_of(a_.profile(), f) != FunctionKind::Syscall || !focus_keeps_path(t.tree, e.node)) continue;
    spans.push_back({f, e.start_ns, e.start_ns + int64_t(e.duration_ns), depth[e.node]});
  }
  return spans;
}

// Spans in start order, outer first; an inner span that would end with or after its outer
// one (frames closed together at thread exit, clock rounding) ends 1 ns before it: the
// events nest strictly, as consumers that pair ends by time (speedscope) need.
void ChromeWriter::write_spans(std::vector<Span>& spans, uint32_t pid, uint32_t tid, const char* category) {
  std::sort(spans.begin(), spans.end(), [](const Span& x, const Span& y) {
    return std::tuple(x.start, -x.end, x.depth) < std::tuple(y.start, -y.end, y.depth);
  });
  std::vector<int64_t> ends;
  for (Span s : spans) {
    while (!ends.empty() && ends.back() <= s.start) ends.pop_back();
    if (!ends.empty() && s.end >= ends.back()) s.end = std::max(s.start, ends.back() - 1);
    ends.push_back(s.end);
    event_head("X", pid, tid, s.start);
    buf_ += ",\"dur\":";
    micros(s.end - s.start);
    buf_ += ",\"cat\":\"";
    buf_ += category;
    buf_ += "\",\"name\":";
    buf_ += names_[s.function];
    buf_ += '}';
    maybe_flush();
  }
}

void ChromeWriter::write_thread(const Thread& t) {
  const uint32_t pid = trace_pid(t);
  const uint32_t tid = trace_tid(t.host, t.tid);
  const std::string name = t.name.empty() ? "tid " + std::to_string(t.tid) : t.name;
  metadata("thread_name", pid, tid, name);
  std::vector<uint32_t> depth(t.tree.size(), 0);
  for (NodeId n = 1; n < t.tree.size(); ++n) depth[n] = depth[t.tree.node(n).parent] + 1;
  const bool sampled = a_.profile().meta.mode.only(RecordingMode::Sample);
  std::vector<Span> spans = sampled ? sample_spans(t) : call_spans(t, depth);
  write_spans(spans, pid, tid, sampled ? "sample" : "call");
  std::vector<Span> calls = syscall_spans(t, depth);
  if (!calls.empty()) {
    // Their own track: a system call can straddle the spans sampling makes.
    const uint32_t track = trace_tid(t.host + "\n[syscalls]", t.tid);
    metadata("thread_name", pid, track, name + " [syscalls]");
    write_spans(calls, pid, track, "syscall");
  }
  if (t.timeline.dropped > 0) {
    dropped_ += t.timeline.dropped;
    int64_t at = INT64_MAX;
    for (const TimelineEvent& e : t.timeline.events) at = std::min(at, e.start_ns);
    event_head("i", pid, tid, at == INT64_MAX ? base_ns_ : at);
    buf_ += ",\"s\":\"t\",\"cat\":\"callprof\",\"name\":";
    buf_ += json_string(fmt::format("{} earlier timeline events dropped (the ring was full)", t.timeline.dropped));
    buf_ += '}';
  }
}

void ChromeWriter::write() {
  const Profile& p = a_.profile();
  base_ns_ = INT64_MAX;
  uint32_t top = 0;
  for (size_t i : a_.threads()) {
    for (const TimelineEvent& e : p.threads[i].timeline.events) base_ns_ = std::min(base_ns_, e.start_ns);
    top = std::max({top, p.threads[i].pid, p.threads[i].tid});
  }
  if (base_ns_ == INT64_MAX) base_ns_ = 0;
  next_synthetic_ = std::max<uint32_t>(top + 1, 1u << 22);  // above Linux's pid_max default
  buf_ += "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
  for (size_t i : a_.threads()) write_thread(p.threads[i]);
  buf_ += "\n],\"otherData\":{\"exporter\":";
  buf_ += json_string(p.meta.callprof_version.empty() ? "callprof" : "callprof " + p.meta.callprof_version);
  buf_ += ",\"command\":";
  buf_ += json_string(p.meta.command);
  buf_ += ",\"mode\":";
  buf_ += json_string(p.meta.mode.text());
  buf_ += ",\"clock\":";
  buf_ += json_string(p.meta.clock);
  buf_ += ",\"time_origin_ns\":";
  number(uint64_t(base_ns_));
  if (p.meta.timeline) {
    buf_ += ",\"timeline_min_duration_ns\":";
    number(p.meta.timeline->min_duration_ns);
    buf_ += ",\"timeline_events_per_thread\":";
    number(p.meta.timeline->capacity);
  }
  buf_ += ",\"timeline_dropped_events\":";
  number(dropped_);
  buf_ += "}}\n";
}

}  // namespace

Status write_chrome(const Analysis& analysis, std::ostream& out) {
  if (!analysis.profile().meta.timeline)
    return make_error("the profile has no timeline: record it with `callprof record --timeline`");
  ChromeWriter writer(analysis, out);
  writer.write();
  return writer.flush() ? Status(Ok{}) : make_error("writing the Chrome trace failed");
}

}  // namespace callprof
