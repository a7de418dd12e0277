// SPDX-License-Identifier: Apache-2.0
/**
 * A typed client for fcm-emu's control API (`/emulator/v1`), on Node's own `fetch`.
 *
 * Every method is one call of the API (its OpenAPI `operationId` is named in the doc comment),
 * with a timeout. Errors throw {@link FcmEmuError}, which carries the API's own error JSON.
 * Proxies from the environment are never used (Node 20's fetch takes none).
 * @module fcm-emu/client
 */

import { FcmEmuError } from './errors.js';
import { toMillis, toWire } from './duration.js';

/** The variable naming a running emulator's control API, e.g. `http://127.0.0.1:9092/emulator/v1`. */
export const CONTROL_API_ENV = 'FCM_EMU_CONTROL_API';
/** The control token of an emulator listening beyond loopback, sent as `Authorization: Bearer`. */
export const CONTROL_TOKEN_ENV = 'FCM_EMU_CONTROL_TOKEN';
/** Default timeout of a call that does not wait, in milliseconds. */
export const DEFAULT_TIMEOUT = 10_000;

const seg = (value) => encodeURIComponent(String(value));

function timeText(value) {
  return value instanceof Date ? value.toISOString() : String(value);
}

/**
 * A simulated device (one app install), bound to the client that read it: `device.setState('doze')`,
 * `device.inbox({ waitFor: 1 })`. Its fields are the API's JSON (`id`, `projectId`, `platform`,
 * `token`, `state`, `name`, `topics`, `deliveredCount`, …); `raw` keeps that JSON as it came.
 */
export class Device {
  /**
   * @param {Record<string, any>} json
   * @param {Client} client
   */
  constructor(json, client) {
    Object.assign(this, json);
    Object.defineProperty(this, 'raw', { value: json, enumerable: false, writable: true });
    Object.defineProperty(this, 'client', { value: client, enumerable: false, writable: true });
  }

  /** Reads the device again and updates this object in place. */
  async reload() {
    const fresh = await this.client.getDevice(this.projectId, this.id);
    for (const key of Object.keys(this)) delete this[key];
    Object.assign(this, fresh.raw);
    this.raw = fresh.raw;
    return this;
  }

  /** What the app received; `waitFor` waits (server side) until that many deliveries. */
  inbox(options = {}) { return this.client.inbox(this.projectId, this.id, options); }
  /** Empties the inbox. */
  clearInbox() { return this.client.clearInbox(this.projectId, this.id); }
  /** The device's events (filters and waits as {@link Client#events}). */
  events(options = {}) { return this.client.deviceEvents(this.projectId, this.id, options); }
  /** Moves the app to `state`: foreground, background, doze, offline, uninstalled. */
  setState(state) { return this.client.updateDevice(this.projectId, this.id, { state }); }
  /** Sets the sender ids (project numbers) allowed to message this install. */
  setSenders(senders) { return this.client.updateDevice(this.projectId, this.id, { senders }); }
  /** Uninstalls the app: the next delivery attempt invalidates its token. */
  uninstall() { return this.client.uninstallDevice(this.projectId, this.id); }
  /** Issues a new token (or `token`); reinstalls an uninstalled app. */
  refreshToken(token) { return this.client.refreshToken(this.projectId, this.id, { token }); }
  /** Subscribes the device to `topic`. */
  subscribe(topic) { return this.client.subscribe(this.projectId, this.id, topic); }
  /** Unsubscribes the device from `topic`. */
  unsubscribe(topic) { return this.client.unsubscribe(this.projectId, this.id, topic); }
  /** The device sends an upstream message to its app server over XMPP. */
  sendUpstream(data, options = {}) { return this.client.sendUpstream(this.projectId, this.id, data, options); }
  /** Deletes the device; its token then answers as unregistered. */
  delete() { return this.client.deleteDevice(this.projectId, this.id); }
}

/**
 * One project of a {@link Client}: the project-scoped calls with the project filled in.
 */
export class Project {
  /**
   * @param {Client} client
   * @param {string} id
   */
  constructor(client, id) {
    this.client = client;
    this.id = id;
  }

  /** `getProject`: id, number (the sender id), server keys. */
  info() { return this.client.getProject(this.id); }
  /** `deleteProject`. */
  delete() { return this.client.deleteProject(this.id); }
  /** `resetProject`: removes the project's devices, topics and groups. */
  reset() { return this.client.resetProject(this.id); }
  /** `updateProject`: `{apiEnabled}` turns the project's v1 API on or off. */
  update(changes) { return this.client.updateProject(this.id, changes); }
  /** `getServiceAccount`: a key file (JSON) whose `token_uri` points at the emulator. */
  serviceAccount() { return this.client.serviceAccount(this.id); }
  /** `createAccessToken`: an OAuth bearer for the project's v1 API. */
  createAccessToken() { return this.client.createAccessToken(this.id); }
  /** `revokeAccessTokens`: every bearer issued until now gets 401. */
  revokeAccessTokens() { return this.client.revokeAccessTokens(this.id); }
  /** `listTopics`. */
  topics() { return this.client.topics(this.id); }
  /** `listGroups`. */
  groups() { return this.client.groups(this.id); }
  /** `listXMPPConnections`. */
  xmppConnections() { return this.client.xmppConnections(this.id); }
  /** `drainXMPP`. */
  drainXmpp() { return this.client.drainXmpp(this.id); }
  /** `listProjectEvents` (filters and waits as {@link Client#events}, plus `device`). */
  events(options = {}) { return this.client.projectEvents(this.id, options); }
  /** `streamProjectEvents`. */
  streamEvents(options = {}) { return this.client.streamProjectEvents(this.id, options); }
  /** `listDevices`: one page. */
  listDevices(options = {}) { return this.client.listDevices(this.id, options); }
  /** Every device of the project. */
  async devices() {
    const all = [];
    for await (const device of this.client.iterDevices(this.id)) all.push(device);
    return all;
  }
  /** `createDevice`. */
  createDevice(platform = 'android', fields = {}) { return this.client.createDevice(this.id, platform, fields); }
  /** `createDevice` with `count`. */
  createDevices(count, platform = 'android', fields = {}) { return this.client.createDevices(this.id, count, platform, fields); }
  /** `getDevice`: by id, name or token. */
  device(device) { return this.client.getDevice(this.id, device); }
}

/**
 * The control API of one emulator.
 */
export class Client {
  /**
   * @param {string} baseUrl the control API base, e.g. `http://127.0.0.1:9092/emulator/v1`
   *   (a bare `http://host:port` gets `/emulator/v1` appended)
   * @param {{timeout?: number, token?: string|null}} [options] `timeout` in ms for calls that do
   *   not wait (calls that wait get their wait on top); `token` defaults to `$FCM_EMU_CONTROL_TOKEN`
   */
  constructor(baseUrl, { timeout = DEFAULT_TIMEOUT, token } = {}) {
    let base = String(baseUrl).replace(/\/+$/, '');
    if (!base.endsWith('/emulator/v1')) base += '/emulator/v1';
    /** The control API base URL. */
    this.baseUrl = base;
    this.timeout = timeout;
    /** The control token, or null (on loopback none is asked). */
    this.token = token ?? (process.env[CONTROL_TOKEN_ENV] || null);
  }

  /** A client for `$FCM_EMU_CONTROL_API`. */
  static fromEnv(options = {}) {
    const url = process.env[CONTROL_API_ENV];
    if (!url) {
      throw new FcmEmuError(`${CONTROL_API_ENV} is not set (it names a running emulator's control API, e.g. http://127.0.0.1:9092/emulator/v1)`);
    }
    return new Client(url, options);
  }

  /**
   * Makes one call. JSON `body` is sent with `Content-Type: application/json`; `data` as is with
   * `contentType`. Non-2xx answers throw {@link FcmEmuError}.
   * @param {string} method
   * @param {string} path
   * @param {object} [options]
   * @returns {Promise<{status: number, headers: Headers, body: Buffer, json(): any, waitSatisfied: boolean|null}>}
   */
  async request(method, path, { body, query, data, contentType, accept = 'application/json', headers = {}, timeout, stream = false } = {}) {
    let url = this.baseUrl + path;
    if (query) {
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries(query)) {
        if (value === undefined || value === null) continue;
        params.append(key, Array.isArray(value) ? value.join(',') : value instanceof Date ? value.toISOString() : String(value));
      }
      const text = params.toString();
      if (text) url += `?${text}`;
    }
    const all = { Accept: accept };
    if (this.token) all.Authorization = `Bearer ${this.token}`;
    let payload = data;
    if (body !== undefined) {
      payload = JSON.stringify(body);
      contentType = 'application/json';
    }
    if (payload !== undefined) all['Content-Type'] = contentType || 'application/octet-stream';
    Object.assign(all, headers);
    const limit = timeout ?? this.timeout;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error(`timed out after ${limit} ms`)), limit);
    timer.unref?.();
    let response;
    try {
      response = await fetch(url, { method, headers: all, body: payload, signal: controller.signal });
    } catch (error) {
      clearTimeout(timer);
      const reason = error?.cause?.message || error?.message || String(error);
      throw new FcmEmuError(`cannot reach the emulator: ${reason}`, { method, url, cause: error });
    }
    if (stream) {
      if (!response.ok) {
        clearTimeout(timer);
        throw FcmEmuError.fromResponse(response.status, await response.text(), { method, url });
      }
      clearTimeout(timer);
      return { response, url };
    }
    let raw;
    try {
      raw = Buffer.from(await response.arrayBuffer());
    } catch (error) {
      throw new FcmEmuError(`timed out reading the answer: ${error?.message ?? error}`, { method, url, cause: error });
    } finally {
      clearTimeout(timer);
    }
    if (!response.ok) throw FcmEmuError.fromResponse(response.status, raw.toString('utf8'), { method, url });
    const wait = response.headers.get('emulator-wait');
    return {
      status: response.status,
      headers: response.headers,
      body: raw,
      json: () => (raw.toString('utf8').trim() ? JSON.parse(raw.toString('utf8')) : {}),
      waitSatisfied: wait === null ? null : wait === 'satisfied',
    };
  }

  /**
   * @private
   * Every entry of a paged list: the server ends a page at about 8 MiB and says where the next
   * starts (`nextOffset`); an older server answers with one page and no `nextOffset`.
   */
  async allPages(path, key) {
    const entries = [];
    let offset;
    for (;;) {
      const answer = await (await this.request('GET', path, { query: { offset } })).json();
      const page = answer[key] ?? [];
      for (const entry of page) entries.push(entry);
      if (answer.nextOffset === undefined || answer.nextOffset === null || page.length === 0) return entries;
      offset = answer.nextOffset;
    }
  }

  /** @private */
  async json(method, path, body, options = {}) {
    return (await this.request(method, path, { ...options, body })).json();
  }

  /** @private */
  waitOptions(waitFor, timeout) {
    if (waitFor === undefined || waitFor === null) return { query: {}, timeout: this.timeout };
    const wait = timeout === undefined ? 30_000 : toMillis(timeout);
    return { query: { waitFor, timeout: timeout === undefined ? undefined : toWire(timeout) }, timeout: this.timeout + wait };
  }

  // -- the emulator -------------------------------------------------------------------------

  /** `health`: `{status: "ok"}` once ready. */
  health() { return this.json('GET', '/health'); }
  /** Whether `health` answers ok (false when the emulator cannot be reached). */
  async isHealthy() {
    try {
      return (await this.health()).status === 'ok';
    } catch {
      return false;
    }
  }
  /** `info`: addresses, demo project credentials, CA path (as the ready file). */
  info() { return this.json('GET', '/info'); }
  /** `openapi`: this API as an OpenAPI 3 document. */
  openapi() { return this.json('GET', '/openapi.json'); }
  /** `caCertificate`: the PEM of the CA that signs the emulator's TLS certificates. */
  async caCertificate() { return (await this.request('GET', '/ca.pem', { accept: 'application/x-pem-file' })).body.toString('ascii'); }
  /** `metrics`: counters and gauges as Prometheus text (format 0.0.4), for assertions on totals. */
  async metrics() { return (await this.request('GET', '/metrics', { accept: 'text/plain' })).body.toString('utf8'); }
  /** `listConnections`: who holds connections to the HTTP ports, by address and user agent, most open first (a leaking pool). */
  async connections() { return (await this.json('GET', '/connections')).clients; }
  /** `resetAll`: deletes every project but the demo one, all devices, events, timers. */
  async reset() { await this.request('POST', '/reset', { body: {} }); }

  // -- snapshots ----------------------------------------------------------------------------

  /** `exportSnapshot`: writes the world as snapshot `name` under the state directory. */
  exportSnapshot(name, { include } = {}) {
    return this.json('POST', ':export', include ? { name, include } : { name }, { timeout: Math.max(this.timeout, 120_000) });
  }
  /** `exportSnapshot` with `format=tar`: the snapshot as a tar archive (Buffer). */
  async exportSnapshotTar({ include } = {}) {
    const answer = await this.request('POST', ':export', { body: include ? { include } : {}, query: { format: 'tar' }, accept: 'application/x-tar', timeout: Math.max(this.timeout, 120_000) });
    return answer.body;
  }
  /** `importSnapshot`: replaces the world with snapshot `name`; `clock` "snapshot" or "wall". */
  importSnapshot(name, { clock } = {}) {
    return this.json('POST', ':import', clock ? { name, clock } : { name }, { timeout: Math.max(this.timeout, 120_000) });
  }
  /** `importSnapshot` with a tar body. */
  async importSnapshotTar(archive, { clock } = {}) {
    return (await this.request('POST', ':import', { data: archive, contentType: 'application/x-tar', query: { format: 'tar', clock }, timeout: Math.max(this.timeout, 120_000) })).json();
  }

  // -- the clock ----------------------------------------------------------------------------

  /** `getClock`. */
  clock() { return this.json('GET', '/clock'); }
  /**
   * `advanceClock`: moves the clock forward `by` ("15m", or milliseconds) or `to` an instant,
   * firing everything due on the way (TTL expiry, Doze windows, latencies).
   * @param {number|string|{to: Date|string|number}} by
   */
  advanceClock(by) {
    const body = {};
    if (by !== null && typeof by === 'object' && !(by instanceof Date)) {
      if (by.to === undefined) throw new TypeError('advanceClock needs a duration or {to}');
      body.to = timeText(by.to);
    } else if (typeof by === 'number') {
      body.by = Math.round(by);
    } else if (by !== undefined) {
      body.by = String(by);
    } else {
      throw new TypeError('advanceClock needs a duration or {to}');
    }
    return this.json('POST', '/clock:advance', body);
  }
  /** `pauseClock`. */
  pauseClock() { return this.json('POST', '/clock:pause', {}); }
  /** `resumeClock`. */
  resumeClock() { return this.json('POST', '/clock:resume', {}); }
  /** `setClockSpeed`: e.g. 60 runs a minute per second. */
  setClockSpeed(speed) { return this.json('POST', '/clock:setSpeed', { speed }); }
  /**
   * `listTimers`: the clock's pending timers in the order they fire (`timers`: each with `at`,
   * `what`, `project`, `device`, `messageId`; `total`; `nextOffset` when more). Advance the
   * clock `{ to }` the first one's `at` to run to it.
   */
  async timers({ offset, limit } = {}) { return (await this.request('GET', '/clock/timers', { query: { offset, limit } })).json(); }

  // -- events -------------------------------------------------------------------------------

  /** @private */
  async listEvents(path, { device, token, topic, message, kind, since, until, limit, waitFor, timeout } = {}) {
    const wait = this.waitOptions(waitFor, timeout);
    const query = {
      device, token, topic, message, kind, limit,
      since: since === undefined ? undefined : timeText(since),
      until: until === undefined ? undefined : timeText(until),
      ...wait.query,
    };
    const answer = await this.request('GET', path, { query, timeout: wait.timeout });
    return { events: answer.json().events ?? [], satisfied: answer.waitSatisfied };
  }
  /**
   * `listAllEvents`: the event log across projects, oldest first. With `waitFor: N` the emulator
   * answers once N events match, or after `timeout` with what there is (`satisfied` says which).
   */
  events(options = {}) { return this.listEvents('/events', options); }
  /** `listProjectEvents`. */
  projectEvents(project, options = {}) { return this.listEvents(`/projects/${seg(project)}/events`, options); }
  /** `listDeviceEvents`. */
  deviceEvents(project, device, options = {}) { return this.listEvents(`/projects/${seg(project)}/devices/${seg(device)}/events`, options); }

  /** @private */
  async *stream(path, filters, lastEventId) {
    const query = { ...filters };
    if (lastEventId !== undefined) query.lastEventId = lastEventId;
    const { response } = await this.request('GET', path, { query, accept: 'text/event-stream', stream: true, timeout: 30_000 });
    const decoder = new TextDecoder();
    let buffer = '';
    let event = 'message';
    let data = [];
    let id;
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk, { stream: true });
        let newline;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline).replace(/\r$/, '');
          buffer = buffer.slice(newline + 1);
          if (line === '') {
            if (data.length) {
              const text = data.join('\n');
              let payload;
              try { payload = JSON.parse(text); } catch { payload = text; }
              yield { event, data: payload, id };
              if (event === 'shutdown') return;
            }
            event = 'message';
            data = [];
            continue;
          }
          if (line.startsWith(':')) continue;
          const colon = line.indexOf(':');
          const name = colon < 0 ? line : line.slice(0, colon);
          let value = colon < 0 ? '' : line.slice(colon + 1);
          if (value.startsWith(' ')) value = value.slice(1);
          if (name === 'event') event = value;
          else if (name === 'data') data.push(value);
          else if (name === 'id') id = value;
        }
      }
    } finally {
      await response.body?.cancel().catch(() => {});
    }
  }
  /**
   * `streamEvents`: the event log, live, as an async iterable of Server-Sent Events
   * (`{event, data, id}`; `event` is "message" for log entries, or "ready", "lagged", "shutdown").
   * Leave the `for await` loop to close the connection.
   */
  streamEvents({ lastEventId, ...filters } = {}) { return this.stream('/events:stream', filters, lastEventId); }
  /** `streamProjectEvents`. */
  streamProjectEvents(project, { lastEventId, ...filters } = {}) { return this.stream(`/projects/${seg(project)}/events:stream`, filters, lastEventId); }
  /** `streamDeviceEvents`. */
  streamDeviceEvents(project, device, { lastEventId, ...filters } = {}) {
    return this.stream(`/projects/${seg(project)}/devices/${seg(device)}/events:stream`, filters, lastEventId);
  }

  // -- fault rules --------------------------------------------------------------------------

  /** `listFaults`. */
  async faults() { return (await this.json('GET', '/faults')).faults ?? []; }
  /** `addFault`: returns the rule with its id. */
  addFault(rule) { return this.json('POST', '/faults', rule); }
  /** `setFaults`: replaces every rule. */
  async setFaults(rules) { return (await this.json('PUT', '/faults', { faults: rules })).faults ?? []; }
  /** `clearFaults`. */
  async clearFaults() { await this.request('DELETE', '/faults'); }
  /** `getFault`: one rule as posted, with `id` and `fired` (how often it fired). */
  fault(id) { return this.json('GET', `/faults/${seg(id)}`); }
  /** `removeFault`: returns the rules left. */
  async removeFault(id) { return (await this.json('DELETE', `/faults/${seg(id)}`)).faults ?? []; }

  // -- projects -----------------------------------------------------------------------------

  /** A handle on project `id` (no call is made). */
  project(id) { return new Project(this, id); }
  /** `listProjects`. */
  listProjects() { return this.allPages('/projects', 'projects'); }
  /**
   * `createProject`: `id` is 4–30 lower-case letters, digits or hyphens starting with a letter;
   * ids starting with `demo-` accept any bearer token.
   */
  createProject(id, { number, serverKeys, apiEnabled } = {}) {
    const body = { id };
    if (number !== undefined) body.number = number;
    if (serverKeys !== undefined) body.serverKeys = serverKeys;
    if (apiEnabled !== undefined) body.apiEnabled = apiEnabled;
    return this.json('POST', '/projects', body);
  }
  /** `getProject` (by id or number). */
  getProject(project) { return this.json('GET', `/projects/${seg(project)}`); }
  /**
   * `updateProject`: `apiEnabled: false` makes every v1 call of the project answer 403
   * SERVICE_DISABLED, as a project whose Firebase Cloud Messaging API was never enabled.
   */
  updateProject(project, { apiEnabled } = {}) {
    const body = {};
    if (apiEnabled !== undefined) body.apiEnabled = apiEnabled;
    return this.json('PATCH', `/projects/${seg(project)}`, body);
  }
  /** `deleteProject`. */
  async deleteProject(project) { await this.request('DELETE', `/projects/${seg(project)}`); }
  /** `resetProject`. */
  async resetProject(project) { await this.request('POST', `/projects/${seg(project)}:reset`, { body: {} }); }
  /** `getServiceAccount`: a key file whose `token_uri` points here. */
  serviceAccount(project) { return this.json('GET', `/projects/${seg(project)}/serviceAccount`); }
  /** `createAccessToken`. */
  createAccessToken(project) { return this.json('POST', `/projects/${seg(project)}/accessTokens`, {}); }
  /** `revokeAccessTokens`: tokens issued until now get 401 on their next v1 call; later ones work. */
  async revokeAccessTokens(project) { await this.request('POST', `/projects/${seg(project)}/accessTokens:revoke`, { body: {} }); }
  /** `listTopics`. */
  topics(project) { return this.allPages(`/projects/${seg(project)}/topics`, 'topics'); }
  /** `listGroups`. */
  groups(project) { return this.allPages(`/projects/${seg(project)}/groups`, 'groups'); }
  /** `listXMPPConnections`. */
  async xmppConnections(project) { return (await this.json('GET', `/projects/${seg(project)}/xmpp`)).connections ?? []; }
  /** `drainXMPP`. */
  async drainXmpp(project) { await this.request('POST', `/projects/${seg(project)}/xmpp:drain`, { body: {} }); }

  // -- devices ------------------------------------------------------------------------------

  /** @private */
  devicePath(project, device) { return `/projects/${seg(project)}/devices/${seg(device)}`; }
  /** @private */
  bind(json) { return new Device(json, this); }

  /** `listDevices`: one page, oldest first; `{total, devices}`. */
  async listDevices(project, { offset, limit } = {}) {
    const answer = await this.json('GET', `/projects/${seg(project)}/devices`, undefined, { query: { offset, limit } });
    const devices = (answer.devices ?? []).map((d) => this.bind(d));
    return { total: answer.total ?? devices.length, devices };
  }
  /** Every device of the project, page by page. */
  async *iterDevices(project, { pageSize = 1000 } = {}) {
    let offset = 0;
    for (;;) {
      const page = await this.listDevices(project, { offset, limit: pageSize });
      yield* page.devices;
      offset += page.devices.length;
      if (!page.devices.length || offset >= page.total) return;
    }
  }
  /**
   * `createDevice`: a device on `platform` (android, ios, web); its token is generated in FCM's
   * format unless given; it starts in `state` (foreground by default).
   * @param {string} project
   * @param {'android'|'ios'|'web'} [platform]
   * @param {{name?: string, token?: string, appId?: string, fid?: string, state?: string, senders?: string[], topics?: string[]}} [fields]
   */
  async createDevice(project, platform = 'android', fields = {}) {
    return this.bind(await this.json('POST', `/projects/${seg(project)}/devices`, { platform, ...fields }));
  }
  /** `createDevice` with `count`: that many identical devices (at most 10000 a call). */
  async createDevices(project, count, platform = 'android', fields = {}) {
    const answer = await this.json('POST', `/projects/${seg(project)}/devices`, { platform, ...fields, count }, { timeout: Math.max(this.timeout, 60_000) });
    return (answer.devices ?? [answer]).map((d) => this.bind(d));
  }
  /** `getDevice`: by id, name, or any token it holds or held. */
  async getDevice(project, device) { return this.bind(await this.json('GET', this.devicePath(project, device))); }
  /** `updateDevice`: `{state, senders}`. */
  async updateDevice(project, device, changes) { return this.bind(await this.json('PATCH', this.devicePath(project, device), changes)); }
  /** `deleteDevice`. */
  async deleteDevice(project, device) { await this.request('DELETE', this.devicePath(project, device)); }
  /** `uninstallDevice`. */
  async uninstallDevice(project, device) { return this.bind(await this.json('POST', `${this.devicePath(project, device)}:uninstall`, {})); }
  /** `refreshToken`. */
  async refreshToken(project, device, { token } = {}) {
    return this.bind(await this.json('POST', `${this.devicePath(project, device)}:refreshToken`, token === undefined ? {} : { token }));
  }
  /** `subscribe`. */
  async subscribe(project, device, topic) { return this.bind(await this.json('PUT', `${this.devicePath(project, device)}/topics/${seg(topic)}`)); }
  /** `unsubscribe`. */
  async unsubscribe(project, device, topic) { return this.bind(await this.json('DELETE', `${this.devicePath(project, device)}/topics/${seg(topic)}`)); }
  /**
   * `getInbox`: what the app received, rendered for its platform, oldest first. With
   * `waitFor: N` the emulator answers as soon as the inbox holds N deliveries, or after `timeout`
   * (ms or "10s"; default 30 s) with what there is (`satisfied` false).
   * @returns {Promise<{device: Device|null, deliveries: object[], satisfied: boolean|null}>}
   */
  async inbox(project, device, { waitFor, timeout } = {}) {
    const wait = this.waitOptions(waitFor, timeout);
    const answer = await this.request('GET', `${this.devicePath(project, device)}/inbox`, { query: wait.query, timeout: wait.timeout });
    const data = answer.json();
    return {
      device: data.device ? this.bind(data.device) : null,
      deliveries: data.deliveries ?? [],
      satisfied: answer.waitSatisfied,
    };
  }
  /** `clearInbox`. */
  async clearInbox(project, device) { await this.request('DELETE', `${this.devicePath(project, device)}/inbox`); }
  /**
   * `getStored`: what FCM holds for the device now (`stored`: store and forward), in delivery
   * order, with when each message may be delivered and when it expires.
   */
  stored(project, device) { return this.json('GET', `${this.devicePath(project, device)}/stored`); }
  /** `getTray`: notifications shown while the app was in the background (`notifications`, oldest first), one per tag. */
  tray(project, device) { return this.json('GET', `${this.devicePath(project, device)}/tray`); }
  /**
   * `getOutcomes`: why a message did or did not arrive: the device's last 16 outcomes (`outcomes`,
   * newest first: `time`, `kind`, `messageId`, `reason`, `summary`; `status` and `code` of a
   * refusal), what it holds (`stored`) and the newest in one sentence (`story`).
   */
  outcomes(project, device) { return this.json('GET', `${this.devicePath(project, device)}/outcomes`); }
  /** `showNotification`: the app shows a notification for a message it received. */
  showNotification(project, device, messageId, { tag } = {}) {
    const body = { messageId };
    if (tag !== undefined) body.tag = tag;
    return this.json('POST', `${this.devicePath(project, device)}/tray`, body);
  }
  /** `clearTray`: the user clears the app's notifications. */
  async clearTray(project, device) { await this.request('DELETE', `${this.devicePath(project, device)}/tray`); }
  /** `sendUpstream`: the device sends an upstream message over XMPP. */
  sendUpstream(project, device, data, { messageId, ttl } = {}) {
    const body = { data };
    if (messageId !== undefined) body.messageId = messageId;
    if (ttl !== undefined) body.ttl = ttl;
    return this.json('POST', `${this.devicePath(project, device)}:upstream`, body);
  }
}
