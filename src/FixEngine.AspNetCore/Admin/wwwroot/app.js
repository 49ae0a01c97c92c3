// FixEngine console: plain script, no build step. Talks to the admin API next to this page (relative URLs).
'use strict';
(function () {
  const api = (path) => 'api/' + path;
  let selected = null;
  let sessions = [];
  // The list is read a page at a time, filtered on the server (api/sessions?offset=&limit=&state=&enabled=&q=): an
  // engine with thousands of sessions is never pulled whole.
  let offset = 0;
  let total = 0;
  let refreshing = false;
  let again = false;
  let pending = null;

  const $ = (sel) => document.querySelector(sel);
  const el = (tag, attrs, ...children) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'class') e.className = v; else e.setAttribute(k, v);
    }
    for (const c of children) e.append(c === null || c === undefined ? '' : c);
    return e;
  };
  const time = (t) => (t ? t.replace('T', ' ').replace('Z', '') : '—');

  async function getJson(path) {
    const r = await fetch(api(path), { cache: 'no-store' });
    if (!r.ok) throw new Error(await r.text() || r.statusText);
    return r.json();
  }

  const pageSize = () => Number($('#page-size').value) || 100;

  function listQuery() {
    const q = new URLSearchParams({ offset: String(offset), limit: String(pageSize()) });
    const text = $('#filter-text').value.trim();
    if (text) q.set('q', text);
    if ($('#filter-state').value) q.set('state', $('#filter-state').value);
    if ($('#filter-enabled').value) q.set('enabled', $('#filter-enabled').value);
    return q;
  }

  // One read at a time; a refresh asked for meanwhile runs once the current one is done.
  async function refresh() {
    if (refreshing) {
      again = true;
      return;
    }
    refreshing = true;
    try {
      let page = await getJson('sessions?' + listQuery());
      if (page.total > 0 && offset >= page.total) {
        // The filter now matches fewer sessions than the page starts at: show the last page.
        offset = Math.floor((page.total - 1) / pageSize()) * pageSize();
        page = await getJson('sessions?' + listQuery());
      }
      sessions = page.sessions;
      total = page.total;
      renderSessions();
      renderPage(page);
      $('#status').textContent = 'updated ' + new Date().toLocaleTimeString();
    } catch (e) {
      $('#status').textContent = 'cannot reach the engine: ' + e.message;
    } finally {
      refreshing = false;
      if (again) {
        again = false;
        refresh();
      }
    }
  }

  // Events can come in bursts (a thousand sessions logging on at the open): one refresh for a burst.
  function refreshSoon() {
    if (pending) return;
    pending = setTimeout(() => {
      pending = null;
      refresh();
    }, 300);
  }

  function renderPage(page) {
    const first = page.total === 0 ? 0 : page.offset + 1;
    const last = page.offset + page.sessions.length;
    const filtered = page.total !== page.sessionCount;
    const count = (n) => n + (n === 1 ? ' session' : ' sessions');
    $('#page-status').textContent = first + '–' + last + ' of '
      + (filtered ? page.total + ' matching (' + count(page.sessionCount) + ')' : count(page.total));
    $('#page-prev').disabled = page.offset === 0;
    $('#page-next').disabled = last >= page.total;
  }

  function filterChanged() {
    offset = 0;
    refresh();
  }

  function renderSessions() {
    const body = $('#sessions tbody');
    body.replaceChildren(...sessions.map((s) => {
      const row = el('tr', { 'data-session': s.id, class: (s.id === selected ? 'selected ' : '') + (s.enabled ? '' : 'disabled') },
        el('td', {}, s.id),
        el('td', {}, s.role),
        el('td', { class: 'state state-' + s.state }, s.state + (s.enabled ? '' : ' (disabled)')),
        el('td', { title: s.logonWindow ? 'logon window: ' + s.logonWindow : '' }, s.schedule
          + (!s.inSchedule ? ' (closed)' : s.inLogonWindow ? '' : ' (outside the logon window)')),
        el('td', {}, s.endpoint + (s.peer ? ' ← ' + s.peer : '')),
        el('td', { class: 'next-sender' }, String(s.nextSender)),
        el('td', { class: 'next-target' }, String(s.nextTarget)),
        el('td', {}, time(s.lastSent)),
        el('td', {}, time(s.lastReceived)),
        el('td', {}, s.messagesSent + ' / ' + s.messagesReceived),
        el('td', {}, s.logons + ' / ' + s.disconnects),
        el('td', {}, s.gaps + ' / ' + s.rejectsSent),
        el('td', { class: 'store store-' + s.storeHealth, title: s.storeProblem || '' }, s.store + ': ' + s.storeHealth));
      row.addEventListener('click', () => select(s.id));
      return row;
    }));
  }

  function select(id) {
    selected = id;
    $('#detail').hidden = false;
    $('#detail-id').textContent = id;
    $('#action-result').textContent = '';
    $('#messages').replaceChildren();
    $('#messages-status').textContent = '';
    renderSessions();
  }

  async function act(action) {
    if (!selected) return;
    const q = new URLSearchParams({ id: selected });
    if (action === 'logout' || action === 'disable') q.set('text', $('#logout-text').value);
    if (action === 'seqnum') {
      if ($('#seq-sender').value) q.set('sender', $('#seq-sender').value);
      if ($('#seq-target').value) q.set('target', $('#seq-target').value);
    }
    const danger = { disconnect: 1, reset: 1, disable: 1, seqnum: 1 };
    if (danger[action] && !window.confirm(action + ' ' + selected + '?')) return;
    const out = $('#action-result');
    out.className = 'result';
    out.textContent = action + '…';
    const r = await fetch(api('action/' + action + '?' + q), { method: 'POST', headers: { 'X-FixEngine-Admin': '1' } });
    if (r.ok) {
      const body = await r.json();
      out.textContent = action + ': ' + body.result;
    } else {
      out.className = 'result error';
      out.textContent = action + ' refused: ' + await r.text();
    }
    refresh();
  }

  function renderMessages(list, what) {
    $('#messages-status').textContent = list.length + ' message(s) ' + what;
    $('#messages').replaceChildren(...list.map((m) => {
      const type = m.fields.find((f) => f.tag === 35);
      return el('div', { class: 'message', 'data-seq': String(m.seqNum) },
        el('div', { class: 'head' }, (m.direction === 'in' ? '← in ' : '→ out ') + '#' + m.seqNum + ' ' +
          (type ? (type.meaning || type.value) : '') + (m.time ? ' at ' + m.time : '') + ' (' + m.source + ')'),
        el('table', {}, ...m.fields.map((f) => el('tr', {},
          el('td', { class: 'tag' }, String(f.tag)),
          el('td', { class: 'name' }, f.name || ''),
          el('td', { class: 'value' }, f.value),
          el('td', { class: 'meaning muted' }, f.meaning || '')))),
        el('div', { class: 'raw' }, m.raw));
    }));
  }

  async function showRange(ev) {
    ev.preventDefault();
    if (!selected) return;
    try {
      const q = new URLSearchParams({ id: selected, from: $('#range-from').value || '1', to: $('#range-to').value || '0' });
      renderMessages(await getJson('messages?' + q), 'stored');
    } catch (e) {
      $('#messages-status').textContent = 'refused: ' + e.message;
    }
  }

  async function search(ev) {
    ev.preventDefault();
    if (!selected) return;
    try {
      const q = new URLSearchParams({ id: selected, tag: $('#search-tag').value, value: $('#search-value').value });
      renderMessages(await getJson('search?' + q), 'with ' + $('#search-tag').value + '=' + $('#search-value').value);
    } catch (e) {
      $('#messages-status').textContent = 'refused: ' + e.message;
    }
  }

  function tail() {
    const source = new EventSource(api('events'));
    source.onmessage = (m) => {
      const e = JSON.parse(m.data);
      const list = $('#tail');
      const props = Object.entries(e.properties).map(([k, v]) => k + '=' + v).join(' ');
      list.prepend(el('li', { class: e.level, title: props }, time(e.time) + ' ' + e.session + ' [' + e.eventName + '] ' + e.text));
      while (list.children.length > 500) list.lastChild.remove();
      refreshSoon();
    };
  }

  document.addEventListener('DOMContentLoaded', () => {
    document.querySelectorAll('button[data-action]').forEach((b) => b.addEventListener('click', () => act(b.dataset.action)));
    $('#range-form').addEventListener('submit', showRange);
    $('#search-form').addEventListener('submit', search);
    $('#filter-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      filterChanged();
    });
    let typing = null;
    $('#filter-text').addEventListener('input', () => {
      clearTimeout(typing);
      typing = setTimeout(filterChanged, 250);
    });
    $('#filter-state').addEventListener('change', filterChanged);
    $('#filter-enabled').addEventListener('change', filterChanged);
    $('#page-size').addEventListener('change', filterChanged);
    $('#page-prev').addEventListener('click', () => {
      offset = Math.max(0, offset - pageSize());
      refresh();
    });
    $('#page-next').addEventListener('click', () => {
      if (offset + pageSize() < total) offset += pageSize();
      refresh();
    });
    refresh();
    setInterval(refresh, 2000);
    tail();
  });
})();
