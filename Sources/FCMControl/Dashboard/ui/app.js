// fcm-emu dashboard: reads and drives the emulator through its control API and event stream,
// like any other client. No framework; every value reaches the DOM as text.
import { call, enc, paths, sendV1 } from './api.js';
import { h, $, fill, clockTime, short, shortMessageId, pretty } from './dom.js';
import { Feed } from './feed.js';
import { renderDelivery } from './inbox.js';
import { sendExamples, faultTemplates, eventKinds, states } from './examples.js';
import { createLog } from './logview.js';
import { createTimeline, clockStamp, since } from './timeline.js';
import { createChart } from './activity.js';
import { createRefusals } from './refusals.js';
import { createConnections } from './connections.js';
import { createLinks } from './links.js';
import { evictionText } from './eviction.js';
import { fetchOutcomes, drawOutcomes } from './outcomes.js';

const state = {
  projects: [],
  project: null,
  devices: new Map(), // id → device JSON: the page of the list shown, in list order
  names: new Map(), // id → name, for every device seen (labels in the log)
  selected: null, // device id shown in the detail pane
  selectedDevice: null, // its JSON
  page: { offset: 0, limit: 20, total: 0 },
  loadedSendBody: null, // the example text last loaded, to reload it when the device changes
  loadedFaultBody: null, // the same for the fault-rule template
  clock: null,
  clockFetchedAt: 0,
  timers: [],
  view: '', // the section the address names (links.js): 'detail', 'timeline', 'log', 'refusals', …
};

const MAX_LIVES = 200;
const number = new Intl.NumberFormat('en');

// ---------------------------------------------------------------- messages to the user

let toastTimer;
function toast(text, error = false) {
  const el = $('#toast');
  el.textContent = text;
  el.classList.toggle('error', error);
  el.setAttribute('role', error ? 'alert' : 'status');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.textContent = ''; }, error ? 8000 : 3500);
}

/** Runs an action from a button or form; shows its error, refreshes what it may have changed. */
async function act(label, fn, { refresh = true } = {}) {
  try {
    const result = await fn();
    if (label) toast(label);
    if (refresh) scheduleRefresh(0);
    return result;
  } catch (error) {
    toast(error.message || String(error), true);
    return undefined;
  }
}

// ---------------------------------------------------------------- links: every view in the address (links.js, docs/dashboard.md)

/** The view shown now, as links.js writes it into the address. */
function currentView() {
  const f = $('#log-filters');
  return {
    project: state.project ?? '', device: state.selected ?? '', message: timeline.id ?? '', view: state.view,
    q: $('#device-search').value.trim(), platform: $('#device-platform-filter').value, state: $('#device-state-filter').value,
    logKind: f.kind.value.trim(), logDevice: f.device.value.trim(), logTopic: f.topic.value.trim(), logMessage: f.message.value.trim(),
    logToken: f.token.value.trim(), logAll: f.all.checked ? '1' : '',
    refusalsToken: $('#refusals-token').value.trim(), refusalsApi: $('#refusals-api').value, refusalsCode: $('#refusals-code').value.trim(),
    refusalsFaults: $('#refusals-faults').checked ? '' : 'off',
  };
}

/** Shows the view a link names: its fields first (the device list and the log read them), then what they select. */
async function showView(v) {
  const listBefore = listQuery().toString();
  const logBefore = JSON.stringify(logFilters());
  const refusalsBefore = JSON.stringify(refusals.filters());
  $('#device-search').value = v.q;
  $('#device-platform-filter').value = v.platform;
  $('#device-state-filter').value = v.state;
  const f = $('#log-filters');
  f.kind.value = v.logKind; f.device.value = v.logDevice; f.topic.value = v.logTopic; f.message.value = v.logMessage; f.token.value = v.logToken;
  f.all.checked = v.logAll === '1';
  $('#log-device').disabled = f.all.checked;
  $('#refusals-token').value = v.refusalsToken;
  $('#refusals-api').value = v.refusalsApi;
  $('#refusals-code').value = v.refusalsCode;
  $('#refusals-faults').checked = v.refusalsFaults !== 'off';
  if (JSON.stringify(refusals.filters()) !== refusalsBefore) startRefusals();
  else refusals.recount();
  state.view = /^[a-z]+$/.test(v.view) ? v.view : '';
  if (v.project && v.project !== state.project && state.projects.some((p) => p.id === v.project)) {
    await selectProject(v.project, v.device);
  } else {
    if (listQuery().toString() !== listBefore) { state.page.offset = 0; await refreshDevices(); }
    if (JSON.stringify(logFilters()) !== logBefore) startLog();
    if (v.device && v.device !== state.selected) await selectDevice(v.device, { quiet: true });
  }
  if (v.message && v.message !== timeline.id) showTimeline(v.message);
  else if (!v.message && timeline.id) timeline.clear();
  jumpTo(state.view);
}

const links = createLinks({ read: currentView, apply: showView });

/** Scrolls to a section by its view name (its heading is `<view>-h`); a hidden one shows the device pane. */
function jumpTo(view) {
  if (!view) return;
  let target = document.getElementById(`${view}-h`);
  if (!target?.closest('.panel')) return;
  if (target.closest('[hidden]')) target = $('#detail-h');
  target.scrollIntoView({ block: 'start' });
  target.focus({ preventScroll: true });
}

// The section links jump by script, and each jump is a view of its own in the address and history.
for (const link of document.querySelectorAll('a[data-jump]')) {
  link.addEventListener('click', (e) => {
    e.preventDefault();
    state.view = link.dataset.jump.replace(/-h$/, '');
    jumpTo(state.view);
    links.push();
  });
}

// ---------------------------------------------------------------- projects

async function loadProjects() {
  const answer = await call('GET', '/projects');
  const projects = (answer.projects ?? []).map((p) => ({ id: p.id, number: p.number }));
  const select = $('#project');
  // Filled again only when projects came or went, so an open list is left alone.
  if (JSON.stringify(projects) === JSON.stringify(state.projects) && select.options.length) return;
  state.projects = projects;
  fill(select, projects.map((p) => h('option', { value: p.id }, p.id + (p.number ? ` (${p.number})` : ''))));
  if (state.project) {
    if (projects.some((p) => p.id === state.project)) select.value = state.project;
    else if (projects.length) selectProject(projects[0].id); // ours was deleted
  }
}

async function selectProject(id, wanted = links.current.device) {
  state.project = id;
  $('#project').value = id;
  state.devices.clear();
  state.names.clear();
  state.selected = null;
  state.selectedDevice = null;
  state.page.offset = 0;
  fill($('#devices'));
  deviceRows.clear();
  showDetail(null);
  timeline.clear();
  $('#send-endpoint').textContent = `POST /v1/projects/${id}/messages:send`;
  lives.reset();
  await refreshDevices();
  if (wanted) await selectDevice(wanted, { quiet: true });
  if (!state.selected && state.devices.size) await selectDevice(state.devices.keys().next().value, { quiet: true });
  links.replace();
  loadSendExample();
  loadFaultTemplate();
  worldFeed.start(id, {});
  startLog();
  refreshXMPP();
}

// ---------------------------------------------------------------- devices: a searchable, paged list

const deviceRows = new Map(); // id → {li, update}
let listGeneration = 0;

function listQuery() {
  const q = new URLSearchParams({ offset: String(state.page.offset), limit: String(state.page.limit) });
  const text = $('#device-search').value.trim();
  if (text) q.set('q', text);
  if ($('#device-platform-filter').value) q.set('platform', $('#device-platform-filter').value);
  if ($('#device-state-filter').value) q.set('state', $('#device-state-filter').value);
  return q;
}

/** Reads the list page the search and pager ask for, and draws it (a newer request wins). */
async function refreshDevices() {
  if (!state.project) return;
  const project = state.project;
  const generation = ++listGeneration;
  const query = listQuery();
  const answer = await call('GET', `${paths.devices(project)}?${query}`);
  if (project !== state.project || generation !== listGeneration) return;
  const list = answer.devices ?? [];
  if (!list.length && answer.total > 0 && state.page.offset > 0) {
    // The page emptied (devices deleted): back to the last page that has some.
    state.page.offset = Math.max(0, Math.floor((answer.total - 1) / state.page.limit) * state.page.limit);
    return refreshDevices();
  }
  drawDevices(list, answer.total ?? list.length, query);
}

function drawDevices(list, total, query) {
  state.devices = new Map(list.map((d) => [d.id, d]));
  for (const d of list) state.names.set(d.id, d.name ?? '');
  state.page.total = total;
  const filtered = query.has('q') || query.has('platform') || query.has('state');
  $('#devices-count').textContent = `(${number.format(total)}${filtered ? ' match' + (total === 1 ? 'es' : '') : ''})`;
  const first = total ? state.page.offset + 1 : 0;
  const last = state.page.offset + list.length;
  $('#devices-range').textContent = total ? `${number.format(first)}–${number.format(last)} of ${number.format(total)}` : '';
  $('#devices-prev').disabled = state.page.offset === 0;
  $('#devices-next').disabled = last >= total;
  const ul = $('#devices');
  for (const [id, row] of deviceRows) {
    if (!state.devices.has(id)) { row.li.remove(); deviceRows.delete(id); }
  }
  for (const device of list) {
    let row = deviceRows.get(device.id);
    if (!row) {
      row = deviceRow(device);
      deviceRows.set(device.id, row);
    }
    ul.append(row.li); // keeps list order; moving a node keeps its focus state in the list
    row.update(device);
  }
  $('#devices-empty')?.remove();
  if (!list.length) {
    ul.append(h('li', { id: 'devices-empty', class: 'empty' }, filtered ? 'No device matches.' : 'No devices yet: create one below.'));
  }
  ul.dataset.query = query.get('q') ?? '';
  ul.dataset.total = String(total);
  relabelDevices();
}

function deviceRow(device) {
  const id = device.id;
  const refs = {};
  refs.name = h('button', { type: 'button', class: 'device-name', dataset: { testid: 'device-select' }, onclick: () => selectDevice(id, { scroll: true }) });
  refs.platform = h('span', { class: 'platform', dataset: { testid: 'device-platform' } });
  refs.state = h('select', {
    class: 'state-select', dataset: { testid: 'device-state' },
    onchange: (e) => act(`${labelOf(id)} → ${e.target.value}`, () => call('PATCH', paths.device(state.project, id), { state: e.target.value })),
  }, states.map((s) => h('option', { value: s }, s)));
  refs.token = h('code', { class: 'token', dataset: { testid: 'device-token' } });
  refs.invalid = h('span', { class: 'invalid', dataset: { testid: 'device-token-invalid' } });
  refs.pending = h('span', { dataset: { testid: 'device-pending' } });
  refs.delivered = h('span', { dataset: { testid: 'device-delivered' } });
  const li = h('li', { class: 'device', dataset: { testid: 'device', deviceId: id } },
    refs.name, refs.platform, h('span', { class: 'token-cell' }, refs.token, refs.invalid),
    h('span', { class: 'counts' }, refs.pending, refs.delivered), refs.state);

  const update = (d) => {
    const label = d.name || `device ${d.id}`;
    refs.name.textContent = label;
    refs.name.setAttribute('aria-label', `Show device ${label}`);
    li.dataset.deviceName = d.name ?? '';
    li.dataset.state = d.state;
    li.dataset.platform = d.platform;
    // A real receiver (docs/receivers.md) is marked, with its MCS connection's state.
    refs.platform.textContent = d.receiver ? `${d.platform} · real${d.receiver.connected ? '' : ' (away)'}` : d.platform;
    refs.platform.title = d.receiver ? `A real receiver: Android id ${d.receiver.androidId}, MCS ${d.receiver.connected ? 'connected' : 'not connected'}` : '';
    li.dataset.receiver = d.receiver ? (d.receiver.connected ? 'connected' : 'away') : '';
    refs.state.value = d.state;
    refs.state.className = `state-select state-${d.state}`;
    refs.state.setAttribute('aria-label', `State of ${label}`);
    refs.token.textContent = d.token;
    refs.token.title = d.token;
    refs.invalid.textContent = d.tokenValid === false ? 'token invalid' : '';
    const collapsible = d.storedCollapsible ?? 0;
    const nonCollapsible = d.storedNonCollapsible ?? 0;
    const stored = d.storedCount ?? collapsible + nonCollapsible;
    fill(refs.pending, h('b', {}, String(stored)), ' held');
    refs.pending.title = `${stored} stored (${collapsible} collapsible, ${nonCollapsible} non-collapsible)${d.deletedMessagesPending ? '; onDeletedMessages() is pending' : ''}`;
    refs.pending.className = stored ? 'pending-some' : '';
    refs.pending.dataset.count = String(stored);
    refs.pending.dataset.collapsible = String(collapsible);
    refs.pending.dataset.nonCollapsible = String(nonCollapsible);
    fill(refs.delivered, h('b', {}, String(d.deliveredCount ?? 0)), ' received');
    refs.delivered.dataset.count = String(d.deliveredCount ?? 0);
    li.setAttribute('aria-current', String(state.selected === d.id));
  };
  return { li, update };
}

function labelOf(id) {
  const name = state.selectedDevice?.id === id ? state.selectedDevice.name : state.names.get(id);
  return name || `device ${id}`;
}

async function copyText(text, done) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // Not a secure context (a LAN address): the old way, through a selected text field.
    const field = h('textarea', { class: 'offscreen', readonly: true, 'aria-label': 'Copied text' });
    field.value = text;
    document.body.append(field);
    field.select();
    const ok = document.execCommand('copy');
    field.remove();
    if (!ok) { toast('Copy failed; select the text and copy it by hand', true); return; }
  }
  toast(done);
}

// The search runs on every keystroke: the emulator filters its list (q, platform, state).
function searchChanged() {
  state.page.offset = 0;
  links.replace();
  refreshDevices().catch((error) => toast(error.message, true));
}
$('#device-search').addEventListener('input', searchChanged);
$('#device-platform-filter').addEventListener('change', searchChanged);
$('#device-state-filter').addEventListener('change', searchChanged);
$('#device-search-form').addEventListener('submit', (e) => { e.preventDefault(); searchChanged(); });
$('#device-state-filter').append(...states.map((s) => h('option', { value: s }, s)));
$('#devices-prev').addEventListener('click', () => {
  state.page.offset = Math.max(0, state.page.offset - state.page.limit);
  refreshDevices();
});
$('#devices-next').addEventListener('click', () => {
  state.page.offset += state.page.limit;
  refreshDevices();
});

$('#new-device-state').append(...states.filter((s) => s !== 'uninstalled').map((s) => h('option', { value: s }, s)));
$('#new-device-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const form = e.target;
  const body = { platform: form.platform.value, state: form.state.value };
  if (form.name.value.trim()) body.name = form.name.value.trim();
  const device = await act(null, () => call('POST', paths.devices(state.project), body), { refresh: false });
  if (!device) return;
  toast(`Created ${device.name || 'device ' + device.id} (${device.platform})`);
  form.name.value = '';
  // The list is oldest first: show the last page, which ends with the new device, with no
  // search hiding it.
  $('#device-search').value = '';
  $('#device-platform-filter').value = '';
  $('#device-state-filter').value = '';
  const total = (await call('GET', `${paths.devices(state.project)}?limit=1`)).total ?? 1;
  state.page.offset = Math.max(0, total - state.page.limit);
  await refreshDevices();
  await selectDevice(device.id);
});
$('#devices-refresh').addEventListener('click', () => scheduleRefresh(0));

// ---------------------------------------------------------------- the detail pane: facts, actions, held messages, inbox

const inboxKeys = new Set();

async function selectDevice(id, { scroll = false, quiet = false } = {}) {
  let device = state.devices.get(id);
  if (!device) {
    try { device = await call('GET', paths.device(state.project, id)); } catch (error) { if (!quiet) toast(error.message, true); return; }
    id = device.id;
  }
  state.selected = id;
  state.selectedDevice = device;
  for (const [deviceId, row] of deviceRows) row.li.setAttribute('aria-current', String(deviceId === id));
  showDetail(device);
  if (quiet) links.replace();
  else { state.view = 'detail'; links.push(); }
  // An example not edited since it was loaded follows the selected device's token.
  if ($('#send-body').value === state.loadedSendBody) loadSendExample();
  if ($('#fault-body').value === state.loadedFaultBody) loadFaultTemplate();
  // One column (a phone): the pane is below the list, so go to it.
  if (scroll && $('#device-detail').getBoundingClientRect().top > innerHeight * 0.6) {
    $('#detail-h').scrollIntoView({ block: 'start' });
  }
  await refreshDetail();
}

const detailActions = [
  h('button', {
    type: 'button', class: 'small', dataset: { testid: 'device-refresh-token' },
    onclick: () => act(`New token for ${labelOf(state.selected)}`, () => call('POST', paths.device(state.project, state.selected) + ':refreshToken')),
  }, 'Refresh token'),
  h('button', {
    type: 'button', class: 'small', dataset: { testid: 'device-uninstall' },
    onclick: () => act(`${labelOf(state.selected)} uninstalled`, () => call('POST', paths.device(state.project, state.selected) + ':uninstall')),
  }, 'Uninstall'),
  h('button', {
    type: 'button', class: 'small', dataset: { testid: 'device-subscribe' },
    onclick: () => {
      const id = state.selected;
      const topic = prompt(`Subscribe ${labelOf(id)} to topic:`, 'news');
      if (topic) act(`${labelOf(id)} subscribed to ${topic}`, () => call('PUT', paths.device(state.project, id) + '/topics/' + enc(topic)));
    },
  }, 'Subscribe…'),
  h('button', {
    type: 'button', class: 'small danger', dataset: { testid: 'device-delete' },
    onclick: () => {
      const id = state.selected;
      if (confirm(`Delete ${labelOf(id)}? Its token will answer as unregistered.`)) {
        act(`${labelOf(id)} deleted`, async () => { await call('DELETE', paths.device(state.project, id)); showDetail(null); });
      }
    },
  }, 'Delete'),
];
$('#detail-actions').append(...detailActions);

function showDetail(device) {
  inboxKeys.clear();
  $('#inbox-device').textContent = device ? `— ${device.name || 'device ' + device.id} (${device.platform})` : '';
  $('#inbox').dataset.deviceId = device?.id ?? '';
  $('#device-detail').dataset.deviceId = device?.id ?? '';
  $('#inbox-clear').disabled = !device;
  $('#detail-empty').hidden = !!device;
  $('#detail-body').hidden = !device;
  fill($('#inbox'), device ? h('p', { class: 'empty' }, 'Nothing received yet.') : null);
  fill($('#stored'));
  drawOutcomes($('#detail-story'), null);
  if (!device) { state.selected = null; state.selectedDevice = null; return; }
  drawFacts(device);
}

function drawFacts(d) {
  const fact = (name, value, testid) => [h('dt', {}, name), h('dd', { dataset: testid ? { testid } : undefined }, value)];
  fill($('#detail-facts'),
    fact('Token', [h('code', { class: 'full-token', dataset: { testid: 'detail-token' } }, d.token), ' ',
      h('button', { type: 'button', class: 'small', dataset: { testid: 'device-copy-token' }, onclick: () => copyText(state.selectedDevice?.token ?? '', `Token of ${labelOf(d.id)} copied`) }, 'Copy'),
      d.tokenValid === false ? h('span', { class: 'invalid' }, ' invalid') : null]),
    fact('Id · FID', [h('code', {}, d.id), ' · ', h('code', {}, d.fid)]),
    fact('App', [h('code', {}, d.appId), ` on ${d.platform}, `, h('span', { class: `state-${d.state}` }, d.state)]),
    fact('Topics', d.topics?.length ? `topics: ${d.topics.join(', ')}` : 'none', 'device-topics'),
    fact('Received', [h('b', {}, String(d.deliveredCount ?? 0)), d.lastDeliveryAt ? `, last ${clockTime(d.lastDeliveryAt)}` : ', never delivered'], 'device-last-delivery'),
    fact('Connected', d.lastConnectedAt ? clockStamp(d.lastConnectedAt) : '', null),
    fact('Senders', (d.senders ?? []).join(', '), null),
    d.receiver ? fact('Receiver', [
      'a real client over MCS, ', h('b', {}, d.receiver.connected ? 'connected' : 'not connected'),
      ` (Android id ${d.receiver.androidId}, ${d.receiver.subtype}); endpoint `, h('code', {}, d.receiver.endpoint),
    ], 'device-receiver') : []);
}

async function refreshDetail() {
  const id = state.selected;
  if (!id || !state.project) return;
  const project = state.project;
  const [stored, inbox, outcomes] = await Promise.all([
    call('GET', paths.device(project, id) + '/stored'),
    call('GET', paths.inbox(project, id)),
    fetchOutcomes(project, id).catch(() => null),
  ]);
  if (id !== state.selected || project !== state.project) return;
  state.selectedDevice = inbox.device ?? stored.device;
  drawOutcomes($('#detail-story'), outcomes, (messageId) => openTimeline(messageId));
  // A device picked from beyond the list's page: the log names it from now on.
  const name = state.selectedDevice?.name;
  if (name && state.names.get(id) !== name) { state.names.set(id, name); relabelDevices(); }
  drawFacts(state.selectedDevice);
  drawStored(stored.stored ?? []);
  drawInbox(inbox.deliveries ?? [], state.selectedDevice);
}

function drawStored(list) {
  $('#stored-count').textContent = `(${list.length})`;
  fill($('#stored'), list.length ? list.map((s) => h('li', { dataset: { testid: 'stored-message', messageId: s.messageId } },
    h('button', { type: 'button', class: 'linkish mono', title: `${s.messageId}: show its timeline`, onclick: () => openTimeline(s.messageId) }, shortMessageId(s.messageId)),
    h('span', { class: 'msg-title' }, s.title ?? (s.dataSummary ? 'data' : '')),
    h('span', { class: 'sub msg-data', title: s.dataSummary ?? '' }, s.dataSummary ?? ''),
    h('span', { class: 'chip' }, s.priority),
    s.collapseKey ? h('span', { class: 'chip', title: 'Collapse key' }, '⇲ ' + short(s.collapseKey, 16)) : null,
    h('span', { class: 'sub when', title: s.expiresAt ?? '' }, s.expiresAt ? `expires ${clockStamp(s.expiresAt)}` : 'TTL 0')))
    : h('li', { class: 'empty' }, 'Nothing stored: the device holds no message for later.'));
}

function drawInbox(deliveries, device) {
  const box = $('#inbox');
  const keys = deliveries.map((d, i) => `${d.messageId ?? 'signal'}|${d.time}|${i}`);
  if (keys.length < inboxKeys.size || [...inboxKeys].some((k) => !keys.includes(k))) {
    inboxKeys.clear(); // cleared or replaced: draw again
    fill(box);
  }
  if (!deliveries.length) {
    fill(box, h('p', { class: 'empty' }, 'Nothing received yet.'));
    return;
  }
  box.querySelector('.empty')?.remove();
  deliveries.forEach((delivery, i) => {
    if (inboxKeys.has(keys[i])) return;
    inboxKeys.add(keys[i]);
    box.prepend(renderDelivery(delivery, device)); // newest first
  });
}

$('#inbox-clear').addEventListener('click', () =>
  act('Inbox cleared', () => call('DELETE', paths.inbox(state.project, state.selected))));

// ---------------------------------------------------------------- refresh on events

let refreshTimer = null;
let refreshing = false;
let refreshAgain = false;
function scheduleRefresh(delay = 120) {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(runRefresh, delay);
}
async function runRefresh() {
  if (refreshing) { refreshAgain = true; return; }
  refreshing = true;
  try {
    await loadProjects();
    await refreshDevices();
    await refreshDetail();
    // An example not edited since it was loaded follows the selected device's token (refreshed, say).
    const selected = state.selectedDevice;
    if (selected && $('#send-body').value === state.loadedSendBody && !state.loadedSendBody.includes(selected.token)) loadSendExample();
    await Promise.all([refreshFaults(), refreshClock(), refreshXMPP(), refreshEviction()]);
  } catch (error) {
    toast(error.message, true);
  } finally {
    refreshing = false;
    if (refreshAgain) { refreshAgain = false; scheduleRefresh(50); }
  }
}

// ---------------------------------------------------------------- feeds: the world (refreshes, message lives, chart), the log (filtered), refusals (every project)

const feedStates = { world: 'connecting', log: 'connecting', refusals: 'connecting' };
function feedStatus(name) {
  return (s, text) => {
    feedStates[name] = s;
    const overall = Object.values(feedStates).includes('closed') ? 'closed'
      : Object.values(feedStates).every((v) => v === 'open') ? 'open' : 'connecting';
    const el = $('#stream-status');
    el.dataset.state = overall;
    el.textContent = overall === 'open' ? 'live' : overall === 'closed' ? text : 'connecting…';
  };
}

const chart = createChart($('#chart'), $('#chart-legend'));

const worldFeed = new Feed({
  event(event, live) {
    lives.add(event);
    timeline.add(event);
    if (live) { chart.add(event); scheduleRefresh(); }
  },
  lagged(missed) {
    lives.notice(`Fell behind the stream: ${missed} events missed; some lines may be incomplete.`);
    scheduleRefresh(0);
  },
  shutdown() { toast('The emulator stopped; waiting for it to come back…', true); },
  restarted() { boot(); },
  status: feedStatus('world'),
}, 500);

/** A device's name where the event log shows it; relabelled when the device list loads. */
function deviceLabel(id, project = state.project) {
  const name = project === state.project ? state.names.get(id) : null;
  return h('span', { class: 'dev', dataset: { deviceId: id, project: project ?? '' } }, name || `device ${id}`);
}
function relabelDevices() {
  for (const el of document.querySelectorAll('#log .dev, #lives .dev, #timeline .dev, #timers .dev')) {
    const name = el.dataset.project === state.project ? state.names.get(el.dataset.deviceId) : null;
    if (name && el.textContent !== name) el.textContent = name;
  }
}

const log = createLog({
  el: $('#log'), label: deviceLabel, openMessage: (id) => openTimeline(id), showProject: () => $('#log-all').checked,
});
const logFeed = new Feed({
  event(event, live) { log.add(event, live); },
  lagged(missed) { log.notice(`${missed} events missed: this view fell behind the stream.`); },
  status: feedStatus('log'),
}, 200);

const refusals = createRefusals({
  el: $('#refusals'), count: $('#refusals-count'), api: $('#refusals-api'), code: $('#refusals-code'), token: $('#refusals-token'),
  faults: $('#refusals-faults'), older: $('#refusals-older'), evicted: $('#refusals-evicted'),
});
// Live refusals come on a stream filtered like the panel; the panel reads its pages itself. The
// stream starts first, so a refusal is either in the newest page or after the stream's start.
const refusalFeed = new Feed({
  event(event, live) {
    refusals.add(event);
    if (live && event.kind === 'refused') chart.add(event);
  },
  lagged() { refusals.reload(); },
  status: feedStatus('refusals'),
}, 1);
function startRefusals() {
  refusalFeed.start(null, refusals.filters());
  refusals.reload();
}
$('#refusals-older').addEventListener('click', () => refusals.older().catch((error) => toast(error.message, true)));
$('#refusals-filters').addEventListener('submit', (e) => { e.preventDefault(); startRefusals(); state.view = 'refusals'; links.push(); });
$('#refusals-filters').addEventListener('reset', () => setTimeout(() => { startRefusals(); state.view = 'refusals'; links.push(); }));
$('#refusals-api').addEventListener('change', () => { refusals.recount(); state.view = 'refusals'; links.push(); });
$('#refusals-code').addEventListener('input', () => { refusals.recount(); links.replace(); });
$('#refusals-faults').addEventListener('change', () => { startRefusals(); state.view = 'refusals'; links.push(); });

/** The event log's eviction, said above the log (the Refusals panel says it with each page it reads). */
async function refreshEviction() {
  const answer = await call('GET', '/events?limit=1');
  const text = evictionText(answer.evicted);
  $('#log-evicted').textContent = text;
  $('#log-evicted').hidden = !text;
  $('#log-evicted').dataset.count = String(answer.evicted?.count ?? 0);
}

function logFilters() {
  const form = $('#log-filters');
  const kind = form.kind.value.split(',').map((k) => k.trim()).filter(Boolean).join(',');
  return {
    scope: form.all.checked ? null : state.project,
    filters: { kind, device: form.device.value.trim(), topic: form.topic.value.trim(), message: form.message.value.trim(), token: form.token.value.trim() },
  };
}

function startLog() {
  const { scope, filters } = logFilters();
  const active = Object.entries(filters).filter(([, v]) => v).map(([k, v]) => `${k}=${v}`);
  if (!scope) active.unshift('all projects');
  $('#log-filters-summary').textContent = `Filters: ${active.length ? active.join(', ') : 'none'}`;
  log.reset();
  logFeed.start(scope, filters);
}

$('#log-filters').addEventListener('submit', (e) => { e.preventDefault(); startLog(); state.view = 'log'; links.push(); });
$('#log-filters').addEventListener('reset', () => setTimeout(() => { $('#log-device').disabled = false; startLog(); state.view = 'log'; links.push(); }));
$('#log-all').addEventListener('change', () => { $('#log-device').disabled = $('#log-all').checked; });
$('#log-clear').addEventListener('click', () => log.reset());
$('#event-kinds').append(...eventKinds.map((k) => h('option', { value: k })));

// Long lists show their newest lines; "Show all" lets the page grow instead of a panel scrolling.
for (const button of document.querySelectorAll('button[data-more]')) {
  const list = document.getElementById(button.dataset.more);
  const sync = () => {
    const n = list.querySelectorAll(':scope > li:not(.empty)').length;
    button.hidden = n <= 30 && list.classList.contains('capped');
    button.textContent = list.classList.contains('capped') ? `Show all ${n}` : 'Show fewer';
  };
  button.addEventListener('click', () => { list.classList.toggle('capped'); sync(); });
  new MutationObserver(sync).observe(list, { childList: true });
}

// ---------------------------------------------------------------- message lives: one line per message, and its timeline

const timeline = createTimeline({
  el: $('#timeline'), head: $('#timeline-head'), label: deviceLabel, copy: copyText,
  link: (id) => links.href({ message: id, view: 'timeline' }),
});
function openTimeline(id) {
  showTimeline(id);
  state.view = 'timeline';
  links.push();
}
function showTimeline(id) {
  timeline.open(id, state.project);
  for (const li of document.querySelectorAll('#lives li[aria-current="true"]')) li.setAttribute('aria-current', 'false');
  document.querySelector(`#lives li[data-message-id="${CSS.escape(id)}"]`)?.setAttribute('aria-current', 'true');
  const head = $('#timeline-h');
  if (head.getBoundingClientRect().top > innerHeight || head.getBoundingClientRect().bottom < 0) head.scrollIntoView({ block: 'start' });
}

const LIFE_KINDS = new Set(['accepted', 'stored', 'collapsed', 'evicted', 'expired', 'delivered', 'discarded']);
const lives = {
  el: $('#lives'),
  map: new Map(),
  reset() { this.map.clear(); fill(this.el); },
  add(event) {
    if (!event.messageId || !LIFE_KINDS.has(event.kind)) return;
    let life = this.map.get(event.messageId);
    if (!life) {
      life = { id: event.messageId, target: event.target, steps: [], seen: new Set(), li: h('li', { dataset: { testid: 'life', messageId: event.messageId } }) };
      this.map.set(event.messageId, life);
      this.el.prepend(life.li);
      if (this.map.size > MAX_LIVES) {
        const oldest = this.map.keys().next().value;
        this.map.get(oldest).li.remove();
        this.map.delete(oldest);
      }
    }
    if (life.seen.has(event.sequence)) return;
    life.seen.add(event.sequence);
    life.steps.push(event);
    life.target ??= event.target;
    if (event.kind === 'accepted') { life.title = event.title; life.data = event.dataSummary; life.time = event.time; }
    life.time ??= event.time;
    this.draw(life);
  },
  draw(life) {
    const last = life.steps.at(-1);
    life.li.dataset.status = last.kind;
    life.li.dataset.kinds = life.steps.map((s) => s.kind).join(',');
    // Per kind, how many copies (a topic message reaches many devices).
    const tally = new Map();
    for (const s of life.steps) tally.set(s.kind, (tally.get(s.kind) ?? 0) + 1);
    const steps = [...tally].map(([kind, n]) => `${kind}${n > 1 ? ' ×' + n : ''}`).join(' → ');
    fill(life.li,
      h('time', { datetime: life.time, title: life.time }, clockTime(life.time).slice(0, 8)),
      h('button', { type: 'button', class: 'linkish mono life-id', title: `${life.id}: show its timeline`, 'aria-label': `Timeline of message ${life.id}`, onclick: () => openTimeline(life.id) },
        shortMessageId(life.id)),
      h('span', { class: `status kind-${last.kind}`, title: steps }, steps),
      h('span', { class: 'msg-title', title: life.title ?? '' }, life.title ?? (life.data ? '(data)' : '')),
      h('span', { class: 'sub msg-data', title: life.data ?? '' }, life.data ?? ''),
      h('small', { title: life.target ?? '' }, life.target ? '→ ' + short(life.target, 30) : ''));
  },
  notice(text) { this.el.prepend(h('li', { class: 'notice' }, text)); },
};

// ---------------------------------------------------------------- send form

$('#send-example').append(...sendExamples.map((x) => h('option', { value: x.id }, x.label)));
function exampleContext() {
  const device = state.selectedDevice;
  return { token: device?.token, topic: device?.topics?.[0], project: state.project, device: device?.id };
}
function loadSendExample() {
  const example = sendExamples.find((x) => x.id === $('#send-example').value) ?? sendExamples[0];
  const text = pretty(example.body(exampleContext()));
  $('#send-body').value = text;
  state.loadedSendBody = text;
}
$('#send-example').addEventListener('change', loadSendExample);
$('#send-load').addEventListener('click', loadSendExample);

$('#send-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const button = $('#send-submit');
  const out = $('#send-response');
  button.disabled = true;
  $('#send-status').textContent = 'sending…';
  try {
    const r = await sendV1(state.project, $('#send-body').value);
    const statusLine = `${r.protocol} ${r.status}${r.statusText ? ' ' + r.statusText : ''}`;
    out.textContent = [statusLine, ...r.headers.map(([k, v]) => `${k}: ${v}`), '', r.text].join('\n');
    out.className = `wire ${r.status < 300 ? 'ok' : 'error'}`;
    out.dataset.status = String(r.status);
    let summary = `${r.status} in ${Math.round(r.elapsed)} ms`;
    try {
      const name = JSON.parse(r.text).name;
      if (name) {
        const messageId = name.split('/messages/')[1];
        summary += ` · message ${shortMessageId(messageId)}`;
        out.dataset.messageId = messageId;
      }
    } catch { /* not JSON: shown as it came */ }
    $('#send-status').textContent = summary;
  } catch (error) {
    out.textContent = `Request failed: ${error.message}`;
    out.className = 'wire error';
    out.dataset.status = '0';
    $('#send-status').textContent = 'failed';
  } finally {
    button.disabled = false;
    scheduleRefresh(50);
  }
});

// ---------------------------------------------------------------- fault rules

$('#fault-template').append(...faultTemplates.map((x) => h('option', { value: x.id }, x.label)));
function loadFaultTemplate() {
  const template = faultTemplates.find((x) => x.id === $('#fault-template').value) ?? faultTemplates[0];
  const text = pretty(template.rule(exampleContext()));
  $('#fault-body').value = text;
  state.loadedFaultBody = text;
}
$('#fault-template').addEventListener('change', loadFaultTemplate);
$('#fault-load').addEventListener('click', loadFaultTemplate);

/** {api: 'v1', count: 3} → "api=v1 count=3" */
function pairs(object) {
  return Object.entries(object ?? {}).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' ');
}

async function refreshFaults() {
  const answer = await call('GET', '/faults');
  const faults = answer.faults ?? [];
  $('#faults-count').textContent = `(${faults.length}, all projects)`;
  const ul = $('#faults');
  // Drawn again only when the rules changed, so a button is not replaced under the pointer.
  const drawn = JSON.stringify(faults);
  if (ul.dataset.drawn === drawn) return;
  ul.dataset.drawn = drawn;
  const focusedId = document.activeElement?.closest?.('[data-testid="fault"]')?.dataset.faultId;
  fill(ul, faults.length ? faults.map((rule) => h('li', { dataset: { testid: 'fault', faultId: rule.id } },
    h('span', { class: 'rule' }, h('b', {}, rule.id), ' ', h('code', {}, pairs(rule.match) || 'every call'), ' ⇒ ', h('code', {}, pairs(rule.action)),
      rule.fired !== undefined ? h('span', { class: 'sub' }, ` · fired ${rule.fired}×`) : null),
    h('button', {
      type: 'button', class: 'small danger', dataset: { testid: 'fault-remove' }, 'aria-label': `Remove fault rule ${rule.id}`,
      onclick: () => act(`Fault rule ${rule.id} removed`, () => call('DELETE', paths.fault(rule.id))),
    }, 'Remove')))
    : h('li', { class: 'empty', dataset: { testid: 'faults-empty' } }, 'No fault rules: every call behaves.'));
  if (focusedId !== undefined) (ul.querySelector('button') ?? $('#fault-add')).focus();
}

$('#fault-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  let rule;
  try { rule = JSON.parse($('#fault-body').value); } catch (error) { toast(`Not JSON: ${error.message}`, true); return; }
  const added = await act(null, () => call('POST', '/faults', rule));
  if (added) toast(`Fault rule ${added.id} added`);
});

// ---------------------------------------------------------------- clock and its pending timers

async function refreshClock() {
  const [clock, timers] = await Promise.all([call('GET', '/clock'), call('GET', '/clock/timers?limit=8')]);
  state.clock = clock;
  state.clockFetchedAt = Date.now();
  state.timers = timers.timers ?? [];
  drawClock();
  drawTimers(timers.total ?? state.timers.length);
}
function clockNowMillis() {
  const c = state.clock;
  if (!c) return null;
  return c.paused ? c.nowMillis : c.nowMillis + (Date.now() - state.clockFetchedAt) * (c.speed ?? 1);
}
function drawClock() {
  const c = state.clock;
  if (!c) return;
  const iso = new Date(clockNowMillis()).toISOString();
  const shown = iso.replace('T', ' ').slice(0, 19) + ' UTC';
  $('#clock-now').textContent = shown;
  $('#clock-now').dataset.millis = String(c.nowMillis);
  $('#clock-mode').textContent = `${c.mode}${c.paused ? ', paused' : ''}`;
  $('#clock-speed-value').textContent = `×${c.speed}`;
  // The next timer is often days away (a TTL): its date too, unless it is today.
  const next = c.nextTimer && (c.nextTimer.slice(0, 10) === iso.slice(0, 10) ? clockTime(c.nextTimer) : c.nextTimer.replace('T', ' ').slice(0, 19));
  $('#clock-timers').textContent = `${c.pendingTimers ?? 0} pending${next ? ', next ' + next : ''}`;
  $('#clock-timers').title = c.nextTimer ?? '';
  $('#clock-summary').textContent = `${iso.slice(11, 19)} UTC${c.paused ? ' · paused' : ''}${c.speed !== 1 ? ' · ×' + c.speed : ''}`;
  $('#clock-summary').dataset.paused = String(!!c.paused);
  $('#clock-pause').disabled = !!c.paused;
  $('#clock-resume').disabled = !c.paused;
  $('#clock-next').disabled = !c.nextTimer;
}
const WHAT = { expiry: 'expiry', dozeMaintenance: 'Doze window', delivery: 'delivery (latency)' };
function drawTimers(total) {
  $('#timers-count').textContent = `(${number.format(total)})`;
  const now = clockNowMillis();
  fill($('#timers'), state.timers.length ? state.timers.map((t) => h('li', { dataset: { testid: 'timer', what: t.what, at: t.at } },
    h('time', { datetime: t.at, title: t.at }, clockStamp(t.at).slice(0, 19)),
    h('span', { class: 'sub' }, since(Date.parse(t.at) - now).replace('+', 'in ')),
    h('b', {}, WHAT[t.what] ?? t.what),
    t.project === state.project ? deviceLabel(t.device) : h('span', {}, `${t.project ?? '?'} · device ${t.device}`),
    t.messageId ? h('button', { type: 'button', class: 'linkish mono', title: `${t.messageId}: show its timeline`, onclick: () => openTimeline(t.messageId) }, shortMessageId(t.messageId)) : null))
    : h('li', { class: 'empty' }, 'Nothing scheduled.'));
}
setInterval(drawClock, 1000);
setInterval(() => { if (!document.hidden) refreshClock().catch(() => {}); }, 10000);

$('#clock-pause').addEventListener('click', () => act('Clock paused', () => call('POST', '/clock:pause')));
$('#clock-resume').addEventListener('click', () => act('Clock resumed', () => call('POST', '/clock:resume')));
$('#clock-next').addEventListener('click', () => act(null, async () => {
  const { timers } = await call('GET', '/clock/timers?limit=1');
  const next = timers?.[0];
  if (!next) { toast('No timer is pending'); return; }
  const clock = await call('GET', '/clock');
  // Due already (a running clock passed it): advancing by nothing fires it.
  await call('POST', '/clock:advance', Date.parse(next.at) > clock.nowMillis ? { to: next.at } : { by: 0 });
  toast(`Ran to ${clockStamp(next.at)}: ${WHAT[next.what] ?? next.what}`);
}));
$('#clock-advance-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const by = $('#clock-advance-by').value.trim();
  act(`Clock advanced by ${by}`, () => call('POST', '/clock:advance', { by: /^\d+$/.test(by) ? Number(by) : by }));
});
$('#clock-speed-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const speed = Number($('#clock-speed').value);
  act(`Clock speed ×${speed}`, () => call('POST', '/clock:setSpeed', { speed }));
});

// ---------------------------------------------------------------- XMPP

async function refreshXMPP() {
  if (!state.project) return;
  const project = state.project;
  let answer;
  try { answer = await call('GET', paths.xmpp(project)); } catch (error) { answer = { connections: [], error: error.message }; }
  if (project !== state.project) return;
  const connections = answer.connections ?? [];
  $('#xmpp-count').textContent = `(${connections.length})`;
  const drawn = JSON.stringify(answer);
  if ($('#xmpp').dataset.drawn === drawn) return;
  $('#xmpp').dataset.drawn = drawn;
  fill($('#xmpp'), connections.length
    ? connections.map((c) => h('tr', { dataset: { testid: 'xmpp-connection', connectionId: c.id, state: c.state } },
      h('td', {}, c.id), h('td', {}, c.sender), h('td', { class: `state-${c.state}` }, c.state),
      h('td', {}, String(c.inFlight)), h('td', { title: c.connectedAt }, clockTime(c.connectedAt))))
    : h('tr', {}, h('td', { colspan: '5', class: 'empty' }, answer.error ?? 'No XMPP connection is bound to this project.')));
  $('#xmpp-drain').disabled = !connections.some((c) => c.state === 'active');
}
$('#xmpp-refresh').addEventListener('click', refreshXMPP);
$('#xmpp-drain').addEventListener('click', () =>
  act('CONNECTION_DRAINING sent', async () => { await call('POST', paths.xmppDrain(state.project)); await refreshXMPP(); }));
setInterval(() => { if (!document.hidden) refreshXMPP(); }, 5000);

// ---------------------------------------------------------------- start

$('#project').addEventListener('focus', () => loadProjects().catch(() => {}));
$('#project').addEventListener('change', async (e) => {
  state.view = '';
  timeline.clear();
  await selectProject(e.target.value, '');
  links.push();
});

async function boot() {
  try {
    await loadProjects();
    const link = links.current;
    const project = state.projects.find((p) => p.id === link.project)?.id
      ?? state.projects.find((p) => p.id === 'demo-fcm-emu')?.id ?? state.projects[0]?.id;
    await Promise.all([refreshFaults(), refreshClock(), refreshEviction()]);
    // The address may name any view (a link opened in a fresh tab): it is shown whole before the
    // address is written again from what the page shows.
    await links.during(async () => {
      await showView({ ...link, project: '', device: '', message: '' }); // the fields and the section; the project next
      startRefusals();
      if (project) await selectProject(project, link.device);
      if (link.message) showTimeline(link.message);
      jumpTo(state.view);
    });
    document.body.dataset.ready = 'true';
  } catch (error) {
    toast(`Cannot reach the emulator: ${error.message}`, true);
    setTimeout(boot, 3000);
  }
}
boot();

// ---------------------------------------------------------------- connections to the HTTP ports

const connections = createConnections({ body: $('#connections'), count: $('#connections-count') });
connections.refresh();
$('#connections-refresh').addEventListener('click', () => connections.refresh());
setInterval(() => { if (!document.hidden) connections.refresh(); }, 5000);
