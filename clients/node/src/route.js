// SPDX-License-Identifier: Apache-2.0
/**
 * An in-process route from Google's hosts to the emulator, for Node's `https`, `http2` and
 * `fetch`, which (on Node 20) take no proxy from the environment.
 *
 * All three open their TLS connections through the `tls` module's `connect` (https' agents,
 * `http2.connect`, undici inside `fetch`), so one wrapper serves them all: while a route is
 * installed, a TLS connection to one of Google's API hosts on 443 (or a CCS host on 5235/5236)
 * goes to the emulator's TLS (or XMPP) port on 127.0.0.1 instead. The server name (SNI, and the
 * name the certificate is checked against) stays Google's, which the emulator's certificate covers,
 * and the emulator's CA is added to that connection's `ca`, so the caller's own trust settings
 * and every other connection are left alone. No name is resolved: nothing reaches Google.
 *
 * The route is process-wide while installed and is removed by {@link GoogleRoute#uninstall},
 * which also closes the connections it made (an agent's kept-alive socket must not carry a later
 * request to the emulator once the route is gone).
 * @module fcm-emu/route
 */

import tls from 'node:tls';
import { syncBuiltinESMExports } from 'node:module';

/** Google's HTTPS hosts (port 443) the emulator stands in for (its ProxyHosts list). */
export const GOOGLE_HTTPS_HOSTS = Object.freeze([
  'fcm.googleapis.com', 'iid.googleapis.com', 'oauth2.googleapis.com', 'www.googleapis.com', 'accounts.google.com',
  'gcm-http.googleapis.com', 'android.googleapis.com', 'iamcredentials.googleapis.com',
]);
/** The XMPP connection server's hosts (ports 5235 and 5236). */
export const CCS_HOSTS = Object.freeze(['fcm-xmpp.googleapis.com', 'gcm-xmpp.googleapis.com', 'gcm.googleapis.com', 'gcm-preprod.googleapis.com']);
/** FCM's CCS ports: production and testing. */
export const CCS_PORTS = Object.freeze([5235, 5236]);

/**
 * `tls.connect`'s arguments as one options object and a callback: `(options[, cb])`,
 * `(port[, host][, options][, cb])`, `(path[, options][, cb])`.
 * @param {any[]} args
 * @returns {{options: Record<string, any>, callback: Function|undefined}}
 */
function normalize(args) {
  const list = [...args];
  const callback = typeof list[list.length - 1] === 'function' ? list.pop() : undefined;
  if (list[0] !== null && typeof list[0] === 'object') return { options: { ...list[0] }, callback };
  const options = {};
  const first = list.shift();
  if (typeof first === 'string' && !/^\d+$/.test(first)) {
    options.path = first;
  } else if (first !== undefined) {
    options.port = first;
    if (typeof list[0] === 'string') options.host = list.shift();
  }
  if (list[0] !== null && typeof list[0] === 'object') Object.assign(options, list[0], options.port === undefined ? {} : { port: options.port }, options.host === undefined ? {} : { host: options.host });
  return { options, callback };
}

function toArray(ca) {
  if (ca === undefined || ca === null) return [];
  return Array.isArray(ca) ? ca : [ca];
}

/** The routes in force, the latest last (it wins when two take the same host). */
const active = [];
/** Whether `routedConnect` is in `tls.connect`'s place (or in a chain someone built on it). */
let wrapped = false;
/** The `tls.connect` that was there before. */
let original = tls.connect;

/** The one wrapper every route shares: asks the routes in force, latest first. */
function routedConnect(...args) {
  if (active.length) {
    const { options, callback } = normalize(args);
    for (let i = active.length - 1; i >= 0; i -= 1) {
      const routed = active[i].rewrite(options);
      if (routed) return active[i].open(this, routed, callback);
    }
  }
  return original.apply(this, args);
}

/** A route, installed or not. */
export class GoogleRoute {
  /**
   * @param {object} target
   * @param {number} target.tlsPort the emulator's TLS port (Google's HTTPS hosts on 443 go there)
   * @param {string|Buffer} target.ca the PEM of the emulator's CA
   * @param {string} [target.host] where the emulator listens (default 127.0.0.1)
   * @param {number[]} [target.xmppPorts] the emulator's XMPP ports: CCS's 5235 goes to the first,
   *   5236 to the second (or the first)
   * @param {readonly string[]} [target.httpsHosts] default {@link GOOGLE_HTTPS_HOSTS}
   * @param {readonly string[]} [target.ccsHosts] default {@link CCS_HOSTS}
   */
  constructor({ tlsPort, ca, host = '127.0.0.1', xmppPorts = [], httpsHosts = GOOGLE_HTTPS_HOSTS, ccsHosts = CCS_HOSTS }) {
    if (!Number.isInteger(tlsPort) || tlsPort <= 0) throw new TypeError(`GoogleRoute needs the emulator's TLS port, not ${tlsPort}`);
    if (!ca) throw new TypeError("GoogleRoute needs the emulator's CA certificate (PEM)");
    this.host = host;
    this.ca = ca;
    /** @type {Map<string, number>} "name:port" → the emulator's port */
    this.targets = new Map();
    for (const name of httpsHosts) this.targets.set(`${name.toLowerCase()}:443`, tlsPort);
    if (xmppPorts.length) {
      for (const name of ccsHosts) {
        this.targets.set(`${name.toLowerCase()}:5235`, xmppPorts[0]);
        this.targets.set(`${name.toLowerCase()}:5236`, xmppPorts[1] ?? xmppPorts[0]);
      }
    }
    /** How many connections the route has sent to the emulator since it was installed. */
    this.connections = 0;
    /** @type {Set<import('node:tls').TLSSocket>} */
    this.sockets = new Set();
    this.active = false;
  }

  /**
   * The emulator port that `host:port` goes to, or null when the route does not take it.
   * @param {string|undefined} host
   * @param {number|string|undefined} port
   * @returns {number|null}
   */
  target(host, port) {
    if (typeof host !== 'string') return null;
    const number = port === undefined || port === null || port === '' ? 443 : Number(port);
    return this.targets.get(`${host.replace(/\.$/, '').toLowerCase()}:${number}`) ?? null;
  }

  /** Whether the route is installed. */
  get installed() { return this.active; }

  /**
   * The options a `tls.connect` call really gets: a routed call goes to the emulator with
   * Google's server name kept and the emulator's CA added; any other is left as it is.
   * @param {Record<string, any>} options
   * @returns {Record<string, any>|null} null when not routed
   */
  rewrite(options) {
    const name = options.servername || options.host;
    const port = this.target(options.host ?? name, options.port);
    if (port === null && !(options.socket && this.target(name, options.port ?? 443) !== null)) return null;
    const routed = { ...options, servername: name, ca: [...toArray(options.ca), this.ca] };
    if (!options.socket) {
      routed.host = this.host;
      routed.port = port;
      delete routed.path;
      delete routed.lookup;
    }
    return routed;
  }

  /** Starts routing; returns this. Installing twice does nothing. */
  install() {
    if (this.active) return this;
    this.active = true;
    active.push(this);
    if (!wrapped) {
      original = tls.connect;
      tls.connect = routedConnect;
      wrapped = true;
      syncBuiltinESMExports();
    }
    return this;
  }

  /**
   * Stops routing. When no route is left, `tls.connect` is put back as it was (unless someone
   * wrapped it since: then the wrapper stays in their chain and passes every call through).
   * Closes the connections this route made unless `closeConnections` is false.
   * @param {{closeConnections?: boolean}} [options]
   */
  uninstall({ closeConnections = true } = {}) {
    if (!this.active) return;
    this.active = false;
    active.splice(active.indexOf(this), 1);
    if (active.length === 0 && wrapped && tls.connect === routedConnect) {
      tls.connect = original;
      wrapped = false;
      syncBuiltinESMExports();
    }
    if (closeConnections) {
      for (const socket of this.sockets) socket.destroy();
      this.sockets.clear();
    }
  }

  /** @private Opens a routed connection with the real `tls.connect`. */
  open(self, routed, callback) {
    const socket = callback ? original.call(self, routed, callback) : original.call(self, routed);
    this.connections += 1;
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    return socket;
  }

  [Symbol.dispose]() { this.uninstall(); }
}
