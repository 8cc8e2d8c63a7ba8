// The call graph SVG's pan and zoom when it is opened on its own (`callprof graph -o g.svg`):
// the picture opens fitted to the window (the root's viewBox at 100 % of it); the wheel
// zooms around the pointer, dragging pans, a double click (or Escape, or 0) fits it again,
// + and - zoom about the centre. Only the root's viewBox changes, so Graphviz's drawing and
// its tooltips stay as they are. The web report embeds the SVG without this script and zooms
// it its own way (src/html/assets/graph.js).
(function () {
  'use strict'
  var svg = document.documentElement
  if (!svg || !svg.viewBox || !svg.viewBox.baseVal || !svg.viewBox.baseVal.width) return
  var base = svg.viewBox.baseVal
  var fit = { x: base.x, y: base.y, w: base.width, h: base.height }
  // The fitted viewBox as written: baseVal holds single-precision numbers ("1976.11" reads
  // back as 1976.1099853515625), so fitting again puts the attribute itself back.
  var fitText = svg.getAttribute('viewBox')
  var view = { x: fit.x, y: fit.y, w: fit.w, h: fit.h }
  var drag = null

  function show() {
    svg.setAttribute('viewBox', [view.x, view.y, view.w, view.h].join(' '))
  }

  // A point of the window in the drawing's coordinates.
  function at(clientX, clientY) {
    var p = svg.createSVGPoint()
    p.x = clientX
    p.y = clientY
    return p.matrixTransform(svg.getScreenCTM().inverse())
  }

  // Zooms by `factor` (> 1: in) keeping the drawing's point under (clientX, clientY) there.
  function zoom(factor, clientX, clientY) {
    var w = Math.min(fit.w * 2, Math.max(fit.w / 40, view.w / factor))
    factor = view.w / w
    var before = at(clientX, clientY)
    view.w = w
    view.h /= factor
    show()
    var after = at(clientX, clientY)
    view.x += before.x - after.x
    view.y += before.y - after.y
    show()
  }

  function reset() {
    view = { x: fit.x, y: fit.y, w: fit.w, h: fit.h }
    svg.setAttribute('viewBox', fitText)
  }

  // The same factor as the web report's graph panel (src/html/assets/graph.js, wheelZoomFactor).
  svg.addEventListener('wheel', function (e) {
    e.preventDefault()
    zoom(Math.pow(1.0015, -e.deltaY * (e.deltaMode === 1 ? 30 : 1)), e.clientX, e.clientY)
  }, { passive: false })
  svg.addEventListener('pointerdown', function (e) {
    if (e.button === 0) drag = { x: e.clientX, y: e.clientY, view: { x: view.x, y: view.y }, id: e.pointerId, moved: false }
  })
  svg.addEventListener('pointermove', function (e) {
    if (!drag) return
    var dx = e.clientX - drag.x, dy = e.clientY - drag.y
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return
    if (!drag.moved) svg.setPointerCapture(drag.id)  // only now: a click still reaches its node
    drag.moved = true
    var scale = svg.getScreenCTM().a
    view.x = drag.view.x - dx / scale
    view.y = drag.view.y - dy / scale
    show()
  })
  svg.addEventListener('pointerup', function () { drag = null })
  svg.addEventListener('pointercancel', function () { drag = null })
  svg.addEventListener('dblclick', reset)
  document.addEventListener('keydown', function (e) {
    if (e.key === 'Escape' || e.key === '0') reset()
    else if (e.key === '+' || e.key === '=') zoom(1.25, innerWidth / 2, innerHeight / 2)
    else if (e.key === '-') zoom(0.8, innerWidth / 2, innerHeight / 2)
  })
})()
