// data.js: the embedded JSON document (docs/json.md, with the tree as `nodes` columns) and the
// indexes the panels look things up in. Only structure is derived here (children lists,
// edges by function); every number shown comes from the document as it is, or, under a focus
// or hide typed in the page, from view.js's recomputation of it (docs/html.md).

function readJson(id) {
  const e = document.getElementById(id)
  return JSON.parse(e ? e.textContent : 'null')
}

function loadModel() {
  const doc = readJson('callprof-data')
  doc.edges = edgeObjects(doc.edges)
  return buildModel(doc)
}

// The indexes over a document whose edges are objects: the embedded one, or the one view.js
// derives from it for a focus or hide.
function buildModel(doc) {
  const functions = []  // by id
  for (const f of doc.functions) functions[f.id] = f
  const nodes = doc.nodes
  const n = nodes.count
  const model = {
    doc,
    functions,
    total: doc.summary.total_ns,
    // Samples first, no calls; not exact mode with samples inside it (calls and times
    // measured, the samples a column beside them).
    sampled: doc.summary.sampled && !(doc.metadata.sampling && doc.metadata.sampling.unwind === 'shadow-stack'),
    cpu: doc.functions.some(f => f.cpu_ns !== null),
    nodes,
    n,
    parent: Int32Array.from(nodes.parent),
    fid: Int32Array.from(nodes.function_id),
    depth: new Int32Array(n),
    maxDepth: 0,
    childStart: new Int32Array(n + 2),  // children of i: childList[childStart[i]..childStart[i+1]); n: the top level
    childList: new Int32Array(n),
    childSorted: new Uint8Array(n + 1),
    callersOf: new Map(),  // function id -> its incoming edges
    calleesOf: new Map(),
    threadsOf: new Map(),  // function id -> [{tid, pid, row}]
  }
  buildChildren(model)
  for (const e of doc.edges) {
    pushTo(model.callersOf, e.callee_id, e)
    if (e.caller_id !== null) pushTo(model.calleesOf, e.caller_id, e)
  }
  for (const t of doc.by_thread) for (const r of t.functions) pushTo(model.threadsOf, r.id, { tid: t.tid, pid: t.pid, row: r })
  return model
}

// The document's edge columns as one object per edge (caller_id null: <spontaneous>).
function edgeObjects(c) {
  const edges = new Array(c.count)
  for (let i = 0; i < c.count; i++) {
    edges[i] = {
      caller_id: c.caller_id[i] < 0 ? null : c.caller_id[i], callee_id: c.callee_id[i], calls: c.calls[i],
      recursive_calls: c.recursive_calls[i], self_ns: c.self_ns[i], total_ns: c.total_ns[i],
      cpu_ns: c.cpu_ns ? c.cpu_ns[i] : null, offcpu_ns: c.offcpu_ns ? c.offcpu_ns[i] : null,
      preempted_ns: c.preempted_ns ? c.preempted_ns[i] : null,
    }
  }
  return edges
}

function pushTo(map, key, value) {
  const list = map.get(key)
  if (list) list.push(value)
  else map.set(key, [value])
}

// Depths (from 0) and children lists in one pass over the depth-first order (a node's parent
// comes before it).
function buildChildren(m) {
  const { n, parent, depth } = m
  for (let i = 0; i < n; i++) {
    depth[i] = parent[i] < 0 ? 0 : depth[parent[i]] + 1
    if (depth[i] > m.maxDepth) m.maxDepth = depth[i]
  }
  childIndex(n, parent, m.childStart, m.childList)
}

// The children of each node of a tree given by its parents (< 0: a top-level node), in node
// order: those of i are list[start[i]..start[i+1]), the top level list[start[n]..start[n+1]).
// `start` (n + 2 entries) and `list` (n) are filled when given, and must be zero then.
function childIndex(n, parent, start = new Int32Array(n + 2), list = new Int32Array(n)) {
  for (let i = 0; i < n; i++) start[(parent[i] < 0 ? n : parent[i]) + 1]++
  for (let i = 0; i <= n; i++) start[i + 1] += start[i]
  const fill = start.slice(0, n + 1)
  for (let i = 0; i < n; i++) list[fill[parent[i] < 0 ? n : parent[i]]++] = i
  return { start, list }
}

// The children of node i (n: the top-level nodes), most total time first.
function childrenOf(m, i) {
  const from = m.childStart[i], to = m.childStart[i + 1]
  if (!m.childSorted[i]) {
    const total = m.nodes.total_ns
    m.childList.subarray(from, to).sort((a, b) => total[b] - total[a] || a - b)
    m.childSorted[i] = 1
  }
  return m.childList.subarray(from, to)
}

function functionName(m, id) {
  const f = m.functions[id]
  return f ? f.name : `<function #${id}>`
}

function shortName(m, id) {
  const f = m.functions[id]
  return f ? f.short_name : `<function #${id}>`
}

// The basename of a module path.
function baseName(path) {
  if (!path) return ''
  const i = path.lastIndexOf('/')
  return i < 0 ? path : path.slice(i + 1)
}
