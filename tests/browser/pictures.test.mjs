// Pictures that fit (issue 29.3), in headless Chromium from file:// with every other request
// refused, for examples/wordfreq and a deep recursive program (deep_calls.c):
// - `callprof graph`'s SVG opened alone fits the window, its legend overlaps no node, every
//   box's text (and the legend's) lies inside its box, every edge but those closing a
//   recursion points down, and the wheel zooms it (a double click fits it again);
// - the web report's flame graph opens with its roots in view (and the icicle's), its call
//   graph fits the panel, with the same checks on the SVG;
// - focus and hide typed in the page give exactly the functions (calls, self, total, and
//   recursive calls, CPU, off-CPU and samples wherever the profile has them), the top-level
//   call paths and one function's callers of `report --json --focus/--hide`, and survive a
//   reload through the location hash;
// no console error, no dialog, no request. Screenshots go to CALLPROF_PICTURES_DIR.
//
// Inputs (run_pictures.sh writes them): CALLPROF_PICTURES_DIR with NAME.callprof, NAME.svg,
// NAME.dot and NAME.html for wordfreq and deep; CALLPROF, the callprof binary this test asks
// for `report --json` with each program's focus and hide (kept beside them as
// NAME.expected.json, NAME.focus.json, NAME.hide.json and NAME.both.json).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import { assertClean, headerKeys, pageOpener, rowValues } from './harness.mjs'

const dir = process.env.CALLPROF_PICTURES_DIR
if (!dir) throw new Error('CALLPROF_PICTURES_DIR is not set (run this test through run_pictures.sh or ctest)')
const callprof = process.env.CALLPROF
if (!callprof) throw new Error('CALLPROF is not set (run this test through run_pictures.sh or ctest)')
const read = file => fs.readFileSync(path.join(dir, file), 'utf8')
const shot = (page, file) => page.screenshot({ path: path.join(dir, file) })
const flameRow = 18  // src/html/assets/flame.js

// Each program's settings: the focus and hide typed in the page (and given to report --json),
// and how many edges of its call graph close a cycle.
const programs = [
  { name: 'wordfreq', focus: 'count_words', hide: 'generate_corpus', backEdges: 0 },
  { name: 'deep', focus: 'is_odd', hide: 'descend', backEdges: 1 },  // is_odd -> is_even closes the mutual recursion
]

// `callprof report --json` of NAME.callprof with `options`, kept as NAME.SUFFIX.json.
function report(name, suffix, options) {
  const text = execFileSync(callprof, ['report', '-i', path.join(dir, `${name}.callprof`), '--json', '--no-pager', ...options],
    { encoding: 'utf8', maxBuffer: 1 << 28 })
  fs.writeFileSync(path.join(dir, `${name}.${suffix}.json`), text)
  return JSON.parse(text)
}

// Opens a file of CALLPROF_PICTURES_DIR (harness.mjs: requests, console errors and dialogs recorded).
const open = pageOpener(dir)

// In the page: the laid-out graph's geometry from Chromium's own text measurement, in the
// SVG's user units: the legend's box, each node's box and its text lines' boxes, each edge's
// ends (by DOT node name) and the y of each node's centre.
function graphGeometry(root) {
  const svg = document.querySelector(root)
  const box = e => { const b = e.getBBox(); return { x0: b.x, y0: b.y, x1: b.x + b.width, y1: b.y + b.height } }
  const legend = svg.querySelector('#a_legend')
  const legendTexts = legend ? [...legend.querySelectorAll('text')].map(t => ({ text: t.textContent, ...box(t) })) : []
  const nodes = [...svg.querySelectorAll('g.node')].map(g => ({
    id: g.id, name: g.querySelector('title').textContent,
    shape: box(g.querySelector('path, polygon')),
    texts: [...g.querySelectorAll('text')].map(t => ({ text: t.textContent, ...box(t) })),
  }))
  const edges = [...svg.querySelectorAll('g.edge')].map(g => g.querySelector('title').textContent.split('->'))
  return { legend: legend && box(legend.querySelector('polygon')), legendTexts, nodes, edges }
}

// The SVG's checks, whoever shows it. `dot`: the DOT text (which edges close a cycle).
function checkGraph(geometry, dot, where) {
  const { legend, legendTexts, nodes, edges } = geometry
  assert.ok(legend, `${where}: the legend is in the SVG`)
  assert.ok(nodes.length > 3, `${where}: nodes`)
  const overlaps = (a, b) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1
  const inside = (t, b) => t.x0 >= b.x0 - 0.5 && t.x1 <= b.x1 + 0.5 && t.y0 >= b.y0 - 0.5 && t.y1 <= b.y1 + 0.5
  assert.ok(legendTexts.length >= 5, `${where}: the legend's lines`)
  for (const t of legendTexts) assert.ok(inside(t, legend), `${where}: "${t.text}" spills out of the legend`)
  for (const n of nodes) {
    assert.ok(!overlaps(legend, n.shape), `${where}: the legend overlaps ${n.texts[0]?.text}`)
    for (const t of n.texts)
      assert.ok(inside(t, n.shape), `${where}: "${t.text}" spills out of its box (${JSON.stringify(t)} in ${JSON.stringify(n.shape)})`)
  }
  // Every edge that ranks points down; only those closing a cycle (constraint=false) may not.
  const centre = new Map(nodes.map(n => [n.name, (n.shape.y0 + n.shape.y1) / 2]))
  const back = new Set([...dot.matchAll(/\n {2}(n\d+) -> (n\d+) \[[^\n]*constraint=false/g)].map(m => `${m[1]}->${m[2]}`))
  for (const [from, to] of edges) {
    if (from === to || back.has(`${from}->${to}`)) continue
    assert.ok(centre.get(from) < centre.get(to), `${where}: ${from} -> ${to} points up`)
  }
  return back.size
}

for (const program of programs) {
  const { name } = program

  test(`${name}: the call graph SVG fits its window, legend and text clear of the nodes`, { timeout: 60000 }, async () => {
    const { context, page, seen } = await open(`${name}.svg`, { width: 1280, height: 800 })
    try {
      await shot(page, `${name}-graph-svg.png`)
      const fit = await page.evaluate(() => {
        const svg = document.documentElement
        const vb = svg.viewBox.baseVal
        return {
          width: svg.getAttribute('width'), height: svg.getAttribute('height'), vb: [vb.width, vb.height],
          scale: svg.getScreenCTM().a, window: [innerWidth, innerHeight],
          page: [document.scrollingElement.scrollWidth, document.scrollingElement.scrollHeight],
        }
      })
      assert.equal(fit.width, '100%')
      assert.equal(fit.height, '100%')
      const fitted = Math.min(fit.window[0] / fit.vb[0], fit.window[1] / fit.vb[1])
      assert.ok(Math.abs(fit.scale - fitted) < 0.001, `drawn at ${fit.scale} px/pt, fitted: ${fitted}`)
      assert.ok(fit.page[0] <= fit.window[0] && fit.page[1] <= fit.window[1], `no scrolling: ${fit.page}`)
      const backEdges = checkGraph(await page.evaluate(graphGeometry, 'svg'), read(`${name}.dot`), `${name}.svg`)
      assert.equal(backEdges, program.backEdges, 'edges that close a cycle')
      // The wheel zooms about the pointer; a double click fits the picture again.
      const viewBox = () => page.evaluate(() => document.documentElement.getAttribute('viewBox'))
      const fittedBox = await viewBox()
      await page.mouse.move(640, 300)
      await page.mouse.wheel(0, -600)
      await page.waitForFunction(box => document.documentElement.getAttribute('viewBox') !== box, fittedBox)
      const zoomed = (await viewBox()).split(' ').map(Number)
      assert.ok(zoomed[2] < fit.vb[0] / 2, `zoomed in: ${zoomed}`)
      await shot(page, `${name}-graph-svg-zoomed.png`)
      await page.mouse.dblclick(640, 300)
      assert.deepEqual((await viewBox()).split(' ').map(Number), fittedBox.split(' ').map(Number), 'a double click fits it again')
      assertClean(seen)
    } finally {
      await context.close()
    }
  })

  test(`${name}: the report's flame graph opens with its roots in view`, { timeout: 60000 }, async () => {
    const { context, page, seen } = await open(`${name}.html`, { hash: '#tab=flame' })
    try {
      // Where the root row lies and what is painted there (the root frame, "all", is painted
      // across the whole width in its own colour).
      const rootRowIn = rowHeight => {
        const canvas = document.querySelector('#panel-flame canvas')
        if (!canvas || !canvas.height) return null
        const wrap = canvas.parentElement
        const c = canvas.getBoundingClientRect(), w = wrap.getBoundingClientRect()
        const rows = Math.round(c.height / rowHeight)
        const icicle = document.getElementById('flame-orientation').textContent === 'flame'
        const top = c.top + (icicle ? 0 : (rows - 1) * rowHeight)
        const dpr = window.devicePixelRatio || 1
        const px = canvas.getContext('2d').getImageData(Math.round(c.width / 2 * dpr), Math.round((top - c.top + rowHeight / 2) * dpr), 1, 1).data
        return { top, bottom: top + rowHeight, wrapTop: w.top, wrapBottom: w.bottom, canvas: c.height, wrap: w.height, viewport: innerHeight, pixel: [...px] }
      }
      // Painted once the page is ready, in a later frame: wait for paint, not for a fixed time
      // (200 ms was too short once, in a full run beside other browser tests).
      const painted = async () => {
        for (const until = Date.now() + 10000; Date.now() < until; await page.waitForTimeout(50)) {
          const r = await page.evaluate(rootRowIn, flameRow)
          if (r && r.pixel[3] > 0) return
        }
        assert.fail('the flame graph was not painted within 10 s')
      }
      await page.waitForSelector('body[data-ready]')
      await painted()
      await shot(page, `${name}-flame.png`)
      const rootRow = () => page.evaluate(rootRowIn, flameRow)
      for (const orientation of ['flame', 'icicle']) {
        if (orientation === 'icicle') {
          await page.click('#flame-orientation')
          await painted()
        }
        const r = await rootRow()
        assert.ok(r.top >= r.wrapTop - 0.5 && r.bottom <= r.wrapBottom + 0.5, `${orientation}: the root row ${r.top}-${r.bottom} is outside the panel ${r.wrapTop}-${r.wrapBottom}`)
        assert.ok(r.bottom <= r.viewport, `${orientation}: the root row is below the window`)
        assert.deepEqual(r.pixel.slice(0, 3), [200, 205, 215], `${orientation}: the root frame is painted there`)
        if (name === 'deep') assert.ok(r.canvas > r.wrap * 1.5, `the deep tree (${r.canvas}px) is taller than its panel (${r.wrap}px)`)
      }
      await shot(page, `${name}-icicle.png`)
      assertClean(seen)
    } finally {
      await context.close()
    }
  })

  test(`${name}: the report's call graph fits the panel`, { timeout: 60000 }, async () => {
    const { context, page, seen } = await open(`${name}.html`, { hash: '#tab=graph' })
    try {
      // Ready, and fitted to the panel (the fit sets the zoom's label): no fixed wait.
      await page.waitForSelector('body[data-ready]')
      await page.waitForFunction(() => (document.getElementById('graph-zoom')?.textContent ?? '') !== '')
      await shot(page, `${name}-graph-panel.png`)
      const r = await page.evaluate(() => {
        const wrap = document.querySelector('#panel-graph .graph-wrap'), svg = wrap.querySelector('svg')
        const box = e => { const b = e.getBoundingClientRect(); return { x0: b.left, y0: b.top, x1: b.right, y1: b.bottom } }
        return { wrap: box(wrap), svg: box(svg), scroll: [wrap.scrollWidth - wrap.clientWidth, wrap.scrollHeight - wrap.clientHeight], zoom: document.getElementById('graph-zoom').textContent }
      })
      assert.ok(r.svg.x0 >= r.wrap.x0 && r.svg.x1 <= r.wrap.x1 && r.svg.y0 >= r.wrap.y0 && r.svg.y1 <= r.wrap.y1,
        `the graph ${JSON.stringify(r.svg)} is not within its panel ${JSON.stringify(r.wrap)}`)
      assert.deepEqual(r.scroll, [0, 0], 'nothing to scroll')
      assert.ok(Number.parseInt(r.zoom, 10) <= 100, r.zoom)
      checkGraph(await page.evaluate(graphGeometry, '#panel-graph svg'), read(`${name}.dot`), `${name}.html`)
      assertClean(seen)
    } finally {
      await context.close()
    }
  })

  test(`${name}: focus and hide in the page give report --json's numbers`, { timeout: 90000 }, async () => {
    const { focus, hide } = program
    const whole = report(name, 'expected', [])
    const cases = [
      { focus, hide: '', expected: report(name, 'focus', ['--focus', focus]) },
      { focus: '', hide, expected: report(name, 'hide', ['--hide', hide]) },
      { focus, hide, expected: report(name, 'both', ['--hide', hide, '--focus', focus]) },
    ]
    const { context, page, seen } = await open(`${name}.html`, { hash: '#tab=flat' })
    try {
      for (const c of cases) {
        const expected = c.expected
        // The page's expressions are case-insensitive without a capital; callprof's are not.
        const all = whole.functions
        for (const re of [c.focus, c.hide].filter(Boolean)) {
          const matching = flags => all.filter(f => new RegExp(re, flags).test(f.name)).length
          assert.ok(matching('') > 0, `${re} matches some function`)
          assert.equal(matching('i'), matching(''), `${re} matches the same functions either way`)
        }
        await page.fill('#view-focus', c.focus)
        await page.fill('#view-hide', c.hide)
        await page.click('#view-apply')
        await page.waitForFunction(() => /of the report/.test(document.getElementById('view-status').textContent))
        await checkView(page, expected, { focus: c.focus, hide: c.hide })
      }
      // The location hash keeps the view: a reload shows the same.
      assert.match(page.url(), /focus=/)
      await page.reload()
      await page.waitForSelector('body[data-ready]')
      await checkView(page, cases[2].expected, { focus, hide })
      assert.equal(await page.inputValue('#view-focus'), focus)
      assert.equal(await page.inputValue('#view-hide'), hide)
      await shot(page, `${name}-view-flat.png`)
      for (const tab of ['flame', 'graph', 'tree', 'summary']) {
        await page.click(`#tab-${tab}`)
        await page.waitForTimeout(150)
        await shot(page, `${name}-view-${tab}.png`)
      }
      const dimmed = await page.$$eval('#panel-graph g.node.outside, #panel-graph g.edge.outside', gs => gs.map(g => g.getAttribute('class')))
      assert.ok(dimmed.includes('node outside') && dimmed.includes('edge outside'), 'the call graph dims what the view leaves out')
      const inView = new Set(cases[2].expected.functions.map(f => f.id))
      const nodes = await page.$$eval('#panel-graph g.node', gs => gs.map(g => ({ id: Number(g.id.slice(2)), outside: g.classList.contains('outside') })))
      for (const n of nodes) assert.equal(n.outside, !inView.has(n.id), `function ${n.id} dimmed iff outside the view`)
      assert.ok(nodes.some(n => !n.outside), 'the view\'s functions stay')
      await page.click('#view-reset')
      await page.waitForFunction(() => document.getElementById('view-status').textContent === '')
      await page.click('#tab-flat')
      assert.equal(await page.locator('#panel-flat tbody tr[data-key]').count(), whole.functions.length, 'reset: every function')
      await page.fill('#view-focus', '(')
      await page.press('#view-focus', 'Enter')
      await page.waitForSelector('#view-focus.invalid')
      assertClean(seen)
    } finally {
      await context.close()
    }
  })
}

// The function columns the page recomputes for a view besides calls, self and total
// (docs/html.md), with their labels in the flat table's Columns menu (flat.js).
const recomputedColumns = {
  recursive_calls: 'recursive', cpu_ns: 'cpu', offcpu_ns: 'off-cpu', total_cpu_ns: 'total cpu',
  total_offcpu_ns: 'total off-cpu', samples: 'samples', total_samples: 'total samples',
}

// The flat table, the tree's top level, the flame graph and one function's callers against
// `report --json` with the same --focus/--hide.
async function checkView(page, expected, c) {
  await page.click('#tab-flat')
  // Every recomputed column the view has, shown (the Columns menu; a hidden one is not in the
  // table). The page offers a column only when some function has a value other than 0 for it.
  const menu = page.locator('#panel-flat .columns-menu')
  await menu.locator('button').click()
  for (const label of Object.values(recomputedColumns)) {
    const box = menu.getByLabel(label, { exact: true })
    if (await box.count()) await box.check()
  }
  await menu.locator('button').click()
  const shownKeys = await headerKeys(page, '#panel-flat table')
  const keys = ['calls', 'self_ns', 'total_ns']
  for (const key of Object.keys(recomputedColumns)) {
    if (shownKeys.includes(key)) keys.push(key)
    else for (const f of expected.functions) assert.ok(!f[key], `${key} of ${f.name} is ${f[key]} under ${JSON.stringify(c)}, but the page has no such column`)
  }
  const rows = (await rowValues(page, '#panel-flat tbody tr[data-key]', keys))
    .map(r => Object.fromEntries([['id', r.key], ...keys.map(k => [k, r[k]])]))
  const want = expected.functions.map(f => Object.fromEntries([['id', f.id], ...keys.map(k => [k, f[k] ?? null])]))
  const byId = list => [...list].sort((a, b) => a.id - b.id)
  assert.deepEqual(byId(rows), byId(want), `functions under ${JSON.stringify(c)} (${keys.join(', ')})`)

  await page.click('#tab-tree')
  const top = await page.$$eval('#panel-tree tbody tr[data-depth="0"]', trs => trs.map(tr => ({
    name: tr.querySelector('td.name').title.split('\n')[0], total: Number(tr.children[3].dataset.value),
  })))
  const wantTop = expected.tree.map(n => ({ name: n.name, total: n.total_ns }))
  const byName = list => [...list].sort((a, b) => a.name.localeCompare(b.name) || a.total - b.total)
  assert.deepEqual(byName(top), byName(wantTop), 'top-level call paths')
  if (c.focus) for (const t of top) assert.match(t.name, new RegExp(c.focus), 'the focus is the top')
  assert.match(await page.textContent('#view-status'), new RegExp(`^${expected.summary.nodes} of \\d+ call paths, ${expected.functions.length} functions`))

  await page.click('#tab-flame')
  const painted = await page.$eval('#panel-flame canvas', cv => {
    const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data
    let n = 0
    for (let i = 3; i < d.length; i += 4) n += d[i] > 0
    return n
  })
  assert.ok(painted > 1000, 'the flame graph is drawn')

  // The function with the most callers: its caller rows are report --json's edges.
  const incoming = new Map()
  for (const e of expected.edges) incoming.set(e.callee_id, [...(incoming.get(e.callee_id) || []), e])
  const [id, edges] = [...incoming].sort((a, b) => b[1].length - a[1].length || a[0] - b[0])[0]
  await page.evaluate(fn => {
    const params = new URLSearchParams(location.hash.slice(1))
    params.set('tab', 'callers')
    params.set('fn', String(fn))
    location.hash = params.toString()
  }, id)
  await page.waitForFunction(fn => location.hash.includes(`fn=${fn}`) && document.querySelector('#callers-table'), id)
  const got = (await rowValues(page, '#callers-table tbody tr:not(.more)', ['calls', 'self', 'total']))
    .map(r => ({ calls: r.calls, self: r.self, total: r.total }))
  const wantEdges = edges.map(e => ({ calls: e.calls, self: e.self_ns, total: e.total_ns }))
  const order = list => [...list].sort((a, b) => a.total - b.total || a.calls - b.calls || a.self - b.self)
  assert.deepEqual(order(got), order(wantEdges), `callers of function ${id}`)
}
