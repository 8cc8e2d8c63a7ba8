// callprof's flame graph SVG (`callprof flame`) in headless Chromium, opened from file:// the
// way a user opens it: the frames render, hovering shows a frame's numbers, clicking zooms (the
// frame takes the whole width, its callers stay, the rest hides), "Reset zoom" restores the
// picture, the search box highlights matches and shows their share of the whole (checked
// against `report --json`), with no console error and no network request. Profiles whose
// function names are hostile markup render them as text: no dialog, no injected element, no
// script run.
//
// Inputs (environment; run_flame.sh writes them): CALLPROF_FLAME_DIR holding wordfreq.svg,
// wordfreq-icicle.svg, wordfreq-diff.svg, wordfreq.expected.json, hostile.svg and optionally
// hostile-names.svg; screenshots are written there. CALLPROF_CHROMIUM (default
// /usr/bin/chromium).
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

import { chromium } from 'playwright-core'

const dir = process.env.CALLPROF_FLAME_DIR
if (!dir) throw new Error('CALLPROF_FLAME_DIR is not set (run this test through run_flame.sh or ctest)')
const executablePath = process.env.CALLPROF_CHROMIUM || '/usr/bin/chromium'
const expected = JSON.parse(fs.readFileSync(path.join(dir, 'wordfreq.expected.json'), 'utf8'))
const width = 1200, pad = 10, area = width - 2 * pad

let browser
before(async () => {
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] })
})
after(async () => {
  await browser?.close()
})

// Opens an SVG; `problems` collects console errors, page errors, dialogs and any request that
// is not for the file itself.
async function open(name) {
  const page = await browser.newPage({ viewport: { width: 1220, height: 720 } })
  const problems = []
  const url = pathToFileURL(path.join(dir, name)).href
  page.on('console', m => { if (m.type() === 'error') problems.push(`console: ${m.text()}`) })
  page.on('pageerror', e => problems.push(`page error: ${e.message}`))
  page.on('dialog', d => { problems.push(`dialog: ${d.message()}`); d.dismiss() })
  page.on('request', r => { if (r.url() !== url) problems.push(`request: ${r.url()}`) })
  await page.goto(url)
  assert.equal(await page.locator('parsererror').count(), 0, `${name} is not well-formed XML`)
  return { page, problems }
}

// Every frame: its name (the title's first line), its title text and its rect's geometry.
const frames = page => page.$$eval('#frames > g', gs => gs.map((g, index) => {
  const r = g.querySelector('rect')
  const title = g.querySelector('title').textContent
  return {
    index, title, name: title.split('\n')[0], synthetic: g.hasAttribute('class'),
    x: Number(r.getAttribute('x')), w: Number(r.getAttribute('width')), y: Number(r.getAttribute('y')),
    fill: r.getAttribute('fill'), shown: getComputedStyle(g).display !== 'none',
    opacity: g.style.opacity, text: g.querySelector('text')?.textContent ?? '',
  }
}))
const frame = (page, index) => page.locator(`#frames > g:nth-child(${index + 1}) > rect`)
const near = (a, b, what, tolerance = 0.01) => assert.ok(Math.abs(a - b) <= tolerance, `${what}: ${a}, expected ${b}`)

// What no page may contain, whatever its names: elements or attributes a name could inject.
async function assertInert(page) {
  const injected = await page.evaluate(() => ({
    pwned: window.__pwned ?? null,
    scripts: document.querySelectorAll('script').length,
    foreign: [...document.querySelectorAll('img, iframe, object, embed, a, svg svg')].length,
    handlers: [...document.querySelectorAll('*')].flatMap(e => [...e.attributes].map(a => a.name))
      .filter(n => n.toLowerCase().startsWith('on')),
  }))
  assert.deepEqual(injected, { pwned: null, scripts: 1, foreign: 0, handlers: [] })
}

test('wordfreq: frames render, hover shows the numbers', async () => {
  const { page, problems } = await open('wordfreq.svg')
  const all = await frames(page)
  // 20-25 frames wide enough to draw, depending on what the runtime folded (load changes it)
  assert.ok(all.length > 10, `only ${all.length} frames`)
  assert.equal(all[0].name, 'all')
  near(all[0].w, area, 'the root frame spans the picture')
  const main = all.find(f => f.name === 'main')
  assert.ok(main, 'a frame for main')
  near(main.w, area, 'main holds all the time')
  assert.equal(main.text, 'main')
  // Hovering shows the frame's numbers, the total as report --json has it.
  await frame(page, main.index).hover()
  const details = await page.locator('#details').textContent()
  const mainTotal = expected.functions.find(f => f.short_name === 'main').total_ns
  assert.match(details, /^main \(1 call, [\d.]+[µm]?s, 100\.0%/)
  assert.ok(details.includes(', 100.0%'), details)
  assert.ok(mainTotal > 0)
  await page.screenshot({ path: path.join(dir, 'wordfreq.png') })
  assert.deepEqual(problems, [])
  await assertInert(page)
  await page.close()
})

test('wordfreq: click zooms into a frame, reset restores the picture', async () => {
  const { page, problems } = await open('wordfreq.svg')
  const before = await frames(page)
  // A frame two levels up with callees, narrower than half the picture.
  const target = before.find(f => !f.synthetic && f.w > 40 && f.w < area / 2 &&
    before.some(g => g.index > f.index && g.y < f.y && g.x >= f.x && g.x + g.w <= f.x + f.w + 0.01))
  assert.ok(target, 'a frame with callees to zoom into')
  assert.equal(await page.locator('#reset').getAttribute('visibility'), 'hidden')
  await frame(page, target.index).click()
  const zoomed = await frames(page)
  near(zoomed[target.index].x, pad, 'the zoomed frame starts at the left margin')
  near(zoomed[target.index].w, area, 'the zoomed frame takes the whole width')
  assert.equal(zoomed[target.index].text, label(target.name, area))
  // Its callees are scaled by the same factor; its callers stay, faded, at full width.
  const scale = area / target.w
  const callees = before.filter(g => g.index > target.index && g.y < target.y && g.x >= target.x - 0.001 &&
    g.x + g.w <= target.x + target.w + 0.001)
  assert.ok(callees.length > 0)
  for (const c of callees) {
    assert.ok(zoomed[c.index].shown, `callee ${c.name} shown`)
    near(zoomed[c.index].w, c.w * scale, `callee ${c.name}'s width`, 0.02 * scale)
  }
  const mainIndex = before.find(f => f.name === 'main').index
  assert.ok(zoomed[mainIndex].shown)
  near(zoomed[mainIndex].w, area, 'main stays at full width')
  assert.equal(zoomed[mainIndex].opacity, '0.5')
  const others = before.filter(g => g.y >= target.y - 0.1 && g.y <= target.y + 0.1 && g.index !== target.index)
  assert.ok(others.length > 0)
  for (const o of others) assert.ok(!zoomed[o.index].shown, `sibling ${o.name} hidden`)
  assert.equal(await page.locator('#reset').getAttribute('visibility'), 'visible')
  await page.screenshot({ path: path.join(dir, 'wordfreq-zoom.png') })

  await page.locator('#reset').click()
  const reset = await frames(page)
  for (const f of before) {
    assert.ok(reset[f.index].shown, `${f.name} shown again`)
    near(reset[f.index].x, f.x, `${f.name}'s x after reset`, 0.001)
    near(reset[f.index].w, f.w, `${f.name}'s width after reset`, 0.001)
    assert.equal(reset[f.index].text, f.text, `${f.name}'s label after reset`)
  }
  assert.equal(await page.locator('#reset').getAttribute('visibility'), 'hidden')
  assert.deepEqual(problems, [])
  await page.close()
})

// The label rule of flame.js and flame_svg.cpp, restated: 7.08 px per character, 3 px inside.
function label(name, px) {
  const chars = Math.floor((px - 6) / 7.08)
  if (name.length <= chars) return name
  return chars < 3 ? '' : name.slice(0, chars - 2) + '..'
}

test('wordfreq: search highlights the matches and shows their share', async () => {
  const { page, problems } = await open('wordfreq.svg')
  // The function with the most time after main, by report --json.
  const hot = expected.functions.filter(f => f.short_name !== 'main' && f.kind === 'function')
    .sort((a, b) => b.total_ns - a.total_ns)[0]
  // C++ names hold regex syntax ("(anon)::"): the search box takes a regular expression.
  const term = hot.short_name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const matching = expected.functions.filter(f => f.short_name.includes(hot.short_name))
  await page.locator('#search').fill(term)
  const all = await frames(page)
  const hits = all.filter(f => f.fill === '#e600e6')
  assert.ok(hits.length > 0)
  for (const f of all) assert.equal(f.fill === '#e600e6', !f.synthetic && f.name.includes(hot.short_name), f.name)
  // Matches nested in matches count once: the functions' totals (outermost calls only).
  const share = matching.reduce((s, f) => s + f.total_ns, 0) / expected.summary.total_ns * 100
  const shown = await page.locator('#matched').textContent()
  const m = /^matched: ([\d.]+)% \((\d+) frames\)$/.exec(shown)
  assert.ok(m, shown)
  near(Number(m[1]), share, `matched share of '${term}'`, 0.1 + 100 * 0.5 / area)
  assert.equal(Number(m[2]), hits.length)
  await page.screenshot({ path: path.join(dir, 'wordfreq-search.png') })
  // A regular expression; Escape clears.
  await page.locator('#search').fill('^\\(anon\\)::')
  assert.ok((await frames(page)).filter(f => f.fill === '#e600e6').length > 0)
  await page.keyboard.press('Escape')
  assert.equal(await page.locator('#matched').textContent(), '')
  assert.equal((await frames(page)).filter(f => f.fill === '#e600e6').length, 0)
  // Ctrl-F goes to the search box.
  await page.locator('#details').click()
  await page.keyboard.press('Control+f')
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'search')
  assert.deepEqual(problems, [])
  await page.close()
})

test('wordfreq: icicle and diff pictures load and zoom', async () => {
  for (const name of ['wordfreq-icicle.svg', 'wordfreq-diff.svg']) {
    const { page, problems } = await open(name)
    const all = await frames(page)
    assert.ok(all.length > 10, `only ${all.length} frames`)
    const main = all.find(f => f.name === 'main')
    if (name.includes('icicle')) assert.ok(main.y > all[0].y, 'callees hang below the root')
    else assert.match(main.title, /\(base [\d.]+[µm]?s → [\d.]+[µm]?s, [+-]/)
    const target = all.find(f => !f.synthetic && f.w > 40 && f.w < area / 2)
    await frame(page, target.index).click()
    near((await frames(page))[target.index].w, area, `${name}: the zoomed frame's width`)
    await page.screenshot({ path: path.join(dir, name.replace('.svg', '.png')) })
    assert.deepEqual(problems, [])
    await page.close()
  }
})

// The names flame_hostile.c gives its functions with asm labels.
const hostileNames = [
  '<script>window.__pwned=1;alert(1)</script>',
  "' onmouseover='window.__pwned=2' x='",
  '<img src=x onerror=window.__pwned=3>',
  ']]></text></svg><svg onload=window.__pwned=4>',
]

test('hostile symbol names render as text and stay inert', async () => {
  const { page, problems } = await open('hostile.svg')
  await assertInert(page)
  const all = await frames(page)
  for (const name of hostileNames) {
    const f = all.find(g => g.name === name)
    assert.ok(f, `a frame named ${name}`)
    await frame(page, f.index).hover()
    assert.ok((await page.locator('#details').textContent()).startsWith(name + ' ('))
    await frame(page, f.index).click()
    assert.equal((await frames(page))[f.index].text, label(name, area))
    await page.locator('#reset').click()
  }
  await page.locator('#search').fill('<script>')
  assert.match(await page.locator('#matched').textContent(), /^matched: [\d.]+% \(\d+ frames\)$/)
  await page.screenshot({ path: path.join(dir, 'hostile.png') })
  await assertInert(page)
  assert.deepEqual(problems, [])
  await page.close()
})

test('hostile profile names (newlines, escapes, 10,000 characters) stay readable and inert', async t => {
  if (!fs.existsSync(path.join(dir, 'hostile-names.svg'))) {
    t.skip('no hostile-names.svg (run_flame.sh was not given the profile tool)')
    return
  }
  const { page, problems } = await open('hostile-names.svg')
  await assertInert(page)
  const names = (await frames(page)).map(f => f.name)
  // (Display names are the short style: "<b>" reads as template arguments, "<…>".)
  assert.ok(names.some(n => n.startsWith('line1\\nline2<')), 'a newline shows as \\n')
  assert.ok(names.includes('\\x1b[31mred\\x1b[0m \\x1b]0;title\\x07'), 'ANSI escapes show as \\x1b')
  const long = names.find(n => n.startsWith('long_'))
  assert.ok(long && long.length <= 2000 && long.includes('…') && long.endsWith('end'), 'the long name is cut')
  await frame(page, names.indexOf(long)).hover()
  assert.ok((await page.locator('#details').textContent()).startsWith(long + ' ('))
  await frame(page, names.indexOf(long)).click()
  await assertInert(page)
  await page.screenshot({ path: path.join(dir, 'hostile-names.png') })
  assert.deepEqual(problems, [])
  await page.close()
})
