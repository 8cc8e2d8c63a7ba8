// flame.js: the interaction of the flame graph SVG that src/render/flame_svg.cpp writes
// (embedded at build time by embed_script.cmake): hover details, click to zoom, search
// with the matched share, reset. Frames are read from the document as written: pre-order
// <g> elements in #frames, each <title>NAME\nNUMBERS</title><rect/>[<text/>]. Names are
// untrusted: they come from the XML parser's decoding of escaped text and go back into the
// document only through textContent, never as markup or code.
'use strict';
(() => {
  const svg = document.documentElement
  const attr = name => Number(svg.getAttribute('data-' + name))
  const pad = attr('pad'), row = attr('row'), top = attr('top'), maxDepth = attr('depth')
  const charWidth = attr('char'), icicle = attr('icicle') === 1
  const area = attr('width') - 2 * pad
  const highlight = '#e600e6'
  const $ = id => document.getElementById(id)
  const details = $('details'), matched = $('matched'), reset = $('reset'), input = $('search')
  const idleDetails = details.textContent

  // One record per frame, in document (pre-)order; `end` is one past its last descendant.
  const frames = []
  const indexOf = new Map()
  for (const g of $('frames').children) {
    const rect = g.querySelector('rect')
    const tip = g.querySelector('title').textContent
    const newline = tip.indexOf('\n')
    const y = Number(rect.getAttribute('y'))
    frames.push({
      g, rect, text: g.querySelector('text'), tip: tip.replace('\n', ' '),
      name: newline < 0 ? tip : tip.slice(0, newline),
      synthetic: g.hasAttribute('class'),  // the root and merged narrow frames: not searched
      fill: rect.getAttribute('fill'),
      x: Number(rect.getAttribute('x')) - pad, w: Number(rect.getAttribute('width')),
      depth: Math.round(icicle ? (y - top) / row : maxDepth - (y - top) / row),
      parent: -1, end: 0,
    })
    indexOf.set(g, frames.length - 1)
  }
  const open = []
  frames.forEach((f, i) => {
    while (open.length && frames[open[open.length - 1]].depth >= f.depth) frames[open.pop()].end = i
    f.parent = open.length ? open[open.length - 1] : -1
    open.push(i)
  })
  while (open.length) frames[open.pop()].end = frames.length

  // The label that fits `px` pixels: the whole name, or its start and "..", or nothing.
  function label(name, px) {
    const chars = Math.floor((px - 6) / charWidth)
    if (name.length <= chars) return name
    return chars < 3 ? '' : name.slice(0, chars - 2) + '..'
  }

  function place(f, x, w, faded) {
    f.g.style.display = ''
    f.rect.setAttribute('x', (pad + x).toFixed(4))
    f.rect.setAttribute('width', w.toFixed(4))
    f.g.style.opacity = faded ? '0.5' : ''
    const text = label(f.name, w)
    if (!f.text && text === '') return
    if (!f.text) {
      f.text = document.createElementNS('http://www.w3.org/2000/svg', 'text')
      f.text.setAttribute('y', (Number(f.rect.getAttribute('y')) + 10.5).toString())
      f.g.appendChild(f.text)
    }
    f.text.setAttribute('x', (pad + x + 3).toFixed(2))
    f.text.textContent = text
  }

  // Zoom to frame i: it and its callees fill the width, its callers stay (faded) below it.
  function zoom(i) {
    const z = frames[i]
    const scale = area / z.w
    for (const f of frames) f.g.style.display = 'none'
    for (let a = z.parent; a >= 0; a = frames[a].parent) place(frames[a], 0, area, true)
    for (let k = i; k < z.end; k++) place(frames[k], (frames[k].x - z.x) * scale, frames[k].w * scale, false)
    reset.setAttribute('visibility', i === 0 ? 'hidden' : 'visible')
  }

  function percent(part, whole) {
    const p = whole > 0 ? (100 * part) / whole : 0
    return (p > 0 && p < 1 ? p.toFixed(2) : p.toFixed(1)) + '%'
  }

  // Highlights the frames whose name matches `term` (a regular expression, or plain text when
  // it is not a valid one) and shows their share of the whole, each nested match counted once.
  function search(term) {
    let test = () => false
    if (term !== '') {
      try {
        const re = new RegExp(term)
        test = name => re.test(name)
      } catch {
        test = name => name.includes(term)
      }
    }
    let width = 0, count = 0, coveredUntil = 0
    frames.forEach((f, i) => {
      const hit = !f.synthetic && test(f.name)
      f.rect.setAttribute('fill', hit ? highlight : f.fill)
      if (!hit) return
      count++
      if (i >= coveredUntil) {
        width += f.w
        coveredUntil = f.end
      }
    })
    matched.textContent = term === '' ? '' : `matched: ${percent(width, frames[0].w)} (${count} frames)`
  }

  $('frames').addEventListener('mouseover', e => {
    const f = frames[indexOf.get(e.target.parentNode)]
    if (f) details.textContent = f.tip
  })
  $('frames').addEventListener('mouseout', () => {
    details.textContent = idleDetails
  })
  $('frames').addEventListener('click', e => {
    const i = indexOf.get(e.target.parentNode)
    if (i !== undefined) zoom(i)
  })
  reset.addEventListener('click', () => zoom(0))
  input.addEventListener('input', () => search(input.value))
  window.addEventListener('keydown', e => {
    if ((e.ctrlKey || e.metaKey) && e.key === 'f') {
      e.preventDefault()
      input.focus()
      input.select()
    } else if (e.key === 'Escape') {
      input.value = ''
      search('')
      zoom(0)
    }
  })
})()
