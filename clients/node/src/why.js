// SPDX-License-Identifier: Apache-2.0
/**
 * Why an assertion failed: what the emulator did with the device's messages (its outcomes), the
 * nearest miss of a `where` object, and fault rules that a suite added but that never fired.
 * Private to the package: assertions.js and node-test.js use it.
 * @module fcm-emu/why
 * @private
 */

import { inspect } from 'node:util';
import { FcmEmuError } from './errors.js';

const MISSING = Symbol('missing');
// Outcomes that say nothing about a message going astray.
const QUIET = new Set(['accepted', 'delivered', 'stored']);
// Outcomes of a message the server accepted and then dropped: "message 0:17… was discarded: …".
const OF_A_MESSAGE = new Set(['discarded', 'collapsed', 'evicted', 'expired']);

const isPlainObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);
const has = (object, key) => Object.prototype.hasOwnProperty.call(object, key);

/**
 * `GET …/devices/{device}/outcomes`, or null when the emulator has no such route (an older one),
 * does not know the device, or cannot be asked: a failing assertion must still fail with what it
 * knows.
 */
export async function deviceOutcomes(device) {
  const path = `/projects/${encodeURIComponent(device.projectId)}/devices/${encodeURIComponent(device.id)}/outcomes`;
  try {
    const document = (await device.client.request('GET', path)).json();
    return isPlainObject(document) ? document : null;
  } catch (error) {
    if (error instanceof FcmEmuError || error instanceof SyntaxError) return null;
    throw error;
  }
}

function held(state, stored) {
  return Number.isInteger(stored) && stored > 0 ? `held: device ${state || 'unknown'}, ${stored} stored` : null;
}

function outcomeText(outcome) {
  const kind = String(outcome.kind ?? '?');
  const summary = String(outcome.summary || kind);
  return outcome.messageId && OF_A_MESSAGE.has(kind) ? `message ${outcome.messageId} was ${summary}` : summary;
}

/**
 * The reasons to lead a failure with: the newest outcome that lost or refused a message (the list
 * is newest first, and a send comes before the assertion that waits for it), then what the device
 * holds back. Without an outcomes document, what a fresh read of the device says.
 */
export async function outcomeReasons(device) {
  const document = await deviceOutcomes(device);
  const reasons = [];
  let heldText = null;
  if (document) {
    const outcomes = Array.isArray(document.outcomes) ? document.outcomes.filter(isPlainObject) : [];
    const lost = outcomes.find((o) => !QUIET.has(o.kind));
    if (lost) reasons.push(outcomeText(lost));
    heldText = held(isPlainObject(document.device) ? document.device.state : undefined, document.stored);
    const stored = outcomes.find((o) => o.kind === 'stored');
    // The server's words, when it says why it holds them (offline, Doze, …).
    if (heldText && stored && String(stored.summary ?? '').startsWith('held: ')) heldText = String(stored.summary);
  } else {
    try {
      const now = await device.client.getDevice(device.projectId, device.id);
      heldText = held(now.state, now.storedCount);
    } catch (error) {
      if (!(error instanceof FcmEmuError)) throw error;
    }
  }
  if (heldText) reasons.push(heldText);
  return reasons;
}

function* leaves(spec, keys = []) {
  for (const [key, value] of Object.entries(spec)) {
    if (isPlainObject(value) && Object.keys(value).length) yield* leaves(value, [...keys, key]);
    else yield [[...keys, key], value];
  }
}

function lookup(data, dotted) {
  let value = data;
  for (const part of dotted.split('.')) {
    if (value !== null && typeof value === 'object' && has(value, part)) value = value[part];
    else return MISSING;
  }
  return value;
}

// As assertions.js's subset reads a key: literally first, then as a dotted path.
function resolve(data, keys) {
  let value = data;
  for (const key of keys) {
    if (value === null || typeof value !== 'object') return MISSING;
    value = has(value, key) ? value[key] : key.includes('.') ? lookup(value, key) : MISSING;
    if (value === MISSING) return MISSING;
  }
  return value;
}

const shown = (value) => (value === MISSING ? 'missing' : inspect(value, { breakLength: Infinity, depth: 4 }));

/**
 * For a `where` object and deliveries none of which matched: the delivery with the fewest
 * differing fields, and its first difference; null when there is nothing to compare.
 * @param {(where: any, actual: any) => boolean} subset the matching of assertions.js
 */
export function nearestMiss(where, deliveries, subset) {
  if (!isPlainObject(where) || !Object.keys(where).length || !deliveries.length) return null;
  const specs = [...leaves(where)];
  let best = null;
  for (const delivery of deliveries) {
    const differing = [];
    for (const [keys, wanted] of specs) {
      const got = resolve(delivery, keys);
      if (got === MISSING || !subset(wanted, got)) differing.push([keys.join('.'), got, wanted]);
    }
    if (differing.length && (!best || differing.length < best.length)) best = differing;
  }
  if (!best) return null;
  const [path, got, wanted] = best[0];
  const difference = `${path}: ${shown(got)}, wanted ${shown(wanted)}`;
  if (specs.length === 1) return `the nearest delivery has ${difference}`;
  if (best.length === 1) return `a delivery matched all but ${difference}`;
  return `the nearest delivery differs in ${best.length} of ${specs.length} fields, first ${difference}`;
}

/** The ids of the fault rules in force now, or null when they cannot be read. */
export async function faultRuleIds(client) {
  try {
    return new Set((await client.faults()).map((rule) => String(rule.id)));
  } catch (error) {
    if (error instanceof FcmEmuError) return null;
    throw error;
  }
}

/**
 * Rules that never fired and belong to the suite: they name its project, or they were added since
 * `before` (the ids at its start) and name no other project. Rules are the emulator's, not a
 * project's: deleting the project leaves them in force.
 */
export async function unusedFaultRules(client, projectId, before) {
  let rules;
  try {
    rules = await client.faults();
  } catch (error) {
    if (error instanceof FcmEmuError) return [];
    throw error;
  }
  return rules.filter((rule) => {
    if (!isPlainObject(rule) || (rule.fired ?? 0) !== 0) return false;
    const named = isPlainObject(rule.match) ? rule.match.project : undefined;
    return named === projectId || (named === undefined && before !== null && !before.has(String(rule.id)));
  });
}

/** The warning for one unused rule. */
export function describeUnused(rule, where) {
  return `fcm-emu: fault rule '${rule.id}' never fired ${where} (match ${JSON.stringify(rule.match ?? {})}, `
    + `action ${JSON.stringify(rule.action ?? {})}): no call matched it, so the failure it was meant to cause was not `
    + 'tested; check its api, route, project, target and device';
}
