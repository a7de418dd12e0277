// The live event log, newest first, readable under load: a burst of one kind (a thousand devices
// made by one call, a topic message delivered to each subscriber) becomes one line with a count.
import { h, fill, clockTime, short, shortMessageId } from './dom.js';

const TOKEN = /^[\w-]+:APA91/;
/** Events of one kind (and one message) at most this far apart on the emulator's clock share a line. */
const BURST_MILLIS = 1000;
/** What a line of several events says: "1,000 devices created". */
const BURST_WORDS = {
  deviceCreated: 'devices created', deviceDeleted: 'devices deleted', stateChanged: 'state changes',
  subscribed: 'subscriptions', unsubscribed: 'unsubscriptions', tokenRefreshed: 'tokens refreshed',
  tokenInvalidated: 'tokens invalidated', accepted: 'messages accepted', stored: 'copies stored', delivered: 'deliveries',
  expired: 'copies expired', discarded: 'copies discarded', collapsed: 'copies collapsed', evicted: 'copies evicted',
  refused: 'requests refused', faultInjected: 'faults injected', receiptQueued: 'receipts queued', upstream: 'upstream messages',
};
const MAX_LINES = 500;

/** Events that may share a line: one kind, one message, one project; refusals of one API and code. */
function burstKey(e) {
  return [e.kind, e.messageId ?? '', e.project ?? '', e.api ?? '', e.code ?? ''].join('|');
}
const number = new Intl.NumberFormat('en');

/**
 * @param {object} o {el, label(deviceId, project) → Node, openMessage(id), showProject() → bool}
 */
export function createLog(o) {
  const seen = new Set();
  let top = null; // the newest line, while a burst may still join it

  function messageButton(id) {
    return h('button', { type: 'button', class: 'linkish mono', title: `${id}: show its timeline`, onclick: () => o.openMessage(id) },
      shortMessageId(id));
  }

  function describe(event) {
    const what = [];
    if (o.showProject() && event.project) what.push(h('span', { class: 'chip' }, event.project));
    if (event.device) what.push(h('b', {}, o.label(event.device, event.project)));
    if (event.messageId) what.push(messageButton(event.messageId));
    if (event.relatedMessageId) what.push('by ', messageButton(event.relatedMessageId));
    // A token target is the device already named; a topic or condition is worth showing.
    if (event.target && !(event.device && TOKEN.test(event.target))) what.push(h('span', { title: event.target }, '→ ' + short(event.target, 28)));
    if (event.title) what.push(h('span', { class: 'quote', title: event.title }, '“' + short(event.title, 40) + '”'));
    if (event.status !== undefined || event.code) what.push(h('span', { class: 'chip bad' }, [event.api, event.status, event.code].filter(Boolean).join(' ')));
    if (event.detail) what.push(h('span', { class: 'sub' }, event.detail));
    return what.flatMap((part, i) => (i ? [' ', part] : [part]));
  }

  function line(event, live) {
    return h('li', {
      class: live ? 'fresh' : '',
      dataset: { testid: 'log-entry', kind: event.kind, sequence: String(event.sequence), messageId: event.messageId ?? '', device: event.device ?? '', count: '1' },
    },
    h('time', { datetime: event.time, title: event.time }, clockTime(event.time)),
    h('span', { class: `kind kind-${event.kind}`, title: event.kind }, event.kind),
    h('span', { class: 'what' }, describe(event)));
  }

  /** Joins `event` to the newest line when it continues that line's burst. */
  function join(event) {
    const b = top;
    if (!b || b.li !== o.el.firstElementChild || !(event.kind in BURST_WORDS)) return false;
    if (b.key !== burstKey(event)) return false;
    const at = Date.parse(event.time);
    if (Math.abs(at - b.last) > BURST_MILLIS) return false;
    b.count += 1;
    b.last = at;
    if (event.device) { b.devices.add(event.device); b.lastDevice = event.device; }
    const li = b.li;
    li.dataset.count = String(b.count);
    li.dataset.sequence = String(event.sequence);
    li.classList.add('burst');
    const what = [h('b', { class: 'burst-count' }, `${number.format(b.count)} ${BURST_WORDS[event.kind]}`)];
    if (b.messageId) what.push(' of ', messageButton(b.messageId));
    if (b.devices.size > 1) what.push(h('span', { class: 'sub' }, ` (${o.label(b.firstDevice, b.project).textContent} … ${o.label(b.lastDevice, b.project).textContent})`));
    fill(li.querySelector('.what'), what);
    li.querySelector('time').textContent = clockTime(event.time);
    return true;
  }

  return {
    reset() { seen.clear(); top = null; fill(o.el); },
    add(event, live) {
      if (seen.has(event.sequence)) return;
      seen.add(event.sequence);
      if (seen.size > 20000) seen.clear(); // ids only ever grow; the view keeps MAX_LINES lines anyway
      if (join(event)) return;
      const li = line(event, live);
      o.el.prepend(li);
      top = {
        li, key: burstKey(event), messageId: event.messageId ?? '', project: event.project ?? '', count: 1, last: Date.parse(event.time),
        devices: new Set(event.device ? [event.device] : []), firstDevice: event.device, lastDevice: event.device,
      };
      while (o.el.children.length > MAX_LINES) o.el.lastElementChild.remove();
    },
    notice(text) {
      top = null;
      o.el.prepend(h('li', { class: 'notice', dataset: { testid: 'log-notice' } }, text));
    },
  };
}
