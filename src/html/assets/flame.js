// flame.js: the flame graph, drawn on a canvas from the document's node columns. A frame's
// width is its total_ns from the document; its position is geometry (its caller's start plus
// the widths of the siblings drawn before it, widest first). Click zooms into a frame (and
// selects its function), "reset" zooms out, the search box colours matching frames and says
// what share of the zoomed frame's time they cover. The canvas is as tall as the deepest path;
// on opening, zooming and turning, the panel scrolls to the roots (the bottom of a flame
// graph, the top of an icicle) or to the zoomed frame, not to empty space above the frames.

const flameRow = 18
const flameMaxRows = 1600  // canvases are limited to about 32,000 pixels
const flameMinWidth = 0.4  // narrower frames (and their callees) are not drawn

function flamePanel(app) {
  const panel = { id: 'flame', label: 'Flame graph' }
  panel.build = section => buildFlame(app, panel, section)
  panel.onShow = () => panel.draw && panel.draw()
  return panel
}

function flameColor(name, kind) {
  if (kind === 'syscall') return 'rgb(92,148,230)'
  if (kind === 'kernel') return 'rgb(230,150,70)'
  if (kind === 'pruned' || kind === 'truncated' || kind === 'thread_group' || kind === 'unhooked') return 'rgb(170,175,185)'
  let h = 2166136261
  for (let i = 0; i < Math.min(name.length, 64); i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619)
  const v1 = ((h >>> 0) % 1000) / 1000, v2 = ((h >>> 10) % 1000) / 1000
  return `rgb(${205 + Math.round(50 * v2)},${Math.round(80 + 150 * v1)},${Math.round(40 + 30 * v2)})`
}

function buildFlame(app, panel, section) {
  const m = app.model, n = m.n, nodes = m.nodes, total = nodes.total_ns
  const canvas = el('canvas', { 'aria-label': 'flame graph' })
  const wrap = el('div', { class: 'flame-wrap' }, canvas)
  const input = el('input', { type: 'search', placeholder: 'search (regular expression)', 'aria-label': 'search frames', spellcheck: 'false' })
  const matched = el('span', { class: 'count', id: 'flame-matched' })
  const where = el('span', { class: 'count' })
  let zoom = -1           // the zoomed node; -1: everything
  let fnMatch = null      // by function id, while searching
  let icicle = false
  let drawn = []          // per row: [x, w, node] triples of the frames drawn
  const colors = m.doc.functions.reduce((a, f) => { a[f.id] = flameColor(f.name, f.kind); return a }, [])
  let reveal = true       // scroll to the zoomed frame (the roots) at the next draw
  const redraw = () => { reveal = true; draw() }
  const orientation = el('button', { class: 'btn', id: 'flame-orientation', onclick: () => { icicle = !icicle; orientation.textContent = icicle ? 'flame' : 'icicle'; redraw() } }, 'icicle')
  section.appendChild(el('div', { class: 'toolbar' }, input, matched, el('span', { class: 'grow' }), where,
    el('button', { class: 'btn', id: 'flame-reset', onclick: () => { zoom = -1; redraw() } }, 'reset zoom'), orientation))
  section.appendChild(wrap)
  section.appendChild(el('p', { class: 'note', text: 'Each frame is a call path; its width is its total time, its callers are below it (above it in the icicle view), and callees are ordered widest first. Empty space above a frame is its self time. Click to zoom, search to highlight.' }))

  const rowsShown = Math.min(m.maxDepth + 2, flameMaxRows)
  const name = i => i < 0 ? 'all' : functionName(m, m.fid[i]) + (nodes.inlined && nodes.inlined[i] ? ' [inlined]' : '')
  const label = i => i < 0 ? 'all' : shortName(m, m.fid[i])
  const value = i => i < 0 ? m.total : total[i]

  function draw() {
    const width = wrap.clientWidth
    if (!width) return
    const dpr = window.devicePixelRatio || 1
    const height = rowsShown * flameRow
    canvas.width = Math.round(width * dpr)
    canvas.height = Math.round(height * dpr)
    canvas.style.width = `${width}px`
    canvas.style.height = `${height}px`
    const ctx = canvas.getContext('2d')
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0)
    ctx.clearRect(0, 0, width, height)
    ctx.font = '11px ui-monospace, "DejaVu Sans Mono", monospace'
    ctx.textBaseline = 'middle'
    const charWidth = ctx.measureText('abcdefghij').width / 10
    drawn = Array.from({ length: rowsShown }, () => [])
    const y = row => icicle ? row * flameRow : (rowsShown - 1 - row) * flameRow
    const frame = (i, row, x, w, dim) => {
      if (row >= rowsShown) return
      const fid = i < 0 ? -1 : m.fid[i]
      ctx.fillStyle = i < 0 ? 'rgb(200,205,215)' : fnMatch && fnMatch[fid] ? 'rgb(214,47,214)' : colors[fid] || 'rgb(200,200,200)'
      ctx.globalAlpha = dim ? 0.55 : 1
      ctx.fillRect(x + 0.5, y(row) + 0.5, Math.max(w - 1, 0.5), flameRow - 1)
      ctx.globalAlpha = 1
      const chars = Math.floor((w - 6) / charWidth)
      if (chars >= 3) {
        let text = shown(label(i), 300)
        if (text.length > chars) text = text.slice(0, chars - 1) + '\u2026'
        ctx.fillStyle = fnMatch && fid >= 0 && fnMatch[fid] ? '#fff' : '#1d2330'
        ctx.fillText(text, x + 3, y(row) + flameRow / 2 + 0.5)
      }
      drawn[row].push(x, w, i)
    }
    // The path to the zoomed frame, full width and dimmed, then the zoomed frame's subtree.
    const chain = []
    for (let a = zoom; a >= 0; a = m.parent[a]) chain.push(a)
    chain.push(-1)
    chain.reverse()
    chain.forEach((a, row) => frame(a, row, 0, width, a !== zoom))
    const scale = value(zoom) ? width / value(zoom) : 0
    const stack = [[zoom, chain.length - 1, 0]]
    while (stack.length) {
      const [p, row, x0] = stack.pop()
      let x = x0
      for (const c of childrenOf(m, p < 0 ? n : p)) {
        const w = total[c] * scale
        if (w >= flameMinWidth) {
          frame(c, row + 1, x, w, false)
          if (row + 2 < rowsShown) stack.push([c, row + 1, x])
        }
        x += w
      }
    }
    where.textContent = zoom < 0 ? '' : `zoomed: ${shown(shortName(m, m.fid[zoom]), 60)} (${fmtTime(total[zoom])})`
    updateMatched()
    if (reveal) { reveal = false; revealRow(chain.length - 1, y) }
  }

  // Scrolls so the row is at the edge of the view its callees grow away from: the bottom of
  // a flame graph (the roots, on opening), the top of an icicle.
  function revealRow(row, y) {
    wrap.scrollTop = icicle ? y(row) : Math.max(0, y(row) + flameRow - wrap.clientHeight)
  }

  // The share of the zoomed frame's time in matching frames, each counted once: a match
  // inside another match adds nothing (its time is in the outer one's total already).
  function updateMatched() {
    if (!fnMatch) { matched.textContent = ''; return }
    const from = zoom < 0 ? 0 : zoom
    const depth0 = zoom < 0 ? -1 : m.depth[zoom]
    let sum = 0, frames = 0
    for (let i = from; i < n; i++) {
      if (i > from && m.depth[i] <= depth0) break
      if (!fnMatch[m.fid[i]]) continue
      sum += total[i]
      frames++
      const d = m.depth[i]
      while (i + 1 < n && m.depth[i + 1] > d) i++
    }
    matched.textContent = `matched: ${fmtPct(sum, value(zoom))} (${fmtTime(sum)} in ${fmtCount(frames)} frame${frames === 1 ? '' : 's'})`
  }

  function frameAt(event) {
    const r = canvas.getBoundingClientRect()
    const x = event.clientX - r.left, yy = event.clientY - r.top
    const row = icicle ? Math.floor(yy / flameRow) : rowsShown - 1 - Math.floor(yy / flameRow)
    const list = drawn[row]
    if (!list) return null
    for (let k = 0; k < list.length; k += 3) if (x >= list[k] && x < list[k] + list[k + 1]) return { node: list[k + 2], row }
    return null
  }

  canvas.addEventListener('mousemove', e => {
    const hit = frameAt(e)
    if (!hit) { tooltip.hide(); canvas.style.cursor = 'default'; return }
    canvas.style.cursor = 'pointer'
    const i = hit.node
    const rowsText = i < 0 ? [`total ${fmtTime(m.total)}`] : [
      `total ${fmtTime(total[i])}: ${fmtPct(total[i], m.total)} of all${zoom >= 0 ? `, ${fmtPct(total[i], value(zoom))} of the zoomed frame` : ''}`,
      `self ${fmtTime(nodes.self_ns[i])}`,
      m.sampled ? `${fmtCount(nodes.samples[i])} samples (${fmtCount(nodes.total_samples[i])} with callees)` : `${fmtCount(nodes.calls[i])} calls`,
      `depth ${m.depth[i] + 1}`,
    ]
    tooltip.show(e, name(i), rowsText)
  })
  canvas.addEventListener('mouseleave', () => tooltip.hide())
  canvas.addEventListener('click', e => {
    const hit = frameAt(e)
    if (!hit) return
    zoom = hit.node
    if (zoom >= 0) app.select(m.fid[zoom])
    redraw()
  })
  input.addEventListener('input', debounce(() => {
    const { re, error } = compileInput(input)
    if (error) return
    fnMatch = null
    if (re) {
      fnMatch = new Uint8Array(m.functions.length)
      for (const f of m.doc.functions) fnMatch[f.id] = re.test(f.name) ? 1 : 0
    }
    draw()
  }, 150))
  if (window.ResizeObserver) new ResizeObserver(() => { if (panel.section.classList.contains('active')) draw() }).observe(wrap)
  panel.draw = draw
  panel.canvas = canvas
}
