// SPDX-License-Identifier: Apache-2.0
// The environment for child processes: what `fcm-emu env` prints, plus NODE_OPTIONS importing the
// route, with which a child Node 20 process (whose https and http2 take no proxy) reaches the emulator.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { Emulator, REGISTER_URL, nodeOptionsWithRoute, waitForDeliveries, waitForDelivery } from 'fcm-emu';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));

let emulator;
before(async () => { emulator = await Emulator.start(); });
after(async () => { await emulator?.stop(); });

test('env(): the variables fcm-emu env prints, for the project, and the route for Node children', async () => {
  const project = await emulator.createProject({ prefix: 'env' });
  const env = await emulator.env({ project: project.id });
  assert.equal(env.GOOGLE_CLOUD_PROJECT, project.id);
  assert.equal(env.GCLOUD_PROJECT, project.id);
  assert.equal(JSON.parse(env.FIREBASE_CONFIG).projectId, project.id);
  assert.equal(JSON.parse(fs.readFileSync(env.GOOGLE_APPLICATION_CREDENTIALS, 'utf8')).project_id, project.id);
  assert.equal(env.NODE_EXTRA_CA_CERTS, emulator.caPath);
  assert.equal(env.HTTPS_PROXY, emulator.proxyUrl);
  assert.equal(env.FCM_EMU_CONTROL_API, emulator.controlUrl);
  assert.equal(env.FCM_EMU_HTTPS_URL, emulator.httpsUrl);
  assert.equal(env.FCM_EMU_CA, emulator.caPath);
  assert.ok(env.NODE_OPTIONS.includes(`--import="${REGISTER_URL}"`));
  const plain = await emulator.env({ nodeRoute: false });
  assert.equal(plain.NODE_OPTIONS, undefined);
  assert.equal(plain.GOOGLE_CLOUD_PROJECT, emulator.demoProjectId);
});

test('NODE_OPTIONS keeps what was there', () => {
  assert.equal(nodeOptionsWithRoute(undefined), `--import="${REGISTER_URL}"`);
  assert.equal(nodeOptionsWithRoute('--max-old-space-size=512'), `--max-old-space-size=512 --import="${REGISTER_URL}"`);
  const once = nodeOptionsWithRoute('--trace-warnings');
  assert.equal(nodeOptionsWithRoute(once), once);
});

test('a child Node process with env() sends with https and http2, unmodified, and the parent waits for it', async () => {
  const project = await emulator.createProject({ prefix: 'child' });
  const phone = await project.createDevice('android', { name: 'child-phone' });
  const env = await emulator.env({ project: project.id });
  const { stdout } = await run(process.execPath, [path.join(here, 'fixtures', 'child-sender.js'), phone.token], {
    env: { ...process.env, ...env }, timeout: 60_000,
  });
  const { name, results } = JSON.parse(stdout);
  assert.match(name, new RegExp(`^projects/${project.id}/messages/`));
  assert.deepEqual(results.map((r) => r.success), [true, true]);
  await waitForDelivery(phone, { where: { 'payload.data.via': 'child-send' } });
  await waitForDeliveries(phone, 2, { where: { 'payload.data.via': 'child-sendEach' } });
  const { events } = await emulator.client.events({ kind: 'proxyConnect' });
  assert.deepEqual(events, [], 'the child went through the route, not the proxy');
});

test("env()'s files go with the emulator's stop()", async () => {
  const other = await Emulator.start();
  const env = await other.env();
  assert.ok(fs.existsSync(env.GOOGLE_APPLICATION_CREDENTIALS));
  await other.stop();
  assert.equal(fs.existsSync(env.GOOGLE_APPLICATION_CREDENTIALS), false);
});

test('env() for an emulator with no proxy: the Node route alone, and without it fcm-emu env refuses', async () => {
  const plain = await Emulator.start({ settings: { proxyPort: 'off' } });
  try {
    const env = await plain.env();
    assert.equal(env.HTTPS_PROXY, undefined);
    assert.equal(env.FCM_EMU_HTTPS_URL, plain.httpsUrl);
    assert.ok(env.NODE_OPTIONS.includes(`--import="${REGISTER_URL}"`));
    await assert.rejects(plain.env({ nodeRoute: false }), (error) => /proxyPort=9094/.test(String(error.stderr ?? error.message)));
  } finally {
    await plain.stop();
  }
});
