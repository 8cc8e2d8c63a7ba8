// callers.js: the selected function as gprof shows it, but measured: who called it (with
// the calls, self and total time it spent on behalf of each caller), its own row, and what
// it called (with the time that flowed along each edge). All from the document's `edges`.

function callersPanel(app) {
  const panel = { id: 'callers', label: 'Callers / callees' }
  panel.build = section => {
    panel.picker = functionPicker(app)
    section.appendChild(el('div', { class: 'toolbar' }, panel.picker, el('span', { class: 'count', text: 'or select a function in any other tab' })))
    panel.body = el('div')
    section.appendChild(panel.body)
    renderCallers(app, panel)
  }
  panel.onSelect = () => panel.body && renderCallers(app, panel)
  return panel
}

// A search box listing the functions that match, most total time first.
function functionPicker(app) {
  const m = app.model
  const input = el('input', { type: 'search', placeholder: 'find a function', 'aria-label': 'find a function', spellcheck: 'false' })
  const results = el('div', { class: 'results', hidden: true })
  const byTotal = [...m.doc.functions].sort((a, b) => b.total_ns - a.total_ns)
  const update = () => {
    const { re, error } = compileInput(input)
    clear(results)
    if (error || !re) { results.hidden = true; return }
    const found = byTotal.filter(f => re.test(f.name)).slice(0, 30)
    for (const f of found) {
      results.appendChild(el('div', { title: shown(f.name, 2000), onclick: () => { results.hidden = true; input.value = ''; app.select(f.id) } },
        `${shown(f.short_name, 160)}  `, el('span', { class: 'muted', text: fmtTime(f.total_ns) })))
    }
    if (!found.length) results.appendChild(el('div', { class: 'muted', text: 'no function matches' }))
    results.hidden = false
  }
  input.addEventListener('input', debounce(update, 100))
  document.addEventListener('click', e => { if (!wrap.contains(e.target)) results.hidden = true })
  const wrap = el('div', { class: 'picker' }, input, results)
  return wrap
}

function renderCallers(app, panel) {
  const m = app.model, body = clear(panel.body)
  if (app.selected === null) {
    body.appendChild(el('div', { class: 'card placeholder', text: 'Select a function (click a row in Functions, Call tree, Call graph or Flame graph, or search above).' }))
    return
  }
  const f = m.functions[app.selected]
  const callers = m.callersOf.get(f.id) || []
  const callees = m.calleesOf.get(f.id) || []
  const cpu = m.cpu
  const fnNumbers = [
    m.sampled ? `${fmtCount(f.samples)} samples` : `${fmtCount(f.calls)} calls`,
    `self ${fmtTime(f.self_ns)} (${fmtPct(f.self_ns, m.total)})`,
    `total ${fmtTime(f.total_ns)} (${fmtPct(f.total_ns, m.total)})`,
    cpu ? `cpu ${fmtTime(f.cpu_ns)}, off-cpu ${fmtTime(f.offcpu_ns)}` : null,
    f.recursive_calls ? `${fmtCount(f.recursive_calls)} recursive calls` : null,
    f.module ? `module ${shown(baseName(f.module), 80)}` : null,
    f.file ? `${shown(f.file, 120)}${f.line ? ':' + f.line : ''}` : null,
  ].filter(Boolean)
  body.appendChild(el('div', { class: 'card', id: 'callers-function' },
    el('div', { class: 'fn-title', text: shown(f.name, 1000) }),
    el('div', { class: 'facts' }, kindBadge(f.kind), fnNumbers.map(t => el('span', { text: t })))))

  const edgeColumns = (side, label) => {
    const other = e => side === 'caller' ? e.caller_id : e.callee_id
    const columns = [
      col.name('name', label, e => other(e) === null ? '<spontaneous>' : shortName(m, other(e)), e => other(e) === null ? '<spontaneous>' : functionName(m, other(e))),
      col.count('calls', 'calls', e => e.calls, side === 'caller' ? 'calls of this function made by the caller' : 'calls of the callee made by this function'),
      col.time('self', 'self', e => e.self_ns, side === 'caller' ? 'this function\'s self time on behalf of the caller' : 'the callee\'s self time in these calls'),
      col.time('total', 'total', e => e.total_ns, 'the time that flowed along this edge'),
      col.pct('share', side === 'caller' ? '% of its total' : '% of this total', e => e.total_ns, () => f.total_ns,
        side === 'caller' ? 'share of this function\'s total time that came through this caller' : 'share of this function\'s total time spent in this callee'),
    ]
    if (cpu) columns.splice(4, 0, col.time('cpu', 'cpu', e => e.cpu_ns, 'self cpu time along the edge'))
    if (m.doc.edges.some(e => e.recursive_calls)) columns.splice(2, 0, col.count('recursive', 'recursive', e => e.recursive_calls))
    return columns
  }
  const go = id => id !== null && app.select(id)
  body.appendChild(el('h3', { text: `Called by (${callers.length})` }))
  body.appendChild(el('div', { class: 'scroll', id: 'callers-table' }, dataTable({
    columns: edgeColumns('caller', 'caller'), rows: callers, sort: { key: 'total', desc: true },
    onRow: e => go(e.caller_id), empty: 'no callers',
  }).element))
  body.appendChild(el('h3', { text: `Calls (${callees.length})` }))
  body.appendChild(el('div', { class: 'scroll', id: 'callees-table' }, dataTable({
    columns: edgeColumns('callee', 'callee'), rows: callees, sort: { key: 'total', desc: true },
    onRow: e => go(e.callee_id), empty: 'calls no function',
  }).element))
  body.appendChild(el('p', { class: 'note', text: 'Measured per caller, not apportioned: the callers\' calls, self and total add up to the function\'s; its self plus its callees\' totals add up to its total (without recursion). A recursive edge has total 0: that time is in the outer call. Click a row to follow it.' }))

  const perThread = m.threadsOf.get(f.id) || []
  if (m.doc.threads.length > 1 && perThread.length) {
    body.appendChild(el('h3', { text: 'By thread' }))
    body.appendChild(el('div', { class: 'scroll' }, dataTable({
      columns: [
        col.text('tid', 'tid', r => r.tid), col.text('pid', 'pid', r => r.pid),
        col.text('thread', 'thread', r => { const t = m.doc.threads.find(x => x.tid === r.tid && x.pid === r.pid); return t ? shown(t.name, 60) : '' }),
        m.sampled ? col.count('samples', 'samples', r => r.row.samples) : col.count('calls', 'calls', r => r.row.calls),
        col.time('self', 'self', r => r.row.self_ns), col.time('total', 'total', r => r.row.total_ns),
        col.pct('share', '% of its total', r => r.row.total_ns, () => f.total_ns),
      ],
      rows: perThread, sort: { key: 'total', desc: true },
    }).element))
  }
}
