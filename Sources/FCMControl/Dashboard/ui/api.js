// The control API and the v1 send endpoint, same origin as the page.

export const CONTROL = '/emulator/v1';

/**
 * A path segment: percent-encoded, and never empty, '.' or '..', which URL parsers drop or fold
 * into the parent (WHATWG URL standard, "single-dot segment" and "double-dot segment"), so that
 * DELETE …/faults/. would become DELETE …/faults/ (docs/security.md).
 */
export function enc(value) {
  const text = String(value);
  // encodeURIComponent leaves '.' as it is, and '%2e' in a value becomes '%252e' (no dot segment).
  if (text === '' || text === '.' || text === '..') throw new Error(`'${text}' cannot name anything in a URL path`);
  return encodeURIComponent(text);
}

// The control token, when the emulator asks for one (it listens beyond loopback): the banner's
// dashboard address carries it in the fragment, which is never sent to a server; the page keeps
// it in sessionStorage (this tab only) and takes it out of the address bar.
const TOKEN_KEY = 'fcm-emu-control-token';
function readToken() {
  const params = new URLSearchParams(location.hash.slice(1));
  const token = params.get('token');
  if (token) {
    try { sessionStorage.setItem(TOKEN_KEY, token); } catch { /* storage off: this load only */ }
    params.delete('token'); // the rest of the fragment (project, device) stays
    const rest = params.toString();
    history.replaceState(null, '', location.pathname + location.search + (rest ? '#' + rest : ''));
    return token;
  }
  try { return sessionStorage.getItem(TOKEN_KEY); } catch { return null; }
}
const controlToken = readToken();

/** The event stream's URL: EventSource cannot send headers, so the token goes in the query. */
export function streamURL(path) {
  if (!controlToken) return CONTROL + path;
  return CONTROL + path + (path.includes('?') ? '&' : '?') + 'access_token=' + encodeURIComponent(controlToken);
}

export class APIError extends Error {
  constructor(status, body) {
    const message = body?.error?.message ?? (typeof body === 'string' && body ? body : `HTTP ${status}`);
    super(message);
    this.status = status;
    this.body = body;
  }
}

export async function call(method, path, body) {
  const init = { method, headers: { Accept: 'application/json' } };
  if (controlToken) init.headers.Authorization = `Bearer ${controlToken}`;
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(CONTROL + path, init);
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : {}; } catch { json = text; }
  if (!response.ok) throw new APIError(response.status, json);
  return json;
}

export const paths = {
  project: (p) => `/projects/${enc(p)}`,
  devices: (p) => `/projects/${enc(p)}/devices`,
  device: (p, d) => `/projects/${enc(p)}/devices/${enc(d)}`,
  inbox: (p, d) => `/projects/${enc(p)}/devices/${enc(d)}/inbox`,
  xmpp: (p) => `/projects/${enc(p)}/xmpp`,
  xmppDrain: (p) => `/projects/${enc(p)}/xmpp:drain`,
  accessTokens: (p) => `/projects/${enc(p)}/accessTokens`,
  fault: (id) => `/faults/${enc(id)}`,
};

/** Events list or stream URL (relative to CONTROL) for a scope and filters. */
export function eventsPath(scope, filters, stream) {
  const base = scope ? `/projects/${enc(scope)}` : '';
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) {
    if (value === undefined || value === null || value === '') continue;
    if (key === 'device' && !scope) continue; // device filters only exist under a project
    query.set(key, String(value));
  }
  const qs = query.toString();
  return `${base}/events${stream ? ':stream' : ''}${qs ? '?' + qs : ''}`;
}

// A bearer for the v1 API, minted by the emulator for the project, kept until shortly before it expires.
const bearers = new Map();
async function bearer(project) {
  const cached = bearers.get(project);
  if (cached && cached.until > Date.now()) return cached.token;
  const answer = await call('POST', paths.accessTokens(project));
  bearers.set(project, { token: answer.accessToken, until: Date.now() + (answer.expiresIn - 60) * 1000 });
  return answer.accessToken;
}

/**
 * POSTs a v1 send and returns what came back over the wire: status line, headers, body text.
 * The body is sent exactly as typed.
 */
export async function sendV1(project, bodyText) {
  const url = `/v1/projects/${enc(project)}/messages:send`;
  const token = await bearer(project);
  const started = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: bodyText,
  });
  const text = await response.text();
  const elapsed = performance.now() - started;
  if (response.status === 401) bearers.delete(project);
  const absolute = new URL(url, location.href).href;
  const timing = performance.getEntriesByName(absolute).at(-1);
  const protocol = (timing?.nextHopProtocol || 'http/1.1').toUpperCase().replace(/^H2$/, 'HTTP/2');
  const headers = [...response.headers.entries()];
  return { url, protocol, status: response.status, statusText: response.statusText, headers, text, elapsed };
}
