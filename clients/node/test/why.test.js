// SPDX-License-Identifier: Apache-2.0
// Failures that say why none came: the device's outcomes (discarded, refused), what it holds back,
// the nearest miss of `where`; and useEmulator's warning about a fault rule that never fired.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';

import { Emulator, FcmEmuError, waitForDelivery } from 'fcm-emu';
import { sendV1 } from './helpers.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = {};
before(async () => {
  fixture.emulator = await Emulator.start();
  fixture.project = await fixture.emulator.createProject({ prefix: 'why' });
  fixture.bearer = (await fixture.project.createAccessToken()).accessToken;
});
after(async () => { await fixture.emulator?.stop(); });

const send = (message) => sendV1(fixture.emulator, fixture.project.id, fixture.bearer, message);

/** Skips (with the reason) when this emulator has no outcomes route: one built before it. */
async function needsOutcomes(t, device) {
  try {
    await fixture.emulator.client.request('GET', `/projects/${fixture.project.id}/devices/${device.id}/outcomes`);
    return true;
  } catch (error) {
    if (!(error instanceof FcmEmuError) || error.status !== 404) throw error;
    t.skip(`this emulator has no GET …/devices/{device}/outcomes route (404): ${error.message}`);
    return false;
  }
}

const failure = async (promise) => {
  try {
    await promise;
  } catch (error) {
    assert.equal(error.name, 'AssertionError');
    return error.message;
  }
  assert.fail('the wait did not fail');
};

test('a message discarded for TTL 0 to an offline device is named', async (t) => {
  const phone = await fixture.project.createDevice('android', { name: 'pixel-ttl', state: 'offline' });
  if (!(await needsOutcomes(t, phone))) return;
  const sent = await send({ token: phone.token, data: { score: '3-0' }, android: { ttl: '0s' } });
  assert.equal(sent.status, 200);
  const messageId = sent.body.name.split('/').pop();
  const text = await failure(waitForDelivery(phone, { where: { 'payload.data.score': '3-0' }, within: 200 }));
  assert.ok(text.includes(`but none came: message ${messageId} was discarded: `), text);
  assert.ok(text.includes('TTL 0') && text.includes('the inbox was empty'), text);
});

test('a send refused for a reserved data key is named', async (t) => {
  const phone = await fixture.project.createDevice('android', { name: 'pixel-refused' });
  if (!(await needsOutcomes(t, phone))) return;
  assert.equal((await send({ token: phone.token, data: { from: 'me', score: '3-0' } })).status, 400);
  const text = await failure(waitForDelivery(phone, { where: { 'payload.data.score': '3-0' }, within: 200 }));
  assert.ok(text.includes('but none came: refused: 400 INVALID_ARGUMENT'), text);
});

test('messages held for an offline device are counted (with or without the outcomes route)', async () => {
  const phone = await fixture.project.createDevice('android', { name: 'pixel-offline', state: 'offline' });
  for (const score of ['1-0', '2-0', '3-0']) assert.equal((await send({ token: phone.token, data: { score } })).status, 200);
  const text = await failure(waitForDelivery(phone, { where: { 'payload.data.score': '3-0' }, within: 200 }));
  assert.ok(text.includes('but none came: held: device offline, 3 stored; the inbox was empty'), text);
});

test('the nearest miss and its first differing field are named', async () => {
  const phone = await fixture.project.createDevice('android', { name: 'pixel-near' });
  await send({ token: phone.token, data: { score: '1-1', team: 'away' } });
  await send({ token: phone.token, data: { score: '3-1', team: 'home' } });
  let text = await failure(waitForDelivery(phone, { where: { payload: { data: { team: 'home', score: '3-0' } } }, within: 200 }));
  assert.ok(text.includes("a delivery matched all but payload.data.score: '3-1', wanted '3-0'; the inbox held 2"), text);
  text = await failure(waitForDelivery(phone, { where: { 'payload.data.score': '3-0', 'payload.data.minute': '90' }, within: 100 }));
  assert.ok(text.includes("the nearest delivery differs in 2 of 2 fields, first payload.data.score: '1-1', wanted '3-0'"), text);
});

test('useEmulator warns about a fault rule that never fired, and the suite passes', async () => {
  const env = { ...process.env, FCM_EMU_CONTROL_API: fixture.emulator.controlUrl };
  delete env.NODE_TEST_CONTEXT; // a test run of its own, not a part of this one
  const child = spawn(process.execPath, ['--test', '--test-reporter=tap', path.join(here, 'fixtures', 'unused-rule-suite.js')], {
    cwd: path.dirname(here), env, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { output += chunk; });
  const [code] = await once(child, 'exit');
  assert.equal(code, 0, output);
  assert.match(output, /FcmEmuWarning: fcm-emu: fault rule 'never-[^']+' never fired in the suite of project /, output);
  for (const rule of await fixture.emulator.client.faults()) {
    if (String(rule.id).startsWith('never-')) await fixture.emulator.client.removeFault(rule.id);
  }
});

const SAMPLE_OUTCOMES = {
  device: { id: '0', name: 'pixel', state: 'offline', token: 't' },
  stored: 3,
  story: 'held: device offline, 3 stored',
  outcomes: [
    { time: '2026-11-28T15:00:03Z', kind: 'stored', messageId: '0:3', reason: 'offline', summary: 'held: device offline, 3 stored' },
    { time: '2026-11-28T15:00:02Z', kind: 'accepted', messageId: '0:3', summary: 'accepted: sent to its token' },
    { time: '2026-11-28T15:00:01Z', kind: 'refused', status: 400, code: 'INVALID_ARGUMENT', summary: 'refused: 400 INVALID_ARGUMENT Invalid data payload key: from' },
    { time: '2026-11-28T15:00:00Z', kind: 'discarded', messageId: '0:1', reason: 'ttl-zero', summary: 'discarded: TTL 0 while the device was offline' },
  ],
};

test('reasons from an outcomes document, without an emulator', async () => {
  // The document's shape as the control API documents it: newest first.
  const { outcomeReasons } = await import('../src/why.js');
  const stub = (document) => ({ projectId: 'p', id: '0', client: { request: async () => ({ json: () => document }) } });
  assert.deepEqual(await outcomeReasons(stub(SAMPLE_OUTCOMES)),
    ['refused: 400 INVALID_ARGUMENT Invalid data payload key: from', 'held: device offline, 3 stored']);
  assert.deepEqual(await outcomeReasons(stub({ ...SAMPLE_OUTCOMES, stored: 0, outcomes: SAMPLE_OUTCOMES.outcomes.slice(3) })),
    ['message 0:1 was discarded: TTL 0 while the device was offline']);
});
