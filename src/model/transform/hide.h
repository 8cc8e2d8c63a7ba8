// Hide: functions folded into their callers, for wrappers and glue (std::function thunks,
// dispatchers) that split one caller's work across paths that read as one.
#pragma once

#include <functional>

#include "model/call_tree.h"
#include "model/transform/node_image.h"

namespace callprof {

// Fold functions into their callers: every node of a matching function is removed, its base
// metrics (the additive ones except Calls and IndirectCalls) added to the nearest kept ancestor
// (the root when none), and its children attached there, merging with equal paths. Totals of every
// kept ancestor are unchanged; a kept node's calls are unchanged.
// The receiving node's Min/Max wall stay as they were: the folded time is not one call's. Kept
// nodes that land on the same path (a hidden node's child and an existing sibling of the same
// function) merge by metric kind. A hidden node's calls vanish, so a kept node's cum Calls drops
// by the calls of the hidden nodes below it; every other additive total is unchanged.
// `image`, when given, gets where each node went.
CallTree hidden_tree(const CallTree& tree, const std::function<bool(FunctionId)>& matches, NodeImage* image = nullptr);

}  // namespace callprof
