// SPDX-License-Identifier: Apache-2.0
import fs from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';

/** Whether process `pid` is alive (a zombie counts as gone). */
export function alive(pid) {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return error.code === 'EPERM';
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true;
  }
}

/** Waits (bounded backoff, `limit` ms) until `pid` is gone; returns whether it went. */
export async function gone(pid, limit = 15_000) {
  const deadline = Date.now() + limit;
  let wait = 5;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await delay(wait);
    wait = Math.min(wait * 2, 200);
  }
  return true;
}

/**
 * An HTTP v1 messages:send on the emulator's plain HTTP port with the bearer `accessToken`;
 * resolves to the answer's status and JSON.
 */
export async function sendV1(emulator, projectId, accessToken, message) {
  const answer = await fetch(`${emulator.httpUrl}/v1/projects/${projectId}/messages:send`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ message }),
  });
  return { status: answer.status, body: await answer.json() };
}
