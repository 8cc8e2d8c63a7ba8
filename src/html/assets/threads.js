// threads.js: the processes (forks and exec images under their parent) and the threads,
// with who created each thread and at which call path, their times and what they lost.

function threadsPanel(app) {
  const panel = { id: 'threads', label: 'Threads & processes' }
  panel.build = section => {
    const d = app.model.doc
    section.appendChild(el('h3', { text: `Processes (${d.processes.length})` }))
    section.appendChild(el('div', { class: 'card', id: 'process-tree' }, processTree(d.processes)))
    section.appendChild(el('h3', { text: `Threads (${d.threads.length})` }))
    const start0 = d.threads.length ? Math.min(...d.threads.map(t => t.start_ns)) : 0
    const names = new Map(d.threads.map(t => [`${t.pid}/${t.tid}`, t.name]))
    const cpu = d.threads.some(t => t.cpu_ns !== null)
    const columns = [
      col.text('tid', 'tid', t => t.tid), col.text('pid', 'pid', t => t.pid),
      col.name('name', 'thread', t => t.name || '(unnamed)'),
      col.text('creator', 'created by', t => t.creator_tid === null ? null : `${t.creator_tid} ${shown(names.get(`${t.pid}/${t.creator_tid}`) || '', 40)}`),
      { key: 'at', label: 'at call path', type: 'element', cls: 'path', get: t => creatorPath(t.creator_path), sortValue: t => t.creator_path.join('\u0000') },
      col.name('routine', 'start routine', t => t.start_routine === null ? '-' : t.start_routine),
      col.time('start', 'start', t => t.start_ns - start0, 'time after the earliest thread start'),
      col.time('duration', 'duration', t => t.end_ns - t.start_ns),
      col.count('calls', 'calls', t => t.calls), col.time('total', 'total', t => t.total_ns),
      col.pct('share', 'total %', t => t.total_ns, () => app.model.total),
    ]
    if (cpu) columns.push(col.time('cpu', 'cpu', t => t.cpu_ns), col.time('offcpu', 'off-cpu', t => t.offcpu_ns))
    if (d.threads.some(t => t.preempted_ns > 0)) columns.push(col.time('preempted', 'preempted', t => t.preempted_ns, 'waiting for a CPU'))
    columns.push(col.text('state', 'state', t => t.finished ? 'finished' : 'running'),
      col.count('lost', 'not recorded', t => t.dropped_calls + t.depth_limited_calls + t.short_calls, 'calls not recorded: budgets, depth and duration limits'),
      col.count('lostev', 'lost events', t => t.lost_events))
    section.appendChild(el('div', { class: 'scroll', id: 'threads-table' },
      dataTable({ columns, rows: d.threads, sort: { key: 'start', desc: false } }).element))
    section.appendChild(el('p', { class: 'note', text: 'Start is relative to the first thread\'s start. Total: the thread\'s own call tree (wall time of its top-level calls).' }))
  }
  return panel
}

function creatorPath(path) {
  if (!path.length) return el('span', { class: 'muted', text: '-' })
  const span = el('span')
  const shownPath = path.length > 4 ? [path[0], '\u2026', ...path.slice(-2)] : path
  shownPath.forEach((name, k) => {
    if (k) span.appendChild(el('span', { class: 'sep', text: '\u203a' }))
    span.appendChild(document.createTextNode(name === '\u2026' ? name : shown(name, 80)))
  })
  span.title = path.map(p => shown(p, 200)).join(' > ')
  return span
}

// Each process under the image it came from: a fork under its parent, an exec image under
// the image before it.
function processTree(processes) {
  const box = el('div')
  const key = p => `${p.host || ''}/${p.pid}/${p.image}`
  const parentOf = p => {
    if (p.image > 0) return processes.find(q => q.pid === p.pid && q.image === p.image - 1 && q.host === p.host)
    if (p.ppid === null) return undefined
    const images = processes.filter(q => q.pid === p.ppid && q.host === p.host)
    return images[images.length - 1]
  }
  const children = new Map()
  const roots = []
  for (const p of processes) {
    const parent = parentOf(p)
    if (parent && parent !== p) {
      const k = key(parent)
      if (!children.has(k)) children.set(k, [])
      children.get(k).push(p)
    } else {
      roots.push(p)
    }
  }
  const seen = new Set()
  const walk = (p, depth) => {
    if (seen.has(key(p))) return
    seen.add(key(p))
    const facts = [`pid ${p.pid}`, p.image ? `image ${p.image}` : null, p.host ? `host ${shown(p.host, 40)}` : null,
      fmtTime(p.end_ns - p.start_ns), p.death_signal ? `killed by signal ${p.death_signal}` : null,
      p.complete ? null : 'incomplete: data up to last snapshot'].filter(Boolean)
    box.appendChild(el('div', { class: 'proc', style: `padding-left:${depth * 22}px` },
      depth ? el('span', { class: 'muted', text: '\u2514 ' }) : null,
      el('b', { text: shown(p.command || '(unknown)', 200) }), el('span', { class: 'muted', text: `  ${facts.join(', ')}` })))
    for (const c of children.get(key(p)) || []) walk(c, depth + 1)
  }
  for (const p of roots) walk(p, 0)
  if (!processes.length) box.appendChild(el('div', { class: 'muted', text: 'no process records' }))
  return box
}
