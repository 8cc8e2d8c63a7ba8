// Keeping a timeline's node references true when its thread's tree is rebuilt.
#include "model/timeline.h"

namespace callprof {

void remap_timeline(Timeline& timeline, const std::vector<NodeId>& node_map) {
  size_t kept = 0;
  for (const TimelineEvent& e : timeline.events) {
    const NodeId to = e.node < node_map.size() ? node_map[e.node] : kNoNode;
    if (to == kNoNode || to == kRootNode) {
      ++timeline.dropped;
      continue;
    }
    timeline.events[kept++] = TimelineEvent{to, e.start_ns, e.duration_ns};
  }
  timeline.events.resize(kept);
}

}  // namespace callprof
