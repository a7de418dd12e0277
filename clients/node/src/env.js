// SPDX-License-Identifier: Apache-2.0
/**
 * The environment that points an unmodified Admin SDK at the emulator: in this process
 * ({@link FirebaseEnvironment}) and in child processes ({@link childEnv}).
 * @module fcm-emu/env
 */

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

import { findBinary } from './binary.js';

const run = promisify(execFile);

/** The module a child Node process preloads (`--import`) to install the route from its environment. */
export const REGISTER_URL = pathToFileURL(path.join(path.dirname(new URL(import.meta.url).pathname), 'register.js')).href;

/**
 * What makes an unmodified firebase-admin in this process reach the emulator, applied by
 * {@link FirebaseEnvironment#apply} and undone by {@link FirebaseEnvironment#restore}:
 *
 * - `GOOGLE_APPLICATION_CREDENTIALS`: a service-account key file for the project, from the emulator
 *   (written 0600 in a private temporary directory); `GOOGLE_CLOUD_PROJECT`, `GCLOUD_PROJECT` and
 *   `FIREBASE_CONFIG` (`{"projectId": …}`), so that `initializeApp()` with no arguments works;
 * - the {@link GoogleRoute} (unless `route: false`): the SDK's `https` and `http2` connections to
 *   Google's hosts go to the emulator, which it trusts for those connections only.
 *
 * `NODE_EXTRA_CA_CERTS` and `HTTPS_PROXY` are not set: Node reads the first only at start-up and,
 * at version 20, ignores the second.
 */
export class FirebaseEnvironment {
  /**
   * @param {import('./emulator.js').Emulator} emulator
   * @param {{project: string, route?: boolean, directory?: string}} options
   */
  constructor(emulator, { project, route = true, directory }) {
    this.emulator = emulator;
    this.projectId = project;
    this.useRoute = route;
    this.directory = directory ?? null;
    this.ownDirectory = directory === undefined;
    /** The key file written for the project. */
    this.keyFile = null;
    /** @type {import('./route.js').GoogleRoute|null} */
    this.route = null;
    /** What was set. @type {Record<string, string>} */
    this.variables = {};
    /** @type {Map<string, string|undefined>} */
    this.saved = new Map();
  }

  /** @private */
  set(name, value) {
    if (!this.saved.has(name)) this.saved.set(name, process.env[name]);
    process.env[name] = value;
    this.variables[name] = value;
  }

  /** Writes the key file, sets the variables, installs the route; resolves to this. */
  async apply() {
    try {
      if (!this.directory) this.directory = fs.mkdtempSync(path.join(os.tmpdir(), 'fcm-emu-env-'));
      const key = await this.emulator.client.serviceAccount(this.projectId);
      this.keyFile = path.join(this.directory, `${this.projectId}-service-account.json`);
      fs.writeFileSync(this.keyFile, JSON.stringify(key, null, 2), { mode: 0o600 });
      this.set('GOOGLE_APPLICATION_CREDENTIALS', this.keyFile);
      this.set('GOOGLE_CLOUD_PROJECT', this.projectId);
      this.set('GCLOUD_PROJECT', this.projectId);
      this.set('FIREBASE_CONFIG', JSON.stringify({ projectId: this.projectId }));
      if (this.useRoute) this.route = (await this.emulator.googleRoute()).install();
    } catch (error) {
      this.restore();
      throw error;
    }
    return this;
  }

  /** Removes the route, restores every variable, deletes the key file's directory (when it made it). */
  restore() {
    this.route?.uninstall();
    this.route = null;
    for (const [name, value] of this.saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    this.saved.clear();
    if (this.ownDirectory && this.directory) {
      fs.rmSync(this.directory, { recursive: true, force: true });
      this.directory = null;
    }
  }

  [Symbol.dispose]() { this.restore(); }
}

/**
 * A `NODE_OPTIONS` value with the route's `--import` added to `current`.
 * @param {string|undefined} current
 * @returns {string}
 */
export function nodeOptionsWithRoute(current) {
  const flag = `--import="${REGISTER_URL}"`;
  if (current && current.includes(REGISTER_URL)) return current;
  return current ? `${current} ${flag}` : flag;
}

/**
 * The environment for a child process: `fcm-emu env --format json` for this emulator (so the same
 * set `fcm-emu exec` gives a command: credentials, project, proxy, CA variables and `FCM_EMU_*`),
 * with its files written to `dir` (default: a private temporary directory removed at the
 * emulator's stop()), and `NODE_OPTIONS` importing this package's route when `nodeRoute` is true.
 * @param {import('./emulator.js').Emulator} emulator
 * @param {{project?: string, credentials?: 'key-file'|'metadata', dir?: string, nodeRoute?: boolean, binary?: string}} [options]
 * @returns {Promise<Record<string, string>>}
 */
export async function childEnv(emulator, { project, credentials, dir, nodeRoute = true, binary } = {}) {
  const executable = findBinary(binary);
  let directory = dir;
  if (!directory) {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'fcm-emu-childenv-'));
    const made = directory;
    const cleanup = { restore: () => { fs.rmSync(made, { recursive: true, force: true }); emulator.cleanups.delete(cleanup); } };
    emulator.cleanups.add(cleanup);
  }
  const args = ['env', '--emulator', emulator.httpUrl, '--format', 'json', '--dir', directory,
    '--project', project ?? emulator.demoProjectId];
  if (credentials) args.push('--credentials', credentials);
  // Node children reach the emulator through the route NODE_OPTIONS imports, with or without the
  // proxy; with neither, `fcm-emu env` refuses, since the SDK would reach the real Google.
  if (nodeRoute && !emulator.proxyUrl) args.push('--no-proxy');
  const runEnv = { ...process.env };
  if (emulator.client.token) runEnv.FCM_EMU_CONTROL_TOKEN = emulator.client.token;
  const { stdout } = await run(executable, args, { env: runEnv, maxBuffer: 4 << 20 });
  /** @type {Record<string, string>} */
  const variables = JSON.parse(stdout);
  if (nodeRoute) variables.NODE_OPTIONS = nodeOptionsWithRoute(process.env.NODE_OPTIONS);
  return variables;
}
