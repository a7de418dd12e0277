// fcm-emu dashboard: reads and drives the emulator through its control API and event stream,
// like any other client. No framework; every value reaches the DOM as text.
import { call, enc, paths, sendV1 } from './api.js';
import { h, $, fill, clockTime, short, shortMessageId, pretty } from './dom.js';
import { Feed } from './feed.js';
import { renderDelivery } from './inbox.js';
import { sendExamples, faultTemplates, eventKinds, states } from './examples.js';

const state = {
  projects: [],
  project: null,
  devices: new Map(), // id → device JSON, in list order
  selected: null, // device id whose inbox is shown
  loadedSendBody: null, // the example text last loaded, to reload it when the device changes
  loadedFaultBody: null, // the same for the fault-rule template
  clock: null,
  clockFetchedAt: 0,
};

const MAX_LOG = 500;
const MAX_LIVES = 200;

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

// ---------------------------------------------------------------- location hash: project and device

function readHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  return { project: params.get('project'), device: params.get('device') };
}
function writeHash() {
  const params = new URLSearchParams();
  if (state.project) params.set('project', state.project);
  if (state.selected) params.set('device', state.selected);
  history.replaceState(null, '', '#' + params.toString());
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

async function selectProject(id) {
  state.project = id;
  $('#project').value = id;
  state.devices.clear();
  state.selected = null;
  fill($('#devices'));
  deviceCards.clear();
  showInbox(null);
  $('#send-endpoint').textContent = `POST /v1/projects/${id}/messages:send`;
  lives.reset();
  await refreshDevices();
  const wanted = readHash().device;
  if (wanted && state.devices.has(wanted)) selectDevice(wanted);
  else if (state.devices.size) selectDevice(state.devices.keys().next().value);
  writeHash();
  fillLogDevices();
  loadSendExample();
  loadFaultTemplate();
  worldFeed.start(id, {});
  startLog();
  refreshXMPP();
}

// ---------------------------------------------------------------- devices

const deviceCards = new Map(); // id → {li, refs}

async function refreshDevices() {
  if (!state.project) return;
  const project = state.project;
  const answer = await call('GET', paths.devices(project) + '?limit=1000');
  if (project !== state.project) return;
  const list = answer.devices ?? [];
  state.devices = new Map(list.map((d) => [d.id, d]));
  $('#devices-count').textContent = answer.total > list.length ? `(${list.length} of ${answer.total})` : `(${list.length})`;
  const ul = $('#devices');
  for (const [id, card] of deviceCards) {
    if (!state.devices.has(id)) { card.li.remove(); deviceCards.delete(id); }
  }
  for (const device of list) {
    let card = deviceCards.get(device.id);
    if (!card) {
      card = deviceCard(device);
      deviceCards.set(device.id, card);
    }
    ul.append(card.li); // keeps list order; moving a node keeps its focus state in the list
    card.update(device);
  }
  if (!list.length) {
    if (!$('#devices-empty')) ul.append(h('li', { id: 'devices-empty', class: 'empty' }, 'No devices yet: create one above.'));
  } else {
    $('#devices-empty')?.remove();
  }
  if (state.selected && !state.devices.has(state.selected)) showInbox(null);
  // An example not edited since it was loaded follows the selected device's token (refreshed, say).
  const selected = state.devices.get(state.selected);
  if (selected && $('#send-body').value === state.loadedSendBody && !state.loadedSendBody.includes(selected.token)) loadSendExample();
  fillLogDevices();
  relabelDevices();
}

function deviceCard(device) {
  const id = device.id;
  const refs = {};
  const label = () => state.devices.get(id)?.name || `device ${id}`;
  refs.name = h('button', { type: 'button', class: 'device-name', dataset: { testid: 'device-select' }, onclick: () => selectDevice(id) });
  refs.platform = h('span', { class: 'platform', dataset: { testid: 'device-platform' } });
  refs.state = h('select', {
    class: 'state-select', dataset: { testid: 'device-state' },
    onchange: (e) => act(`${label()} → ${e.target.value}`, () => call('PATCH', paths.device(state.project, id), { state: e.target.value })),
  }, states.map((s) => h('option', { value: s }, s)));
  refs.stateLabel = h('label', { class: 'inline' }, h('span', { class: 'visually-hidden' }, 'State'), refs.state);
  refs.token = h('code', { dataset: { testid: 'device-token' } });
  refs.invalid = h('span', { class: 'invalid', dataset: { testid: 'device-token-invalid' } });
  refs.topics = h('span', { dataset: { testid: 'device-topics' } });
  refs.pending = h('span', { dataset: { testid: 'device-pending' } });
  refs.delivered = h('span', { dataset: { testid: 'device-delivered' } });
  refs.lastDelivery = h('span', { dataset: { testid: 'device-last-delivery' } });
  refs.copy = h('button', {
    type: 'button', class: 'small', dataset: { testid: 'device-copy-token' },
    onclick: () => copyText(state.devices.get(id)?.token ?? '', `Token of ${label()} copied`),
  }, 'Copy');
  const li = h('li', { class: 'device', dataset: { testid: 'device', deviceId: id } },
    h('div', { class: 'device-head' }, refs.name, refs.platform, refs.stateLabel),
    h('div', { class: 'token-row' }, refs.token, refs.copy, refs.invalid),
    h('div', { class: 'facts-row' }, refs.pending, refs.delivered, refs.lastDelivery, refs.topics),
    h('div', { class: 'actions' },
      h('button', { type: 'button', class: 'small', dataset: { testid: 'device-inbox' }, onclick: () => selectDevice(id) }, 'Inbox'),
      h('button', {
        type: 'button', class: 'small', dataset: { testid: 'device-refresh-token' },
        onclick: () => act(`New token for ${label()}`, () => call('POST', paths.device(state.project, id) + ':refreshToken')),
      }, 'Refresh token'),
      h('button', {
        type: 'button', class: 'small', dataset: { testid: 'device-uninstall' },
        onclick: () => act(`${label()} uninstalled`, () => call('POST', paths.device(state.project, id) + ':uninstall')),
      }, 'Uninstall'),
      h('button', {
        type: 'button', class: 'small', dataset: { testid: 'device-subscribe' },
        onclick: () => {
          const topic = prompt(`Subscribe ${label()} to topic:`, 'news');
          if (topic) act(`${label()} subscribed to ${topic}`, () => call('PUT', paths.device(state.project, id) + '/topics/' + enc(topic)));
        },
      }, 'Subscribe…'),
      h('button', {
        type: 'button', class: 'small danger', dataset: { testid: 'device-delete' },
        onclick: () => {
          if (confirm(`Delete ${label()}? Its token will answer as unregistered.`)) act(`${label()} deleted`, () => call('DELETE', paths.device(state.project, id)));
        },
      }, 'Delete')));

  const update = (d) => {
    refs.name.textContent = d.name || `device ${d.id}`;
    refs.name.setAttribute('aria-label', `Show inbox of ${d.name || 'device ' + d.id}`);
    li.dataset.deviceName = d.name ?? '';
    li.dataset.state = d.state;
    li.dataset.platform = d.platform;
    refs.platform.textContent = d.platform;
    refs.state.value = d.state;
    refs.state.className = `state-select state-${d.state}`;
    refs.state.setAttribute('aria-label', `State of ${d.name || 'device ' + d.id}`);
    refs.token.textContent = d.token;
    refs.token.title = d.token;
    refs.invalid.textContent = d.tokenValid === false ? 'token invalid' : '';
    const collapsible = d.storedCollapsible ?? 0;
    const nonCollapsible = d.storedNonCollapsible ?? 0;
    const stored = d.storedCount ?? collapsible + nonCollapsible;
    fill(refs.pending, 'pending ', h('b', {}, String(stored)), ` (${collapsible} collapsible, ${nonCollapsible} non-collapsible)`);
    refs.pending.className = stored ? 'pending-some' : '';
    refs.pending.dataset.count = String(stored);
    refs.pending.dataset.collapsible = String(collapsible);
    refs.pending.dataset.nonCollapsible = String(nonCollapsible);
    refs.pending.title = d.deletedMessagesPending ? 'onDeletedMessages() is pending' : '';
    fill(refs.delivered, 'delivered ', h('b', {}, String(d.deliveredCount ?? 0)));
    refs.delivered.dataset.count = String(d.deliveredCount ?? 0);
    refs.lastDelivery.textContent = d.lastDeliveryAt ? `last ${clockTime(d.lastDeliveryAt)}` : 'never delivered';
    refs.lastDelivery.title = d.lastDeliveryAt ?? '';
    refs.topics.textContent = d.topics?.length ? `topics: ${d.topics.join(', ')}` : '';
    li.setAttribute('aria-current', String(state.selected === d.id));
  };
  return { li, update };
}

async function copyText(text, done) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // Not a secure context (a LAN address): the old way, through a selected text field.
    const field = h('textarea', { class: 'offscreen', readonly: true });
    field.value = text;
    document.body.append(field);
    field.select();
    const ok = document.execCommand('copy');
    field.remove();
    if (!ok) { toast('Copy failed; select the token and copy it by hand', true); return; }
  }
  toast(done);
}

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
  await refreshDevices();
  selectDevice(device.id);
});
$('#devices-refresh').addEventListener('click', () => scheduleRefresh(0));

// ---------------------------------------------------------------- inbox

const inboxKeys = new Set();

function selectDevice(id) {
  state.selected = id;
  for (const [deviceId, card] of deviceCards) card.li.setAttribute('aria-current', String(deviceId === id));
  showInbox(id);
  writeHash();
  const device = state.devices.get(id);
  // An example not edited since it was loaded follows the selected device's token.
  if (device && $('#send-body').value === state.loadedSendBody) loadSendExample();
  if ($('#fault-body').value === state.loadedFaultBody) loadFaultTemplate();
}

function showInbox(id) {
  inboxKeys.clear();
  const device = id ? state.devices.get(id) : null;
  $('#inbox-device').textContent = device ? `— ${device.name || 'device ' + device.id} (${device.platform})` : '';
  $('#inbox').dataset.deviceId = id ?? '';
  $('#inbox-clear').disabled = !device;
  fill($('#inbox'), h('p', { class: 'empty' }, device ? 'Nothing received yet.' : 'Pick a device to see what its app received.'));
  if (!device) { state.selected = null; return; }
  refreshInbox();
}

async function refreshInbox() {
  const id = state.selected;
  if (!id || !state.project) return;
  const answer = await call('GET', paths.inbox(state.project, id));
  if (id !== state.selected) return;
  const deliveries = answer.deliveries ?? [];
  const device = answer.device ?? state.devices.get(id);
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
    await refreshInbox();
    await Promise.all([refreshFaults(), refreshClock(), refreshXMPP()]);
  } catch (error) {
    toast(error.message, true);
  } finally {
    refreshing = false;
    if (refreshAgain) { refreshAgain = false; scheduleRefresh(50); }
  }
}

// ---------------------------------------------------------------- feeds: the world (drives refreshes and message lives) and the log (filtered)

const feedStates = { world: 'connecting', log: 'connecting' };
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

const worldFeed = new Feed({
  event(event, live) {
    lives.add(event);
    if (live) scheduleRefresh();
  },
  lagged(missed) {
    lives.notice(`Fell behind the stream: ${missed} events missed; some lines may be incomplete.`);
    scheduleRefresh(0);
  },
  shutdown() { toast('The emulator stopped; waiting for it to come back…', true); },
  restarted() { boot(); },
  status: feedStatus('world'),
}, 500);

const logFeed = new Feed({
  event(event, live) { log.add(event, live); },
  lagged(missed) { log.notice(`${missed} events missed: this view fell behind the stream.`); },
  status: feedStatus('log'),
}, 200);

const TOKEN = /^[\w-]+:APA91/;

/** A device's name where the event log shows it; relabelled when the device list loads. */
function deviceLabel(id, project = state.project) {
  const device = project === state.project ? state.devices.get(id) : null;
  return h('span', { class: 'dev', dataset: { deviceId: id, project: project ?? '' } }, device?.name || `device ${id}`);
}
function relabelDevices() {
  for (const el of document.querySelectorAll('#log .dev, #lives .dev')) {
    const device = el.dataset.project === state.project ? state.devices.get(el.dataset.deviceId) : null;
    if (device?.name && el.textContent !== device.name) el.textContent = device.name;
  }
}

const log = {
  seen: new Set(),
  el: $('#log'),
  reset() { this.seen.clear(); fill(this.el); },
  add(event, live) {
    if (this.seen.has(event.sequence)) return;
    this.seen.add(event.sequence);
    const what = [];
    if ($('#log-all').checked && event.project) what.push(h('span', { class: 'chip' }, event.project));
    if (event.device) what.push(h('b', {}, deviceLabel(event.device, event.project)));
    if (event.messageId) what.push(h('code', { title: event.messageId }, shortMessageId(event.messageId)));
    if (event.relatedMessageId) what.push('by ', h('code', { title: event.relatedMessageId }, shortMessageId(event.relatedMessageId)));
    // A token target is the device already named; a topic or condition is worth showing.
    if (event.target && !(event.device && TOKEN.test(event.target))) what.push(h('span', { title: event.target }, '→ ' + short(event.target, 28)));
    if (event.detail) what.push(h('span', { class: 'sub' }, event.detail));
    const li = h('li', {
      class: live ? 'fresh' : '',
      dataset: { testid: 'log-entry', kind: event.kind, sequence: String(event.sequence), messageId: event.messageId ?? '', device: event.device ?? '' },
    },
    h('time', { datetime: event.time, title: event.time }, clockTime(event.time)),
    h('span', { class: `kind kind-${event.kind}`, title: event.kind }, event.kind),
    h('span', { class: 'what' }, what.flatMap((part, i) => (i ? [' ', part] : [part]))));
    this.el.prepend(li);
    while (this.el.children.length > MAX_LOG) this.el.lastElementChild.remove();
  },
  notice(text) {
    this.el.prepend(h('li', { class: 'notice', dataset: { testid: 'log-notice' } }, text));
  },
};

function logFilters() {
  const form = $('#log-filters');
  const kind = form.kind.value.split(',').map((k) => k.trim()).filter(Boolean).join(',');
  return {
    scope: form.all.checked ? null : state.project,
    filters: { kind, device: form.device.value, topic: form.topic.value.trim(), message: form.message.value.trim(), token: form.token.value.trim() },
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

function fillLogDevices() {
  const select = $('#log-device');
  const current = select.value;
  fill(select, h('option', { value: '' }, 'any'),
    [...state.devices.values()].map((d) => h('option', { value: d.id }, d.name || `device ${d.id}`)));
  select.value = state.devices.has(current) ? current : '';
  select.disabled = $('#log-all').checked;
}

$('#log-filters').addEventListener('submit', (e) => { e.preventDefault(); startLog(); });
$('#log-filters').addEventListener('reset', () => setTimeout(() => { fillLogDevices(); startLog(); }));
$('#log-all').addEventListener('change', () => { $('#log-device').disabled = $('#log-all').checked; });
$('#log-clear').addEventListener('click', () => fill(log.el));
$('#event-kinds').append(...eventKinds.map((k) => h('option', { value: k })));

// ---------------------------------------------------------------- message lives: one line per message

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
    this.draw(life);
  },
  draw(life) {
    const last = life.steps.at(-1);
    life.li.dataset.status = last.kind;
    life.li.dataset.kinds = life.steps.map((s) => s.kind).join(',');
    fill(life.li,
      h('div', { class: 'life-id' },
        h('code', { title: life.id }, shortMessageId(life.id)),
        h('small', { title: life.target ?? '' }, life.target ? '→ ' + short(life.target, 30) : '')),
      h('div', { class: 'steps' }, life.steps.map((step) => {
        const why = step.kind === 'collapsed' && step.relatedMessageId ? ` by ${shortMessageId(step.relatedMessageId)}`
          : ['discarded', 'expired', 'stored'].includes(step.kind) && step.detail ? ` (${step.detail})` : '';
        return h('span', { class: `step kind-${step.kind}`, title: `${step.time} ${step.kind}${step.detail ? ' ' + step.detail : ''}` },
          clockTime(step.time).slice(0, 8) + ' ', h('b', {}, step.kind),
          step.device ? [' · ', deviceLabel(step.device, step.project ?? state.project)] : null, why);
      })));
  },
  notice(text) { this.el.prepend(h('li', { class: 'notice' }, text)); },
};

// ---------------------------------------------------------------- send form

$('#send-example').append(...sendExamples.map((x) => h('option', { value: x.id }, x.label)));
function exampleContext() {
  const device = state.devices.get(state.selected);
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
    h('span', { class: 'rule' }, h('b', {}, rule.id), ' ', h('code', {}, pairs(rule.match) || 'every call'), ' ⇒ ', h('code', {}, pairs(rule.action))),
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

// ---------------------------------------------------------------- clock

async function refreshClock() {
  const clock = await call('GET', '/clock');
  state.clock = clock;
  state.clockFetchedAt = Date.now();
  drawClock();
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
}
setInterval(drawClock, 1000);
setInterval(() => { if (!document.hidden) refreshClock().catch(() => {}); }, 10000);

$('#clock-pause').addEventListener('click', () => act('Clock paused', () => call('POST', '/clock:pause')));
$('#clock-resume').addEventListener('click', () => act('Clock resumed', () => call('POST', '/clock:resume')));
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
$('#project').addEventListener('change', (e) => { history.replaceState(null, '', '#'); selectProject(e.target.value); });

async function boot() {
  try {
    await loadProjects();
    const wanted = readHash().project;
    const project = state.projects.find((p) => p.id === wanted)?.id
      ?? state.projects.find((p) => p.id === 'demo-fcm-emu')?.id ?? state.projects[0]?.id;
    await Promise.all([refreshFaults(), refreshClock()]);
    if (project) await selectProject(project);
    document.body.dataset.ready = 'true';
  } catch (error) {
    toast(`Cannot reach the emulator: ${error.message}`, true);
    setTimeout(boot, 3000);
  }
}
boot();
