// callprof's speedscope JSON and collapsed stacks, opened by their real consumer: speedscope's
// own build (node_modules/speedscope/dist/release) in headless Chromium, from file:// with no
// server and no network. Each file goes through speedscope's importer the way a user loads it
// (the landing page's "Browse" file input); then the test reads back what speedscope made of it
// twice: the numbers its sandwich view renders (per function total and self, within the
// rounding of its display), and the profile its own "Export" button saves (speedscope's model
// as JSON: exact frames and weights). Both must match callprof's `report --json`.
//
// The Chrome trace export (a timeline recorded with --timeline --timeline-min-duration 0)
// goes through speedscope's trace-event importer: one profile per thread, whose frames'
// self times must be callprof's raw (`report --raw`) self times per thread, and the file
// must be well formed (every event with ph/ts/pid/tid, complete events nesting strictly).
//
// Inputs (environment; run_speedscope_import.sh writes them): CALLPROF_SPEEDSCOPE,
// CALLPROF_COLLAPSED, CALLPROF_CHROME (the exports), CALLPROF_EXPECTED_RAW (as
// CALLPROF_EXPECTED, for the timeline recording, raw times), CALLPROF_EXPECTED (callprof's numbers:
// {total_ns, functions: [{name, file, line, self_ns, total_ns}], threads: [{tid, name,
// total_ns, functions: [{name, self_ns, total_ns}]}]}), CALLPROF_ARTIFACTS (screenshots and
// speedscope's exports go there), CALLPROF_CHROMIUM (default /usr/bin/chromium).
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

import { chromium } from 'playwright-core'

const here = path.dirname(fileURLToPath(import.meta.url))
const speedscopeIndex = path.join(here, 'node_modules/speedscope/dist/release/index.html')

function input(name) {
  const value = process.env[name]
  if (!value) throw new Error(`${name} is not set (run this test through run_speedscope_import.sh or ctest)`)
  return value
}

const speedscopeFile = input('CALLPROF_SPEEDSCOPE')
const collapsedFile = input('CALLPROF_COLLAPSED')
const chromeFile = input('CALLPROF_CHROME')
const expectedRaw = JSON.parse(fs.readFileSync(input('CALLPROF_EXPECTED_RAW'), 'utf8'))
const expected = JSON.parse(fs.readFileSync(input('CALLPROF_EXPECTED'), 'utf8'))
const artifacts = process.env.CALLPROF_ARTIFACTS || path.dirname(speedscopeFile)
const executablePath = process.env.CALLPROF_CHROMIUM || '/usr/bin/chromium'

// The collapsed format cannot hold ';' or line breaks in a name: callprof writes ':' and ' '.
const collapsedName = name => name.replaceAll(';', ':').replace(/[\n\r\0]/g, ' ')

// Per name: summed self and total ns (two functions may share a name; collapsed stacks and
// the sandwich view key frames by name).
function byName(functions, rename = n => n) {
  const out = new Map()
  for (const f of functions) {
    const name = rename(f.name)
    const e = out.get(name) ?? { self: 0, total: 0 }
    e.self += f.self_ns
    e.total += f.total_ns
    out.set(name, e)
  }
  return out
}

// A value as speedscope's sandwich view prints it: [value in ns (or units for unitless
// profiles), the largest difference its rounding allows].
function parseShown(text) {
  let m = /^(\d+):(\d\d)\b/.exec(text)  // minutes:seconds, at 60 s and more
  if (m) return [(Number(m[1]) * 60 + Number(m[2])) * 1e9, 1e9]
  m = /^([\d.]+)(ns|µs|ms|s)\b/.exec(text)  // two decimals of the largest unit that is >= 1
  if (m) {
    const scale = { ns: 1, µs: 1e3, ms: 1e6, s: 1e9 }[m[2]]
    return [Number(m[1]) * scale, 0.005 * scale + 1e-6 * scale]
  }
  m = /^([\d,]+)\b/.exec(text)  // unitless (collapsed stacks): the integer, with separators
  if (m) return [Number(m[1].replaceAll(',', '')), 0.5]
  throw new Error(`cannot read speedscope's value '${text}'`)
}

function assertClose(actual, expectedValue, tolerance, what) {
  assert.ok(Math.abs(actual - expectedValue) <= tolerance,
    `${what}: speedscope has ${actual}, callprof ${expectedValue} (allowed difference ${tolerance})`)
}

// speedscope's export: evented profiles (open/close frame events at cumulative weights). Per
// profile and frame name the time it was on top of the stack (its self weight), per profile
// its total; `self` sums all profiles. (speedscope keeps frames per profile: the same
// function in two threads is two frames of its export, so frames are counted by name.)
function readExport(file) {
  const self = new Map()
  const profiles = []
  const add = (map, name, w) => map.set(name, (map.get(name) ?? 0) + w)
  for (const p of file.profiles) {
    const own = new Map()
    const stack = []
    let last = p.startValue
    for (const e of p.events) {
      if (stack.length) {
        const name = file.shared.frames[stack.at(-1)].name
        add(own, name, e.at - last)
        add(self, name, e.at - last)
      }
      last = e.at
      if (e.type === 'O') stack.push(e.frame)
      else assert.equal(stack.pop(), e.frame, `speedscope's export of ${p.name}: unbalanced events`)
    }
    assert.equal(stack.length, 0, `speedscope's export of ${p.name}: frames left open`)
    profiles.push({ name: p.name, unit: p.unit, total: p.endValue - p.startValue, self: own })
  }
  return { self, profiles, frames: file.shared.frames }
}

let browser

before(async () => {
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] })
})

after(async () => {
  await browser?.close()
})

// Opens speedscope from file://, imports `file` through its file input, and returns what the
// page did and showed. Every request is recorded; anything but file:// is also refused, so a
// test run never reaches the network even when it fails.
async function importInSpeedscope(file, artifactName) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, acceptDownloads: true })
  const page = await context.newPage()
  const requests = []
  const consoleErrors = []
  const logs = []
  page.on('request', r => requests.push(r.url()))
  page.on('console', m => {
    logs.push(m.text())
    if (m.type() === 'error') consoleErrors.push(m.text())
  })
  page.on('pageerror', e => consoleErrors.push(`uncaught: ${e.message}`))
  page.on('dialog', d => {
    consoleErrors.push(`dialog: ${d.message()}`)  // speedscope alerts "Unrecognized format!"
    d.dismiss()
  })
  await context.route(url => url.protocol !== 'file:', route => route.abort('blockedbyclient'))
  try {
    await page.goto(pathToFileURL(speedscopeIndex).href)
    await page.setInputFiles('input[type=file]', file)
    // The toolbar's Export tab appears once a profile is loaded.
    const exportTab = page.getByText('⤴️Export', { exact: true })
    await exportTab.waitFor({ timeout: 20000 })
    const title = await page.evaluate(() => document.title)

    // The flame chart (Time Order view, the default): give it a frame to draw, then keep it.
    await page.waitForTimeout(300)
    await page.screenshot({ path: path.join(artifacts, `${artifactName}.png`) })

    // The sandwich view's table: per frame its total, self and name, as rendered.
    await page.keyboard.press('3')
    // (With several profiles the toolbar also holds a hidden table: the profile list.)
    await page.locator('table tr td:visible').first().waitFor({ timeout: 10000 })
    const rows = (await page.$$eval('table tr', trs =>
      trs.filter(tr => tr.checkVisibility()).map(tr => [...tr.cells].map(c => c.innerText))))
      .filter(cells => cells.length === 3 && cells[0] !== 'Total')
    const toolbar = await page.locator('body').innerText()
    await page.screenshot({ path: path.join(artifacts, `${artifactName}-sandwich.png`) })

    // speedscope's own export of what it imported.
    const [download] = await Promise.all([page.waitForEvent('download'), exportTab.click()])
    const saved = path.join(artifacts, `${artifactName}.reexported.speedscope.json`)
    await download.saveAs(saved)
    const reexported = JSON.parse(fs.readFileSync(saved, 'utf8'))
    return { requests, consoleErrors, logs, title, rows, toolbar, reexported }
  } finally {
    await context.close()
  }
}

function assertCleanPage(r) {
  assert.deepEqual(r.consoleErrors, [], 'console errors while importing')
  const foreign = r.requests.filter(u => !u.startsWith('file://'))
  assert.deepEqual(foreign, [], 'requests other than file://')
  assert.ok(r.requests.length > 0, 'no request recorded at all: the page did not load')
}

// The sandwich rows against callprof's per-function numbers (for the profile on screen).
function assertSandwich(rows, functions, rename, what) {
  const want = byName(functions, rename)
  const names = rows.map(r => r[2])
  // The table is virtualized: every function fits on screen only for small profiles.
  if (want.size <= 30) assert.deepEqual([...names].sort(), [...want.keys()].sort(), `${what}: functions listed`)
  for (const [totalText, selfText, name] of rows) {
    const w = want.get(name)
    assert.ok(w, `${what}: speedscope lists '${name}', which callprof does not have`)
    const [total, totalTolerance] = parseShown(totalText)
    const [self, selfTolerance] = parseShown(selfText)
    assertClose(total, w.total, totalTolerance, `${what}: total of ${name}`)
    assertClose(self, w.self, selfTolerance, `${what}: self of ${name}`)
  }
}

// Self weight per frame name, exactly (integers of ns well below 2^53 stay exact in doubles).
function assertSelf(self, functions, rename, what) {
  const want = byName(functions, rename)
  assert.deepEqual([...self.keys()].sort(), [...want.keys()].sort(), `${what}: frame names`)
  for (const [name, w] of want) assert.equal(self.get(name), w.self, `${what}: self ns of ${name}`)
}

test('speedscope imports callprof\'s speedscope JSON', { timeout: 45000 }, async () => {
  const r = await importInSpeedscope(speedscopeFile, 'speedscope-json')
  assertCleanPage(r)
  assert.ok(r.logs.includes('Importing as speedscope json file'), `importer used: ${r.logs.join(' | ')}`)

  const exported = readExport(r.reexported)
  // One profile per thread, named and weighted as callprof's threads.
  assert.deepEqual(exported.profiles.map(p => p.name), expected.threads.map(t => `tid ${t.tid} ${t.name}`.trim()))
  for (const [i, p] of exported.profiles.entries()) {
    assert.equal(p.unit, 'nanoseconds')
    assert.equal(p.total, expected.threads[i].total_ns, `total of ${p.name}`)
    assertSelf(p.self, expected.threads[i].functions, n => n, `speedscope JSON, ${p.name}`)
  }
  const total = exported.profiles.reduce((s, p) => s + p.total, 0)
  assertClose(total, expected.total_ns, 0.5, 'grand total (ns)')
  const frameNames = new Set(exported.frames.map(f => f.name))
  assert.equal(frameNames.size, byName(expected.functions).size, 'distinct frames')
  assertSelf(exported.self, expected.functions, n => n, 'speedscope JSON')
  // Source locations survive the import.
  for (const f of expected.functions) {
    const frame = exported.frames.find(x => x.name === f.name)
    if (f.file) assert.equal(frame.file, f.file, `file of ${f.name}`)
    if (f.line) assert.equal(frame.line, f.line, `line of ${f.name}`)
  }

  // What the page shows: the active profile (the first thread with time) in the toolbar and
  // its functions in the sandwich view.
  const active = expected.threads.find(t => t.total_ns > 0) ?? expected.threads[0]
  assert.match(r.toolbar, new RegExp(`tid ${active.tid}\\b`), 'profile name in the toolbar')
  assertSandwich(r.rows, active.functions, n => n, 'speedscope JSON, sandwich view')
  console.log(`speedscope JSON: ${frameNames.size} frames, ${exported.profiles.length} profile(s), ` +
    `total ${total} ns (callprof: ${expected.functions.length} functions, ${expected.total_ns} ns)`)
})

test('speedscope imports callprof\'s collapsed stacks', { timeout: 45000 }, async () => {
  const r = await importInSpeedscope(collapsedFile, 'collapsed')
  assertCleanPage(r)
  assert.ok(r.logs.includes('Importing as collapsed stack format'), `importer used: ${r.logs.join(' | ')}`)

  // Collapsed stacks hold one merged tree of all threads, unitless: the values are ns.
  const exported = readExport(r.reexported)
  assert.equal(exported.profiles.length, 1)
  const total = exported.profiles[0].total
  assertClose(total, expected.total_ns, 0.5, 'grand total (ns)')
  assertSelf(exported.self, expected.functions, collapsedName, 'collapsed stacks')
  assertSandwich(r.rows, expected.functions, collapsedName, 'collapsed stacks, sandwich view')
  console.log(`collapsed: ${new Set(exported.frames.map(f => f.name)).size} frames, total ${total} ` +
    `(callprof: ${expected.functions.length} functions, ${expected.total_ns} ns)`)
})

// The trace-event rules consumers rely on: every event has ph, ts, pid, tid; per track the
// complete events nest strictly (an inner one ends before its outer one).
function assertWellFormedTrace(trace) {
  assert.ok(Array.isArray(trace.traceEvents) && trace.traceEvents.length > 0, 'traceEvents')
  const tracks = new Map()
  for (const e of trace.traceEvents) {
    for (const key of ['ph', 'ts', 'pid', 'tid']) assert.ok(key in e, `${key} missing in ${JSON.stringify(e)}`)
    if (e.ph !== 'X') continue
    assert.ok(e.dur >= 0, `negative duration: ${JSON.stringify(e)}`)
    const key = `${e.pid}:${e.tid}`
    if (!tracks.has(key)) tracks.set(key, [])
    tracks.get(key).push(e)
  }
  let events = 0
  for (const [key, list] of tracks) {
    list.sort((a, b) => a.ts - b.ts || b.dur - a.dur)
    const open = []
    for (const e of list) {
      // (µs with ns as three decimals: sums of doubles compare within half a ns)
      while (open.length && open.at(-1).ts + open.at(-1).dur <= e.ts + 0.0005) open.pop()
      const outer = open.at(-1)
      if (outer) assert.ok(e.ts + e.dur < outer.ts + outer.dur || e.dur === 0,
        `${key}: ${e.name} at ${e.ts} (+${e.dur}) does not end inside ${outer.name} at ${outer.ts} (+${outer.dur})`)
      open.push(e)
      events++
    }
  }
  return events
}

test('speedscope imports callprof\'s Chrome trace (the timeline)', { timeout: 45000 }, async () => {
  const trace = JSON.parse(fs.readFileSync(chromeFile, 'utf8'))
  const events = assertWellFormedTrace(trace)
  assert.equal(trace.otherData.timeline_dropped_events, 0, 'the ring kept every call')

  const r = await importInSpeedscope(chromeFile, 'chrome')
  assertCleanPage(r)
  assert.ok(r.logs.includes('Importing as Trace Event Format profile'), `importer used: ${r.logs.join(' | ')}`)
  const warnings = r.logs.filter(l => l.includes('Tried to end'))
  assert.deepEqual(warnings, [], 'speedscope could not pair some begin and end events')

  // One profile per thread, named after it; self time per frame in µs, callprof's raw ns.
  const exported = readExport(r.reexported)
  assert.equal(exported.profiles.length, expectedRaw.threads.filter(t => t.total_ns > 0).length, 'profiles')
  for (const t of expectedRaw.threads.filter(t => t.total_ns > 0)) {
    const p = exported.profiles.find(p => p.name.includes(t.name) && p.name.includes(String(t.tid)))
    assert.ok(p, `no profile for thread ${t.tid} ${t.name}: ${exported.profiles.map(p => p.name).join(', ')}`)
    assert.equal(p.unit, 'microseconds')
    const want = byName(t.functions)
    assert.deepEqual([...p.self.keys()].sort(), [...want.keys()].sort(), `thread ${t.tid}: frame names`)
    for (const [name, w] of want) {
      // Per event the export keeps ns (three decimals of µs): allow 2 ns per call for the
      // per-call rounding, and 0.1 %.
      const calls = t.functions.filter(f => f.name === name).reduce((s, f) => s + (f.calls ?? 1), 0)
      assertClose(p.self.get(name) * 1000, w.self, 2 * calls + w.self * 0.001 + 1, `thread ${t.tid}: self of ${name}`)
    }
    // Its span also holds the gaps between top-level calls: at least the thread's total.
    assert.ok(p.total * 1000 >= t.total_ns * 0.999 - 2 * t.calls, `thread ${t.tid}: span ${p.total} µs, total ${t.total_ns} ns`)
  }
  console.log(`chrome: ${events} complete events, ${exported.profiles.length} thread profile(s), ` +
    `${new Set(exported.frames.map(f => f.name)).size} frames (callprof --raw: ${expectedRaw.total_ns} ns)`)
})
