// SPDX-License-Identifier: Apache-2.0
// Starting, attaching, stopping; and that no emulator outlives the test process that started it,
// however that process ends.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { Emulator, EmulatorNotReadyError, BinaryNotFoundError, FcmEmuError, findBinary } from 'fcm-emu';
import { alive, gone } from './helpers.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const packageDir = path.dirname(here);

test('start: free ports, a ready file, a client; stop: the process ends and its files go', async () => {
  const emulator = await Emulator.start({ settings: { clockPaused: true } });
  try {
    assert.ok(emulator.running);
    assert.match(emulator.controlUrl, /^http:\/\/127\.0\.0\.1:\d+\/emulator\/v1$/);
    assert.ok(emulator.tlsPort > 0);
    assert.match(emulator.proxyUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(emulator.xmppPorts.length, 1);
    assert.equal(emulator.demoProjectId, 'demo-fcm-emu');
    assert.ok(fs.existsSync(emulator.caPath));
    assert.match(await emulator.caCertificate(), /BEGIN CERTIFICATE/);
    assert.equal((await emulator.client.health()).status, 'ok');
    assert.equal((await emulator.client.clock()).paused, true);
    assert.ok(alive(emulator.pid));
  } finally {
    const workdir = emulator.workdir;
    const pid = emulator.pid;
    assert.equal(await emulator.stop(), 0);
    assert.equal(emulator.running, false);
    assert.ok(await gone(pid), 'the emulator process ended');
    assert.equal(fs.existsSync(workdir), false);
  }
});

test('attach: FCM_EMU_CONTROL_API names a running emulator, and stop() leaves it running', async () => {
  const started = await Emulator.start();
  const saved = process.env.FCM_EMU_CONTROL_API;
  try {
    process.env.FCM_EMU_CONTROL_API = started.controlUrl;
    const attached = await Emulator.startOrAttach();
    assert.equal(attached.attached, true);
    assert.equal(attached.tlsPort, started.tlsPort);
    assert.equal(attached.caPath, started.caPath);
    const project = await attached.createProject();
    assert.equal((await started.client.getProject(project.id)).id, project.id);
    await attached.stop();
    assert.equal(await started.client.isHealthy(), true);
  } finally {
    if (saved === undefined) delete process.env.FCM_EMU_CONTROL_API;
    else process.env.FCM_EMU_CONTROL_API = saved;
    await started.stop();
  }
});

test('attach without a URL says what to set', async () => {
  const saved = process.env.FCM_EMU_CONTROL_API;
  delete process.env.FCM_EMU_CONTROL_API;
  try {
    await assert.rejects(Emulator.attach(), (error) => error instanceof FcmEmuError && /FCM_EMU_CONTROL_API/.test(error.message));
  } finally {
    if (saved !== undefined) process.env.FCM_EMU_CONTROL_API = saved;
  }
});

test('a start that fails says why, with the log, and leaves nothing behind', async () => {
  const emulator = new Emulator({ settings: { clockSpeed: 'fast' } });
  await assert.rejects(emulator.start(), (error) => {
    assert.ok(error instanceof EmulatorNotReadyError);
    assert.match(error.message, /exited/);
    assert.match(error.logTail, /clockSpeed|fast/);
    return true;
  });
  assert.equal(fs.existsSync(emulator.workdir), false);
});

test('the binary: FCM_EMU_BIN, or a clear error', () => {
  assert.equal(findBinary(), process.env.FCM_EMU_BIN);
  assert.throws(() => findBinary('/nonexistent/fcm-emu'), BinaryNotFoundError);
});

async function startChild(how) {
  const child = spawn(process.execPath, [path.join(here, 'fixtures', 'start-and-hang.js'), how], {
    cwd: packageDir, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let errors = '';
  child.stderr.on('data', (chunk) => { errors += chunk; });
  const pids = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const line = output.split('\n')[0];
      if (output.includes('\n')) resolve(JSON.parse(line));
    });
    child.once('exit', (code) => reject(new Error(`the child exited (${code}) before it started an emulator: ${errors}`)));
  });
  return { child, pids };
}

for (const [how, end] of [
  ['hang', 'is killed with SIGKILL'],
  ['hang', 'is stopped with SIGTERM'],
  ['throw', 'fails with an uncaught exception'],
  ['exit', 'calls process.exit(1)'],
  ['forget', 'ends without calling stop()'],
]) {
  test(`no emulator survives a test process that ${end}`, async () => {
    const { child, pids } = await startChild(how);
    // A child that ends by itself may be gone, and its emulator with it, before this line runs.
    if (how === 'hang') assert.ok(alive(pids.emulator));
    if (end.includes('SIGKILL')) child.kill('SIGKILL');
    if (end.includes('SIGTERM')) child.kill('SIGTERM');
    if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
    assert.ok(await gone(pids.emulator), `emulator ${pids.emulator} still runs after its test process ended`);
    assert.ok(await gone(pids.watchdog), `watchdog ${pids.watchdog} still runs`);
  });
}

test('no emulator survives a failing node:test file (useEmulator)', async () => {
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT; // a test run of its own, not a part of this one
  const child = spawn(process.execPath, ['--test', '--test-reporter=tap', path.join(here, 'fixtures', 'failing-suite.js')], {
    cwd: packageDir, env, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { output += chunk; });
  const [code] = await once(child, 'exit');
  assert.notEqual(code, 0, 'the inner test failed');
  const pid = Number(/EMULATOR_PID=(\d+)/.exec(output)?.[1]);
  assert.ok(pid > 0, `the inner test printed the emulator's pid:\n${output}`);
  assert.ok(await gone(pid), `emulator ${pid} still runs after the failing test file`);
});
