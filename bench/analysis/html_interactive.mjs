// Time to interactive of a callprof web report in headless Chromium (bench/analysis/run.sh):
//   node html_interactive.mjs REPORT.html [RUNS]
// Per run, a fresh page loads the file; printed (medians over the runs, ms): `ready`, the
// page's own clock from navigation start until its script has parsed the data and drawn the
// first panel; `load`, as the driver sees it (goto until ready, the browser's work on the
// file included); then the first show of the call tree and of the flame graph tabs.
// Needs playwright-core (npm ci --prefix tests/browser) and Chromium (CALLPROF_CHROMIUM).
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const require = createRequire(path.join(here, '../../tests/browser/package.json'))
const { chromium } = require('playwright-core')

const [file, runsText] = process.argv.slice(2)
if (!file) {
  console.error('usage: node html_interactive.mjs REPORT.html [RUNS]')
  process.exit(2)
}
const runs = Number(runsText || 3)
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

const browser = await chromium.launch({ executablePath: process.env.CALLPROF_CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] })
const results = { ready: [], load: [], tree: [], flame: [] }
try {
  for (let r = 0; r < runs; r++) {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } })
    const errors = []
    page.on('pageerror', e => errors.push(e.message))
    const t0 = Date.now()
    await page.goto(pathToFileURL(path.resolve(file)).href)
    await page.waitForSelector('body[data-ready]', { timeout: 60000 })
    results.load.push(Date.now() - t0)
    results.ready.push(Number(await page.getAttribute('body', 'data-ready-ms')))
    for (const tab of ['tree', 'flame']) {
      const t = Date.now()
      await page.click(`#tab-${tab}`)
      await page.waitForSelector(`#panel-${tab}.active`)
      await page.evaluate(() => new Promise(resolve => requestAnimationFrame(() => setTimeout(resolve, 0))))
      results[tab].push(Date.now() - t)
    }
    if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`)
    await page.close()
  }
} finally {
  await browser.close()
}
console.log(`ready_ms=${median(results.ready)} load_ms=${median(results.load)} tree_ms=${median(results.tree)} flame_ms=${median(results.flame)}`)
