// What the event log dropped to stay within its caps, in words: the events list says how many,
// since when the log is whole, and which `--set` setting keeps more (docs/control-api.md, "Events").
import { clockTime } from './dom.js';

const number = new Intl.NumberFormat('en');

/** 268435456 → "256MiB": a byte cap as `--set maxEventBytes=` takes it. */
function bytes(n) {
  for (const [unit, size] of [['GiB', 2 ** 30], ['MiB', 2 ** 20], ['KiB', 2 ** 10]]) {
    if (n >= size && n % size === 0) return `${n / size}${unit}`;
  }
  return String(n);
}

/** The events list's `evicted` object → one sentence; '' when nothing was dropped. */
export function evictionText(evicted) {
  if (!evicted?.count) return '';
  const setting = evicted.setting ?? 'maxEvents';
  // As `--set` takes them: a plain count, a byte size with its unit; twice as much to suggest.
  const shown = (n) => (setting === 'maxEventBytes' ? bytes(n) : String(n));
  const since = evicted.oldestKept ? ` The log is whole from ${clockTime(evicted.oldestKept)} (event ${evicted.oldestKeptSequence}) on.` : '';
  return `${number.format(evicted.count)} older events were dropped to stay within ${setting}=${shown(evicted.settingValue)}; ` +
    `raise it with --set ${setting}=${shown(evicted.settingValue * 2)}.${since}`;
}
