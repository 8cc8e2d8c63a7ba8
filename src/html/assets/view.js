// view.js: focus and hide typed in the page (as pprof -http lets a user re-focus), computed
// from the embedded call paths exactly as `callprof html --focus/--hide` computes them in
// callprof (src/model/transform/hide.cpp, focus.cpp): hide folds the matching functions into
// their callers (their self time to the caller, their callees moved up, equal paths merged),
// then focus re-roots at the outermost calls of the matching functions, merged path by path.
// The function rows, edges, summary and module times are then aggregated from the new tree as
// src/graph/aggregate.cpp does. Only what the node columns carry can be recomputed: calls,
// self, total, CPU, off-CPU and waiting for a CPU (preempted), samples; the other function
// columns are null ("-").

const viewMetrics = ['calls', 'self_ns', 'cpu_ns', 'offcpu_ns', 'preempted_ns', 'samples']
const viewNone = -2  // a node outside every kept subtree (focus)

// The model for a focus and a hide (RegExp or null each): `base` itself when neither is set.
function viewedModel(base, focusRe, hideRe) {
  if (!focusRe && !hideRe) return base
  const matching = re => {
    const set = new Uint8Array(base.functions.length)
    for (const f of base.doc.functions) set[f.id] = re.test(f.name) ? 1 : 0
    return set
  }
  let tree = baseTree(base)
  if (hideRe) tree = hiddenTree(tree, matching(hideRe))
  if (focusRe) tree = focusedTree(tree, matching(focusRe))
  const nodes = nodeColumns(depthFirst(tree), base.nodes)
  const model = buildModel(aggregateDocument(base, nodes))
  model.doc.summary.max_depth = model.n ? model.maxDepth + 1 : 0  // the model counts from 0, callprof from 1
  return model
}

// The embedded tree in the builder's shape: parent, function, inlined, base metric columns.
function baseTree(m) {
  const cols = m.nodes, metrics = {}
  for (const k of viewMetrics) if (cols[k]) metrics[k] = cols[k]
  const inl = new Uint8Array(m.n)
  if (cols.inlined) for (let i = 0; i < m.n; i++) inl[i] = cols.inlined[i] ? 1 : 0
  return { count: m.n, parent: m.parent, fid: m.fid, inl, m: metrics, stride: 2 * (m.functions.length + 1) }
}

// A tree under construction: child(p, f, inlined) finds or makes p's child for that function
// and kind (p = -1: the root), as CallTree::child does, so equal paths merge.
function treeBuilder(like) {
  const t = { count: 0, parent: [], fid: [], inl: [], m: {}, stride: like.stride, index: new Map() }
  for (const k of Object.keys(like.m)) t.m[k] = []
  t.child = (p, f, inl) => {
    const key = (p + 1) * t.stride + f * 2 + inl
    let c = t.index.get(key)
    if (c === undefined) {
      c = t.count++
      t.index.set(key, c)
      t.parent.push(p); t.fid.push(f); t.inl.push(inl)
      for (const k in t.m) t.m[k].push(0)
    }
    return c
  }
  t.add = (to, from, i, skipCalls) => {
    for (const k in t.m) if (!(skipCalls && k === 'calls')) t.m[k][to] += from.m[k][i]
  }
  return t
}

// hide.cpp: a hidden node's self metrics (not its calls) go to its nearest kept ancestor, and
// its children land there. What reaches the root is in no node (callprof drops it likewise:
// the grand total is the top-level nodes' total).
function hiddenTree(t, hide) {
  const out = treeBuilder(t), image = new Int32Array(t.count)
  for (let i = 0; i < t.count; i++) {
    const above = t.parent[i] < 0 ? -1 : image[t.parent[i]]
    if (hide[t.fid[i]]) {
      image[i] = above
      if (above >= 0) out.add(above, t, i, true)
    } else {
      image[i] = out.child(above, t.fid[i], t.inl[i])
      out.add(image[i], t, i, false)
    }
  }
  return out
}

// focus.cpp: the subtrees of the outermost matching nodes, merged under the root (a matching
// node becomes a top-level call whether it was inlined or called).
function focusedTree(t, focus) {
  const out = treeBuilder(t), image = new Int32Array(t.count)
  for (let i = 0; i < t.count; i++) {
    const above = t.parent[i] < 0 ? viewNone : image[t.parent[i]]
    if (above !== viewNone) image[i] = out.child(above, t.fid[i], t.inl[i])
    else if (focus[t.fid[i]]) image[i] = out.child(-1, t.fid[i], 0)
    else { image[i] = viewNone; continue }
    out.add(image[i], t, i, false)
  }
  return out
}

// The nodes in depth-first order (each subtree contiguous after its node, as the page's
// flame graph and tree expect): order[k] is the builder's node at position k.
function depthFirst(t) {
  const { start, list: kids } = childIndex(t.count, t.parent)  // data.js
  const order = new Int32Array(t.count), stack = []
  for (let k = start[t.count + 1] - 1; k >= start[t.count]; k--) stack.push(kids[k])
  for (let at = 0; stack.length;) {
    const i = stack.pop()
    order[at++] = i
    for (let k = start[i + 1] - 1; k >= start[i]; k--) stack.push(kids[k])
  }
  return { t, order }
}

// The document's node columns for the new tree: parents as new indices, totals (Σ of the
// subtree) and recursion levels (ancestors running the same function) recomputed.
function nodeColumns({ t, order }, like) {
  const n = t.count, position = new Int32Array(n)
  for (let k = 0; k < n; k++) position[order[k]] = k
  const parent = new Int32Array(n), fid = new Int32Array(n), level = new Int32Array(n)
  const base = {}
  for (const k in t.m) base[k] = new Float64Array(n)
  for (let k = 0; k < n; k++) {
    const i = order[k]
    parent[k] = t.parent[i] < 0 ? -1 : position[t.parent[i]]
    fid[k] = t.fid[i]
    for (const key in base) base[key][k] = t.m[key][i]
  }
  const cum = key => {
    if (!base[key]) return null
    const c = Float64Array.from(base[key])
    for (let k = n - 1; k >= 0; k--) if (parent[k] >= 0) c[parent[k]] += c[k]
    return c
  }
  const active = new Map(), path = []  // recursion levels along the current path
  for (let k = 0; k < n; k++) {
    while (path.length && path[path.length - 1] !== parent[k]) { const p = path.pop(); active.set(fid[p], active.get(fid[p]) - 1) }
    level[k] = active.get(fid[k]) || 0
    active.set(fid[k], level[k] + 1)
    path.push(k)
  }
  const inlined = like.inlined ? Array.from(order, i => t.inl[i] === 1) : null
  return {
    count: n, parent, function_id: fid, calls: base.calls, self_ns: base.self_ns, total_ns: cum('self_ns'),
    recursion_level: level, cpu_ns: base.cpu_ns || null, offcpu_ns: base.offcpu_ns || null,
    total_cpu_ns: cum('cpu_ns'), total_offcpu_ns: cum('offcpu_ns'),
    preempted_ns: base.preempted_ns || null, total_preempted_ns: cum('preempted_ns'),
    samples: base.samples || null, total_samples: cum('samples'), inlined,
  }
}

// The document as callprof would write it for the new tree: function rows and edges as
// aggregate.cpp makes them (self: Σ over the nodes; total: Σ over the outermost ones;
// recursive calls: calls below an outer instance), the summary (but its max_depth, which
// viewedModel takes from buildModel's depths), and module self times. Threads, processes,
// system calls and the per-thread breakdowns describe the whole recording, as with
// --focus/--hide in callprof. `base`: the model of the embedded document.
function aggregateDocument(base, nodes) {
  const doc = base.doc
  const { functions, edges } = aggregateRows(base.functions, nodes)
  let total = 0, calls = 0, recursive = 0, deepest = null
  for (let k = 0; k < nodes.count; k++) {
    if (nodes.parent[k] < 0) total += nodes.total_ns[k]
    calls += nodes.calls[k]
    if (nodes.recursion_level[k] > 0) recursive += nodes.calls[k]
    if (nodes.recursion_level[k] > (deepest ? deepest.level : 0)) deepest = { k, level: nodes.recursion_level[k] }
  }
  const summary = Object.assign({}, doc.summary, {
    nodes: nodes.count, edges: edges.filter(e => e.caller_id !== null).length, functions: functions.length,
    calls, recursive_calls: recursive, indirect_calls: null, total_ns: total,
    deepest_recursion: deepest ? { function: base.functions[nodes.function_id[deepest.k]].name, level: deepest.level } : null,
  })
  return Object.assign({}, doc, { nodes, functions, edges, summary, modules: moduleRows(doc.modules, functions) })
}

// Function and edge rows, by function id and by (caller id, callee id) ascending,
// <spontaneous> edges (caller_id null) last. `byId`: the embedded function rows by id.
function aggregateRows(byId, nodes) {
  const n = nodes.count, rows = new Map(), pairs = new Map()
  const stride = byId.length + 1
  const has = k => Boolean(nodes[k])
  const rowOf = id => {
    let r = rows.get(id)
    if (!r) {
      const f = byId[id]
      r = {}
      for (const key of Object.keys(f)) r[key] = null  // what the nodes cannot give: "-"
      Object.assign(r, { id, name: f.name, short_name: f.short_name, kind: f.kind, module: f.module, file: f.file, line: f.line,
        calls: 0, recursive_calls: 0, self_ns: 0, total_ns: 0 })
      if (has('cpu_ns')) Object.assign(r, { cpu_ns: 0, offcpu_ns: 0, total_cpu_ns: 0, total_offcpu_ns: 0 })
      // callprof writes the key only when some node waited: so does the view.
      if (has('preempted_ns') && 'preempted_ns' in f) Object.assign(r, { preempted_ns: 0, total_preempted_ns: 0 })
      if (has('samples')) Object.assign(r, { samples: 0, total_samples: 0 })
      rows.set(id, r)
    }
    return r
  }
  const edgeOf = (caller, callee) => {
    const key = (caller + 1) * stride + callee
    let e = pairs.get(key)
    if (!e) {
      e = { caller_id: caller < 0 ? null : caller, callee_id: callee, calls: 0, recursive_calls: 0, self_ns: 0, total_ns: 0,
        cpu_ns: has('cpu_ns') ? 0 : null, offcpu_ns: has('offcpu_ns') ? 0 : null,
        preempted_ns: has('preempted_ns') ? 0 : null }
      pairs.set(key, e)
    }
    return e
  }
  for (let k = 0; k < n; k++) {
    const f = nodes.function_id[k], outer = nodes.recursion_level[k] === 0
    const p = nodes.parent[k]
    for (const x of [rowOf(f), edgeOf(p < 0 ? -1 : nodes.function_id[p], f)]) {
      x.calls += nodes.calls[k]
      x.self_ns += nodes.self_ns[k]
      if (outer) x.total_ns += nodes.total_ns[k]
      else x.recursive_calls += nodes.calls[k]
      if (has('cpu_ns')) { x.cpu_ns += nodes.cpu_ns[k]; x.offcpu_ns += nodes.offcpu_ns[k] }
      if (typeof x.preempted_ns === 'number') x.preempted_ns += nodes.preempted_ns[k]
    }
    const r = rowOf(f)
    if (has('cpu_ns') && outer) { r.total_cpu_ns += nodes.total_cpu_ns[k]; r.total_offcpu_ns += nodes.total_offcpu_ns[k] }
    if (outer && typeof r.total_preempted_ns === 'number') r.total_preempted_ns += nodes.total_preempted_ns[k]
    if (has('samples')) { r.samples += nodes.samples[k]; if (outer) r.total_samples += nodes.total_samples[k] }
  }
  const functions = [...rows.values()].sort((a, b) => a.id - b.id)
  const edges = [...pairs.values()].sort((a, b) =>
    (a.caller_id === null) - (b.caller_id === null) || (a.caller_id ?? 0) - (b.caller_id ?? 0) || a.callee_id - b.callee_id)
  return { functions, edges }
}

// Each module's calls, self time and functions summed over the new function rows.
function moduleRows(modules, functions) {
  const byPath = new Map()
  for (const f of functions) {
    if (!f.module) continue
    const m = byPath.get(f.module) || { calls: 0, self_ns: 0, functions: 0 }
    m.calls += f.calls; m.self_ns += f.self_ns; m.functions++
    byPath.set(f.module, m)
  }
  const seen = new Set()
  return modules.map(m => {
    const sums = !seen.has(m.path) && byPath.get(m.path)
    seen.add(m.path)
    return Object.assign({}, m, sums || { calls: 0, self_ns: 0, functions: 0 })
  })
}
