// SPDX-License-Identifier: Apache-2.0
// The waits: a delivery, counts, nothing delivered; on the wall clock or by advancing the virtual one.
// (High priority is Android's: the others get the normal priority's latency on the paused clock.)

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { Emulator, assertNothingDelivered, matches, waitForDeliveries, waitForDelivery } from 'fcm-emu';

let emulator;
let project;
let accessToken;
before(async () => {
  // A paused clock, and normal-priority messages held for a minute of it: time moves only when a test says so.
  emulator = await Emulator.start({ settings: { clockPaused: true, normalPriorityLatency: '1m' } });
  project = await emulator.createProject({ prefix: 'waits' });
  accessToken = (await project.createAccessToken()).accessToken;
});
after(async () => { await emulator?.stop(); });

async function send(message) {
  const answer = await fetch(`${emulator.httpUrl}/v1/projects/${project.id}/messages:send`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ message }),
  });
  assert.equal(answer.status, 200, await answer.clone().text());
}

const high = { android: { priority: 'high' } };

describe('waitForDelivery', () => {
  test('resolves to the first matching delivery, waiting on the server', async () => {
    const phone = await project.createDevice('android');
    const waiting = waitForDelivery(phone, { where: { 'payload.data.score': '2-0' } });
    await send({ token: phone.token, data: { score: '1-0' }, ...high });
    await send({ token: phone.token, data: { score: '2-0' }, ...high });
    const delivery = await waiting;
    assert.equal(delivery.payload.data.score, '2-0');
  });

  test('nested subsets, paths and predicates select', async () => {
    const phone = await project.createDevice('android');
    await send({ token: phone.token, notification: { title: 'Goal!' }, data: { score: '3-0' }, ...high });
    await waitForDelivery(phone, { where: { payload: { notification: { title: 'Goal!' } } } });
    await waitForDelivery(phone, { where: (d) => d.priority === 'high' });
    const d = (await phone.inbox()).deliveries[0];
    assert.equal(matches(d, { 'payload.data': { score: '3-0' } }), true);
    assert.equal(matches(d, { 'payload.data.score': '3-1' }), false);
    assert.equal(matches(d, { 'payload.missing.path': 1 }), false);
    assert.equal(matches(d, undefined), true);
  });

  test('fails after `within` with what the inbox held', async () => {
    const phone = await project.createDevice('android', { name: 'quiet' });
    await send({ token: phone.token, data: { score: '0-0' }, ...high });
    await waitForDelivery(phone);
    const started = Date.now();
    await assert.rejects(waitForDelivery(phone, { where: { 'payload.data.score': '9-9' }, within: 300 }), (error) => {
      assert.equal(error.name, 'AssertionError');
      assert.match(error.message, /expected a delivery matching \{"payload.data.score":"9-9"\} on device \d+ 'quiet' \(android/);
      assert.match(error.message, /within 300 ms, but none came: the nearest delivery has payload\.data\.score: '0-0', wanted '9-9'; /);
      assert.match(error.message, /; the inbox held 1 deliveries:\n {2}1\. .*"score":"0-0"/);
      return true;
    });
    assert.ok(Date.now() - started >= 250, 'it waited');
  });

  test('advance: moves the virtual clock instead of waiting', async () => {
    const phone = await project.createDevice('android');
    await send({ token: phone.token, data: { when: 'later' } }); // normal priority: a minute of latency
    await assertNothingDelivered(phone);
    await waitForDelivery(phone, { where: { 'payload.data.when': 'later' }, advance: '1m', within: 5000 });
  });

  test('refuses a device not read through the client', async () => {
    await assert.rejects(waitForDelivery({ id: '1', token: 't' }), TypeError);
  });
});

describe('waitForDeliveries', () => {
  test('exactly N, once N have arrived', async () => {
    const phone = await project.createDevice('android');
    const waiting = waitForDeliveries(phone, 3, { where: (d) => d.payload?.data?.n !== undefined });
    for (const n of ['1', '2', '3']) await send({ token: phone.token, data: { n }, ...high });
    const found = await waiting;
    assert.deepEqual(found.map((d) => d.payload.data.n), ['1', '2', '3']);
  });

  test('fails when the count is not reached', async () => {
    const phone = await project.createDevice('android');
    await send({ token: phone.token, data: { n: '1' }, ...high });
    await assert.rejects(waitForDeliveries(phone, 2, { within: 200 }), /expected 2 deliveries \(any delivery\) .* got 1/);
  });

  test('0 is nothing delivered', async () => {
    const phone = await project.createDevice('web');
    assert.deepEqual(await waitForDeliveries(phone, 0), []);
  });
});

describe('assertNothingDelivered', () => {
  test('passes on an empty inbox, and while a message is held', async () => {
    const phone = await project.createDevice('android', { state: 'offline' });
    await send({ token: phone.token, data: { held: 'yes' }, ...high });
    await assertNothingDelivered(phone, { within: 200 });
    await phone.setState('foreground');
    await waitForDelivery(phone, { where: { 'payload.data.held': 'yes' } });
  });

  test('fails when a matching delivery is there, listing it', async () => {
    const phone = await project.createDevice('android');
    await send({ token: phone.token, data: { k: 'v' }, ...high });
    await waitForDelivery(phone);
    await assertNothingDelivered(phone, { where: { 'payload.data.k': 'other' } });
    await assert.rejects(assertNothingDelivered(phone), /expected no delivery on device .* but 1 arrived; the inbox held 1 deliveries/);
  });

  test('fails when one arrives within the window', async () => {
    const phone = await project.createDevice('android');
    const watching = assertNothingDelivered(phone, { within: 5000 });
    await send({ token: phone.token, data: { late: 'yes' }, ...high });
    const started = Date.now();
    await assert.rejects(watching, /but 1 arrived/);
    assert.ok(Date.now() - started < 4000, 'the arrival ended the wait at once');
  });
});
