// SPDX-License-Identifier: Apache-2.0
// Types of the `fcm-emu` package (ESM, Node >= 20). Durations are milliseconds, or the emulator's
// strings ("500ms", "10s", "15m").

import type { AssertionError } from 'node:assert';

export type Duration = number | string;
export type Platform = 'android' | 'ios' | 'web';
export type DeviceState = 'foreground' | 'background' | 'doze' | 'offline' | 'uninstalled';

/** A control API call failed; carries the API's own error JSON. */
export class FcmEmuError extends Error {
  readonly name: 'FcmEmuError';
  /** The API's message, without the request in front. */
  readonly apiMessage: string;
  /** HTTP status; null when no answer came. */
  readonly status: number | null;
  readonly code: number | null;
  /** Google's canonical status name, e.g. "NOT_FOUND". */
  readonly reason: string | null;
  readonly field: string | null;
  /** The raw answer body. */
  readonly text: string;
  readonly method: string;
  readonly url: string;
  static fromResponse(status: number, text: string, request: { method: string; url: string }): FcmEmuError;
}
/** The emulator exited, or wrote no ready file in time. */
export class EmulatorNotReadyError extends Error {
  readonly logPath: string | null;
  readonly logTail: string;
}
/** No fcm-emu binary was found. */
export class BinaryNotFoundError extends Error {
  readonly code: 'ENOENT';
}

export const BIN_ENV: 'FCM_EMU_BIN';
export const CONTROL_API_ENV: 'FCM_EMU_CONTROL_API';
export const CONTROL_TOKEN_ENV: 'FCM_EMU_CONTROL_TOKEN';
export const DEFAULT_TIMEOUT: number;
export const DEFAULT_SETTINGS: Readonly<Record<string, string>>;
/** The fcm-emu executable: `explicit`, `$FCM_EMU_BIN`, then `fcm-emu` on PATH. */
export function findBinary(explicit?: string): string;
/** A duration in milliseconds. */
export function toMillis(value: Duration): number;

// -- the control API's shapes ---------------------------------------------------------------

export interface ProjectInfo {
  id: string;
  number: string;
  senderId?: string;
  serverKeys?: string[];
  createdAt?: string;
  /** Off: every v1 call of the project answers 403 SERVICE_DISABLED. */
  apiEnabled?: boolean;
  [key: string]: unknown;
}

export interface DeviceJSON {
  id: string;
  projectId: string;
  platform: Platform;
  token: string;
  state: DeviceState;
  name?: string;
  appId?: string;
  fid?: string;
  tokenValid?: boolean;
  senders?: string[];
  topics?: string[];
  createdAt?: string;
  lastConnectedAt?: string;
  /** When the app was last connected or refreshed its token; an Android token unseen for staleTokenDays has expired. */
  lastSeenAt?: string;
  storedCount?: number;
  storedCollapsible?: number;
  storedNonCollapsible?: number;
  lastDeliveryAt?: string;
  deliveredCount?: number;
  deletedMessagesPending?: boolean;
  [key: string]: unknown;
}

/** One thing the app received: a message (payload as its platform renders it) or a deletedMessages notice. */
export interface Delivery {
  kind: 'message' | 'deletedMessages' | string;
  messageId?: string;
  time?: string;
  handling?: string;
  callback?: string;
  appState?: string;
  priority?: string;
  originalPriority?: string;
  collapseKey?: string;
  ttl?: string;
  api?: string;
  payload?: Record<string, any>;
  [key: string]: unknown;
}

export interface Inbox {
  device: Device | null;
  deliveries: Delivery[];
  /** null for a plain read; after a waitFor read, whether the count was reached. */
  satisfied: boolean | null;
}

/** One outcome of `getOutcomes`: what became of a message meant for the device, or a refusal that named it. */
export interface Outcome {
  time: string;
  kind: 'accepted' | 'stored' | 'delivered' | 'collapsed' | 'evicted' | 'expired' | 'discarded' | 'refused';
  messageId?: string;
  reason?: string;
  /** refused: the HTTP status and error code the client got. */
  status?: number;
  code?: string;
  summary: string;
}

export interface DeviceOutcomes {
  device: { id: string; name?: string; state: string; token: string };
  stored: number;
  /** The newest outcome's summary, or 'Nothing was sent to it yet.' */
  story: string;
  /** Newest first, at most 16. */
  outcomes: Outcome[];
}

export interface EmulatorEvent {
  sequence: number;
  time: string;
  kind: string;
  project?: string;
  device?: string;
  messageId?: string;
  relatedMessageId?: string;
  target?: string;
  detail?: string;
  [key: string]: unknown;
}

export interface EventList {
  events: EmulatorEvent[];
  satisfied: boolean | null;
}

export interface StreamMessage {
  /** "message" for log entries (data is an EmulatorEvent), or "ready", "lagged", "shutdown". */
  event: string;
  data: any;
  id?: string;
}

export interface EventFilters {
  device?: string;
  token?: string;
  topic?: string;
  message?: string;
  kind?: string | string[];
  since?: string | number | Date;
  until?: string | number | Date;
  limit?: number;
  /** Answer once this many events match, or at the timeout. */
  waitFor?: number;
  timeout?: Duration;
}

export interface Clock {
  now: string;
  nowMillis: number;
  mode: string;
  paused: boolean;
  speed: number;
  nextTimer?: string;
  pendingTimers?: number;
  [key: string]: unknown;
}

export interface FaultMatch {
  api?: 'v1' | 'legacy' | 'iid' | 'batch' | 'oauth' | 'xmpp';
  route?: string;
  project?: string;
  target?: string;
  device?: string;
  nth?: number;
  every?: number;
  probability?: number;
  count?: number;
  from?: string;
  until?: string;
}
export interface FaultAction {
  error?: string;
  status?: number;
  retryAfter?: number | string;
  latency?: string;
  reset?: boolean;
  html502?: boolean;
  drain?: boolean;
}
export interface FaultRule {
  id?: string;
  match?: FaultMatch;
  action: FaultAction;
}

export interface AccessToken {
  accessToken: string;
  tokenType: string;
  expiresIn: number;
  [key: string]: unknown;
}

export interface NewDevice {
  name?: string;
  token?: string;
  appId?: string;
  fid?: string;
  state?: DeviceState;
  senders?: string[];
  topics?: string[];
}

export interface RawResponse {
  status: number;
  headers: Headers;
  body: Buffer;
  json(): any;
  /** The Emulator-Wait header: true satisfied, false timed out, null no wait. */
  waitSatisfied: boolean | null;
}

/** A simulated device, bound to the client that read it. */
export class Device implements DeviceJSON {
  id: string;
  projectId: string;
  platform: Platform;
  token: string;
  state: DeviceState;
  [key: string]: any;
  /** The JSON it was read from. */
  raw: DeviceJSON;
  client: Client;
  constructor(json: DeviceJSON, client: Client);
  reload(): Promise<this>;
  inbox(options?: { waitFor?: number; timeout?: Duration }): Promise<Inbox>;
  clearInbox(): Promise<void>;
  events(options?: EventFilters): Promise<EventList>;
  setState(state: DeviceState): Promise<Device>;
  setSenders(senders: string[]): Promise<Device>;
  uninstall(): Promise<Device>;
  refreshToken(token?: string): Promise<Device>;
  subscribe(topic: string): Promise<Device>;
  unsubscribe(topic: string): Promise<Device>;
  sendUpstream(data: Record<string, string>, options?: { messageId?: string; ttl?: string }): Promise<Record<string, unknown>>;
  delete(): Promise<void>;
}

/** One project: the project-scoped calls with the project filled in. */
export class Project {
  readonly client: Client;
  readonly id: string;
  constructor(client: Client, id: string);
  info(): Promise<ProjectInfo>;
  delete(): Promise<void>;
  reset(): Promise<void>;
  update(changes: { apiEnabled?: boolean }): Promise<ProjectInfo>;
  serviceAccount(): Promise<Record<string, string>>;
  createAccessToken(): Promise<AccessToken>;
  revokeAccessTokens(): Promise<void>;
  topics(): Promise<Array<{ name: string; subscribers: number }>>;
  groups(): Promise<Array<Record<string, unknown>>>;
  xmppConnections(): Promise<Array<Record<string, unknown>>>;
  drainXmpp(): Promise<void>;
  events(options?: EventFilters): Promise<EventList>;
  streamEvents(options?: EventFilters & { lastEventId?: number }): AsyncGenerator<StreamMessage>;
  listDevices(options?: { offset?: number; limit?: number }): Promise<{ total: number; devices: Device[] }>;
  devices(): Promise<Device[]>;
  createDevice(platform?: Platform, fields?: NewDevice): Promise<Device>;
  createDevices(count: number, platform?: Platform, fields?: Omit<NewDevice, 'name' | 'token' | 'fid'>): Promise<Device[]>;
  device(device: string): Promise<Device>;
}

/** The control API of one emulator (`/emulator/v1`). */
export class Client {
  readonly baseUrl: string;
  timeout: number;
  token: string | null;
  constructor(baseUrl: string, options?: { timeout?: number; token?: string | null });
  static fromEnv(options?: { timeout?: number; token?: string | null }): Client;
  request(method: string, path: string, options?: {
    body?: unknown; query?: Record<string, unknown>; data?: Buffer | string; contentType?: string;
    accept?: string; headers?: Record<string, string>; timeout?: number; stream?: false;
  }): Promise<RawResponse>;

  health(): Promise<{ status: string }>;
  isHealthy(): Promise<boolean>;
  info(): Promise<Record<string, any>>;
  openapi(): Promise<Record<string, any>>;
  caCertificate(): Promise<string>;
  /** Prometheus text format 0.0.4. */
  metrics(): Promise<string>;
  /** `listConnections`: who holds connections to the HTTP ports, most open first. */
  connections(): Promise<ClientConnection[]>;
  reset(): Promise<void>;

  exportSnapshot(name: string, options?: { include?: Array<'events' | 'inboxes'> }): Promise<{ name: string; manifest: Record<string, unknown> }>;
  exportSnapshotTar(options?: { include?: Array<'events' | 'inboxes'> }): Promise<Buffer>;
  importSnapshot(name: string, options?: { clock?: 'snapshot' | 'wall' }): Promise<Record<string, unknown>>;
  importSnapshotTar(archive: Buffer, options?: { clock?: 'snapshot' | 'wall' }): Promise<Record<string, unknown>>;

  clock(): Promise<Clock>;
  /** Moves the clock `by` a duration ("15m" or ms) or `{to}` an instant. */
  advanceClock(by: Duration | { to: Date | string | number }): Promise<Clock>;
  pauseClock(): Promise<Clock>;
  resumeClock(): Promise<Clock>;
  setClockSpeed(speed: number): Promise<Clock>;
  /** `listTimers`: pending timers in the order they fire. */
  timers(options?: { offset?: number; limit?: number }): Promise<{ timers: Array<{ at: string; what: string; project?: string; device?: string; messageId?: string; [key: string]: unknown }>; total: number; nextOffset?: number }>;

  events(options?: Omit<EventFilters, 'device'>): Promise<EventList>;
  projectEvents(project: string, options?: EventFilters): Promise<EventList>;
  deviceEvents(project: string, device: string, options?: Omit<EventFilters, 'device'>): Promise<EventList>;
  streamEvents(options?: Omit<EventFilters, 'device' | 'waitFor' | 'timeout'> & { lastEventId?: number }): AsyncGenerator<StreamMessage>;
  streamProjectEvents(project: string, options?: Omit<EventFilters, 'waitFor' | 'timeout'> & { lastEventId?: number }): AsyncGenerator<StreamMessage>;
  streamDeviceEvents(project: string, device: string, options?: { kind?: string | string[]; message?: string; lastEventId?: number }): AsyncGenerator<StreamMessage>;

  faults(): Promise<FaultRule[]>;
  addFault(rule: FaultRule): Promise<FaultRule>;
  setFaults(rules: FaultRule[]): Promise<FaultRule[]>;
  clearFaults(): Promise<void>;
  removeFault(id: string): Promise<FaultRule[]>;
  /** `getFault`: the rule as posted, with `id` and `fired`. */
  fault(id: string): Promise<FaultRule & { id: string; fired: number }>;

  project(id: string): Project;
  listProjects(): Promise<ProjectInfo[]>;
  createProject(id: string, options?: { number?: string; serverKeys?: string[]; apiEnabled?: boolean }): Promise<ProjectInfo>;
  getProject(project: string): Promise<ProjectInfo>;
  updateProject(project: string, changes: { apiEnabled?: boolean }): Promise<ProjectInfo>;
  deleteProject(project: string): Promise<void>;
  resetProject(project: string): Promise<void>;
  serviceAccount(project: string): Promise<Record<string, string>>;
  createAccessToken(project: string): Promise<AccessToken>;
  revokeAccessTokens(project: string): Promise<void>;
  topics(project: string): Promise<Array<{ name: string; subscribers: number }>>;
  groups(project: string): Promise<Array<Record<string, unknown>>>;
  xmppConnections(project: string): Promise<Array<Record<string, unknown>>>;
  drainXmpp(project: string): Promise<void>;

  listDevices(project: string, options?: { offset?: number; limit?: number }): Promise<{ total: number; devices: Device[] }>;
  iterDevices(project: string, options?: { pageSize?: number }): AsyncGenerator<Device>;
  createDevice(project: string, platform?: Platform, fields?: NewDevice): Promise<Device>;
  createDevices(project: string, count: number, platform?: Platform, fields?: Omit<NewDevice, 'name' | 'token' | 'fid'>): Promise<Device[]>;
  getDevice(project: string, device: string): Promise<Device>;
  updateDevice(project: string, device: string, changes: { state?: DeviceState; senders?: string[] }): Promise<Device>;
  deleteDevice(project: string, device: string): Promise<void>;
  uninstallDevice(project: string, device: string): Promise<Device>;
  refreshToken(project: string, device: string, options?: { token?: string }): Promise<Device>;
  subscribe(project: string, device: string, topic: string): Promise<Device>;
  unsubscribe(project: string, device: string, topic: string): Promise<Device>;
  inbox(project: string, device: string, options?: { waitFor?: number; timeout?: Duration }): Promise<Inbox>;
  clearInbox(project: string, device: string): Promise<void>;
  stored(project: string, device: string): Promise<{ stored: Array<Record<string, unknown>>; [key: string]: unknown }>;
  tray(project: string, device: string): Promise<{ notifications: Array<Record<string, unknown>>; [key: string]: unknown }>;
  outcomes(project: string, device: string): Promise<DeviceOutcomes>;
  showNotification(project: string, device: string, messageId: string, options?: { tag?: string }): Promise<Record<string, unknown>>;
  clearTray(project: string, device: string): Promise<void>;
  sendUpstream(project: string, device: string, data: Record<string, string>, options?: { messageId?: string; ttl?: string }): Promise<Record<string, unknown>>;
}

// -- assertions -----------------------------------------------------------------------------

export type Where = Record<string, unknown> | ((delivery: Delivery) => boolean);
export interface WaitOptions {
  /** A subset of the delivery's JSON (dotted keys are paths), or a predicate. */
  where?: Where;
  /** How long to wait on the wall clock (default 10 s; 0 for assertNothingDelivered). */
  within?: Duration;
  /** Move the emulator's clock first. */
  advance?: Duration | { to: Date | string | number };
}
/** Whether `delivery` is selected by `where`. */
export function matches(delivery: Delivery, where?: Where): boolean;
/** Resolves to the first delivery matching `where`; rejects with an AssertionError listing the inbox otherwise. */
export function waitForDelivery(device: Device, options?: WaitOptions): Promise<Delivery>;
/** Waits for `count` matching deliveries and asserts there are exactly that many. */
export function waitForDeliveries(device: Device, count: number, options?: WaitOptions): Promise<Delivery[]>;
/** Asserts no matching delivery: now, or within `within`, or after `advance`. */
export function assertNothingDelivered(device: Device, options?: WaitOptions): Promise<void>;
export type { AssertionError };

// -- the route and the environment ----------------------------------------------------------

export const GOOGLE_HTTPS_HOSTS: readonly string[];
export const CCS_HOSTS: readonly string[];
export const CCS_PORTS: readonly number[];

/** An in-process route from Google's hosts to the emulator for https, http2 and fetch (through tls.connect). */
export class GoogleRoute implements Disposable {
  constructor(target: {
    tlsPort: number; ca: string | Buffer; host?: string; xmppPorts?: number[];
    httpsHosts?: readonly string[]; ccsHosts?: readonly string[];
  });
  readonly host: string;
  readonly ca: string | Buffer;
  /** How many connections it sent to the emulator. */
  readonly connections: number;
  /** Its connections still open (TLS sockets), closed by uninstall(). */
  readonly sockets: ReadonlySet<object>;
  readonly installed: boolean;
  /** The emulator port `host:port` goes to, or null. */
  target(host: string | undefined, port: number | string | undefined): number | null;
  install(): this;
  /** Stops routing; closes the connections it made unless closeConnections is false. */
  uninstall(options?: { closeConnections?: boolean }): void;
  [Symbol.dispose](): void;
}

/** The in-process environment for an unmodified Admin SDK (key file, project variables, route). */
export class FirebaseEnvironment implements Disposable {
  readonly projectId: string;
  readonly keyFile: string | null;
  readonly route: GoogleRoute | null;
  readonly variables: Record<string, string>;
  constructor(emulator: Emulator, options: { project: string; route?: boolean; directory?: string });
  apply(): Promise<this>;
  restore(): void;
  [Symbol.dispose](): void;
}

export interface ChildEnvOptions {
  /** The project the SDK acts for (default the demo project). */
  project?: string;
  credentials?: 'key-file' | 'metadata';
  /** Where the key file and CA bundle go (default a temporary directory removed at stop()). */
  dir?: string;
  /** Add NODE_OPTIONS --import of this package's route (default true). */
  nodeRoute?: boolean;
  binary?: string;
}
/** `fcm-emu env --format json` for the emulator, plus NODE_OPTIONS for Node children. */
export function childEnv(emulator: Emulator, options?: ChildEnvOptions): Promise<Record<string, string>>;
/** `current` with the route's --import added. */
export function nodeOptionsWithRoute(current: string | undefined): string;
/** The file URL of the preload module (fcm-emu/register). */
export const REGISTER_URL: string;

// -- the emulator ---------------------------------------------------------------------------

export interface EmulatorOptions {
  /** The executable (default $FCM_EMU_BIN, then PATH). */
  binary?: string;
  /** Extra --set key=value settings, e.g. { clockPaused: true }. */
  settings?: Record<string, string | number | boolean>;
  /** Where keys and snapshots are kept (default none: in memory). */
  stateDir?: string | null;
  args?: string[];
  host?: string;
  logLevel?: string;
  /** ms (default 30000). */
  startupTimeout?: number;
  /** ms after SIGTERM before SIGKILL (default 10000). */
  stopTimeout?: number;
  env?: Record<string, string>;
  keepWorkdir?: boolean;
}

export class Emulator implements AsyncDisposable {
  constructor(options?: EmulatorOptions);
  static start(options?: EmulatorOptions): Promise<Emulator>;
  /** Attaches to a running emulator (default $FCM_EMU_CONTROL_API); stop() leaves it running. */
  static attach(url?: string, options?: { timeout?: number; token?: string | null }): Promise<Emulator>;
  /** attach() when $FCM_EMU_CONTROL_API is set, else start(options). */
  static startOrAttach(options?: EmulatorOptions): Promise<Emulator>;
  start(): Promise<this>;
  /** Undoes routes and environments made here, stops a started emulator; resolves to its exit code. */
  stop(): Promise<number | string | null | undefined>;
  [Symbol.asyncDispose](): Promise<void>;

  readonly options: Required<EmulatorOptions>;
  readonly ready: Record<string, any>;
  readonly attached: boolean;
  readonly running: boolean;
  readonly workdir: string | null;
  readonly logPath: string | null;
  readonly exitCode: number | string | null | undefined;
  readonly client: Client;
  readonly controlUrl: string;
  readonly httpUrl: string;
  readonly httpsUrl: string | null;
  readonly tlsPort: number | null;
  readonly proxyUrl: string | null;
  readonly caPath: string | null;
  readonly xmppPorts: number[];
  readonly demoProjectId: string;
  /** The emulator process's id (from its ready file). */
  readonly pid: number | null;
  commandArgs(readyFile: string): string[];
  logTail(lines?: number): string;
  project(id?: string): Project;
  /** A fresh project with a unique id. */
  createProject(options?: { id?: string; prefix?: string; number?: string }): Promise<Project>;
  caCertificate(): Promise<string>;
  googleRoute(): Promise<GoogleRoute>;
  /** Installs the route for this process; removed at stop(). */
  routeGoogle(): Promise<GoogleRoute>;
  /** Route plus credentials and project variables for `project`; restored at stop(). */
  useFirebase(options?: { project?: string | Project; route?: boolean }): Promise<FirebaseEnvironment>;
  /** The environment for a child process (see childEnv). */
  env(options?: ChildEnvOptions): Promise<Record<string, string>>;
}

/** A client of the HTTP ports (`GET /emulator/v1/connections`). */
export interface ClientConnection {
  address: string;
  userAgent: string;
  listener: 'http' | 'https';
  opened: number;
  open: number;
  requests: number;
  streamsOpened: number;
  streamsOpen: number;
}
