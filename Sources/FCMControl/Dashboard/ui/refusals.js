// Requests the emulator refused (events of kind `refused`: the API, the HTTP status, the error
// code, the target and the reason in words), and the faults it injected, newest first.
import { h, fill, clockTime, short } from './dom.js';

const MAX = 300;

export function createRefusals({ el, count, api, faults }) {
  let shown = 0;

  function visible(li) {
    if (li.dataset.kind === 'faultInjected' && !faults.checked) return false;
    return !api.value || li.dataset.api === api.value;
  }
  function recount() {
    shown = 0;
    for (const li of el.querySelectorAll('li[data-testid="refusal"]')) {
      li.hidden = !visible(li);
      if (!li.hidden) shown++;
    }
    const total = el.querySelectorAll('li[data-testid="refusal"]').length;
    count.textContent = total ? `(${shown}${shown !== total ? ' of ' + total : ''})` : '';
    el.querySelector('[data-testid="refusals-empty"]')?.toggleAttribute('hidden', total > 0);
  }
  api.addEventListener('change', recount);
  faults.addEventListener('change', recount);
  const seen = new Set();

  return {
    reset() { seen.clear(); fill(el, h('li', { class: 'empty', dataset: { testid: 'refusals-empty' } }, 'No refused request yet.')); recount(); },
    add(event) {
      if (event.kind !== 'refused' && event.kind !== 'faultInjected') return;
      if (seen.has(event.sequence)) return;
      seen.add(event.sequence);
      const status = event.status !== undefined ? String(event.status) : '';
      const li = h('li', {
        dataset: {
          testid: 'refusal', kind: event.kind, api: event.api ?? '', status, code: event.code ?? '', project: event.project ?? '',
          sequence: String(event.sequence),
        },
      },
      h('time', { datetime: event.time, title: event.time }, clockTime(event.time)),
      h('span', { class: 'chip' }, event.kind === 'faultInjected' ? 'fault' : (event.api ?? '?')),
      h('b', { class: 'bad-text' }, [status, event.code].filter(Boolean).join(' ') || event.kind),
      event.project ? h('span', { class: 'chip' }, event.project) : null,
      event.target ? h('code', { title: event.target }, short(event.target, 36)) : null,
      h('span', { class: 'reason', dataset: { testid: 'refusal-reason' } }, event.detail ?? ''));
      el.prepend(li);
      const all = el.querySelectorAll('li[data-testid="refusal"]');
      if (all.length > MAX) all[all.length - 1].remove();
      recount();
    },
  };
}
