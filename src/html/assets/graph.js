// graph.js: the call graph drawn by `callprof graph` (Graphviz SVG, embedded as a JSON
// string), parsed as XML and cleaned of anything active before it joins the page. Nodes
// carry id="fnN" (N: the function id): a click selects that function. It opens fitted to the
// panel (its viewBox scaled to the panel's width and height); drag to pan, Ctrl + wheel to
// zoom. Graphviz laid it out for the report as written: under a focus or hide typed in the
// page (view.js) the functions the view leaves out are dimmed, not removed.

function graphPanel(app, graphData) {
  const panel = { id: 'graph', label: 'Call graph' }
  panel.build = section => {
    const svg = graphData.svg ? parseSvg(graphData.svg) : null
    if (!svg) {
      section.appendChild(el('div', { class: 'card placeholder' },
        el('div', { text: 'No call graph in this report.' }),
        el('div', { class: 'note', text: graphData.error ? shown(graphData.error, 400) : 'The SVG could not be read.' })))
      return
    }
    const wrap = el('div', { class: 'graph-wrap' })
    const size = svgSize(svg)
    let scale = 1
    const zoom = s => {
      scale = Math.max(0.05, Math.min(4, s))
      svg.style.width = `${size.width * scale}px`
      svg.style.height = `${size.height * scale}px`
      label.textContent = `${Math.round(scale * 100)}%`
    }
    const label = el('span', { class: 'count', id: 'graph-zoom' })
    const fit = () => zoom(Math.min(1, (wrap.clientWidth - 16) / size.width, (wrap.clientHeight - 16) / size.height))
    section.appendChild(el('div', { class: 'toolbar' },
      el('button', { class: 'btn', onclick: () => zoom(scale / 1.25) }, '\u2212'),
      el('button', { class: 'btn', onclick: () => zoom(scale * 1.25) }, '+'),
      el('button', { class: 'btn', id: 'graph-fit', onclick: fit }, 'fit'),
      el('button', { class: 'btn', onclick: () => zoom(1) }, '100%'), label, el('span', { class: 'grow' }),
      el('span', { class: 'legend' },
        el('span', null, el('span', { class: 'swatch', style: 'background:#d7301f' }), 'hot'),
        el('span', null, el('span', { class: 'swatch', style: 'background:#fdd49e' }), 'cool'),
        'colour: self time; edge width: time along the edge; click a function to select it, drag to move, Ctrl + wheel to zoom')))
    if (app.model !== app.base) {
      section.appendChild(el('p', { class: 'note', id: 'graph-view-note', text: 'Laid out for the whole report: the functions the focus or hide leaves out are dimmed, and the boxes keep the report\'s numbers. For a graph of this view alone: callprof graph --focus / --hide.' }))
      dimOutside(svg, app.model)
    }
    wrap.appendChild(svg)
    section.appendChild(wrap)
    svg.addEventListener('click', e => {
      if (e.target.closest('a')) e.preventDefault()  // the legend's in-page anchor
      const node = e.target.closest('g.node')
      const id = node && /^fn(\d+)$/.exec(node.id)
      if (id && app.model.functions[Number(id[1])]) app.select(Number(id[1]))
    })
    dragToPan(wrap)
    // Ctrl + wheel zooms (the wheel alone scrolls the panel, as everywhere in the page).
    wrap.addEventListener('wheel', e => {
      if (!e.ctrlKey) return
      e.preventDefault()
      zoom(scale * wheelZoomFactor(e))
    }, { passive: false })
    panel.svg = svg
    panel.fit = fit
    panel.fitted = false
  }
  panel.onShow = () => {
    if (panel.svg && !panel.fitted && panel.section.clientWidth) { panel.fitted = true; panel.fit() }
  }
  panel.onSelect = id => {
    if (!panel.svg) return
    for (const g of panel.svg.querySelectorAll('g.node.selected')) g.classList.remove('selected')
    const g = panel.svg.querySelector(`g.node[id="fn${Number(id)}"]`)
    if (g) g.classList.add('selected')
  }
  return panel
}

// Dims the nodes of functions the model lacks, and the edges from or to them (an edge's
// title is "nA->nB", the DOT names that the nodes' titles hold).
function dimOutside(svg, model) {
  const outside = new Set()
  for (const g of svg.querySelectorAll('g.node')) {
    const id = /^fn(\d+)$/.exec(g.id)
    if (!id || model.functions[Number(id[1])]) continue
    g.classList.add('outside')
    outside.add(g.querySelector('title').textContent)
  }
  for (const g of svg.querySelectorAll('g.edge')) {
    const [from, to] = g.querySelector('title').textContent.split('->')
    if (outside.has(from) || outside.has(to)) g.classList.add('outside')
  }
}

// The drawing's size in CSS pixels at 100 %: its viewBox is in points (Graphviz's units).
// Graphviz's fixed size (width="Wpt" height="Hpt") is dropped: the panel's zoom sizes it.
function svgSize(svg) {
  const box = svg.viewBox && svg.viewBox.baseVal
  const pt = v => parseFloat(v) || 0
  const width = box && box.width ? box.width : pt(svg.getAttribute('width')) || 600
  const height = box && box.height ? box.height : pt(svg.getAttribute('height')) || 400
  for (const a of ['width', 'height']) svg.removeAttribute(a)
  return { width: width * 4 / 3, height: height * 4 / 3 }
}

// The zoom factor of a wheel event, as src/render/graph_zoom.js (the SVG opened on its own)
// has it: 1.0015 per pixel of deltaY, a line (deltaMode 1, Firefox) counted as 30 pixels.
function wheelZoomFactor(e) {
  return Math.pow(1.0015, -e.deltaY * (e.deltaMode === 1 ? 30 : 1))
}

// Dragging scrolls the panel. The pointer is captured only once it has moved 4 pixels (as in
// src/render/graph_zoom.js), so a plain click still reaches the node under it (and a drag's
// end selects nothing).
function dragToPan(wrap) {
  let from = null
  wrap.addEventListener('pointerdown', e => {
    if (e.button === 0) from = { x: e.clientX, y: e.clientY, left: wrap.scrollLeft, top: wrap.scrollTop, id: e.pointerId, moved: false }
  })
  wrap.addEventListener('pointermove', e => {
    if (!from) return
    const dx = e.clientX - from.x, dy = e.clientY - from.y
    if (!from.moved && Math.abs(dx) + Math.abs(dy) >= 4) {
      from.moved = true
      wrap.setPointerCapture(from.id)
      wrap.classList.add('panning')
    }
    if (!from.moved) return
    wrap.scrollLeft = from.left - dx
    wrap.scrollTop = from.top - dy
  })
  const end = () => { from = null; wrap.classList.remove('panning') }
  wrap.addEventListener('pointerup', end)
  wrap.addEventListener('pointercancel', end)
}

// The SVG element, or null. Parsed as XML (not HTML), then stripped of scripts, foreign
// content, event handler attributes and links that are not in-page anchors.
function parseSvg(text) {
  const doc = new DOMParser().parseFromString(text, 'image/svg+xml')
  const root = doc.documentElement
  if (!root || root.nodeName !== 'svg' || doc.getElementsByTagName('parsererror').length) return null
  for (const bad of [...root.querySelectorAll('script, foreignObject, iframe, object, embed, use')]) bad.remove()
  for (const e of [root, ...root.querySelectorAll('*')]) {
    for (const a of [...e.attributes]) {
      const name = a.name.toLowerCase()
      const isLink = name === 'href' || name === 'xlink:href' || a.localName === 'href'
      if (name.startsWith('on') || (isLink && !a.value.startsWith('#'))) e.removeAttributeNode(a)
    }
  }
  return document.importNode(root, true)
}
