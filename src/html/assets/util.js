// util.js: building elements (text only: every string from the profile goes through
// textContent, never through HTML parsing), number formats and the display of untrusted names.

// el('td', {class: 'x', title: t}, child, 'text', ...): an element; strings become text nodes.
function el(tag, attrs, ...children) {
  const e = document.createElement(tag)
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue
      if (k === 'class') e.className = v
      else if (k === 'text') e.textContent = v
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v)
      else if (k === 'dataset') Object.assign(e.dataset, v)
      else e.setAttribute(k, v === true ? '' : String(v))
    }
  }
  append(e, children)
  return e
}

function append(parent, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue
    if (Array.isArray(c)) append(parent, c)
    else parent.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c)
  }
}

function clear(e) {
  while (e.firstChild) e.removeChild(e.firstChild)
  return e
}

// Times in ns with three significant digits and a unit, as the text views print them.
function fmtTime(ns) {
  if (ns === null || ns === undefined) return '-'
  if (ns === 0) return '0'
  const units = [[1e9, 's'], [1e6, 'ms'], [1e3, '\u00b5s'], [1, 'ns']]
  for (const [scale, unit] of units) {
    if (ns >= scale || unit === 'ns') {
      const v = ns / scale
      const digits = v >= 100 ? 0 : v >= 10 ? 1 : 2
      return (unit === 'ns' ? String(Math.round(v)) : v.toFixed(digits)) + unit
    }
  }
}

const countFormat = new Intl.NumberFormat('en-US')
function fmtCount(n) {
  return n === null || n === undefined ? '-' : countFormat.format(n)
}

function fmtBytes(n) {
  if (n === null || n === undefined) return '-'
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let i = 0
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++ }
  return (i === 0 ? String(n) : n.toFixed(n >= 100 ? 0 : 1)) + units[i]
}

// part / whole as a percentage: "12.3%", "0.05%", "<0.01%"; "-" when whole is 0.
function fmtPct(part, whole) {
  if (!whole || part === null || part === undefined) return '-'
  const p = 100 * part / whole
  if (p === 0) return '0%'
  if (p < 0.01) return '<0.01%'
  return (p < 1 ? p.toFixed(2) : p.toFixed(1)) + '%'
}

// A percentage cell's content: the number and a bar.
function pctBar(part, whole, blue) {
  const share = whole ? Math.max(0, Math.min(1, part / whole)) : 0
  return el('div', { class: blue ? 'pct blue' : 'pct' },
    el('span', { text: fmtPct(part, whole) }),
    el('div', { class: 'track' }, el('div', { class: 'fill', style: `width:${(share * 100).toFixed(1)}%` })))
}

// An untrusted name as readable, inert text: control characters, C1 controls and
// bidirectional overrides become visible escapes (as the text views show them), and a name
// longer than `max` characters keeps its start and end around an ellipsis.
const controlChars = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g
function shown(name, max = 240) {
  if (name === null || name === undefined) return '<spontaneous>'
  let s = String(name).replace(controlChars, controlEscape)
  if (s.length > max) {
    const head = Math.ceil(max * 0.7), tail = max - head - 1
    s = s.slice(0, head) + '\u2026' + s.slice(s.length - tail)
  }
  return s
}

// One character of controlChars as its visible escape.
function controlEscape(c) {
  const code = c.charCodeAt(0)
  const named = { 9: '\\t', 10: '\\n', 13: '\\r' }[code]
  if (named) return named
  return code < 0x100 ? '\\x' + code.toString(16).padStart(2, '0') : '\\u' + code.toString(16).padStart(4, '0')
}

// A user's regular expression: case-insensitive unless it has an upper-case letter.
// {re} or {error}; an empty text matches everything ({re: null}).
function compileFilter(text) {
  if (!text) return { re: null }
  try {
    return { re: new RegExp(text, /[A-Z]/.test(text) ? '' : 'i') }
  } catch (e) {
    return { error: e.message }
  }
}

// compileFilter over a search box's text (its value, trimmed, unless `text` is given): an
// invalid expression marks the box red and puts the error in its tooltip (its data-help
// otherwise). {re} or {error}, as compileFilter.
function compileInput(input, text = input.value.trim()) {
  const compiled = compileFilter(text)
  input.classList.toggle('invalid', Boolean(compiled.error))
  input.title = compiled.error || input.dataset.help || ''
  return compiled
}

// Calls fn at most once per animation frame / after typing stops.
function debounce(fn, ms) {
  let timer = 0
  return (...args) => {
    clearTimeout(timer)
    timer = setTimeout(() => fn(...args), ms)
  }
}

const tooltip = {
  show(event, nameText, rows) {
    const t = document.getElementById('tooltip')
    clear(t)
    append(t, [el('div', { class: 'tname', text: shown(nameText, 600) }), rows.map(r => el('div', { class: 'trow', text: r }))])
    t.hidden = false
    const x = Math.min(event.clientX + 14, window.innerWidth - t.offsetWidth - 8)
    const y = event.clientY + 18 + t.offsetHeight > window.innerHeight ? event.clientY - t.offsetHeight - 10 : event.clientY + 18
    t.style.left = `${Math.max(4, x)}px`
    t.style.top = `${Math.max(4, y)}px`
  },
  hide() {
    document.getElementById('tooltip').hidden = true
  },
}
