// graph.js: the call graph drawn by `callprof graph` (Graphviz SVG, embedded as a JSON
// string), parsed as XML and cleaned of anything active before it joins the page. Nodes
// carry id="fnN" (N: the function id): a click selects that function.

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
    const width = parseFloat(svg.getAttribute('width')) || 800
    let scale = 1
    const zoom = s => {
      scale = Math.max(0.1, Math.min(4, s))
      svg.style.width = `${width * scale}pt`
      svg.style.height = 'auto'
      label.textContent = `${Math.round(scale * 100)}%`
    }
    const label = el('span', { class: 'count' })
    const fit = () => zoom(Math.min(1, (wrap.clientWidth - 20) / (width * 4 / 3)))
    section.appendChild(el('div', { class: 'toolbar' },
      el('button', { class: 'btn', onclick: () => zoom(scale / 1.25) }, '\u2212'),
      el('button', { class: 'btn', onclick: () => zoom(scale * 1.25) }, '+'),
      el('button', { class: 'btn', onclick: fit }, 'fit'),
      el('button', { class: 'btn', onclick: () => zoom(1) }, '100%'), label, el('span', { class: 'grow' }),
      el('span', { class: 'legend' },
        el('span', null, el('span', { class: 'swatch', style: 'background:#d7301f' }), 'hot'),
        el('span', null, el('span', { class: 'swatch', style: 'background:#fdd49e' }), 'cool'),
        'edge width: time along the edge; click a function to select it')))
    wrap.appendChild(svg)
    section.appendChild(wrap)
    svg.addEventListener('click', e => {
      const node = e.target.closest('g.node')
      const id = node && /^fn(\d+)$/.exec(node.id)
      if (id && app.model.functions[Number(id[1])]) app.select(Number(id[1]))
    })
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
