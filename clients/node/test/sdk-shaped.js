// SPDX-License-Identifier: Apache-2.0
/**
 * Code under test that makes exactly the calls firebase-admin-node makes, with no endpoint or
 * trust setting of its own (it knows only Google's hosts and GOOGLE_APPLICATION_CREDENTIALS):
 *
 * - the access token: ServiceAccountCredential posts a signed JWT (RS256, audience and URL
 *   https://accounts.google.com/o/oauth2/token) as application/x-www-form-urlencoded through
 *   `https.request({protocol, hostname, port: '443', path, method, agent, headers})`;
 * - `send` (and topic management on iid.googleapis.com): the same `https.request` options with the
 *   headers X-Firebase-Client, access_token_auth, Authorization, content-type
 *   application/json;charset=utf-8 and Content-Length;
 * - `sendEach`: one `http2.connect('https://fcm.googleapis.com', {peerMaxConcurrentStreams: 100,
 *   ALPNProtocols: ['h2']})` session, one stream per message with `:method`, `:scheme` ('https:', as
 *   the SDK passes its parsed URL's protocol), `:path` and the same headers.
 */

import crypto from 'node:crypto';
import fs from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';

const TOKEN_URL = new URL('https://accounts.google.com/o/oauth2/token');
const SCOPES = [
  'https://www.googleapis.com/auth/cloud-platform',
  'https://www.googleapis.com/auth/firebase.database',
  'https://www.googleapis.com/auth/firebase.messaging',
  'https://www.googleapis.com/auth/identitytoolkit',
  'https://www.googleapis.com/auth/userinfo.email',
];
const FCM_HEADERS = { 'X-Firebase-Client': 'fire-admin-node/13.0.0', access_token_auth: 'true' };

const b64url = (value) => Buffer.from(value).toString('base64url');

function requestOptions(url, method, headers) {
  const parsed = new URL(url);
  return { protocol: parsed.protocol, hostname: parsed.hostname, port: parsed.port || '443', path: parsed.pathname + parsed.search, method, agent: undefined, headers };
}

/** One https.request as the SDK's AsyncHttpCall makes it; resolves to {status, data}. */
export function httpsCall(url, method, headers, entity) {
  return new Promise((resolve, reject) => {
    const req = https.request(requestOptions(url, method, headers), (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let data;
        try { data = JSON.parse(text); } catch { data = text; }
        resolve({ status: res.statusCode, data });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(15_000, () => { req.destroy(); reject(new Error('timeout of 15000ms exceeded')); });
    req.end(entity);
  });
}

/** The service account the SDK finds through application default credentials. */
export function serviceAccount() {
  return JSON.parse(fs.readFileSync(process.env.GOOGLE_APPLICATION_CREDENTIALS, 'utf8'));
}

/** ServiceAccountCredential.getAccessToken(). */
export async function accessToken() {
  const key = serviceAccount();
  const now = Math.floor(Date.now() / 1000);
  const header = b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const claims = b64url(JSON.stringify({ scope: SCOPES.join(' '), iat: now, exp: now + 3600, aud: TOKEN_URL.href, iss: key.client_email }));
  const signature = crypto.sign('RSA-SHA256', Buffer.from(`${header}.${claims}`), key.private_key).toString('base64url');
  const body = `grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=${header}.${claims}.${signature}`;
  const answer = await httpsCall(TOKEN_URL.href, 'POST', { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': String(Buffer.byteLength(body)) }, body);
  if (answer.status !== 200 || !answer.data.access_token) throw new Error(`token: ${answer.status} ${JSON.stringify(answer.data)}`);
  return answer.data.access_token;
}

function projectId() {
  return process.env.GOOGLE_CLOUD_PROJECT || serviceAccount().project_id;
}

function jsonEntity(headers, object) {
  const entity = Buffer.from(JSON.stringify(object), 'utf-8');
  headers['content-type'] = 'application/json;charset=utf-8';
  headers['Content-Length'] = String(entity.length);
  return entity;
}

/** messaging.send(message): resolves to the message name. */
export async function send(message) {
  const headers = { ...FCM_HEADERS, Authorization: `Bearer ${await accessToken()}` };
  const entity = jsonEntity(headers, { message });
  const answer = await httpsCall(`https://fcm.googleapis.com/v1/projects/${projectId()}/messages:send`, 'POST', headers, entity);
  if (answer.status !== 200) throw new Error(`send: ${answer.status} ${JSON.stringify(answer.data)}`);
  return answer.data.name;
}

/** messaging.subscribeToTopic(tokens, topic) (iid.googleapis.com). */
export async function subscribeToTopic(tokens, topic) {
  const headers = { ...FCM_HEADERS, Authorization: `Bearer ${await accessToken()}` };
  const entity = jsonEntity(headers, { to: `/topics/${topic}`, registration_tokens: tokens });
  const answer = await httpsCall('https://iid.googleapis.com/iid/v1:batchAdd', 'POST', headers, entity);
  if (answer.status !== 200) throw new Error(`batchAdd: ${answer.status} ${JSON.stringify(answer.data)}`);
  return answer.data;
}

/** messaging.sendEach(messages) over one HTTP/2 session: resolves to [{success, messageId|error}]. */
export async function sendEach(messages) {
  const token = await accessToken();
  const session = http2.connect('https://fcm.googleapis.com', { peerMaxConcurrentStreams: 100, ALPNProtocols: ['h2'] });
  const failed = new Promise((_, reject) => {
    session.on('error', (error) => reject(new Error(`Error while making requests: ${error}`)));
  });
  try {
    const path = `/v1/projects/${projectId()}/messages:send`;
    const calls = messages.map((message) => new Promise((resolve, reject) => {
      const headers = { ...FCM_HEADERS, Authorization: `Bearer ${token}` };
      const entity = jsonEntity(headers, { message });
      const stream = session.request({ ':method': 'POST', ':scheme': 'https:', ':path': path, ...headers });
      let status = 0;
      const chunks = [];
      stream.on('response', (h) => { status = Number(h[':status']); });
      stream.on('data', (chunk) => chunks.push(chunk));
      stream.on('end', () => {
        const data = JSON.parse(Buffer.concat(chunks).toString() || '{}');
        resolve(status === 200 ? { success: true, messageId: data.name } : { success: false, error: data.error });
      });
      stream.on('error', reject);
      stream.setTimeout(15_000, () => { stream.destroy(); reject(new Error('timeout of 15000ms exceeded')); });
      stream.end(entity);
    }));
    return await Promise.race([Promise.all(calls), failed]);
  } finally {
    session.close();
  }
}
