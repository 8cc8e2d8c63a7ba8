// table.js: the sortable table every panel uses. A column says how to read its value from a
// row and how to show it; clicking a header sorts (numbers descending first, text ascending).

// Column helpers. `get` reads the value from a row; `whole` (for pct) gives the 100 %.
const col = {
  name: (key, label, get, full) => ({ key, label, type: 'name', get, full }),
  text: (key, label, get) => ({ key, label, type: 'text', get }),
  time: (key, label, get, title) => ({ key, label, type: 'time', get, title }),
  count: (key, label, get, title) => ({ key, label, type: 'count', get, title }),
  bytes: (key, label, get, title) => ({ key, label, type: 'bytes', get, title }),
  pct: (key, label, get, whole, title) => ({ key, label, type: 'pct', get, whole, title }),
}

function cellContent(c, row) {
  const v = c.get(row)
  switch (c.type) {
    case 'time': return fmtTime(v)
    case 'count': return fmtCount(v)
    case 'bytes': return fmtBytes(v)
    case 'pct': return v === null || v === undefined ? '-' : pctBar(v, c.whole(row), c.blue)
    case 'name': return v
    case 'element': return v
    default: return v === null || v === undefined ? '-' : String(v)
  }
}

function compareValues(a, b, desc) {
  const aNone = a === null || a === undefined, bNone = b === null || b === undefined
  if (aNone || bNone) return aNone === bNone ? 0 : aNone ? 1 : -1  // no value: always last
  const c = typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b))
  return desc ? -c : c
}

// options: {columns, rows, sort: {key, desc}, limit, onRow(row, tr), rowKey(row), empty, className}
function dataTable(options) {
  const state = { rows: options.rows, sort: options.sort || null, limit: options.limit || 500, selected: null }
  const table = el('table', { class: 'data ' + (options.className || '') })
  const thead = el('thead'), tbody = el('tbody')
  append(table, [thead, tbody])
  const headRow = el('tr')
  thead.appendChild(headRow)
  const headers = new Map()

  function sortBy(key) {
    const c = options.columns.find(x => x.key === key)
    const desc = state.sort && state.sort.key === key ? !state.sort.desc : !(c.type === 'name' || c.type === 'text' || c.type === 'element')
    state.sort = { key, desc }
    render()
    if (options.onSort) options.onSort(state.sort)
  }

  function renderHead() {
    clear(headRow)
    headers.clear()
    for (const c of options.columns) {
      if (c.hidden) continue
      const th = el('th', {
        class: 'sortable' + (c.type === 'name' || c.type === 'text' || c.type === 'element' ? ' text' : ''),
        title: c.title || `sort by ${c.label}`, dataset: { key: c.key }, onclick: () => sortBy(c.key),
      }, c.label)
      if (state.sort && state.sort.key === c.key) th.setAttribute('aria-sort', state.sort.desc ? 'descending' : 'ascending')
      headers.set(c.key, th)
      headRow.appendChild(th)
    }
  }

  function sorted() {
    if (!state.sort) return state.rows
    const c = options.columns.find(x => x.key === state.sort.key)
    if (!c) return state.rows
    const keyed = state.rows.map(r => [c.sortValue ? c.sortValue(r) : c.get(r), r])
    keyed.sort((a, b) => compareValues(a[0], b[0], state.sort.desc))
    return keyed.map(x => x[1])
  }

  function render() {
    renderHead()
    clear(tbody)
    const rows = sorted()
    const visible = options.columns.filter(c => !c.hidden)
    const shownRows = rows.slice(0, state.limit)
    for (const r of shownRows) {
      const tr = el('tr')
      if (options.onRow) {
        tr.classList.add('clickable')
        tr.addEventListener('click', () => options.onRow(r, tr))
      }
      if (options.rowClass) { const k = options.rowClass(r); if (k) tr.classList.add(...k.split(' ')) }
      if (state.selected && options.rowKey && options.rowKey(r) === state.selected) tr.classList.add('selected')
      if (options.rowKey) tr.dataset.key = String(options.rowKey(r))
      for (const c of visible) {
        const td = el('td', { class: c.cls || (c.type === 'name' ? 'name' : c.type === 'text' ? 'text' : c.type === 'pct' ? 'bar' : null) })
        const content = cellContent(c, r)
        if (c.type === 'name') {
          if (c.decorate) append(td, [c.decorate(r)])
          append(td, [shown(content)])
          if (c.full) td.title = shown(c.full(r), 2000)
        } else {
          append(td, [content])
          const raw = c.get(r)
          if (typeof raw === 'number') td.dataset.value = String(raw)  // the exact number, for copying and tests
        }
        tr.appendChild(td)
      }
      tbody.appendChild(tr)
    }
    if (rows.length > shownRows.length) {
      const more = el('tr', { class: 'more' },
        el('td', { colspan: visible.length },
          `${fmtCount(rows.length - shownRows.length)} more rows `,
          el('button', { class: 'link', onclick: () => { state.limit = Infinity; render() } }, 'show all')))
      tbody.appendChild(more)
    }
    if (!rows.length && options.empty) tbody.appendChild(el('tr', { class: 'more' }, el('td', { colspan: visible.length }, options.empty)))
  }

  render()
  return {
    element: table,
    update(rows) { state.rows = rows; render() },
    setSelected(key) {
      state.selected = key
      for (const tr of tbody.children) tr.classList.toggle('selected', tr.dataset.key === String(key))
    },
    rerender: render,
    get sort() { return state.sort },
  }
}
