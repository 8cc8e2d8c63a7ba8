#include "collect/probes/probe_collector.h"

#include <algorithm>
#include <cstring>

namespace callprof::probes {

using namespace perf;

std::vector<UprobeSite> uprobe_sites(const std::vector<ProbeFunction>& functions, std::vector<ProbeSite>& sites) {
  std::vector<UprobeSite> out;
  sites.clear();
  for (uint32_t i = 0; i < functions.size(); ++i) {
    const ProbeFunction& f = functions[i];
    out.push_back({f.module, f.entry_site, true});
    sites.push_back({i, ProbeSite::Kind::Entry, f.entry_emulated});
    if (f.returns) {
      out.push_back({f.module, f.entry_site, false, true});
      sites.push_back({i, ProbeSite::Kind::Return, false});
    }
    for (size_t k = 0; k < f.exit_offsets.size(); ++k) {
      out.push_back({f.module, f.exit_offsets[k], false});
      sites.push_back({i, ProbeSite::Kind::Exit, k < f.exit_emulated.size() && f.exit_emulated[k]});
    }
  }
  return out;
}

namespace {

HitKind hit_kind(const ProbeSite& s) {
  return s.kind == ProbeSite::Kind::Return ? HitKind::Return : s.emulated ? HitKind::Emulated : HitKind::SingleStepped;
}

}  // namespace

void ProbeCollector::set_costs(const ProbeCosts& costs, bool compensate) {
  site_ns_.clear();
  if (!costs.measured()) return;
  HitCosts hc;
  hc.hit_ns[size_t(HitKind::SingleStepped)] = costs.single_step_ns;
  hc.hit_ns[size_t(HitKind::Emulated)] = costs.emulated_ns;
  hc.hit_ns[size_t(HitKind::Return)] = costs.return_ns;
  hc.inside_stepped_ns = costs.inside_stepped_ns;
  hc.inside_stepped_return_ns = costs.inside_stepped_return_ns;
  hc.inside_emulated_return_ns = costs.inside_emulated_return_ns;
  for (const ProbeSite& s : sites_) site_ns_.push_back(hc.hit(hit_kind(s)));
  if (compensate) pairing_.set_costs(hc);
  compensated_ = compensate;
}

ProbeCollector::ProbeCollector(stacks::SampleCollector& stacks, std::vector<ProbeFunction> functions,
                               std::vector<ProbeSite> sites)
    : stacks_(stacks),
      functions_(std::move(functions)),
      sites_(std::move(sites)),
      pairing_(*this),
      function_calls_(functions_.size(), 0),
      stopped_at_(functions_.size(), UINT64_MAX),
      unmeasurable_(functions_.size(), false) {}

namespace {

// The budget's guess at a hit's cost when the calibration could not measure one: about an
// emulated hit's here (docs/probes.md), less than a single-stepped one's, so that a guess
// stops fewer probes, not more.
constexpr uint64_t kUnmeasuredHitNs = 10'000;

}  // namespace

void ProbeCollector::stop_function(uint32_t function, uint64_t at_ns) {
  stopping_.emplace_back(function, at_ns);
  stopped_at_[function] = at_ns;
}

// Records come in time order: once one is past a removal, every hit before it has come in.
void ProbeCollector::close_stopped(uint64_t before_ns) {
  std::erase_if(stopping_, [&](const std::pair<uint32_t, uint64_t>& stop) {
    if (stop.second > before_ns) return false;
    pairing_.close_function(stop.first, stop.second);
    return true;
  });
}

void ProbeCollector::on_sample(Sample&& s) {
  if (!stopping_.empty()) close_stopped(s.time_ns);
  auto it = event_sites_.find(s.id);
  if (it == event_sites_.end()) {
    restore_return_addresses(s);
    return stacks_.on_sample(std::move(s));
  }
  const ProbeSite& site = sites_[it->second];
  if (s.time_ns >= stopped_at_[site.function]) return;
  const bool entry = site.kind == ProbeSite::Kind::Entry;
  ++(entry ? counts_.entries : counts_.exits);
  counts_.emulated += site.emulated;
  counts_.returns += site.kind == ProbeSite::Kind::Return;
  const uint64_t cost = site_ns_.empty() ? 0 : site_ns_[it->second];
  probe_time_ns_ += cost;
  budget_.hit(s.tid, site.function, cost ? cost : kUnmeasuredHitNs, s.time_ns);
  if (!s.has_user_regs) {
    ++counts_.without_registers;
    return;
  }
  if (entry) return on_entry(s, site);
  stacks_.note_hit(s.pid, s.tid, s.time_ns);
  // A return probe fires after the ret, which popped the return address the entry's stack
  // pointer pointed at.
  const uint64_t sp = s.regs[kDwarfSp] - (site.kind == ProbeSite::Kind::Return ? 8 : 0);
  pairing_.exit(s.tid, s.time_ns, sp, hit_kind(site));
}

// The path: the probed caller's path, then the unprobed frames between it and this entry
// (found by looking for the caller's code in the unwound stack), then this function; with
// no probed caller, the whole unwound stack. Interned by the caller's path and what this
// entry adds, so an entry costs what it adds, not the depth of its path.
void ProbeCollector::on_entry(const Sample& s, const ProbeSite& site) {
  const std::vector<uint64_t>& frames = stacks_.entry_frames(s);  // innermost first
  const uint64_t sp = s.regs[kDwarfSp];
  // The probe may sit a few instructions into the function: the path names its start.
  const ProbeFunction& f = functions_[site.function];
  const uint64_t ip = s.ip - (f.entry_site - f.entry_offset);
  const OpenFrame* parent = pairing_.enter(s.tid, s.time_ns, sp);
  scratch_.clear();
  if (parent) {
    const uint64_t start = parent->entry_ip, end = start + functions_[parent->function].size;
    size_t k = 1;
    while (k < frames.size() && !(frames[k] >= start && frames[k] < end)) ++k;
    if (k < frames.size())
      for (size_t j = k - 1; j >= 1; --j) scratch_.push_back(frames[j]);
  } else {
    for (size_t j = frames.size(); j-- > 1;) scratch_.push_back(frames[j]);
  }
  scratch_.push_back(ip);
  const uint32_t path = intern(s.pid, s.tid, stacks_.image_of(s.pid), site.function, parent ? parent->path : kNoParent);
  OpenFrame frame{site.function, path, sp, ip, s.time_ns, 0};
  if (s.stack.size() >= 8) std::memcpy(&frame.return_address, s.stack.data(), 8);
  frame.entry_kind = hit_kind(site);
  pairing_.open(s.tid, frame);
  if (f.entry_exits) pairing_.exit(s.tid, s.time_ns, sp, hit_kind(site));
}

// A sample taken inside probed calls: the stack it copied holds, in each open call's return
// slot, the return probe's trampoline (the kernel's [uprobes] page, in no mapping), where the
// unwinder needs the caller's return address: it would stop there. Put back from the entries.
void ProbeCollector::restore_return_addresses(Sample& s) const {
  if (!s.has_user_regs || s.stack.empty()) return;
  const uint64_t sp = s.regs[kDwarfSp];
  for (const OpenFrame& f : pairing_.open_stack(s.tid))
    if (f.return_address && f.sp >= sp && f.sp - sp + 8 <= s.stack.size())
      std::memcpy(s.stack.data() + (f.sp - sp), &f.return_address, 8);
}

uint32_t ProbeCollector::intern(uint32_t pid, uint32_t tid, uint32_t image, uint32_t function, uint32_t parent) {
  key_.assign(reinterpret_cast<const char*>(&tid), sizeof tid);
  key_.append(reinterpret_cast<const char*>(&image), sizeof image);
  key_.append(reinterpret_cast<const char*>(&parent), sizeof parent);
  key_.append(reinterpret_cast<const char*>(scratch_.data()), scratch_.size() * sizeof(uint64_t));
  auto [it, added] = path_index_.try_emplace(key_, uint32_t(paths_.size()));
  if (added) {
    const uint32_t first = uint32_t(pcs_.size());
    if (parent != kNoParent) {
      const Path pp = paths_[parent];
      for (uint32_t i = 0; i < pp.count; ++i) pcs_.push_back(pcs_[pp.first + i]);  // no insert from itself
    }
    pcs_.insert(pcs_.end(), scratch_.begin(), scratch_.end());
    paths_.push_back(Path{pid, tid, image, function, first, uint32_t(pcs_.size() - first)});
  }
  return it->second;
}

void ProbeCollector::on_call(uint32_t, const OpenFrame& frame, const CallTimes& t) {
  Path& p = paths_[frame.path];
  ++p.calls;
  ++function_calls_[frame.function];
  p.self_ns += t.self_ns;
  p.probe_ns += t.probe_ns;
  p.hits_ns += t.hits_ns;
  const uint64_t own = t.self_ns > t.probe_ns ? t.self_ns - t.probe_ns : 0;
  p.min_ns = std::min(p.min_ns, own);
  p.max_ns = std::max(p.max_ns, own);
}

// A forked child returns through its parent's open frames: it gets copies, on its own paths.
void ProbeCollector::adopt_frames(uint32_t parent_tid, uint32_t child_pid, uint32_t child_tid) {
  std::vector<OpenFrame> frames = pairing_.frames(parent_tid);
  for (OpenFrame& f : frames) {
    const Path& pp = paths_[f.path];
    scratch_.assign(pcs_.begin() + pp.first, pcs_.begin() + pp.first + pp.count);
    f.path = intern(child_pid, child_tid, stacks_.image_of(child_pid), f.function, kNoParent);
    f.child_ns = 0;
    pairing_.open(child_tid, f);
  }
}

void ProbeCollector::on_task(TaskEvent&& t) {
  const TaskEvent event = t;
  stacks_.on_task(std::move(t));
  switch (event.kind) {
    case TaskEvent::Kind::Fork:
      if (event.pid != event.ppid) adopt_frames(event.ptid, event.pid, event.tid);
      break;
    case TaskEvent::Kind::Exit:
      // Not closed yet: the rings are ordered per drain round only, so a hit of the thread
      // on another CPU's ring can still come after its exit record.
      exit_times_[event.tid] = event.time_ns;
      break;
    case TaskEvent::Kind::Exec:  // the old image's frames are gone
      pairing_.end_thread(event.tid, event.time_ns);
      break;
    case TaskEvent::Kind::Comm:
      break;
  }
}

void ProbeCollector::finish(uint64_t end_ns) {
  close_stopped(UINT64_MAX);
  for (const auto& [tid, time_ns] : exit_times_) pairing_.end_thread(tid, time_ns);
  pairing_.end_all(end_ns);
  for (const Path& p : paths_) {
    if (p.calls == 0) continue;
    // What compensation leaves is shorter than the calls' own hits: within the calibration's
    // error (in a loaded program a hit costs several times what it cost at start: Lua's
    // l_strcmp, tens of ns, kept 93 µs per call), not a measurement of the function.
    const uint64_t left = p.self_ns > p.probe_ns ? p.self_ns - p.probe_ns : 0;
    const bool unmeasurable = compensated_ && left < p.hits_ns;
    if (unmeasurable) counts_.unmeasurable_calls += p.calls, unmeasurable_[p.function] = true;
    const uint64_t self = unmeasurable ? 0 : left;
    stacks::SampleCollector::MeasuredPath m{p.pid,
                                            p.tid,
                                            p.image,
                                            {pcs_.begin() + p.first, pcs_.begin() + p.first + p.count},
                                            p.calls,
                                            self,
                                            unmeasurable ? 0 : p.min_ns,
                                            unmeasurable ? 0 : p.max_ns};
    stacks_.add_measured(std::move(m));
  }
  paths_.clear();
  path_index_.clear();
}

std::vector<std::string> ProbeCollector::unmeasurable_functions() const {
  std::vector<std::string> names;
  for (size_t i = 0; i < functions_.size(); ++i)
    if (unmeasurable_[i]) names.push_back(functions_[i].name);
  return names;
}

ProbeCollector::Counts ProbeCollector::counts() const {
  Counts c = counts_;
  c.pairing = pairing_.counts();
  c.truncated_calls = stacks_.counts().truncated_measured_calls;
  return c;
}

}  // namespace callprof::probes
