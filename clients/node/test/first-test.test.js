// SPDX-License-Identifier: Apache-2.0
// "Your first test (Node)" of the README, as CI runs it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useEmulator } from 'fcm-emu/node-test';
import { assertNothingDelivered, waitForDelivery } from 'fcm-emu';
import { notifyGoal } from './fixtures/goal-app.js'; // your code, unchanged: firebase-admin's sendEach

const fcm = useEmulator(); // an emulator, a fresh project, firebase-admin pointed at it

test('a goal reaches the phone', async () => {
  const phone = await fcm.project.createDevice('android', { name: 'pixel' });
  await notifyGoal([phone.token], '3-0');
  const delivery = await waitForDelivery(phone, { where: { 'payload.data.score': '3-0' } });
  assert.equal(delivery.payload.notification.title, 'Goal!');
});

test('an offline phone gets it when it comes back', async () => {
  const phone = await fcm.project.createDevice('ios', { state: 'offline' });
  await notifyGoal([phone.token], '3-1');
  await assertNothingDelivered(phone);
  await phone.setState('foreground');
  await waitForDelivery(phone, { where: { 'payload.score': '3-1' } });
});
