// flat.js: one row per function with every number the document has for it. Headers sort,
// the box filters names by regular expression, a click selects the function.

const metricLabels = {
  calls: 'calls', recursive_calls: 'recursive', indirect_calls: 'indirect', samples: 'samples', total_samples: 'total samples',
  self_ns: 'self', total_ns: 'total', min_self_ns: 'min self', max_self_ns: 'max self', cpu_ns: 'cpu', offcpu_ns: 'off-cpu',
  total_cpu_ns: 'total cpu', total_offcpu_ns: 'total off-cpu', preempted_ns: 'preempted', switches: 'switches',
  page_faults: 'faults', alloc_calls: 'allocs', alloc_bytes: 'alloc bytes', free_calls: 'frees', excluded_calls: 'excluded calls',
  syscalls: 'syscalls', syscall_ns: 'syscall time', syscall_errors: 'syscall errors',
}
const notMetrics = new Set(['id', 'name', 'short_name', 'kind', 'module', 'file', 'line'])

function metricLabel(key) {
  if (metricLabels[key]) return metricLabels[key]
  if (key.startsWith('total_') && metricLabels[key.slice(6)]) return 'total ' + metricLabels[key.slice(6)]
  return key.replace(/_ns$/, '').replace(/_/g, ' ')
}

function metricColumn(key) {
  const get = f => f[key]
  const title = `${key} (docs/json.md)`
  if (key.endsWith('_ns')) return col.time(key, metricLabel(key), get, title)
  if (key.endsWith('bytes')) return col.bytes(key, metricLabel(key), get, title)
  return col.count(key, metricLabel(key), get, title)
}

function kindBadge(kind) {
  return kind && kind !== 'function' ? el('span', { class: 'kind', text: kind }) : null
}

// Every column of the function rows, the ones shown by default first.
function functionColumns(m) {
  const fns = m.doc.functions
  const keys = fns.length ? Object.keys(fns[0]).filter(k => !notMetrics.has(k)) : []
  const present = k => fns.some(f => f[k] !== null && f[k] !== undefined && (f[k] !== 0 || k === 'calls' || k === 'self_ns'))
  const modules = new Set(fns.map(f => f.module)).size
  const name = col.name('name', 'function', f => f.short_name, f => f.name)
  name.decorate = f => kindBadge(f.kind)
  const columns = [name]
  const byKey = new Map(keys.filter(present).map(k => [k, metricColumn(k)]))
  const defaults = m.sampled ? ['samples', 'self_ns', 'selfpct', 'total_ns', 'totalpct']
    : ['calls', 'self_ns', 'selfpct', 'total_ns', 'totalpct', 'avg', 'cpu_ns', 'offcpu_ns']
  byKey.set('selfpct', col.pct('selfpct', 'self %', f => f.self_ns, () => m.total, 'self time as a share of the total'))
  byKey.set('totalpct', col.pct('totalpct', 'total %', f => f.total_ns, () => m.total, 'total time as a share of the total'))
  byKey.get('totalpct').blue = true
  if (!m.sampled) byKey.set('avg', col.time('avg', 'avg self', f => f.calls ? f.self_ns / f.calls : null, 'self time per call'))
  for (const k of defaults) if (byKey.has(k)) columns.push(byKey.get(k))
  for (const [k, c] of byKey) if (!defaults.includes(k)) { c.hidden = true; columns.push(c) }
  const moduleCol = col.text('module', 'module', f => baseName(f.module) || null)
  moduleCol.hidden = modules <= 1
  const source = col.text('source', 'source', f => f.file ? `${shown(f.file, 80)}${f.line ? ':' + f.line : ''}` : null)
  source.hidden = true
  columns.push(moduleCol, source)
  return columns
}

function flatPanel(app) {
  const panel = { id: 'flat', label: 'Functions' }
  panel.build = section => {
    const m = app.model
    const columns = functionColumns(m)
    const all = m.doc.functions
    const input = el('input', { type: 'search', placeholder: 'filter by regular expression', 'aria-label': 'filter functions', spellcheck: 'false' })
    const count = el('span', { class: 'count' })
    const table = dataTable({
      columns, rows: all, sort: { key: 'self_ns', desc: true }, limit: 1000,
      rowKey: f => f.id, onRow: f => app.select(f.id),
    })
    const apply = () => {
      const { re, error } = compileInput(input)
      if (error) return
      const rows = re ? all.filter(f => re.test(f.name)) : all
      table.update(rows)
      count.textContent = `${fmtCount(rows.length)} of ${fmtCount(all.length)} functions`
    }
    input.addEventListener('input', debounce(apply, 120))
    const menu = columnsMenu(columns, () => table.rerender())
    section.appendChild(el('div', { class: 'toolbar' }, input, count, el('span', { class: 'grow' }), menu))
    section.appendChild(el('div', { class: 'scroll' }, table.element))
    section.appendChild(el('p', { class: 'note', text: 'Self: time in the function itself. Total: with everything it called (the outermost instance of a recursive function only). Percentages are of the total time; avg self is self time per call. Click a header to sort, a row to select the function.' }))
    panel.table = table
    apply()
  }
  panel.onSelect = id => panel.table && panel.table.setSelected(id)
  return panel
}

// A "Columns" button with a checkbox per column (the name column always stays).
function columnsMenu(columns, changed) {
  const box = el('div', { class: 'menu', hidden: true })
  for (const c of columns) {
    if (c.type === 'name') continue
    const cb = el('input', { type: 'checkbox' })
    cb.checked = !c.hidden
    cb.addEventListener('change', () => { c.hidden = !cb.checked; changed() })
    box.appendChild(el('label', null, cb, ' ', c.label))
  }
  const button = el('button', { class: 'btn', onclick: () => { box.hidden = !box.hidden } }, 'Columns \u25be')
  document.addEventListener('click', e => { if (!wrap.contains(e.target)) box.hidden = true })
  const wrap = el('div', { class: 'columns-menu' }, button, box)
  return wrap
}
