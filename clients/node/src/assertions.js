// SPDX-License-Identifier: Apache-2.0
/**
 * Assertions on what a simulated device received, for `node:test` or any runner.
 *
 * They wait with the inbox's own server-side wait (`waitFor`/`timeout`), never by sleeping, and
 * fail with an `AssertionError` that says why, as far as the emulator knows (what became of the
 * device's messages: discarded, refused, expired, …, or held while it is offline; the delivery
 * nearest a `where` object and its first differing field), then lists what the inbox did hold. `where` selects deliveries: an
 * object is a subset to find in the delivery's JSON (nested objects match recursively; a key with
 * dots, `"payload.data.score"`, is a path), or a function of the delivery returning a boolean.
 *
 * Time: `within` waits on the wall clock (ms, or "10s"); `advance` first moves the emulator's
 * clock (for an emulator started with `clockPaused: true`, or any), so that TTL expiry, Doze
 * windows and latencies happen at once instead of being waited for.
 * @module fcm-emu/assertions
 */

import { AssertionError } from 'node:assert';
import { toMillis } from './duration.js';
import { nearestMiss, outcomeReasons } from './why.js';

const MISSING = Symbol('missing');

function lookup(data, dotted) {
  let value = data;
  for (const part of dotted.split('.')) {
    if (value !== null && typeof value === 'object' && Object.prototype.hasOwnProperty.call(value, part)) value = value[part];
    else return MISSING;
  }
  return value;
}

function subset(expected, actual) {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    if (actual === null || typeof actual !== 'object') return false;
    for (const [key, value] of Object.entries(expected)) {
      const got = Object.prototype.hasOwnProperty.call(actual, key) ? actual[key] : key.includes('.') ? lookup(actual, key) : MISSING;
      if (got === MISSING || !subset(value, got)) return false;
    }
    return true;
  }
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && expected.length === actual.length && expected.every((v, i) => subset(v, actual[i]));
  }
  return Object.is(expected, actual);
}

/**
 * Whether `delivery` is selected by `where` (everything matches undefined).
 * @param {Record<string, any>} delivery
 * @param {Record<string, any>|((delivery: Record<string, any>) => boolean)|undefined} where
 */
export function matches(delivery, where) {
  if (where === undefined || where === null) return true;
  if (typeof where === 'function') return Boolean(where(delivery));
  return subset(where, delivery);
}

function describeWhere(where) {
  if (where === undefined || where === null) return 'any delivery';
  if (typeof where === 'function') return `a delivery matching ${where.name || 'the predicate'}`;
  return `a delivery matching ${JSON.stringify(where)}`;
}

function describeDevice(device) {
  const name = device.name ? ` '${device.name}'` : '';
  return `device ${device.id}${name} (${device.platform}, project ${device.projectId}, token ${String(device.token).slice(0, 24)}…)`;
}

function describeInbox(deliveries) {
  if (!deliveries.length) return 'the inbox was empty';
  const lines = [`the inbox held ${deliveries.length} deliveries:`];
  deliveries.forEach((delivery, index) => {
    let text = JSON.stringify(delivery);
    if (text.length > 600) text = `${text.slice(0, 600)}…`;
    lines.push(`  ${index + 1}. ${text}`);
  });
  return lines.join('\n');
}

/** `": <reasons>"` for a failure message: the device's outcomes first, then the nearest miss. */
async function whyNoneCame(device, where, deliveries) {
  const reasons = await outcomeReasons(device);
  const miss = nearestMiss(where, deliveries.filter((d) => !matches(d, where)), subset);
  if (miss) reasons.push(miss);
  return reasons.length ? `: ${reasons.join('; ')}` : '';
}

function requireBound(device) {
  if (!device || typeof device !== 'object' || !device.client || !device.projectId || !device.id) {
    throw new TypeError("pass a Device read through fcm-emu's client (e.g. await project.createDevice('android'))");
  }
}

/**
 * Reads the inbox until `want` deliveries match or `within` ms pass; returns the last read's
 * deliveries. Each round waits, server side, for one more delivery.
 */
async function collect(device, where, want, within, advance) {
  const { client } = device;
  if (advance !== undefined) await client.advanceClock(advance);
  const deadline = Date.now() + within;
  let inbox = await client.inbox(device.projectId, device.id);
  for (;;) {
    if (inbox.deliveries.filter((d) => matches(d, where)).length >= want) return inbox.deliveries;
    const remaining = deadline - Date.now();
    if (remaining <= 0) return inbox.deliveries;
    inbox = await client.inbox(device.projectId, device.id, { waitFor: inbox.deliveries.length + 1, timeout: Math.ceil(remaining) });
    if (inbox.satisfied === false) return inbox.deliveries;
  }
}

/**
 * @typedef {object} WaitOptions
 * @property {Record<string, any>|((delivery: Record<string, any>) => boolean)} [where] which deliveries count
 * @property {number|string} [within] how long to wait on the wall clock (ms or "10s")
 * @property {number|string|{to: Date|string}} [advance] move the emulator's clock first
 */

/**
 * Waits until `device` has received a delivery matching `where` (default within 10 s) and
 * resolves to it (the first match); rejects with an `AssertionError` otherwise.
 * @param {import('./client.js').Device} device
 * @param {WaitOptions} [options]
 */
export async function waitForDelivery(device, { where, within = 10_000, advance } = {}) {
  requireBound(device);
  const limit = toMillis(within);
  const deliveries = await collect(device, where, 1, limit, advance);
  const found = deliveries.filter((d) => matches(d, where));
  if (found.length) return found[0];
  throw new AssertionError({
    message: `expected ${describeWhere(where)} on ${describeDevice(device)} within ${limit} ms, `
      + `but none came${await whyNoneCame(device, where, deliveries)}; ${describeInbox(deliveries)}`,
    actual: deliveries, expected: where ?? 'any delivery', operator: 'waitForDelivery',
  });
}

/**
 * Waits until `count` deliveries matching `where` have arrived (default within 10 s) and asserts
 * that exactly that many match; resolves to them. `count` 0 is {@link assertNothingDelivered}.
 * @param {import('./client.js').Device} device
 * @param {number} count
 * @param {WaitOptions} [options]
 */
export async function waitForDeliveries(device, count, { where, within, advance } = {}) {
  requireBound(device);
  if (count === 0) {
    await assertNothingDelivered(device, { where, within: within ?? 0, advance });
    return [];
  }
  const limit = toMillis(within ?? 10_000);
  const deliveries = await collect(device, where, count, limit, advance);
  const found = deliveries.filter((d) => matches(d, where));
  if (found.length !== count) {
    const why = found.length < count ? await whyNoneCame(device, where, deliveries) : '';
    throw new AssertionError({
      message: `expected ${count} deliveries (${describeWhere(where)}) on ${describeDevice(device)} within ${limit} ms, `
        + `got ${found.length}${why}; ${describeInbox(deliveries)}`,
      actual: found.length, expected: count, operator: 'waitForDeliveries',
    });
  }
  return found;
}

/**
 * Asserts that `device`'s inbox holds no delivery matching `where`: by default it looks once, now;
 * with `within` it also waits that long (wall clock) for one to arrive, and fails if one does. To
 * prove something is never delivered (a stored message expiring, Doze holding it), `advance` the
 * emulator's clock past the moment instead of waiting.
 * @param {import('./client.js').Device} device
 * @param {WaitOptions} [options]
 */
export async function assertNothingDelivered(device, { where, within = 0, advance } = {}) {
  requireBound(device);
  const deliveries = await collect(device, where, 1, toMillis(within), advance);
  const found = deliveries.filter((d) => matches(d, where));
  if (found.length) {
    const what = where === undefined ? 'delivery' : describeWhere(where).slice(2);
    throw new AssertionError({
      message: `expected no ${what} on ${describeDevice(device)}, but ${found.length} arrived; ${describeInbox(deliveries)}`,
      actual: found, expected: [], operator: 'assertNothingDelivered',
    });
  }
}
