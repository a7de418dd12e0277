// Requests the emulator refused (events of kind `refused`: the API, the HTTP status, the error
// code, the target and the reason in words), and the faults it injected, newest first. Read from
// the server a page at a time (`kind=refused&limit=&before=`, docs/control-api.md, "Events"), so
// every refusal the log keeps can be listed however many other events came after it; a token
// filter asks the server too (`token=`). The API and code filters hide lines of what is loaded.
import { call, eventsPath } from './api.js';
import { h, fill, clockTime, short } from './dom.js';
import { evictionText } from './eviction.js';

/** Refusals read a page at a time; live ones beyond this many push the oldest out of the view. */
const PAGE = 200;
const MAX_LINES = 5000;
const number = new Intl.NumberFormat('en');

/**
 * @param {object} o {el, count, api, code, token, faults, older, evicted: the note's element}
 */
export function createRefusals(o) {
  const seen = new Set();
  let nextBefore = null; // the sequence to read older refusals before; null when all are loaded
  let generation = 0;
  let arrived = null; // live events that came while a reload was reading its page: drawn after it

  function kinds() { return o.faults.checked ? 'refused,faultInjected' : 'refused'; }
  function visible(li) {
    if (o.api.value && li.dataset.api !== o.api.value) return false;
    const code = o.code.value.trim().toLowerCase();
    return !code || li.dataset.code.toLowerCase().includes(code) || li.dataset.status === code;
  }
  function recount() {
    const all = o.el.querySelectorAll('li[data-testid="refusal"]');
    let shown = 0;
    for (const li of all) {
      li.hidden = !visible(li);
      if (!li.hidden) shown++;
    }
    const total = all.length;
    const more = nextBefore !== null ? '+' : '';
    o.count.textContent = total ? `(${shown !== total ? number.format(shown) + ' of ' : ''}${number.format(total)}${more})` : '';
    o.el.dataset.loaded = String(o.el.querySelectorAll('li[data-kind="refused"]').length);
    o.el.dataset.complete = String(nextBefore === null);
    o.older.hidden = nextBefore === null;
    const empty = o.el.querySelector('[data-testid="refusals-empty"]');
    if (empty) empty.hidden = total > 0;
  }
  function line(event) {
    const status = event.status !== undefined ? String(event.status) : '';
    return h('li', {
      dataset: {
        testid: 'refusal', kind: event.kind, api: event.api ?? '', status, code: event.code ?? '', project: event.project ?? '',
        sequence: String(event.sequence), target: event.target ?? '',
      },
    },
    h('time', { datetime: event.time, title: event.time }, clockTime(event.time)),
    h('span', { class: 'chip' }, event.kind === 'faultInjected' ? 'fault' : (event.api ?? '?')),
    h('b', { class: 'bad-text' }, [status, event.code].filter(Boolean).join(' ') || event.kind),
    event.project ? h('span', { class: 'chip' }, event.project) : null,
    event.target ? h('code', { title: event.target }, short(event.target, 36)) : null,
    h('span', { class: 'reason', dataset: { testid: 'refusal-reason' } }, event.detail ?? ''));
  }
  function trim() {
    const all = o.el.querySelectorAll('li[data-testid="refusal"]');
    for (let i = MAX_LINES; i < all.length; i++) {
      all[i].remove();
      seen.delete(Number(all[i].dataset.sequence));
    }
    // What was cut from the view is read again with "Load older".
    if (all.length > MAX_LINES) nextBefore = Number(all[MAX_LINES - 1].dataset.sequence);
  }
  /** Adds a page (newest first) below what is shown. */
  function append(events) {
    for (const event of [...events].reverse()) {
      if (seen.has(event.sequence)) continue;
      seen.add(event.sequence);
      o.el.append(line(event));
    }
  }
  function showEviction(answer) {
    const text = evictionText(answer.evicted);
    o.evicted.textContent = text;
    o.evicted.hidden = !text;
    o.evicted.dataset.count = String(answer.evicted?.count ?? 0);
  }
  async function read(before) {
    const filters = { kind: kinds(), limit: PAGE, token: o.token.value.trim(), before };
    return call('GET', eventsPath(null, filters, false));
  }

  return {
    /** The filters the live stream needs to follow this view. */
    filters() { return { kind: kinds(), token: o.token.value.trim() }; },
    /** Reads the newest page again, for the filters as they are now. */
    async reload() {
      const mine = ++generation;
      arrived = [];
      let answer;
      try { answer = await read(undefined); } catch (error) {
        if (mine === generation) { arrived = null; o.evicted.textContent = error.message; o.evicted.hidden = false; }
        return;
      }
      if (mine !== generation) return;
      seen.clear();
      fill(o.el, h('li', { class: 'empty', dataset: { testid: 'refusals-empty' } },
        o.token.value.trim() ? 'No kept refusal names this token.' : 'No refused request yet.'));
      nextBefore = answer.nextBefore ?? null;
      append(answer.events ?? []);
      showEviction(answer);
      const late = arrived;
      arrived = null;
      for (const event of late) this.add(event);
      recount();
    },
    async older() {
      if (nextBefore === null) return;
      const mine = generation;
      const answer = await read(nextBefore);
      if (mine !== generation) return;
      nextBefore = answer.nextBefore ?? null;
      append(answer.events ?? []);
      showEviction(answer);
      recount();
    },
    /** A live event from the stream (filtered by kind and token on the server). */
    add(event) {
      if (event.kind !== 'refused' && event.kind !== 'faultInjected') return;
      if (event.kind === 'faultInjected' && !o.faults.checked) return;
      arrived?.push(event);
      if (seen.has(event.sequence)) return;
      seen.add(event.sequence);
      const first = o.el.querySelector('li[data-testid="refusal"]');
      if (first && Number(first.dataset.sequence) > event.sequence) return; // older than what is shown: "Load older" has it
      o.el.prepend(line(event));
      trim();
      recount();
    },
    recount,
  };
}
