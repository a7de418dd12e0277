// SPDX-License-Identifier: Apache-2.0
/**
 * Durations: a number is milliseconds (as with setTimeout); a string is the emulator's own form,
 * "500ms", "10s", "15m", "2h".
 * @module fcm-emu/duration
 */

const UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * @param {number|string} value
 * @returns {number} milliseconds
 */
export function toMillis(value) {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`a duration must be a non-negative number of milliseconds, not ${value}`);
    return value;
  }
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/.exec(String(value));
  if (!match) throw new RangeError(`not a duration: ${JSON.stringify(value)} (use milliseconds, or "500ms", "10s", "15m", "2h")`);
  return Number(match[1]) * UNITS[match[2]];
}

/**
 * The emulator's form of a duration ("2500ms").
 * @param {number|string} value
 * @returns {string}
 */
export function toWire(value) {
  return typeof value === 'string' ? value.trim() : `${Math.max(0, Math.round(toMillis(value)))}ms`;
}
