// SPDX-License-Identifier: Apache-2.0
// The typed control API client against a real emulator: projects, devices and their states,
// inboxes, events, faults, clock, snapshots; errors carry the API's own message.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { Client, Device, Emulator, FcmEmuError } from 'fcm-emu';

let emulator;
let client;
before(async () => {
  emulator = await Emulator.start({ settings: { clockPaused: true } });
  client = emulator.client;
});
after(async () => { await emulator?.stop(); });

test('the emulator: health, info, openapi, CA', async () => {
  assert.deepEqual(await client.health(), { status: 'ok' });
  assert.equal(await client.isHealthy(), true);
  const info = await client.info();
  assert.equal(info.https.port, emulator.tlsPort);
  const spec = await client.openapi();
  assert.ok(spec.paths['/emulator/v1/projects/{project}/devices/{device}/inbox']);
  assert.match(await client.caCertificate(), /^-----BEGIN CERTIFICATE-----/);
  assert.equal(await new Client('http://127.0.0.1:1').isHealthy(), false);
});

// operationId (openapi.json) → the Client method that makes the call.
const OPERATIONS = {
  health: 'health', info: 'info', caCertificate: 'caCertificate', openapi: 'openapi', resetAll: 'reset',
  metrics: 'metrics', listConnections: 'connections',
  exportSnapshot: 'exportSnapshot', importSnapshot: 'importSnapshot',
  getClock: 'clock', advanceClock: 'advanceClock', pauseClock: 'pauseClock', resumeClock: 'resumeClock',
  setClockSpeed: 'setClockSpeed', listTimers: 'timers',
  listAllEvents: 'events', streamEvents: 'streamEvents',
  listFaults: 'faults', addFault: 'addFault', setFaults: 'setFaults', clearFaults: 'clearFaults',
  getFault: 'fault', removeFault: 'removeFault',
  listProjects: 'listProjects', createProject: 'createProject', getProject: 'getProject',
  updateProject: 'updateProject', deleteProject: 'deleteProject', resetProject: 'resetProject',
  getServiceAccount: 'serviceAccount', createAccessToken: 'createAccessToken',
  revokeAccessTokens: 'revokeAccessTokens',
  listXMPPConnections: 'xmppConnections', sendUpstream: 'sendUpstream', drainXMPP: 'drainXmpp',
  listTopics: 'topics', listGroups: 'groups',
  listProjectEvents: 'projectEvents', streamProjectEvents: 'streamProjectEvents',
  listDevices: 'listDevices', createDevice: 'createDevice', getDevice: 'getDevice',
  updateDevice: 'updateDevice', deleteDevice: 'deleteDevice', uninstallDevice: 'uninstallDevice',
  refreshToken: 'refreshToken', subscribe: 'subscribe', unsubscribe: 'unsubscribe',
  getInbox: 'inbox', clearInbox: 'clearInbox', getStored: 'stored',
  getTray: 'tray', showNotification: 'showNotification', clearTray: 'clearTray', getOutcomes: 'outcomes',
  listDeviceEvents: 'deviceEvents', streamDeviceEvents: 'streamDeviceEvents',
};

test('every operation of the served OpenAPI document has a method', async () => {
  const spec = await client.openapi();
  const operations = new Set();
  for (const item of Object.values(spec.paths)) {
    for (const op of Object.values(item)) if (op && typeof op === 'object' && op.operationId) operations.add(op.operationId);
  }
  assert.deepEqual([...operations].filter((op) => !(op in OPERATIONS)).sort(), [], 'operations with no method');
  for (const [op, method] of Object.entries(OPERATIONS)) {
    assert.equal(typeof client[method], 'function', `${op} → ${method}`);
  }
});

test('projects: create, read, key file, access token, delete', async () => {
  const created = await client.createProject('clientproj', { number: '555000111' });
  assert.equal(created.id, 'clientproj');
  const project = client.project('clientproj');
  assert.equal((await project.info()).number, '555000111');
  assert.ok((await client.listProjects()).some((p) => p.id === 'clientproj'));
  const key = await project.serviceAccount();
  assert.equal(key.type, 'service_account');
  assert.equal(key.project_id, 'clientproj');
  assert.match(key.token_uri, /^http:\/\/127\.0\.0\.1:\d+\//);
  const token = await project.createAccessToken();
  assert.match(token.accessToken, /^ya29\./);
  await project.delete();
  await assert.rejects(project.info(), (error) => error.status === 404);
});

test('projects: API off answers 403, revoked bearers 401, metrics count accepted sends', async () => {
  const project = await emulator.createProject({ prefix: 'switches' });
  const phone = await project.createDevice('android');
  const send = (token) => fetch(`${emulator.httpUrl}/v1/projects/${project.id}/messages:send`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ message: { token: phone.token, data: { a: '1' } } }),
  });
  const token = (await project.createAccessToken()).accessToken;
  assert.equal((await project.update({ apiEnabled: false })).apiEnabled, false);
  const disabled = await send(token);
  assert.equal(disabled.status, 403);
  assert.match(await disabled.text(), /SERVICE_DISABLED/);
  assert.equal((await client.updateProject(project.id, { apiEnabled: true })).apiEnabled, true);
  assert.equal((await send(token)).status, 200);
  await project.revokeAccessTokens();
  assert.equal((await send(token)).status, 401);
  assert.equal((await send((await project.createAccessToken()).accessToken)).status, 200);
  assert.match(await client.metrics(), /^fcm_emu_messages_accepted_total\b/m);
});

test('topics: a list past one page (8 MiB) is read to the end through nextOffset', async () => {
  const project = await emulator.createProject({ prefix: 'pages' });
  for (let d = 0; d < 10; d++) {
    const topics = Array.from({ length: 2000 }, (_, i) => `d${d}-t${i}-${'x'.repeat(880)}`);
    await project.createDevice('android', { topics });
  }
  const topics = await project.topics();
  assert.equal(topics.length, 20000);
  assert.equal(new Set(topics.map((t) => t.name)).size, 20000);
  // 18 MB of topic names: gone before the tar test, whose import must fit maxBodyBytes (8 MiB).
  await project.delete();
});

test('devices: create, states, topics, tokens, pages, delete', async () => {
  const project = await emulator.createProject({ prefix: 'devices' });
  const pixel = await project.createDevice('android', { name: 'pixel', topics: ['news'] });
  assert.ok(pixel instanceof Device);
  assert.equal(pixel.platform, 'android');
  assert.equal(pixel.state, 'foreground');
  assert.deepEqual(pixel.topics, ['news']);
  assert.equal((await pixel.setState('doze')).state, 'doze');
  await pixel.reload();
  assert.equal(pixel.state, 'doze');
  assert.deepEqual((await pixel.subscribe('sport')).topics.sort(), ['news', 'sport']);
  assert.deepEqual((await pixel.unsubscribe('news')).topics, ['sport']);
  const byName = await project.device('pixel');
  assert.equal(byName.id, pixel.id);
  const fresh = await pixel.refreshToken();
  assert.notEqual(fresh.token, pixel.token);
  assert.equal((await project.device(pixel.token)).id, pixel.id, 'a device is found by a token it held');
  const many = await project.createDevices(5, 'web');
  assert.equal(many.length, 5);
  const page = await project.listDevices({ limit: 2 });
  assert.equal(page.total, 6);
  assert.equal(page.devices.length, 2);
  assert.equal((await project.devices()).length, 6);
  assert.equal((await pixel.uninstall()).state, 'uninstalled');
  await many[0].delete();
  assert.equal((await project.devices()).length, 5);
});

test('inbox and events, with the server-side waits', async () => {
  const project = await emulator.createProject({ prefix: 'inbox' });
  const phone = await project.createDevice('android');
  const empty = await phone.inbox({ waitFor: 1, timeout: '100ms' });
  assert.equal(empty.satisfied, false);
  assert.deepEqual(empty.deliveries, []);
  const token = (await project.createAccessToken()).accessToken;
  const answer = await fetch(`${emulator.httpUrl}/v1/projects/${project.id}/messages:send`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ message: { token: phone.token, data: { a: '1' } } }),
  });
  assert.equal(answer.status, 200);
  const inbox = await phone.inbox({ waitFor: 1, timeout: 5000 });
  assert.equal(inbox.satisfied, true);
  assert.equal(inbox.deliveries[0].payload.data.a, '1');
  assert.equal(inbox.device.id, phone.id);
  const { events, satisfied } = await phone.events({ kind: 'delivered', waitFor: 1, timeout: '5s' });
  assert.equal(satisfied, true);
  assert.equal(events[0].kind, 'delivered');
  const projectEvents = await project.events({ kind: ['accepted', 'delivered'] });
  assert.deepEqual(projectEvents.events.map((e) => e.kind).sort(), ['accepted', 'delivered']);
  await phone.clearInbox();
  assert.deepEqual((await phone.inbox()).deliveries, []);
});

test('the event stream', async () => {
  const project = await emulator.createProject({ prefix: 'stream' });
  const stream = project.streamEvents({ kind: 'deviceCreated' });
  const first = await stream.next();
  assert.equal(first.value.event, 'ready');
  const device = await project.createDevice('ios', { name: 'streamed' });
  for await (const message of stream) {
    if (message.event !== 'message') continue;
    assert.equal(message.data.kind, 'deviceCreated');
    assert.equal(message.data.device, device.id);
    break; // leaving the loop closes the connection
  }
});

test('faults: add, list, remove, clear; an injected error reaches a sender', async () => {
  const project = await emulator.createProject({ prefix: 'faults' });
  const phone = await project.createDevice('android');
  const rule = await client.addFault({ match: { api: 'v1', project: project.id, count: 1 }, action: { error: 'UNAVAILABLE' } });
  assert.ok(rule.id);
  assert.ok((await client.faults()).some((r) => r.id === rule.id));
  const token = (await project.createAccessToken()).accessToken;
  const send = () => fetch(`${emulator.httpUrl}/v1/projects/${project.id}/messages:send`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ message: { token: phone.token } }),
  });
  assert.equal((await send()).status, 503);
  assert.equal((await send()).status, 200);
  const other = await client.addFault({ id: 'slow', match: { api: 'legacy' }, action: { latency: '1ms' } });
  assert.equal(other.id, 'slow');
  assert.deepEqual((await client.removeFault('slow')).map((r) => r.id).includes('slow'), false);
  await client.setFaults([{ match: { api: 'iid' }, action: { status: 500 } }]);
  assert.equal((await client.faults()).length, 1);
  const kept = await client.addFault({ id: 'kept', match: { project: project.id }, action: { latency: '1ms' } });
  assert.deepEqual(await client.fault('kept'), { ...kept, fired: 0 });
  assert.deepEqual(await client.fault('kept'), { id: 'kept', match: { project: project.id }, action: { latency: '1ms' }, fired: 0 });
  await assert.rejects(client.fault('slow'), (error) => error.status === 404);
  await client.clearFaults();
  assert.deepEqual(await client.faults(), []);
});

/** Sends `message` over v1 with the project's own access token; returns the message id. */
async function sendV1(project, message) {
  const token = (await project.createAccessToken()).accessToken;
  const response = await fetch(`${emulator.httpUrl}/v1/projects/${project.id}/messages:send`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ message }),
  });
  assert.equal(response.status, 200);
  return (await response.json()).name.split('/').pop();
}

test('what a device holds, the timers and the tray', async () => {
  const project = await emulator.createProject({ prefix: 'tray' });
  const phone = await project.createDevice('android', { state: 'offline' });
  const messageId = await sendV1(project, { token: phone.token, data: { late: '1' }, android: { ttl: '60s' } });
  const { stored } = await client.stored(project.id, phone.id);
  assert.deepEqual(stored.map((m) => m.messageId), [messageId]);
  const timers = await client.timers({ limit: 10 });
  assert.equal(typeof timers.total, 'number');
  const expiry = timers.timers.filter((t) => t.messageId === messageId);
  assert.deepEqual(expiry.map((t) => t.what), ['expiry']);
  assert.equal(expiry[0].at, stored[0].expiresAt);

  // A data message reaches a background app; the app shows a notification for it, then the user clears it.
  await phone.setState('background');
  assert.equal((await phone.inbox({ waitFor: 1, timeout: '10s' })).deliveries.length, 1);
  assert.deepEqual((await client.tray(project.id, phone.id)).notifications, []);
  await client.showNotification(project.id, phone.id, messageId, { tag: 'score' });
  const shown = (await client.tray(project.id, phone.id)).notifications;
  assert.deepEqual(shown.map((n) => [n.messageId, n.tag]), [[messageId, 'score']]);
  await client.clearTray(project.id, phone.id);
  assert.deepEqual((await client.tray(project.id, phone.id)).notifications, []);
});

test('outcomes tell why a message did not arrive', async () => {
  const project = await emulator.createProject({ prefix: 'why' });
  const phone = await project.createDevice('android', { state: 'offline', name: 'why-node' });
  assert.equal((await client.outcomes(project.id, 'why-node')).story, 'Nothing was sent to it yet.');
  await sendV1(project, { token: phone.token, data: { a: 'b' }, android: { ttl: '0s' } });
  const answer = await client.outcomes(project.id, phone.token);
  assert.equal(answer.device.name, 'why-node');
  assert.equal(answer.stored, 0);
  assert.equal(answer.story, 'discarded: TTL 0 while the device was offline');
  assert.deepEqual(answer.outcomes.map((o) => o.kind), ['discarded', 'accepted']);
});

test('the clock: paused, advanced, resumed, speed', async () => {
  const before = await client.clock();
  assert.equal(before.paused, true);
  const advanced = await client.advanceClock('15m');
  assert.equal(advanced.nowMillis - before.nowMillis, 15 * 60_000);
  const byMillis = await client.advanceClock(1000);
  assert.equal(byMillis.nowMillis - advanced.nowMillis, 1000);
  const to = await client.advanceClock({ to: new Date(byMillis.nowMillis + 60_000) });
  assert.equal(to.nowMillis, byMillis.nowMillis + 60_000);
  assert.equal((await client.setClockSpeed(60)).speed, 60);
  assert.equal((await client.resumeClock()).paused, false);
  assert.equal((await client.pauseClock()).paused, true);
  await client.setClockSpeed(1);
});

test('snapshots: export and import as tar', async () => {
  const project = await emulator.createProject({ prefix: 'snap' });
  await project.createDevice('android', { name: 'kept' });
  const archive = await client.exportSnapshotTar();
  assert.ok(archive.length > 512);
  await project.delete();
  const answer = await client.importSnapshotTar(archive);
  assert.equal(answer.manifest.format, 'fcm-emu-snapshot');
  assert.equal((await project.device('kept')).name, 'kept');
});

test("errors carry the API's own message, status and field", async () => {
  await assert.rejects(client.getDevice('demo-fcm-emu', 'nope'), (error) => {
    assert.ok(error instanceof FcmEmuError);
    assert.equal(error.status, 404);
    assert.equal(error.reason, 'NOT_FOUND');
    assert.match(error.apiMessage, /No device 'nope'/);
    assert.equal(error.field, 'device');
    assert.match(error.message, /^GET http:\/\/127\.0\.0\.1:\d+\/emulator\/v1\/projects\/demo-fcm-emu\/devices\/nope: 404 NOT_FOUND/);
    return true;
  });
  await assert.rejects(client.createProject('X!'), (error) => error.status === 400 && error.reason === 'INVALID_ARGUMENT');
  await assert.rejects(new Client('http://127.0.0.1:1').health(), (error) => error.status === null && /cannot reach/.test(error.message));
});

test('a control token is sent as a bearer', async () => {
  const seen = [];
  const original = globalThis.fetch;
  globalThis.fetch = async (url, init) => { seen.push(init.headers); return original(url, init); };
  try {
    await new Client(emulator.controlUrl, { token: 's3cret' }).health();
  } finally {
    globalThis.fetch = original;
  }
  assert.equal(seen[0].Authorization, 'Bearer s3cret');
});

test('connections name this client: its address, port and requests', async () => {
  await client.health();
  const clients = await client.connections();
  assert.ok(clients.some((c) => c.listener === 'http' && c.address === '127.0.0.1' && c.requests >= 1), JSON.stringify(clients));
});
