// summary.js: the recording at a glance: size and shape of the tree, the hottest functions
// and edges, time by module, and what the recording lost.

function summaryPanel(app) {
  return { id: 'summary', label: 'Summary', build: section => buildSummary(app, section) }
}

function stat(label, value, sub, title) {
  return el('div', { class: 'stat', title }, el('div', { class: 'label', text: label }), el('div', { class: 'value', text: value }),
    sub ? el('div', { class: 'sub', text: sub }) : null)
}

function buildSummary(app, section) {
  const m = app.model, d = m.doc, s = d.summary, meta = d.metadata
  const cards = el('div', { class: 'cards' },
    stat('Total time', fmtTime(s.total_ns), m.sampled ? 'estimated from samples' : 'wall time of all call paths'),
    m.sampled ? stat('Samples', fmtCount(meta.sampling ? meta.sampling.samples : null), meta.sampling ? `${meta.sampling.event} at ${fmtCount(meta.sampling.frequency_hz)} Hz` : '')
      : stat('Calls', fmtCount(s.calls), `${fmtCount(s.recursive_calls)} recursive, ${fmtCount(s.indirect_calls)} indirect`),
    stat('Functions', fmtCount(s.functions), `${fmtCount(s.edges)} caller \u2192 callee edges`),
    stat('Call paths', fmtCount(s.nodes), `max depth ${fmtCount(s.max_depth)}`),
    stat('Threads', fmtCount(d.threads.length), `${fmtCount(d.processes.length)} process${d.processes.length === 1 ? '' : 'es'}`),
    s.deepest_recursion ? stat('Deepest recursion', fmtCount(s.deepest_recursion.level), shown(s.deepest_recursion.function, 60)) : null,
    meta.syscalls ? stat('System calls', fmtCount(meta.syscalls.events), `traced, ${d.syscalls.length} kinds`) : null,
  )
  section.appendChild(cards)

  const notes = recordingNotes(d)
  if (notes.length) section.appendChild(el('div', { class: 'card' }, notes.map(t => el('div', { class: 'note', text: t }))))

  const fnRows = d.functions.filter(f => f.kind === 'function' || f.kind === 'syscall' || f.kind === 'kernel')
  const bySelf = [...fnRows].sort((a, b) => b.self_ns - a.self_ns).slice(0, 10)
  const hotColumns = [
    col.name('name', 'function', f => f.short_name, f => f.name),
    m.sampled ? col.count('samples', 'samples', f => f.samples) : col.count('calls', 'calls', f => f.calls),
    col.time('self', 'self', f => f.self_ns),
    col.pct('selfpct', 'self %', f => f.self_ns, () => m.total),
    col.time('total', 'total', f => f.total_ns),
    col.pct('totalpct', 'total %', f => f.total_ns, () => m.total),
  ]
  if (m.cpu) hotColumns.push(col.time('cpu', 'cpu', f => f.cpu_ns), col.time('offcpu', 'off-cpu', f => f.offcpu_ns))
  section.appendChild(el('h3', { text: 'Hottest functions (self time)' }))
  section.appendChild(el('div', { class: 'scroll' },
    dataTable({ columns: hotColumns, rows: bySelf, sort: { key: 'self', desc: true }, rowKey: f => f.id,
      onRow: f => app.select(f.id, 'callers') }).element))

  const edges = [...d.edges].sort((a, b) => b.total_ns - a.total_ns).slice(0, 10)
  section.appendChild(el('h3', { text: 'Hottest edges (time along the edge)' }))
  section.appendChild(el('div', { class: 'scroll' }, dataTable({
    columns: [
      col.name('caller', 'caller', e => e.caller_id === null ? '<spontaneous>' : shortName(m, e.caller_id),
        e => e.caller_id === null ? '<spontaneous>' : functionName(m, e.caller_id)),
      col.name('callee', 'callee', e => shortName(m, e.callee_id), e => functionName(m, e.callee_id)),
      col.count('calls', 'calls', e => e.calls),
      col.time('total', 'total', e => e.total_ns),
      col.pct('totalpct', 'total %', e => e.total_ns, () => m.total),
    ],
    rows: edges, sort: { key: 'total', desc: true }, onRow: e => app.select(e.callee_id, 'callers'),
  }).element))

  const modules = d.modules.filter(x => x.functions > 0)
  if (modules.length) {
    section.appendChild(el('h3', { text: 'Time by module (self)' }))
    section.appendChild(el('div', { class: 'scroll' }, dataTable({
      columns: [
        col.name('path', 'module', x => x.path),
        col.count('calls', 'calls', x => x.calls),
        col.time('self', 'self', x => x.self_ns),
        col.pct('selfpct', 'self %', x => x.self_ns, () => m.total),
        col.count('functions', 'functions', x => x.functions),
      ],
      rows: modules, sort: { key: 'self', desc: true },
    }).element))
  }
}

// How far the hooks' measured cost had moved by a process's exit (docs/design.md, "Compensation").
function changeAtExit(exact) {
  const change = exact && exact.calibration_change_at_exit
  if (typeof change !== 'number') return ''
  const percent = Math.round(100 * change)
  const said = ` Checked again at the exit, the hooks' cost had moved ${percent >= 0 ? '+' : ''}${percent}%`
  return said + (Math.abs(change) > 0.1 ? ': the machine\'s speed moved during the run, and self times are least sure where the hooks took much of them.' : '.')
}

// What the reader should know before trusting the numbers: compensation, losses, snapshots.
function recordingNotes(d) {
  const meta = d.metadata, notes = []
  if (d.compensated) notes.push('Times are compensated for the measured cost of the profiler\'s hooks (callprof html --raw shows them as measured).' + changeAtExit(meta.exact))
  if (meta.snapshot) notes.push('This profile is a snapshot taken while the program still ran.')
  const hc = d.hook_cost
  if (hc && hc.recorded_ns > 0 && hc.hook_ns >= 0.1 * hc.recorded_ns) {
    let note = `The hooks took about ${fmtTime(hc.hook_ns)} of the threads' ${fmtTime(hc.recorded_ns)} (${fmtPct(hc.hook_ns, hc.recorded_ns)}: ${fmtCount(hc.hooked_calls)} calls through them).`
    const all = hc.auto_fold_all
    if (hc.hook_ns >= 0.2 * hc.recorded_ns && all.calls >= 0.1 * hc.hooked_calls)
      note += ` callprof record --auto-fold all would unhook about ${fmtPct(all.calls, hc.hooked_calls)} of them (${fmtCount(all.functions)} small functions, their time then their callers').`
    const wrappers = hc.auto_fold_wrappers
    if (hc.hook_ns >= 0.2 * hc.recorded_ns && wrappers && wrappers.calls - all.calls >= 0.1 * hc.hooked_calls)
      note += ` --auto-fold wrappers would unhook about ${fmtPct(wrappers.calls, hc.hooked_calls)} (thin wrappers too: their own time then their callers', the calls they make under their callers).`
    // Beside a caller's own work the hooks cost less than compensation removes (docs/modes.md).
    if (hc.hook_ns >= 0.5 * hc.recorded_ns && !meta.sampling)
      note += ' Self times are least sure where the hooks took most of the time: callprof record -F 999 adds samples of where the CPU went.'
    notes.push(note)
  }
  if (meta.sampling) {
    const sm = meta.sampling
    if (sm.unwind === 'shadow-stack')
      notes.push(`Samples inside exact mode: ${sm.event} at ${fmtCount(sm.frequency_hz)} Hz, each under the exact call path that was running (its samples column); ${fmtCount(sm.runtime_samples)} in callprof's runtime, not the program's.`)
    else
      notes.push(`Sampled: ${sm.event} at ${fmtCount(sm.frequency_hz)} Hz, ${sm.unwind || 'fp'} unwinding; times are estimates (samples \u00d7 period).`)
    if (sm.lost_samples || sm.lost_records) notes.push(`Lost: ${fmtCount(sm.lost_samples)} samples, ${fmtCount(sm.lost_records)} records.`)
    if (sm.truncated_stacks) notes.push(`${fmtCount(sm.truncated_stacks)} stacks could not be unwound to the program's or thread's start: they are under [truncated].`)
    if (sm.inlined_frames === false) notes.push('Inlined functions are not shown: their time is their callers\' (record --no-inline).')
  }
  if (meta.syscalls && meta.syscalls.lost_events) notes.push(`${fmtCount(meta.syscalls.lost_events)} system-call events were lost (ring full).`)
  const dropping = d.threads.filter(t => t.dropped_calls || t.depth_limited_calls || t.short_calls).length
  if (dropping) notes.push(`${dropping} thread${dropping === 1 ? ' has' : 's have'} calls that were not recorded (budgets, depth or duration limits; see Threads).`)
  const incomplete = d.processes.filter(p => !p.complete).length
  if (incomplete) notes.push(`${incomplete} process${incomplete === 1 ? ' has' : 'es have'} data only up to the last snapshot.`)
  return notes
}
