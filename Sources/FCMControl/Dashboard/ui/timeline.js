// One message's life on the emulator's clock, from the events that name it: accepted → stored →
// collapsed → delivered or expired, each with its clock time and the time since acceptance.
import { call, paths } from './api.js';
import { h, fill, short } from './dom.js';

const number = new Intl.NumberFormat('en');

/** 2026-01-01T00:10:00.000Z → "2026-01-01 00:10:00.000" */
export function clockStamp(iso) {
  return iso ? iso.replace('T', ' ').replace('Z', '') : '';
}

/** 600000 → "+10m 0s"; 1500 → "+1.5s" */
export function since(millis) {
  if (!Number.isFinite(millis) || millis <= 0) return '+0';
  if (millis < 60000) return `+${number.format(millis / 1000)}s`;
  const s = Math.round(millis / 1000);
  const d = Math.floor(s / 86400), hrs = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
  return '+' + [d && `${d}d`, (d || hrs) && `${hrs}h`, `${m}m`, `${s % 60}s`].filter(Boolean).join(' ');
}

/** An accepted send that repeats an earlier one: which attempt, what it repeats, the gaps between attempts. */
function retryNote(e) {
  const gaps = (e.retryGapsMillis ?? []).map((g) => since(g).slice(1)).join(', ');
  const what = e.retryOf ? `repeats ${short(e.retryOf, 24)}` : 'after refused attempts';
  return h('span', { class: 'retry', title: e.retryOf ?? '', dataset: { testid: 'timeline-retry' } },
    ` retry: attempt ${e.attempt}, ${what}` + (gaps ? `, gaps ${gaps}` : '') + ' ');
}

/**
 * @param {object} o {el, head, label(deviceId, project) → Node, copy(text, done), link(messageId) → URL}
 */
export function createTimeline(o) {
  let current = null; // {id, project, events: Map sequence → event}
  let generation = 0;

  /** This timeline's address (docs/dashboard.md, "Links"): a link that opens it in a fresh tab. */
  function linkTo(id) {
    const href = o.link(id);
    return h('a', {
      href, class: 'small link-button', dataset: { testid: 'timeline-link' }, title: 'Copy a link that opens this timeline',
      onclick: (e) => { e.preventDefault(); o.copy(href, 'Link to this timeline copied'); },
    }, 'Copy link');
  }

  function draw() {
    if (!current) return;
    const events = [...current.events.values()].sort((a, b) => a.sequence - b.sequence);
    const accepted = events.find((e) => e.kind === 'accepted');
    const start = Date.parse((accepted ?? events[0])?.time ?? '');
    fill(o.head,
      h('code', { class: 'full-id', dataset: { testid: 'timeline-id' } }, current.id), ' ',
      h('button', { type: 'button', class: 'small', onclick: () => o.copy(current.id, 'Message id copied') }, 'Copy id'),
      linkTo(current.id),
      accepted?.title ? h('span', { class: 'quote' }, ' “' + accepted.title + '”') : null,
      accepted?.dataSummary ? h('span', { class: 'sub' }, ' data: ' + short(accepted.dataSummary, 80)) : null,
      accepted?.target ? h('span', { class: 'sub', title: accepted.target }, ' → ' + short(accepted.target, 40)) : null);
    o.el.dataset.messageId = current.id;
    o.el.dataset.kinds = events.map((e) => e.kind).join(',');
    fill(o.el, events.length ? events.map((e) => h('li', {
      class: 'step-line', dataset: { testid: 'timeline-step', kind: e.kind, time: e.time, sequence: String(e.sequence) },
    },
    h('time', { datetime: e.time, title: e.time, dataset: { testid: 'timeline-time' } }, clockStamp(e.time)),
    h('span', { class: 'since' }, since(Date.parse(e.time) - start)),
    h('b', { class: `kind kind-${e.kind}` }, e.kind),
    h('span', { class: 'what' },
      e.device ? o.label(e.device, current.project) : null,
      e.kind === 'collapsed' && e.relatedMessageId ? ` replaced by ${e.relatedMessageId === current.id ? 'this one' : short(e.relatedMessageId, 24)}` : null,
      e.relatedMessageId && e.kind === 'collapsed' && e.relatedMessageId === current.id && e.messageId !== current.id ? ` (it replaced ${short(e.messageId, 24)})` : null,
      e.kind === 'accepted' && e.attempt ? retryNote(e) : null,
      e.detail ? h('span', { class: 'sub' }, ` ${e.detail}`) : null)))
      : h('li', { class: 'empty' }, 'The event log holds nothing for this message (it may have been trimmed).'));
  }

  return {
    get id() { return current?.id ?? null; },
    async open(id, project) {
      const mine = ++generation;
      current = { id, project, events: new Map() };
      fill(o.el, h('li', { class: 'empty' }, 'Loading…'));
      try {
        const answer = await call('GET', `${paths.project(project)}/events?message=${encodeURIComponent(id)}&limit=1000`);
        if (mine !== generation) return;
        for (const e of answer.events ?? []) current.events.set(e.sequence, e);
        draw();
      } catch (error) {
        if (mine === generation) fill(o.el, h('li', { class: 'empty' }, error.message));
      }
    },
    /** A live event: added when it names the message shown. */
    add(event) {
      if (!current || (event.messageId !== current.id && event.relatedMessageId !== current.id)) return;
      if (current.events.has(event.sequence)) return;
      current.events.set(event.sequence, event);
      draw();
    },
    clear() {
      generation++;
      current = null;
      fill(o.head);
      fill(o.el, h('li', { class: 'empty' }, 'Pick a message to see each step of its life.'));
    },
  };
}
