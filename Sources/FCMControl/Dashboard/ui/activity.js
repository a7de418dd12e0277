// Sends, deliveries and refusals per second over the last minute, as a small inline SVG (the
// page's policy allows no library and no inline script; SVG elements are made like any other).
const SVG = 'http://www.w3.org/2000/svg';
const SECONDS = 60;
const SERIES = [
  { key: 'sends', label: 'sends', kind: 'accepted' },
  { key: 'deliveries', label: 'deliveries', kind: 'delivered' },
  { key: 'refusals', label: 'refusals', kind: 'refused' },
];

function svg(tag, attrs) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

export function createChart(el, legend) {
  const buckets = new Map(); // wall second → {sends, deliveries, refusals}
  const totals = { sends: 0, deliveries: 0, refusals: 0 };
  const lines = SERIES.map((s) => svg('polyline', { class: `series series-${s.key}`, fill: 'none', 'vector-effect': 'non-scaling-stroke' }));
  const grid = svg('line', { x1: 0, x2: 600, y1: 119.5, y2: 119.5, class: 'axis', 'vector-effect': 'non-scaling-stroke' });
  const peak = svg('text', { x: 4, y: 12, class: 'peak' });
  el.append(grid, ...lines, peak);

  function draw() {
    const now = Math.floor(Date.now() / 1000);
    for (const second of buckets.keys()) if (second <= now - SECONDS) buckets.delete(second);
    const rows = [];
    for (let i = SECONDS - 1; i >= 0; i--) rows.push(buckets.get(now - i) ?? {});
    const max = Math.max(1, ...rows.flatMap((r) => SERIES.map((s) => r[s.key] ?? 0)));
    SERIES.forEach((s, n) => {
      lines[n].setAttribute('points', rows.map((r, i) => `${(i * 600) / (SECONDS - 1)},${116 - ((r[s.key] ?? 0) / max) * 104}`).join(' '));
    });
    peak.textContent = `peak ${max}/s`;
    const last = rows[SECONDS - 2] ?? {}; // the last whole second
    legend.replaceChildren(...SERIES.flatMap((s) => {
      const item = document.createElement('span');
      item.className = `key key-${s.key}`;
      item.dataset.testid = `chart-${s.key}`;
      item.dataset.total = String(totals[s.key]);
      item.textContent = `${s.label} ${last[s.key] ?? 0}/s (${totals[s.key]} in all)`;
      return [item, ' '];
    }));
    el.dataset.sends = String(totals.sends);
    el.dataset.deliveries = String(totals.deliveries);
    el.dataset.refusals = String(totals.refusals);
  }
  draw();
  setInterval(draw, 1000);

  return {
    /** Counts a live event (history is not replayed into the chart). */
    add(event) {
      const series = SERIES.find((s) => s.kind === event.kind);
      if (!series) return;
      const second = Math.floor(Date.now() / 1000);
      const bucket = buckets.get(second) ?? {};
      bucket[series.key] = (bucket[series.key] ?? 0) + 1;
      buckets.set(second, bucket);
      totals[series.key] += 1;
    },
    draw,
  };
}
