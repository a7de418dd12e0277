// SPDX-License-Identifier: Apache-2.0
// The route for an unmodified SDK in this process: the calls firebase-admin-node makes (https.request
// for the token, send and topic management; http2.connect for sendEach), with no endpoint in the
// code under test, reach the emulator and are asserted with waitForDelivery.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import tls from 'node:tls';
import { after, before, describe, test } from 'node:test';

import { Emulator, GoogleRoute, waitForDelivery, waitForDeliveries } from 'fcm-emu';
import * as sdk from './sdk-shaped.js';

describe('an unmodified SDK in this process (useFirebase)', () => {
  let emulator;
  let project;
  let firebase;
  const originalConnect = tls.connect;
  const originalCredentials = process.env.GOOGLE_APPLICATION_CREDENTIALS;

  before(async () => {
    emulator = await Emulator.start();
    project = await emulator.createProject({ prefix: 'route' });
    firebase = await emulator.useFirebase({ project });
  });
  after(async () => {
    await emulator?.stop();
    // stop() undid everything useFirebase did.
    assert.equal(tls.connect, originalConnect);
    assert.equal(process.env.GOOGLE_APPLICATION_CREDENTIALS, originalCredentials);
  });

  test('sets the credentials and project the SDK reads', () => {
    assert.equal(process.env.GOOGLE_CLOUD_PROJECT, project.id);
    assert.equal(process.env.GCLOUD_PROJECT, project.id);
    assert.deepEqual(JSON.parse(process.env.FIREBASE_CONFIG), { projectId: project.id });
    const key = JSON.parse(fs.readFileSync(process.env.GOOGLE_APPLICATION_CREDENTIALS, 'utf8'));
    assert.equal(key.project_id, project.id);
    assert.equal(fs.statSync(process.env.GOOGLE_APPLICATION_CREDENTIALS).mode & 0o777, 0o600);
    assert.ok(firebase.route.installed);
  });

  test('send: https.request to accounts.google.com and fcm.googleapis.com', async () => {
    const phone = await project.createDevice('android', { name: 'pixel' });
    const before = firebase.route.connections;
    const name = await sdk.send({ token: phone.token, notification: { title: 'Goal!' }, data: { score: '3-0' } });
    assert.match(name, new RegExp(`^projects/${project.id}/messages/`));
    const delivery = await waitForDelivery(phone, { where: { 'payload.data.score': '3-0' } });
    assert.equal(delivery.payload.notification.title, 'Goal!');
    assert.equal(delivery.api, 'v1');
    assert.ok(firebase.route.connections > before, 'the calls went through the route');
  });

  test('sendEach: http2.connect with the SDK options, one stream per message', async () => {
    const phone = await project.createDevice('ios', { name: 'iphone' });
    const web = await project.createDevice('web');
    const results = await sdk.sendEach([
      { token: phone.token, data: { n: '1' } },
      { token: web.token, data: { n: '2' } },
      { token: phone.token, data: { n: '3' } },
    ]);
    assert.deepEqual(results.map((r) => r.success), [true, true, true]);
    await waitForDeliveries(phone, 2, { where: (d) => ['1', '3'].includes(d.payload?.n ?? d.payload?.data?.n) });
    await waitForDelivery(web, { where: { 'payload.data.n': '2' } });
  });

  test('sendEach reports an invalid token per message, as FCM does', async () => {
    const results = await sdk.sendEach([{ token: 'not-a-token', data: { n: '1' } }]);
    assert.equal(results[0].success, false);
    assert.equal(results[0].error.status, 'INVALID_ARGUMENT');
  });

  test('topic management (iid.googleapis.com) and a topic send', async () => {
    const phone = await project.createDevice('android');
    await sdk.subscribeToTopic([phone.token], 'news');
    assert.deepEqual((await project.topics()).map((t) => t.name), ['news']);
    await sdk.send({ topic: 'news', data: { headline: 'route' } });
    await waitForDelivery(phone, { where: { 'payload.from': '/topics/news' } });
  });

  test('fetch (undici) is routed too', async () => {
    const token = (await project.createAccessToken()).accessToken;
    const phone = await project.createDevice('android');
    const answer = await fetch(`https://fcm.googleapis.com/v1/projects/${project.id}/messages:send`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ message: { token: phone.token, data: { via: 'fetch' } } }),
    });
    assert.equal(answer.status, 200, await answer.clone().text());
    await waitForDelivery(phone, { where: { 'payload.data.via': 'fetch' } });
  });

  test('the calls went straight to the TLS port, not through the proxy', async () => {
    const { events } = await emulator.client.events({ kind: 'proxyConnect' });
    assert.deepEqual(events, []);
  });
});

describe('GoogleRoute', () => {
  let emulator;
  before(async () => { emulator = await Emulator.start(); });
  after(async () => { await emulator?.stop(); });

  test('takes only Google hosts on their ports', async () => {
    const route = await emulator.googleRoute();
    assert.equal(route.target('fcm.googleapis.com', 443), emulator.tlsPort);
    assert.equal(route.target('FCM.googleapis.com.', '443'), emulator.tlsPort);
    assert.equal(route.target('oauth2.googleapis.com', undefined), emulator.tlsPort);
    assert.equal(route.target('fcm-xmpp.googleapis.com', 5235), emulator.xmppPorts[0]);
    assert.equal(route.target('fcm.googleapis.com', 8443), null);
    assert.equal(route.target('example.com', 443), null);
    assert.equal(route.target('googleapis.com', 443), null);
    assert.equal(route.installed, false);
  });

  test('uninstall restores tls.connect and closes kept-alive connections to the emulator', async () => {
    const original = tls.connect;
    const project = await emulator.createProject();
    const token = (await project.createAccessToken()).accessToken;
    const phone = await project.createDevice('android');
    const route = (await emulator.googleRoute()).install();
    assert.notEqual(tls.connect, original);
    const agent = new https.Agent({ keepAlive: true });
    try {
      const status = await new Promise((resolve, reject) => {
        const body = JSON.stringify({ message: { token: phone.token, data: { k: 'v' } } });
        const req = https.request({ hostname: 'fcm.googleapis.com', path: `/v1/projects/${project.id}/messages:send`, method: 'POST', agent,
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode));
        });
        req.on('error', reject);
        req.end(body);
      });
      assert.equal(status, 200);
      await waitForDelivery(phone);
      const [socket] = route.sockets;
      assert.ok(socket, 'the kept-alive socket is tracked');
      const closed = new Promise((resolve) => socket.once('close', resolve));
      route.uninstall();
      await closed;
      assert.equal(tls.connect, original);
      assert.equal(route.sockets.size, 0);
      assert.equal(Object.keys(agent.freeSockets).length, 0);
    } finally {
      route.uninstall();
      agent.destroy();
    }
  });

  test('other hosts keep their own resolution and trust', async () => {
    const route = (await emulator.googleRoute()).install();
    try {
      // 127.0.0.1 on the emulator's own TLS port, by address: not routed, so the emulator's CA is
      // not added and the handshake fails as it would without the route.
      await assert.rejects(new Promise((resolve, reject) => {
        const socket = tls.connect({ host: '127.0.0.1', port: emulator.tlsPort, servername: 'localhost' }, () => { socket.end(); resolve(); });
        socket.on('error', reject);
      }), /self[- ]signed|unable to (get|verify)|certificate/i);
      assert.equal(route.connections, 0);
    } finally {
      route.uninstall();
    }
  });

  test('the caller’s positional tls.connect(port, host, options) form (http2.connect uses it)', async () => {
    const route = (await emulator.googleRoute()).install();
    try {
      const session = http2.connect('https://fcm.googleapis.com', { peerMaxConcurrentStreams: 100, ALPNProtocols: ['h2'] });
      const status = await new Promise((resolve, reject) => {
        session.on('error', reject);
        const stream = session.request({ ':method': 'GET', ':path': '/emulator/v1/health' });
        stream.on('response', (headers) => resolve(headers[':status']));
        stream.on('error', reject);
        stream.end();
      });
      session.close();
      assert.ok(status >= 200 && status < 500, `an answer from the emulator (${status})`);
      assert.equal(route.connections, 1);
      const socket = session.socket;
      assert.equal(socket?.servername ?? 'fcm.googleapis.com', 'fcm.googleapis.com');
    } finally {
      route.uninstall();
    }
  });

  test('routes nest, in either order: tls.connect is put back when the last one goes', async () => {
    const original = tls.connect;
    for (const order of [['inner', 'outer'], ['outer', 'inner']]) {
      const routes = { outer: (await emulator.googleRoute()).install(), inner: (await emulator.googleRoute()).install() };
      routes[order[0]].uninstall();
      assert.notEqual(tls.connect, original);
      assert.ok(routes[order[1]].installed);
      routes[order[1]].uninstall();
      assert.equal(tls.connect, original);
    }
  });

  test('rejects a route without a TLS port or a CA', () => {
    assert.throws(() => new GoogleRoute({ tlsPort: 0, ca: 'x' }), /TLS port/);
    assert.throws(() => new GoogleRoute({ tlsPort: 443 }), /CA/);
  });
});
