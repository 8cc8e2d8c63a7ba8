// The pictures of readme_images.sh: node readme_images.mjs WORK_DIR IMAGES_DIR, where WORK_DIR
// holds graph.svg, flame.svg, wordfreq.html, wordfreq-lines.html (exact mode with samples) and
// hostile.html of examples/wordfreq.
import path from 'node:path'
import { pathToFileURL } from 'node:url'

import { chromium } from 'playwright-core'

const [work, images] = process.argv.slice(2)
const browser = await chromium.launch({ executablePath: process.env.CALLPROF_CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] })
const url = file => pathToFileURL(path.join(work, file)).href
const save = (page, name) => page.screenshot({ path: path.join(images, name) })

async function page(width, height) {
  const context = await browser.newContext({ viewport: { width, height } })
  return context.newPage()
}

// The call graph SVG as it opens in a browser window: fitted.
const graph = await page(1280, 800)
await graph.goto(url('graph.svg'))
await save(graph, 'graph-window.png')

// The flame graph SVG, searching two functions, the pointer on count_words.
const flame = await page(1200, 386)
await flame.goto(url('flame.svg'))
await flame.locator('#search').fill('make_word|next_random')
await flame.locator('#frames > g', { has: flame.locator('title', { hasText: /^\(anon\)::count_words/ }) }).first().locator('rect').hover()
await save(flame, 'flame.png')

// The web report's tabs, each from a fresh page.
let report
const show = async (hash, name, act, file = 'wordfreq.html') => {
  report = await page(1400, 900)
  await report.goto(url(file) + hash)
  await report.waitForSelector('body[data-ready]')
  if (act) await act()
  await report.waitForTimeout(300)
  await save(report, name)
}
await show('#tab=summary', 'html-summary.png')
await show('#tab=flat', 'html-flat.png')
await show('#tab=tree', 'html-tree.png')
await show('#tab=flat', 'html-callers.png', async () => {
  await report.locator('#panel-flat tbody tr[data-key]', { hasText: 'count_words' }).first().click()
  await report.click('#tab-callers')
})
await show('#tab=graph', 'html-graph.png')
await show('#tab=flame', 'html-flame.png', async () => {
  await report.fill('#panel-flame input[type="search"]', 'make_word|next_random')
})
await show('#tab=flame&focus=count_words%7Cgenerate_corpus&hide=next_random', 'html-focus.png')
await show('#tab=threads', 'html-threads.png')
await show('#tab=flat', 'html-hostile-names.png', null, 'hostile.html')
// The Source tab of count_words (samples inside exact mode, calls on their lines).
await show('#tab=source', 'html-source.png', async () => {
  await report.locator('#source-functions tbody tr[data-key]', { hasText: 'count_words' }).first().click()
}, 'wordfreq-lines.html')
await browser.close()
