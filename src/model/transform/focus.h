// Focus: the calling context tree re-rooted at chosen functions, so everything they did is
// seen together whatever called them (pprof's focus with a virtual root; the "callees" half
// of speedscope's sandwich view).
#pragma once

#include <functional>

#include "model/call_tree.h"
#include "model/transform/node_image.h"

namespace callprof {

// Re-root at a function: the subtrees of the outermost nodes (no matching ancestor) of the
// functions for which `matches` is true, merged path by path under the root, so the result's
// root children are the matching functions. Everything those functions did, whatever their
// callers (pprof's focus with a virtual root, speedscope's sandwich "callees").
// Metrics merge by their kind, so the sum of cum over the result's root children equals the sum
// of cum over those outermost nodes exactly. A matching node inside a kept subtree stays where it
// is (not re-rooted again), so recursion is never counted twice. The root carries nothing; when
// nothing matches the result is the root alone.
// `image`, when given, gets where each node went.
CallTree focused_tree(const CallTree& tree, const std::function<bool(FunctionId)>& matches, NodeImage* image = nullptr);

}  // namespace callprof
