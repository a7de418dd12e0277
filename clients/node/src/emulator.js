// SPDX-License-Identifier: Apache-2.0
/**
 * Starting an fcm-emu process on free ports, or attaching to one that runs already.
 * @module fcm-emu/emulator
 */

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

import { findBinary } from './binary.js';
import { Client, CONTROL_API_ENV, Project } from './client.js';
import { EmulatorNotReadyError, FcmEmuError } from './errors.js';
import { GoogleRoute } from './route.js';
import { FirebaseEnvironment, childEnv } from './env.js';

/** Settings every started emulator gets unless overridden: free ports, no second XMPP port, the proxy on. */
export const DEFAULT_SETTINGS = Object.freeze({ tlsPort: '0', xmppPort: '0', xmppTestPort: 'off', proxyPort: '0' });

/**
 * The watchdog the emulator runs under (POSIX sh): it starts `serve`, and stops it (SIGTERM) when
 * its standard input reaches end of file, that is when this process closes the pipe (`stop()`) or
 * ends in any way at all, a SIGKILL included. A signal to the watchdog stops the emulator the same
 * way; the watchdog exits with the emulator's status as soon as the emulator exits.
 */
const WATCHDOG = [
  'exec 3<&0',
  '"$@" </dev/null 3<&- &',
  'child=$!',
  '(while read -r _; do :; done; kill -TERM "$child" 2>/dev/null) <&3 &',
  'reader=$!',
  'exec 3<&-',
  "trap 'kill -TERM \"$child\" 2>/dev/null' TERM INT HUP",
  'while :; do wait "$child"; status=$?; kill -0 "$child" 2>/dev/null || break; done',
  'kill "$reader" 2>/dev/null',
  'exit "$status"',
].join('\n');

/** Started emulators still running, stopped when this process exits. */
const live = new Set();
let exitHookInstalled = false;

function installExitHook() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' runs on process.exit(), an uncaught exception and a normal end; a signal that kills this
  // process skips it, and then the watchdog sees its pipe close.
  process.on('exit', () => {
    for (const emulator of live) emulator.killNow();
  });
}

function settingText(value) {
  return typeof value === 'boolean' ? (value ? 'true' : 'false') : String(value);
}

/**
 * One fcm-emu emulator: started here ({@link Emulator.start}) or attached to ({@link Emulator.attach}).
 */
export class Emulator {
  /**
   * @param {object} [options]
   * @param {string} [options.binary] the fcm-emu executable (default: `$FCM_EMU_BIN`, then PATH)
   * @param {Record<string, string|number|boolean>} [options.settings] extra `--set key=value`
   *   settings (e.g. `{clockPaused: true}`), over the defaults (free ports for HTTP, TLS, XMPP and the proxy)
   * @param {string|null} [options.stateDir] where keys and snapshots are kept; default none (in memory)
   * @param {string[]} [options.args] further `serve` arguments
   * @param {string} [options.host] the address to listen on (default 127.0.0.1)
   * @param {string} [options.logLevel] `serve --log-level` (default info)
   * @param {number} [options.startupTimeout] ms to wait for the ready file (default 30000)
   * @param {number} [options.stopTimeout] ms to wait after SIGTERM before SIGKILL (default 10000)
   * @param {Record<string, string>} [options.env] extra environment variables for the process
   * @param {boolean} [options.keepWorkdir] keep the ready file and log after stop()
   */
  constructor(options = {}) {
    this.options = {
      binary: undefined, settings: {}, stateDir: null, args: [], host: '127.0.0.1', logLevel: 'info',
      startupTimeout: 30_000, stopTimeout: 10_000, env: {}, keepWorkdir: false, ...options,
    };
    /** The ready file's JSON (or `info`'s, when attached). */
    this.ready = {};
    /** The private temporary directory holding the ready file and the log (started emulators). */
    this.workdir = null;
    /** The log file of the emulator's output. */
    this.logPath = null;
    /** @type {import('node:child_process').ChildProcess|null} the watchdog process */
    this.process = null;
    this.exitCode = undefined;
    this.attached = false;
    /** @type {Client|null} */
    this.clientInstance = null;
    /** @type {Set<{restore(): any}>} routes and environments to undo at stop() */
    this.cleanups = new Set();
    this.exited = null;
  }

  /**
   * Starts an emulator and waits until it is ready.
   * @param {ConstructorParameters<typeof Emulator>[0]} [options]
   * @returns {Promise<Emulator>}
   */
  static async start(options = {}) {
    return new Emulator(options).start();
  }

  /**
   * An Emulator for one already running; {@link Emulator#stop} then leaves it running.
   * @param {string} [url] its control API base (default `$FCM_EMU_CONTROL_API`)
   * @param {{timeout?: number, token?: string}} [options]
   * @returns {Promise<Emulator>}
   */
  static async attach(url = process.env[CONTROL_API_ENV], options = {}) {
    if (!url) {
      throw new FcmEmuError(`no emulator to attach to: pass a URL or set ${CONTROL_API_ENV} (e.g. http://127.0.0.1:9092/emulator/v1)`);
    }
    const emulator = new Emulator();
    emulator.attached = true;
    emulator.clientInstance = new Client(url, options);
    emulator.ready = await emulator.clientInstance.info();
    return emulator;
  }

  /**
   * Attaches to `$FCM_EMU_CONTROL_API` when it is set, else starts one with `options`.
   * @param {ConstructorParameters<typeof Emulator>[0]} [options]
   */
  static async startOrAttach(options = {}) {
    return process.env[CONTROL_API_ENV] ? Emulator.attach() : Emulator.start(options);
  }

  /** The `serve` command line (after the binary) this object runs. */
  commandArgs(readyFile) {
    const settings = { ...DEFAULT_SETTINGS, stateDir: this.options.stateDir ?? 'none' };
    for (const [key, value] of Object.entries(this.options.settings ?? {})) settings[key] = settingText(value);
    const argv = ['serve', '--host', this.options.host, '--port', settings.port ?? '0', '--ready-file', readyFile, '--log-level', this.options.logLevel];
    for (const [key, value] of Object.entries(settings)) {
      if (key !== 'port') argv.push('--set', `${key}=${value}`);
    }
    return [...argv, ...this.options.args];
  }

  /** Starts the process and waits for its ready file; resolves to this. */
  async start() {
    if (this.attached) throw new Error('an attached emulator cannot be started');
    if (this.process) throw new Error('this emulator was started already');
    const binary = findBinary(this.options.binary);
    this.workdir = fs.mkdtempSync(path.join(os.tmpdir(), 'fcm-emu-node-'));
    const readyFile = path.join(this.workdir, 'ready.json');
    this.logPath = path.join(this.workdir, 'serve.log');
    const log = fs.openSync(this.logPath, 'a');
    try {
      this.process = spawn('/bin/sh', ['-c', WATCHDOG, 'fcm-emu-watchdog', binary, ...this.commandArgs(readyFile)], {
        cwd: this.workdir,
        env: { ...process.env, ...this.options.env },
        stdio: ['pipe', log, log],
        detached: true, // its own process group, so that stop() can kill the watchdog and the emulator together
      });
    } finally {
      fs.closeSync(log);
    }
    const child = this.process;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitCode = code ?? signal;
        live.delete(this);
        resolve(this.exitCode);
      });
      child.once('error', (error) => {
        this.exitCode = error.code ?? 'error';
        live.delete(this);
        resolve(this.exitCode);
      });
    });
    child.stdin.on('error', () => {}); // EPIPE once the watchdog is gone
    // Neither the process nor its pipe keeps this one alive: a test file that forgets stop() still
    // ends, and its end closes the pipe, which stops the emulator.
    child.unref();
    child.stdin.unref?.();
    live.add(this);
    installExitHook();
    try {
      this.ready = await this.waitReady(readyFile);
    } catch (error) {
      await this.terminate();
      this.removeWorkdir();
      throw error;
    }
    this.clientInstance = new Client(this.ready.http.url, { token: this.ready.controlToken ?? null });
    return this;
  }

  /** @private */
  async waitReady(readyFile) {
    const deadline = Date.now() + this.options.startupTimeout;
    let wait = 5;
    for (;;) {
      try {
        const text = fs.readFileSync(readyFile, 'utf8');
        if (text.trim()) return JSON.parse(text);
      } catch (error) {
        if (error.code !== 'ENOENT' && !(error instanceof SyntaxError)) throw error;
      }
      if (this.exitCode !== undefined) {
        throw new EmulatorNotReadyError(`fcm-emu exited (${this.exitCode}) before it was ready`, { logPath: this.logPath, logTail: this.logTail() });
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        throw new EmulatorNotReadyError(`fcm-emu was not ready after ${this.options.startupTimeout} ms`, { logPath: this.logPath, logTail: this.logTail() });
      }
      // A bounded backoff, cut short by an exit.
      await Promise.race([delay(Math.min(wait, remaining)), this.exited]);
      wait = Math.min(wait * 2, 100);
    }
  }

  /** @private Kills the whole process group at once (used on exit; synchronous). */
  killNow() {
    if (!this.process || this.exitCode !== undefined) return;
    try {
      process.kill(-this.process.pid, 'SIGTERM');
    } catch {
      // gone already
    }
  }

  /** @private */
  async terminate() {
    const child = this.process;
    if (!child || this.exitCode !== undefined) return;
    child.stdin.end(); // the watchdog sends SIGTERM to the emulator and waits for it
    const timer = new Promise((resolve) => {
      const t = setTimeout(resolve, this.options.stopTimeout, 'timeout');
      this.exited.then(() => clearTimeout(t));
    });
    if ((await Promise.race([this.exited, timer])) === 'timeout' && this.exitCode === undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone in between
      }
      await this.exited;
    }
  }

  /** @private */
  removeWorkdir() {
    if (this.workdir && !this.options.keepWorkdir) fs.rmSync(this.workdir, { recursive: true, force: true });
  }

  /**
   * Undoes the routes and environments made through this object, then stops a started emulator
   * (SIGTERM, SIGKILL after `stopTimeout`); resolves to its exit code. Leaves an attached one running.
   * @returns {Promise<number|string|null|undefined>}
   */
  async stop() {
    for (const cleanup of [...this.cleanups].reverse()) {
      try {
        await cleanup.restore();
      } catch {
        // keep undoing the rest
      }
    }
    this.cleanups.clear();
    if (this.attached || !this.process) return undefined;
    await this.terminate();
    this.removeWorkdir();
    return this.exitCode;
  }

  /** For `await using emulator = await Emulator.start()` where the runtime supports it. */
  async [Symbol.asyncDispose]() { await this.stop(); }

  /** Whether the emulator is up: the process lives (started) or was attached to. */
  get running() {
    return this.attached || (this.process !== null && this.exitCode === undefined && Boolean(this.ready.http));
  }

  /** The last `lines` lines of the emulator's log (started emulators only). */
  logTail(lines = 40) {
    if (!this.logPath || !fs.existsSync(this.logPath)) return '';
    const text = fs.readFileSync(this.logPath, 'utf8');
    return text.split('\n').slice(-lines - 1).join('\n').trimEnd();
  }

  // -- what it offers -----------------------------------------------------------------------

  /** The control API client. */
  get client() {
    if (!this.clientInstance) throw new Error('the emulator is not started');
    return this.clientInstance;
  }

  /** The control API base, `http://127.0.0.1:PORT/emulator/v1` (the value for `FCM_EMU_CONTROL_API`). */
  get controlUrl() { return this.client.baseUrl; }
  /** The plain HTTP base URL (FCM's APIs, the control API, the metadata server). */
  get httpUrl() { return this.ready.http?.url ?? this.controlUrl.replace(/\/emulator\/v1$/, ''); }
  /** The TLS base URL (HTTP/2 and HTTP/1.1), when TLS is on. */
  get httpsUrl() { return this.ready.https?.url ?? null; }
  /** The TLS port, when TLS is on. */
  get tlsPort() { return this.ready.https?.port ?? (this.httpsUrl ? Number(new URL(this.httpsUrl).port) : null); }
  /** The HTTPS proxy's URL, when the proxy is on. */
  get proxyUrl() { return this.ready.proxy?.url ?? null; }
  /** Path of the PEM file of the emulator's CA (on this machine, when it runs here). */
  get caPath() { return this.ready.caCertificate ?? null; }
  /** The XMPP (CCS) ports. */
  get xmppPorts() { return [...(this.ready.xmpp?.ports ?? [])]; }
  /** The demo project's id. */
  get demoProjectId() { return this.ready.demoProject?.projectId ?? 'demo-fcm-emu'; }
  /** The emulator's own process id (from its ready file). */
  get pid() { return this.ready.pid ?? null; }

  /** A project handle; the demo project by default. */
  project(id = this.demoProjectId) { return this.client.project(id); }

  /**
   * Creates a fresh project with a unique id (a strict one: tokens are checked as FCM does,
   * unless the id starts with `demo-`).
   * @param {{id?: string, prefix?: string, number?: string}} [options]
   * @returns {Promise<Project>}
   */
  async createProject({ id, prefix = 'test', number } = {}) {
    const clean = prefix.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^[^a-z]+/, '').slice(0, 17) || 'test';
    const projectId = id ?? `${clean}-${randomBytes(6).toString('hex')}`;
    await this.client.createProject(projectId, number === undefined ? {} : { number });
    return new Project(this.client, projectId);
  }

  /** The PEM of the emulator's CA: its file when readable here, else over the control API. */
  async caCertificate() {
    if (this.caPath) {
      try {
        return fs.readFileSync(this.caPath, 'utf8');
      } catch {
        // an emulator elsewhere (a container): ask it
      }
    }
    return this.client.caCertificate();
  }

  /**
   * A {@link GoogleRoute} to this emulator, not yet installed.
   * @returns {Promise<GoogleRoute>}
   */
  async googleRoute() {
    if (!this.tlsPort) throw new Error('this emulator serves no TLS (tlsPort=off): nothing to route to');
    const host = this.ready.https?.host && this.ready.https.host !== '0.0.0.0' ? this.ready.https.host : new URL(this.httpUrl).hostname;
    return new GoogleRoute({ tlsPort: this.tlsPort, host, ca: await this.caCertificate(), xmppPorts: this.xmppPorts });
  }

  /**
   * Installs a route from Google's hosts to this emulator for this process's `https`, `http2`
   * and `fetch` (see {@link GoogleRoute}); {@link Emulator#stop} removes it, or call
   * `route.uninstall()`.
   * @returns {Promise<GoogleRoute>}
   */
  async routeGoogle() {
    const route = (await this.googleRoute()).install();
    const cleanup = { restore: () => { route.uninstall(); this.cleanups.delete(cleanup); } };
    this.cleanups.add(cleanup);
    return route;
  }

  /**
   * Points an unmodified Admin SDK in this process at the emulator, for `project`: the route,
   * plus `GOOGLE_APPLICATION_CREDENTIALS` (a key file for the project), `GOOGLE_CLOUD_PROJECT`,
   * `GCLOUD_PROJECT` and `FIREBASE_CONFIG`. `restore()` (or {@link Emulator#stop}) undoes it all.
   * @param {{project?: string|Project, route?: boolean}} [options]
   * @returns {Promise<FirebaseEnvironment>}
   */
  async useFirebase({ project = this.demoProjectId, route = true } = {}) {
    const environment = await new FirebaseEnvironment(this, { project: typeof project === 'string' ? project : project.id, route }).apply();
    const cleanup = { restore: () => { environment.restore(); this.cleanups.delete(cleanup); } };
    this.cleanups.add(cleanup);
    return environment;
  }

  /**
   * The environment for a child process, as `fcm-emu env --format json` prints it (the key file and
   * CA bundle are written to `dir`), plus, with `nodeRoute` (default true), a `NODE_OPTIONS`
   * `--import` of this package's route, which Node 20 children need for `http2.connect`.
   * @param {{project?: string, credentials?: 'key-file'|'metadata', dir?: string, nodeRoute?: boolean, binary?: string}} [options]
   * @returns {Promise<Record<string, string>>}
   */
  env(options = {}) {
    return childEnv(this, { binary: this.options.binary, ...options });
  }

  toString() {
    const state = this.attached ? 'attached' : this.running ? 'running' : 'stopped';
    return `Emulator(${this.clientInstance?.baseUrl ?? '-'}, ${state})`;
  }
}
