// harness.mjs: what the web report's browser tests share (html_report.test.mjs and
// pictures.test.mjs): one headless Chromium per test file, pages opened from file:// with
// every other request refused and everything that must not happen recorded (console errors,
// uncaught exceptions, dialogs, requests), and the exact numbers of a table's cells.
import { after, before } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

import { chromium } from 'playwright-core'

export const executablePath = process.env.CALLPROF_CHROMIUM || '/usr/bin/chromium'

// Launches Chromium before the file's tests (closed after them) and returns
// open(file, {width, height, hash}): a new context's page showing `dir`/`file` (for an .html
// file, once the page says it is ready), with `seen` collecting requests, console errors and
// dialogs (dismissed). Close `context` when done.
export function pageOpener(dir) {
  let browser
  before(async () => {
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] })
  })
  after(async () => {
    await browser?.close()
  })
  return async function open(file, { width = 1400, height = 900, hash = '' } = {}) {
    const context = await browser.newContext({ viewport: { width, height } })
    const page = await context.newPage()
    const seen = { requests: [], errors: [], dialogs: [] }
    page.on('request', r => seen.requests.push(r.url()))
    page.on('console', m => { if (m.type() === 'error') seen.errors.push(m.text()) })
    page.on('pageerror', e => seen.errors.push(`uncaught: ${e.message}`))
    page.on('dialog', d => { seen.dialogs.push(d.message()); d.dismiss() })
    await context.route(url => url.protocol !== 'file:', route => route.abort('blockedbyclient'))
    await page.goto(pathToFileURL(path.join(dir, file)).href + hash)
    if (file.endsWith('.html')) await page.waitForSelector('body[data-ready]', { timeout: 15000 })
    return { context, page, seen }
  }
}

// No console error or uncaught exception, no dialog, no request other than file://.
export function assertClean(seen) {
  assert.deepEqual(seen.errors, [], 'console errors')
  assert.deepEqual(seen.dialogs, [], 'dialogs')
  assert.deepEqual(seen.requests.filter(u => !u.startsWith('file://')), [], 'requests other than file://')
}

// The rows `rowSelector` matches, each as { key: its data-key as a number (null without one),
// name: its first cell's title, and per column key in `keys` the exact number of that cell's
// data-value } (null when the cell has none or the table has no such column).
export function rowValues(page, rowSelector, keys) {
  return page.$$eval(rowSelector, (trs, keys) => trs.map(tr => {
    const headers = [...tr.closest('table').querySelectorAll('thead th')].map(th => th.dataset.key)
    const row = { key: tr.dataset.key === undefined ? null : Number(tr.dataset.key), name: tr.children[0].title }
    for (const key of keys) {
      const at = headers.indexOf(key)
      const value = at < 0 ? undefined : tr.children[at].dataset.value
      row[key] = value === undefined ? null : Number(value)
    }
    return row
  }), keys)
}

// The data-value numbers of one column (by its header's data-key) of a table's keyed rows.
export async function columnValues(page, tableSelector, key) {
  return (await rowValues(page, `${tableSelector} tbody tr[data-key]`, [key])).map(r => r[key])
}

// The column keys of a table's header, in order.
export function headerKeys(page, tableSelector) {
  return page.$$eval(`${tableSelector} thead th`, ths => ths.map(th => th.dataset.key))
}
