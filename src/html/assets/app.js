// app.js: the page's frame: the header with the recording's facts, the tabs, the focus and
// hide of the view (view.js), the selected function and the location hash
// (#tab=flat&fn=12&focus=parse) that makes them linkable. Panels are built the first time
// they are shown, and again after the view changes.

function startApp() {
  const model = loadModel()
  const graphData = readJson('callprof-graph') || { error: 'no call graph in this report' }
  const sourceData = readJson('callprof-source') || { why: 'this report has no source data' }
  const app = { base: model, model, view: { focus: '', hide: '' }, selected: null, tab: null, panels: [] }
  app.panels = [
    summaryPanel(app), flatPanel(app), treePanel(app), callersPanel(app), sourcePanel(app, sourceData),
    graphPanel(app, graphData), flamePanel(app), syscallsPanel(app), threadsPanel(app),
  ]
  renderHeader(app)
  const tabs = document.getElementById('tabs'), panels = document.getElementById('panels')
  for (const p of app.panels) {
    p.section = el('section', { class: 'panel', id: `panel-${p.id}`, role: 'tabpanel' })
    p.button = el('button', { role: 'tab', id: `tab-${p.id}`, 'aria-selected': 'false', onclick: () => app.show(p.id) }, p.label)
    tabs.appendChild(p.button)
    panels.appendChild(p.section)
  }

  app.show = (id, keepHash) => {
    const p = app.panels.find(x => x.id === id) || app.panels[0]
    for (const q of app.panels) {
      const active = q === p
      q.section.classList.toggle('active', active)
      q.button.setAttribute('aria-selected', String(active))
    }
    app.tab = p.id
    if (!p.built) {
      p.built = true
      p.build(p.section)
      if (app.selected !== null && p.onSelect) p.onSelect(app.selected)
    }
    if (p.onShow) p.onShow()
    if (!keepHash) writeHash(app)
  }

  app.select = (id, tab) => {
    app.selected = id
    renderSelection(app)
    for (const p of app.panels) if (p.built && p.onSelect) p.onSelect(id)
    if (tab) app.show(tab)
    else writeHash(app)
  }

  app.setView = (focus, hide, keepHash) => setView(app, focus, hide, keepHash)
  renderViewBar(app)
  window.addEventListener('hashchange', () => readHash(app))
  readHash(app)
  document.body.dataset.ready = 'true'
  document.body.dataset.readyMs = performance.now().toFixed(0)  // since navigation start (bench/analysis)
}

function readHash(app) {
  const params = new URLSearchParams(location.hash.slice(1))
  const focus = params.get('focus') || '', hide = params.get('hide') || ''
  if (focus !== app.view.focus || hide !== app.view.hide) {
    document.getElementById('view-focus').value = focus
    document.getElementById('view-hide').value = hide
    setView(app, focus, hide, true)
  }
  const fn = params.get('fn')
  const id = fn !== null && /^\d+$/.test(fn) && app.model.functions[Number(fn)] ? Number(fn) : null
  if (id !== app.selected && id !== null) {
    app.selected = id
    renderSelection(app)
    for (const p of app.panels) if (p.built && p.onSelect) p.onSelect(id)
  }
  app.show(params.get('tab') || app.tab || 'summary', true)
}

function writeHash(app) {
  const params = new URLSearchParams()
  params.set('tab', app.tab)
  if (app.selected !== null) params.set('fn', String(app.selected))
  if (app.view.focus) params.set('focus', app.view.focus)
  if (app.view.hide) params.set('hide', app.view.hide)
  const hash = '#' + params.toString()
  if (location.hash !== hash) history.replaceState(null, '', hash)
}

function renderHeader(app) {
  const d = app.model.doc, meta = d.metadata, s = d.summary
  const command = meta.command || '(unknown command)'
  document.title = `callprof: ${shown(command, 80)}`
  const cmd = document.getElementById('command')
  cmd.textContent = shown(command, 400)
  cmd.title = shown(command, 2000)
  const facts = document.getElementById('facts')
  const fact = (label, value, title) => el('span', { title }, label ? `${label} ` : '', el('b', { text: value }))
  append(facts, [
    el('span', { class: 'badge', text: meta.mode || 'unknown' }),
    fact('total', fmtTime(s.total_ns), 'the grand total: wall time of every top-level call path'),
    meta.duration_ns ? fact('recorded', fmtTime(meta.duration_ns)) : null,
    s.sampled ? fact('samples', fmtCount(meta.sampling ? meta.sampling.samples : null)) : fact('calls', fmtCount(s.calls)),
    fact('functions', fmtCount(s.functions)),
    fact('call paths', fmtCount(s.nodes)),
    fact('threads', fmtCount(d.threads.length)),
    d.processes.length > 1 ? fact('processes', fmtCount(d.processes.length)) : null,
    meta.hostname ? fact('host', shown(meta.hostname, 60)) : null,
    d.compensated ? el('span', { title: 'times have the measured cost of the hooks subtracted (--raw: as measured)' }, 'compensated') : null,
  ])
}

function renderSelection(app) {
  const box = document.getElementById('selection')
  clear(box)
  if (app.selected === null) { box.hidden = true; return }
  const f = app.model.functions[app.selected]
  box.hidden = false
  append(box, [
    el('span', { class: 'muted' }, 'selected'),
    el('span', { class: 'name', title: shown(f.name, 2000), text: shown(f.short_name, 120) }),
    el('button', { class: 'btn', onclick: () => app.show('callers') }, 'callers/callees'),
    el('button', { class: 'btn', id: 'selection-source', onclick: () => app.show('source') }, 'source'),
  ])
}

// The focus and hide boxes: Enter or "apply" recomputes every view (an invalid expression
// is marked and changes nothing), "reset" returns to the report as written.
function renderViewBar(app) {
  const box = (id, label, help) => el('input', { type: 'search', id, class: 'view-input', placeholder: label, 'aria-label': label, title: help, dataset: { help }, spellcheck: 'false' })
  const focus = box('view-focus', 'focus (regular expression)', 'only what the matching functions did, whatever called them: they become the top of every view and their total is the 100 %')
  const hide = box('view-hide', 'hide (regular expression)', 'fold the matching functions into their callers: their self time goes to the caller, their callees move up')
  const apply = () => setView(app, focus.value.trim(), hide.value.trim())
  for (const input of [focus, hide]) input.addEventListener('keydown', e => { if (e.key === 'Enter') apply() })
  append(document.getElementById('viewbar'), [
    el('span', { class: 'muted', text: 'view' }), focus, hide,
    el('button', { class: 'btn', id: 'view-apply', onclick: apply }, 'apply'),
    el('button', { class: 'btn', id: 'view-reset', onclick: () => { focus.value = ''; hide.value = ''; apply() } }, 'reset'),
    el('span', { class: 'count', id: 'view-status' }),
  ])
}

// Applies a focus and a hide: a new model, and every built panel built again from it.
function setView(app, focusText, hideText, keepHash) {
  const inputs = [[document.getElementById('view-focus'), focusText], [document.getElementById('view-hide'), hideText]]
  const compiled = inputs.map(([input, text]) => compileInput(input, text))
  if (compiled.some(c => c.error)) return false
  app.view = { focus: focusText, hide: hideText }
  app.model = viewedModel(app.base, compiled[0].re, compiled[1].re)
  if (app.selected !== null && !app.model.functions[app.selected]) { app.selected = null; renderSelection(app) }
  const status = document.getElementById('view-status')
  status.textContent = app.model === app.base ? '' : `${fmtCount(app.model.n)} of ${fmtCount(app.base.n)} call paths, ` +
    `${fmtCount(app.model.doc.functions.length)} functions, total ${fmtTime(app.model.total)} (${fmtPct(app.model.total, app.base.total)} of the report)`
  document.body.classList.toggle('viewed', app.model !== app.base)
  for (const p of app.panels) {
    if (!p.built) continue
    clear(p.section)
    p.built = false
  }
  if (app.tab) app.show(app.tab, keepHash)
  return true
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', startApp)
else startApp()
