// Every view of the dashboard as a link: the address's fragment names the project, the device,
// the message whose timeline is open, the device search, the log's filters, the Refusals panel's
// filters and the section in view (docs/dashboard.md, "Links"). A change the user makes pushes a
// history entry (History API, pushState), so back and forward move between views; typing in a
// search box replaces the entry instead of pushing one per keystroke. A link opened in a fresh tab,
// a fragment edited by hand and back/forward (popstate, hashchange) all go through `apply`.
//
// The fragment, never the query, so the address is never sent to a server (the control token that
// the banner's address carries there is taken out by api.js before this runs).

/** Fragment key ↔ the view's field, in the order a link writes them. */
const KEYS = [
  ['project', 'project'], ['device', 'device'], ['message', 'message'], ['view', 'view'],
  ['q', 'q'], ['platform', 'platform'], ['state', 'state'],
  ['log-kind', 'logKind'], ['log-device', 'logDevice'], ['log-topic', 'logTopic'], ['log-message', 'logMessage'],
  ['log-token', 'logToken'], ['log-all', 'logAll'],
  ['refusals-token', 'refusalsToken'], ['refusals-api', 'refusalsApi'], ['refusals-code', 'refusalsCode'],
  ['refusals-faults', 'refusalsFaults'],
];

/** '#project=a&device=3' → {project: 'a', device: '3', …}; absent keys are ''. */
export function parseLink(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const view = {};
  for (const [key, field] of KEYS) view[field] = params.get(key) ?? '';
  return view;
}

/** The fragment for a view: empty fields are left out. */
export function formatLink(view) {
  const params = new URLSearchParams();
  for (const [key, field] of KEYS) if (view[field]) params.set(key, String(view[field]));
  const text = params.toString();
  return text ? '#' + text : '#';
}

/**
 * @param {object} o {read() → the view shown now, apply(view) → Promise: shows a view}
 */
export function createLinks(o) {
  let applying = 0;
  let applied = location.hash;

  function write(push) {
    if (applying) return;
    const hash = formatLink(o.read());
    if (hash === (location.hash || '#')) return;
    history[push ? 'pushState' : 'replaceState'](null, '', location.pathname + location.search + hash);
    applied = hash;
  }

  async function follow() {
    if (location.hash === applied) return;
    applied = location.hash;
    applying++;
    try { await o.apply(parseLink(location.hash)); } finally { applying--; }
    write(false); // what could not be shown (a deleted device) leaves the address
  }
  addEventListener('popstate', follow);
  addEventListener('hashchange', follow);

  return {
    /** The view the address names now. */
    get current() { return parseLink(location.hash); },
    /** A new view the user chose: a history entry of its own. */
    push() { write(true); },
    /** The same view, refined (typing, a page of the list): no new entry. */
    replace() { write(false); },
    /** Runs `fn` (booting from a link) without writing the address; then writes what is shown. */
    async during(fn) {
      applying++;
      try { await fn(); } finally { applying--; }
      applied = location.hash;
      write(false);
    },
    /** An absolute link to the view shown now, changed by `changes` (say {message: id, view: 'timeline'}). */
    href(changes = {}) {
      return location.origin + location.pathname + formatLink({ ...o.read(), ...changes });
    },
  };
}
