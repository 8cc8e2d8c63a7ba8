// Where a tree's nodes went when --hide or --focus rebuilt it, and so where the costs located
// inside their functions (Thread::code) go: the lines of annotate, pprof -list, callgrind and
// the web report's Source panel in a hidden or focused view.
#pragma once

#include <vector>

#include "model/call_tree.h"
#include "model/code_lines.h"

namespace callprof {

// Per node of the original tree.
struct NodeImage {
  std::vector<NodeId> node;  // its node in the result; kNoNode: left out (outside every focus)
  std::vector<bool> folded;  // hidden: its node is its nearest kept caller's, which took its self cost
};

// `first`, then `second` on first's result (hide, then focus).
NodeImage composed(const NodeImage& first, const NodeImage& second);

// The code's entries the result shows, still on the original's nodes. A hidden node's samples,
// and the calls made from its code, land on the line its nearest kept caller called into it
// from (as pprof's -hide shows a hidden frame's cost on its caller's frame); the entries of
// nodes left out, hidden nodes' own call sites, and the call sites of nodes whose caller was
// left out (a focus's roots) are dropped.
CodeCosts relocated(const CodeCosts& code, const CallTree& tree, const NodeImage& image);

// Entries on the original's nodes (relocated) moved to the result's nodes.
CodeCosts on_result(CodeCosts code, const NodeImage& image);

}  // namespace callprof
