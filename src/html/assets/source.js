// source.js: the selected function's source as `callprof annotate` shows it: per line the
// samples that fell on it (and their share of the function's located samples), the calls
// made from it and the callees' time, one row per callee under its line. Lines, numbers and
// text come from the `callprof-source` block (src/html/source_data.h); the page reads no
// file. Source text is as untrusted as names: it goes in through textContent only, with
// control characters and bidirectional overrides shown as escapes (tabs kept).

function sourcePanel(app, data) {
  const panel = { id: 'source', label: 'Source' }
  const src = { data, byId: new Map((data.functions || []).map(f => [f.id, f])), leftOut: new Set(data.left_out || []) }
  panel.build = section => {
    panel.body = el('div')
    section.appendChild(panel.body)
    renderSource(app, src, panel.body)
  }
  panel.onSelect = () => panel.body && renderSource(app, src, panel.body)
  return panel
}

function renderSource(app, src, body) {
  clear(body)
  if (src.data.why) {
    body.appendChild(el('div', { class: 'card placeholder', id: 'source-why', text: `No source lines: ${src.data.why}.` }))
    return
  }
  const fn = app.selected === null ? null : src.byId.get(app.selected)
  if (!fn) {
    const why = app.selected === null ? 'Select a function (in any tab, or below) to see its source with the cost of each line.'
      : sourceWhyNot(app, src)
    body.appendChild(el('p', { class: 'note', id: 'source-why', text: why }))
    body.appendChild(sourceFunctionList(app, src))
  } else {
    body.appendChild(sourceHeader(app, src, fn))
    for (const file of fn.files) body.appendChild(sourceFile(app, src, fn, file))
    body.appendChild(el('p', { class: 'note', text: sourceNote(src) }))
  }
  if (src.data.missing.length) {
    body.appendChild(el('details', { class: 'note', id: 'source-missing' },
      el('summary', { text: `${fmtCount(src.data.missing.length)} source files not found` }),
      src.data.missing.map(m => el('div', { class: 'path', text: shown(m, 400) }))))
  }
}

// One line saying why the selected function has no source here.
function sourceWhyNot(app, src) {
  const name = shown(functionName(app.model, app.selected), 160)
  if (src.leftOut.has(app.selected)) {
    return `${name}: left out of this report, which holds the source of the ${fmtCount(src.data.limits.functions)} ` +
      'functions with the most located samples; `callprof annotate` shows it.'
  }
  const how = src.data.columns.samples ? '' : ' (this profile has no samples: record with -F HZ or --mode sample for samples per line)'
  return `No samples or call sites were located in ${name}${how}. Functions with source lines:`
}

function sourceNote(src) {
  const parts = []
  if (src.data.columns.samples) parts.push('Samples: on-CPU samples whose instruction was on the line (self); % is their share of the function\'s located samples.')
  if (src.data.columns.calls) parts.push('Calls: calls made from the line.')
  parts.push('Callees: the total time of the functions called from the line (a recursive call counts where it is outermost).',
    'Every calling context of the function is summed, over the whole recording (a focus or hide typed above does not change it). Click a callee to select it.')
  return parts.join(' ')
}

// The functions that have source data, most located samples first: one click selects.
function sourceFunctionList(app, src) {
  const cols = src.data.columns
  const calleeTime = f => f.files.reduce((sum, file) => sum + file.lines.reduce((s, l) => s + lineCallees(src, l).time, 0), 0)
  const columns = [col.name('name', 'function', f => app.model.functions[f.id] ? app.model.functions[f.id].short_name : f.name, f => f.name)]
  if (cols.samples) columns.push(col.count('samples', 'samples', f => f.samples, 'samples located on the function\'s lines'))
  if (cols.calls) columns.push(col.count('calls', 'calls', f => f.calls, 'calls of the function'))
  columns.push(col.time('callees', 'callees', calleeTime, 'total time of the functions called from its lines'),
    col.text('file', 'source', f => f.file ? `${shown(f.file, 80)}${f.line ? ':' + f.line : ''}${f.files.some(x => x.found) ? '' : ' (not found)'}` : null))
  const table = dataTable({
    columns, rows: src.data.functions, sort: { key: cols.samples ? 'samples' : 'callees', desc: true },
    rowKey: f => f.id, onRow: f => app.select(f.id), empty: 'no function has source lines',
  })
  return el('div', { class: 'scroll', id: 'source-functions' }, table.element)
}

function sourceHeader(app, src, fn) {
  const cols = src.data.columns, f = app.model.functions[fn.id]
  const facts = [
    cols.samples ? `${fmtCount(fn.samples)} samples on known lines of ${fmtCount(fn.self_samples)} in its own code` : null,
    cols.calls ? `${fmtCount(fn.calls)} calls, self ${fmtTime(fn.self_wall_ns)}` : null,
    f && cols.calls ? `total ${fmtTime(f.total_ns)}` : null,
    fn.file ? `${shown(fn.file, 120)}${fn.line ? ':' + fn.line : ''}` : null,
  ].filter(Boolean)
  return el('div', { class: 'card', id: 'source-function' },
    el('div', { class: 'fn-title', text: shown(fn.name, 1000) }),
    el('div', { class: 'facts' }, facts.map(t => el('span', { text: t })),
      el('button', { class: 'link', onclick: () => app.show('callers') }, 'callers/callees')))
}

// A line's calls summed: their count and the callees' time (wall in exact mode, else CPU).
function lineCallees(src, line) {
  let calls = 0, time = 0
  for (const c of line.calls || []) {
    calls += c.calls
    time += src.data.columns.calls ? c.wall_ns : c.cpu_ns
  }
  return { calls, time }
}

// Source text for the page: control characters and bidirectional overrides (Trojan Source)
// as visible escapes, tabs kept (the cell lays them out).
function sourceText(text) {
  return text.replace(controlChars, c => c === '\t' ? c : controlEscape(c))
}

// One file's lines: a heading with its path, then a table (gaps between lines shown as "…").
function sourceFile(app, src, fn, file) {
  const cols = src.data.columns
  const heads = [['line', 'line']]
  if (cols.samples) heads.push(['samples', 'samples'], ['share', '% of function'])
  if (cols.calls) heads.push(['calls', 'calls'])
  heads.push(['callees', 'callees'], ['text', 'source'])
  const tbody = el('tbody')
  let previous = 0
  for (const line of file.lines) {
    if (previous && line.line > previous + 1) tbody.appendChild(el('tr', { class: 'gap' }, el('td', { colspan: heads.length, text: '\u2026' })))
    previous = line.line
    tbody.appendChild(sourceLineRow(src, fn, file, line))
    for (const c of line.calls || []) tbody.appendChild(calleeRow(app, src, c))
  }
  const where = file.path ? shown(file.path, 400) : '(no line information)'
  const status = !file.path ? null : !file.found ? 'source not found: `callprof html --source-path DIR` looks elsewhere; the lines with costs alone'
    : file.text_left_out ? `source text left out: the report holds at most ${fmtBytes(src.data.limits.text_bytes)} of it; the lines with costs alone` : null
  return el('div', { class: 'source-file' },
    el('div', { class: 'source-path' }, el('span', { text: where }), status ? el('span', { class: 'muted', text: ` \u2014 ${status}` }) : null),
    el('div', { class: 'scroll' }, el('table', { class: 'data source' },
      el('thead', null, el('tr', null, heads.map(([key, label]) => el('th', { class: key === 'text' ? 'text' : null, dataset: { key } }, label)))),
      tbody)))
}

// A number cell with its exact value in data-value (as the other tables); empty for 0.
function numberCell(value, text) {
  return el('td', { class: 'num', dataset: { value: String(value) }, text: value ? text : '' })
}

function sourceLineRow(src, fn, file, line) {
  const cols = src.data.columns, samples = line.samples || 0
  const { calls, time } = lineCallees(src, line)
  const tr = el('tr', { class: 'src-line', dataset: { line: String(line.line) } },
    el('td', { class: 'lineno', text: line.line ? String(line.line) : '?' }))
  if (samples) tr.classList.add('sampled')
  if (cols.samples) append(tr, [numberCell(samples, fmtCount(samples)), el('td', { class: 'bar' }, samples ? pctBar(samples, fn.samples) : null)])
  if (cols.calls) tr.appendChild(numberCell(calls, fmtCount(calls)))
  tr.appendChild(numberCell(time, fmtTime(time)))
  const code = el('td', { class: 'code' })
  if (line.text !== undefined) {
    code.textContent = sourceText(line.text)
    if (line.cut) code.appendChild(el('span', { class: 'muted', title: `line cut at ${src.data.limits.line_bytes} bytes`, text: ' \u2026' }))
  } else {
    code.classList.add('muted')
    code.textContent = !line.line ? '(no line information)' : file.found && !file.text_left_out ? '(past the end of the file)' : ''
  }
  tr.appendChild(code)
  return tr
}

// A callee called from the line: its calls and time in the columns, a click selects it.
function calleeRow(app, src, c) {
  const cols = src.data.columns
  const time = cols.calls ? c.wall_ns : c.cpu_ns
  const name = app.model.functions[c.callee_id] ? app.model.functions[c.callee_id].short_name : c.callee
  const tr = el('tr', { class: 'callee clickable', dataset: { callee: String(c.callee_id) }, onclick: () => app.select(c.callee_id) },
    el('td'))
  if (cols.samples) append(tr, [el('td'), el('td')])
  if (cols.calls) tr.appendChild(numberCell(c.calls, fmtCount(c.calls)))
  tr.appendChild(numberCell(time, fmtTime(time)))
  tr.appendChild(el('td', { class: 'code callee-name', title: shown(c.callee, 2000) },
    `\u2192 ${shown(name, 200)}`, cols.samples && c.samples ? el('span', { class: 'muted', text: `  ${fmtCount(c.samples)} samples` }) : null))
  return tr
}
