// The device pane's first lines: why the last message did or did not arrive, from the device's
// own outcomes (GET …/devices/{device}/outcomes, docs/control-api.md "Outcomes"), which the event
// log's eviction does not erase.
import { call, paths } from './api.js';
import { h, fill, clockTime, shortMessageId } from './dom.js';

/** Outcomes listed under the story; the endpoint keeps 16. */
export const OUTCOMES_SHOWN = 5;

export function fetchOutcomes(project, id) {
  return call('GET', paths.device(project, id) + '/outcomes');
}

/** "The last message was discarded: TTL 0 while the device was offline" */
export function storyText(answer) {
  const newest = answer?.outcomes?.[0];
  if (!newest) return answer?.story ?? 'Nothing was sent to it yet.';
  return `${newest.kind === 'refused' ? 'The last request that named it was' : 'The last message was'} ${newest.summary}`;
}

/** Draws the story and the newest outcomes into `el`; nothing when `answer` is null (no device). */
export function drawOutcomes(el, answer, openMessage) {
  if (!answer) { fill(el); return; }
  const outcomes = answer.outcomes ?? [];
  fill(el,
    h('p', { class: `story story-${outcomes[0]?.kind ?? 'none'}`, dataset: { testid: 'device-story' } }, storyText(answer)),
    outcomes.length ? h('ol', { class: 'outcomes', dataset: { testid: 'device-outcomes' }, 'aria-label': 'Last outcomes, newest first' },
      outcomes.slice(0, OUTCOMES_SHOWN).map((o) => h('li', { dataset: { testid: 'outcome', kind: o.kind } },
        h('time', { datetime: o.time, title: o.time }, clockTime(o.time)),
        o.messageId
          ? h('button', { type: 'button', class: 'linkish mono', title: `${o.messageId}: show its timeline`, onclick: () => openMessage(o.messageId) },
            shortMessageId(o.messageId))
          : null,
        h('span', { class: 'outcome-summary' }, o.summary)))) : null);
}
