// syscalls.js: traced system calls, per call (count, errors, durations) and, for the call
// chosen, every path of the program's functions that led to it.

function syscallsPanel(app) {
  const panel = { id: 'syscalls', label: 'System calls' }
  panel.build = section => {
    const m = app.model, calls = m.doc.syscalls
    if (!calls.length) {
      section.appendChild(el('div', { class: 'card placeholder', text: 'No system calls were traced in this recording (record with --syscalls or --mode syscall).' }))
      return
    }
    const grand = Math.max(...calls.map(c => c.total_ns))
    const paths = el('div')
    const table = dataTable({
      columns: [
        col.name('name', 'system call', c => c.name),
        col.count('calls', 'calls', c => c.calls),
        col.count('errors', 'errors', c => c.errors),
        col.text('errnos', 'errnos', c => Object.entries(c.errnos).map(([k, v]) => `${k} ${fmtCount(v)}`).join(', ') || null),
        col.time('total', 'total', c => c.total_ns),
        col.pct('share', 'of the busiest', c => c.total_ns, () => grand, 'total time as a share of the call with the most time'),
        col.time('avg', 'avg', c => c.avg_ns), col.time('min', 'min', c => c.min_ns), col.time('p50', 'p50', c => c.p50_ns),
        col.time('p99', 'p99', c => c.p99_ns), col.time('max', 'max', c => c.max_ns),
      ],
      rows: calls, sort: { key: 'total', desc: true }, rowKey: c => c.name,
      onRow: c => { table.setSelected(c.name); showPaths(app, c, paths) },
    })
    section.appendChild(el('div', { class: 'scroll', id: 'syscalls-table' }, table.element))
    section.appendChild(el('p', { class: 'note', text: 'Durations from entry to exit in the kernel; p50 and p99 from the duration histogram. Click a call for the paths that reach it.' }))
    section.appendChild(paths)
    const first = [...calls].sort((a, b) => b.total_ns - a.total_ns)[0]
    table.setSelected(first.name)
    showPaths(app, first, paths)
  }
  return panel
}

function showPaths(app, call, box) {
  clear(box)
  box.appendChild(el('h3', { text: `Paths to ${shown(call.name, 80)} (${fmtCount(call.paths.length)})` }))
  const pathCell = p => {
    if (!p.path.length) return el('span', { class: 'muted', text: '(no stack recorded)' })
    const span = el('span')
    p.path.forEach((name, k) => {
      if (k) span.appendChild(el('span', { class: 'sep', text: '\u203a' }))
      span.appendChild(document.createTextNode(shown(name, 160)))
    })
    return span
  }
  const table = dataTable({
    columns: [
      { key: 'path', label: 'called from (outermost first)', type: 'element', cls: 'path', get: pathCell, sortValue: p => p.path.join('\u0000') },
      col.count('calls', 'calls', p => p.calls), col.count('errors', 'errors', p => p.errors),
      col.time('total', 'total', p => p.total_ns), col.pct('share', `% of ${call.name}`, p => p.total_ns, () => call.total_ns),
    ],
    rows: call.paths, sort: { key: 'total', desc: true }, limit: 300, className: 'paths',
  })
  box.appendChild(el('div', { class: 'scroll' }, table.element))
}
