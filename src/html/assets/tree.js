// tree.js: the calling context tree as an expandable table. Rows exist only for the nodes
// whose parent is expanded (children are created when a node opens, 200 at a time), so a
// tree of a million paths costs what is on screen.

const treeBatch = 200

function treePanel(app) {
  const panel = { id: 'tree', label: 'Call tree' }
  panel.build = section => buildTree(app, panel, section)
  panel.onSelect = id => {
    if (!panel.rows) return
    for (const [node, tr] of panel.rows) tr.classList.toggle('selected', app.model.fid[node] === id)
  }
  return panel
}

function buildTree(app, panel, section) {
  const m = app.model, n = m.n, nodes = m.nodes
  const rows = new Map()  // node -> its tr
  const expanded = new Uint8Array(n + 1)
  let fnMatch = null  // by function id, while searching
  panel.rows = rows

  // [key, label, content of node i, its exact value]
  const columns = [
    ['name', 'call path', null],
    m.sampled ? ['samples', 'samples', i => fmtCount(nodes.samples[i]), i => nodes.samples[i]]
      : ['calls', 'calls', i => fmtCount(nodes.calls[i]), i => nodes.calls[i]],
    ['self', 'self', i => fmtTime(nodes.self_ns[i]), i => nodes.self_ns[i]],
    ['total', 'total', i => fmtTime(nodes.total_ns[i]), i => nodes.total_ns[i]],
    ['pct', 'total %', i => pctBar(nodes.total_ns[i], m.total, true), i => nodes.total_ns[i]],
  ]
  if (m.cpu) {
    columns.push(['cpu', 'cpu', i => fmtTime(nodes.cpu_ns[i]), i => nodes.cpu_ns[i]],
      ['offcpu', 'off-cpu', i => fmtTime(nodes.offcpu_ns[i]), i => nodes.offcpu_ns[i]])
    // Waiting for a CPU: cpu + off-cpu + preempted = self, shown where some node waited.
    if (nodes.preempted_ns && nodes.preempted_ns.some(v => v > 0))
      columns.push(['preempted', 'preempted', i => fmtTime(nodes.preempted_ns[i]), i => nodes.preempted_ns[i]])
  }
  const table = el('table', { class: 'data tree' },
    el('thead', null, el('tr', null, columns.map(([key, label]) => el('th', { class: key === 'name' ? 'text' : null }, label)))))
  const tbody = el('tbody')
  table.appendChild(tbody)

  function makeRow(i) {
    const fid = m.fid[i], depth = m.depth[i]
    const hasChildren = m.childStart[i + 1] > m.childStart[i]
    const toggle = el('span', { class: hasChildren ? 'toggle' : 'toggle leaf', text: hasChildren ? '\u25b8' : '\u00b7' })
    const f = m.functions[fid]
    const parentTotal = m.parent[i] >= 0 ? nodes.total_ns[m.parent[i]] : m.total
    const name = el('td', {
      class: 'name', style: `padding-left:${6 + 16 * Math.min(depth, 40)}px`,
      title: `${shown(functionName(m, fid), 2000)}\ndepth ${depth + 1}, recursion level ${nodes.recursion_level[i]}, ${fmtPct(nodes.total_ns[i], parentTotal)} of its caller's total`,
    }, toggle, f ? kindBadge(f.kind) : null, nodes.inlined && nodes.inlined[i] ? kindBadge('inlined') : null, shown(shortName(m, fid)))
    const tr = el('tr', { class: 'clickable', dataset: { node: String(i), depth: String(depth) } }, name,
      columns.slice(1).map(([key, , get, exact]) => el('td', { class: key === 'pct' ? 'bar' : null, dataset: { value: String(exact(i)) } }, get(i))))
    if (fid === app.selected) tr.classList.add('selected')
    if (fnMatch && fnMatch[fid]) tr.classList.add('match')
    // The triangle opens and closes; anywhere else also selects the function.
    tr.addEventListener('click', e => {
      if (hasChildren) expanded[i] ? collapse(i) : expand(i)
      if (e.target !== toggle) app.select(fid)
    })
    rows.set(i, tr)
    return tr
  }

  // Rows for children [from, to) of node p (n: the top level), inserted after `after`.
  function addChildren(p, from, to, after) {
    const kids = childrenOf(m, p)
    const frag = document.createDocumentFragment()
    for (let k = from; k < Math.min(to, kids.length); k++) frag.appendChild(makeRow(kids[k]))
    if (kids.length > to) {
      const depth = p === n ? 0 : m.depth[p] + 1
      const more = el('tr', { class: 'more', dataset: { depth: String(depth), more: String(p) } },
        el('td', { colspan: columns.length, style: `padding-left:${22 + 16 * Math.min(depth, 40)}px` },
          `${fmtCount(kids.length - to)} more `,
          el('button', { class: 'link', onclick: e => { e.stopPropagation(); more.remove(); addChildren(p, to, to + treeBatch * 5, lastRowOf(p)) } }, 'show more')))
      frag.appendChild(more)
    }
    if (after) after.after(frag)
    else tbody.appendChild(frag)
  }

  // The last row currently shown in p's subtree (p's own row when it has none).
  function lastRowOf(p) {
    let tr = rows.get(p)
    const depth = m.depth[p]
    while (tr.nextElementSibling && Number(tr.nextElementSibling.dataset.depth) > depth) tr = tr.nextElementSibling
    return tr
  }

  // Opens node i; `upTo`: a child that must be among the rows made.
  function expand(i, upTo) {
    if (expanded[i] || !rows.has(i)) return
    expanded[i] = 1
    const tr = rows.get(i)
    tr.querySelector('.toggle').textContent = '\u25be'
    let count = treeBatch
    if (upTo !== undefined) count = Math.max(count, childrenOf(m, i).indexOf(upTo) + 1)
    addChildren(i, 0, count, tr)
  }

  function collapse(i) {
    const tr = rows.get(i)
    expanded[i] = 0
    tr.querySelector('.toggle').textContent = '\u25b8'
    const depth = m.depth[i]
    while (tr.nextElementSibling && Number(tr.nextElementSibling.dataset.depth) > depth) {
      const next = tr.nextElementSibling
      if (next.dataset.node) { const k = Number(next.dataset.node); rows.delete(k); expanded[k] = 0 }
      next.remove()
    }
  }

  // Shows node i: every ancestor opened (making i's row if its siblings were cut short).
  function reveal(i) {
    const chain = []
    for (let a = i; a >= 0; a = m.parent[a]) chain.push(a)
    chain.reverse()
    for (let k = 0; k < chain.length - 1; k++) {
      const a = chain[k]
      if (!rows.has(chain[k + 1])) {
        if (expanded[a]) collapse(a)
        expand(a, chain[k + 1])
      }
    }
    return rows.get(i)
  }

  // Opening state: the top level, and the hottest path while it carries 5 % or more.
  addChildren(n, 0, treeBatch, null)
  let hot = childrenOf(m, n)[0]
  for (let d = 0; hot !== undefined && d < 12 && nodes.total_ns[hot] * 20 >= m.total; d++) {
    expand(hot)
    hot = childrenOf(m, hot)[0]
  }

  // Search: every path whose function matches, in depth-first order; Enter / "next" steps.
  const input = el('input', { type: 'search', placeholder: 'find function (regular expression)', 'aria-label': 'find in tree', spellcheck: 'false' })
  const status = el('span', { class: 'count' })
  let matches = [], current = -1
  const runSearch = () => {
    const { re, error } = compileInput(input)
    for (const tr of tbody.querySelectorAll('tr.match, tr.current')) tr.classList.remove('match', 'current')
    matches = []
    current = -1
    fnMatch = null
    if (error || !re) { status.textContent = ''; return }
    fnMatch = new Uint8Array(m.functions.length)
    for (const f of m.doc.functions) fnMatch[f.id] = re.test(f.name) ? 1 : 0
    for (let i = 0; i < n; i++) if (fnMatch[m.fid[i]]) matches.push(i)
    for (const [node, tr] of rows) if (fnMatch[m.fid[node]]) tr.classList.add('match')
    status.textContent = `${fmtCount(matches.length)} matching call path${matches.length === 1 ? '' : 's'}`
    if (matches.length) step(1)
  }
  const step = dir => {
    if (!matches.length) return
    current = (current + dir + matches.length) % matches.length
    for (const tr of tbody.querySelectorAll('tr.current')) tr.classList.remove('current')
    const tr = reveal(matches[current])
    if (tr) {
      tr.classList.add('current')
      tr.scrollIntoView({ block: 'center' })
    }
    status.textContent = `${fmtCount(current + 1)} of ${fmtCount(matches.length)} matching call paths`
  }
  input.addEventListener('input', debounce(runSearch, 200))
  input.addEventListener('keydown', e => { if (e.key === 'Enter') step(e.shiftKey ? -1 : 1) })
  const expandAll = () => { for (const i of [...rows.keys()]) if (!expanded[i] && m.depth[i] < 3) expand(i) }
  const collapseAll = () => { for (const i of childrenOf(m, n)) if (rows.has(i) && expanded[i]) collapse(i) }
  section.appendChild(el('div', { class: 'toolbar' }, input,
    el('button', { class: 'btn', onclick: () => step(-1) }, 'previous'),
    el('button', { class: 'btn', onclick: () => step(1) }, 'next'), status, el('span', { class: 'grow' }),
    el('button', { class: 'btn', onclick: expandAll }, 'expand 3 levels'),
    el('button', { class: 'btn', onclick: collapseAll }, 'collapse all')))
  section.appendChild(el('div', { class: 'scroll' }, table))
  section.appendChild(el('p', { class: 'note', text: 'One row per distinct call path: calls, self (time in the function itself on this path), total (with everything below it), and total as a share of the whole profile. Children are ordered by total time. Click \u25b8 to expand, a name to select its function.' }))
}
