// Node's own http2 client (the one firebase-admin-node sends with) against the emulator's HTTPS
// port: the stream limit FCM advertises, the GOAWAY FCM sends past it, the goaway fault, a
// cancelled request, and the faults on one stream (rstStream, hold) that leave the session's other
// streams alone.
// Run by interop/test_node_http2.py, which starts the emulator and sets FCM_EMU_HTTPS,
// FCM_EMU_CONTROL and FCM_EMU_CA. Standard library only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import fs from 'node:fs';

const origin = process.env.FCM_EMU_HTTPS;
const control = process.env.FCM_EMU_CONTROL;
const ca = fs.readFileSync(process.env.FCM_EMU_CA);
const path = '/v1/projects/demo-fcm-emu/messages:send';
const body = (topic = 'news') => JSON.stringify({ message: { topic, data: { n: '1' } } });

function connect(options = {}) {
  const session = http2.connect(origin, { ca, ...options });
  session.on('error', () => {}); // each test reads the error from its streams and events
  const goaway = new Promise((resolve) => {
    session.on('goaway', (errorCode, lastStreamID, opaqueData) =>
      resolve({ errorCode, lastStreamID, debug: opaqueData ? opaqueData.toString() : '' }));
  });
  const closed = new Promise((resolve) => session.on('close', resolve));
  return { session, goaway, closed };
}

function headers() {
  return { ':method': 'POST', ':path': path, authorization: 'Bearer any', 'content-type': 'application/json' };
}

// Resolves with the status, or with the error that ended the stream.
function send(session, { end = true, topic = 'news', timeout = 0 } = {}) {
  return new Promise((resolve) => {
    const stream = session.request(headers(), { endStream: false });
    stream.on('response', (h) => {
      stream.resume();
      stream.on('end', () => resolve({ status: h[':status'] }));
    });
    stream.on('error', (error) => resolve({ error }));
    stream.on('close', () => resolve({ closed: true, rstCode: stream.rstCode }));
    // A client that gives up: Node cancels the stream (RST_STREAM CANCEL).
    if (timeout) stream.setTimeout(timeout, () => stream.close(http2.constants.NGHTTP2_CANCEL));
    if (end) stream.end(body(topic));
    else stream.write('{');
  });
}

async function addFault(rule) {
  const response = await fetch(`${control}/emulator/v1/faults`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(rule),
  });
  assert.equal(response.status, 201, await response.text());
}

async function removeFaults() {
  await fetch(`${control}/emulator/v1/faults`, { method: 'DELETE' });
}

test('FCM advertises 100 concurrent streams, and Node queues the rest', async () => {
  const { session } = connect();
  await new Promise((resolve) => session.once('remoteSettings', resolve));
  assert.equal(session.remoteSettings.maxConcurrentStreams, 100);
  const results = await Promise.all(Array.from({ length: 250 }, () => send(session)));
  assert.deepEqual(new Set(results.map((r) => r.status)), new Set([200]));
  session.close();
});

test('streams opened past the limit before SETTINGS arrive get GOAWAY exceeded_max_concurrent_streams', async () => {
  // firebase-admin-node#2943: "GOAWAY - exceeded_max_concurrent_streams, Error code: 1". The
  // requests are made before the connection is up, so Node sends them all at once.
  const { session, goaway } = connect({ peerMaxConcurrentStreams: 1000 });
  const streams = Array.from({ length: 150 }, () => send(session, { end: false }));
  const frame = await goaway;
  assert.deepEqual(frame, { errorCode: http2.constants.NGHTTP2_PROTOCOL_ERROR, lastStreamID: 199, debug: 'exceeded_max_concurrent_streams' });
  assert.equal(`GOAWAY - ${frame.debug}, Error code: ${frame.errorCode}`, 'GOAWAY - exceeded_max_concurrent_streams, Error code: 1');
  // Node ends the session on a GOAWAY with an error: every stream fails, none hangs.
  const results = await Promise.all(streams);
  assert.ok(results.every((r) => r.error || r.closed), JSON.stringify(results.slice(0, 3)));
  assert.ok(results.every((r) => r.status === undefined));
});

test('a graceful goaway fault answers the call, then the session closes', async () => {
  await addFault({ id: 'graceful', match: { api: 'v1', count: 1 }, action: { goaway: 'graceful' } });
  try {
    const { session, goaway, closed } = connect();
    const result = await send(session);
    assert.equal(result.status, 200);
    assert.deepEqual(await goaway, { errorCode: http2.constants.NGHTTP2_NO_ERROR, lastStreamID: 1, debug: '' });
    await closed;
  } finally {
    await removeFaults();
  }
});

test('an error goaway fault fails the call with the code and debug data the rule gave', async () => {
  await addFault({ id: 'calm', match: { api: 'v1', count: 1 }, action: { goaway: 'ENHANCE_YOUR_CALM', debugData: 'too_many_pings' } });
  try {
    const { session, goaway, closed } = connect();
    const result = await send(session);
    assert.equal(result.status, undefined);
    assert.deepEqual(await goaway, { errorCode: http2.constants.NGHTTP2_ENHANCE_YOUR_CALM, lastStreamID: 0, debug: 'too_many_pings' });
    await closed;
  } finally {
    await removeFaults();
  }
});

test('a request the client cancels mid-body leaves the emulator serving', async () => {
  // Node cancels a stream it gives up on (a timeout, an AbortSignal) with RST_STREAM CANCEL;
  // until this test, the stream's error log line trapped and took the whole emulator down.
  const { session } = connect();
  const abandoned = session.request(headers(), { endStream: false });
  abandoned.on('error', () => {});
  abandoned.write('{');
  await new Promise((resolve) => abandoned.once('ready', resolve));
  abandoned.close(http2.constants.NGHTTP2_CANCEL);
  await new Promise((resolve) => abandoned.once('close', resolve));
  assert.equal((await send(session)).status, 200);
  session.close();
  const fresh = connect();
  assert.equal((await send(fresh.session)).status, 200);
  fresh.session.close();
});

test('an rstStream fault fails that call alone; the session and its other streams go on', async () => {
  await addFault({ id: 'refused', match: { target: 'refused' }, action: { rstStream: 'REFUSED_STREAM' } });
  try {
    const { session } = connect();
    const [before, refused, after] = await Promise.all([
      send(session), send(session, { topic: 'refused' }), send(session),
    ]);
    assert.equal(before.status, 200);
    assert.equal(after.status, 200);
    assert.equal(refused.status, undefined);
    assert.equal(refused.error?.code, 'ERR_HTTP2_STREAM_ERROR', JSON.stringify(refused));
    assert.match(refused.error.message, /NGHTTP2_REFUSED_STREAM/);
    assert.equal(session.closed || session.destroyed, false);
    assert.equal((await send(session)).status, 200);
    session.close();
  } finally {
    await removeFaults();
  }
});

test('a hold fault leaves that call unanswered until the client gives up; the others are answered', async () => {
  await addFault({ id: 'stuck', match: { target: 'stuck' }, action: { hold: true } });
  try {
    const { session } = connect();
    const held = send(session, { topic: 'stuck', timeout: 500 });
    const others = await Promise.all([send(session), send(session)]);
    assert.deepEqual(others.map((r) => r.status), [200, 200]);
    const gaveUp = await held;
    assert.equal(gaveUp.status, undefined);
    assert.equal(gaveUp.rstCode, http2.constants.NGHTTP2_CANCEL, JSON.stringify(gaveUp));
    assert.equal((await send(session)).status, 200);
    session.close();
  } finally {
    await removeFaults();
  }
});
