// SPDX-License-Identifier: Apache-2.0
/**
 * fcm-emu for Node: start or attach to a local Firebase Cloud Messaging emulator, drive it through
 * its control API, route an unmodified firebase-admin to it, and wait for deliveries.
 *
 * ```js
 * import { Emulator, waitForDelivery } from 'fcm-emu';
 * const emulator = await Emulator.start();
 * const project = await emulator.createProject();
 * await emulator.useFirebase({ project });      // the code under test needs no endpoint
 * const phone = await project.createDevice('android');
 * // … the code under test sends to phone.token with firebase-admin …
 * await waitForDelivery(phone, { where: { 'payload.data.score': '3-0' } });
 * await emulator.stop();
 * ```
 * @module fcm-emu
 */

export { Emulator, DEFAULT_SETTINGS } from './emulator.js';
export { Client, Project, Device, CONTROL_API_ENV, CONTROL_TOKEN_ENV, DEFAULT_TIMEOUT } from './client.js';
export { waitForDelivery, waitForDeliveries, assertNothingDelivered, matches } from './assertions.js';
export { GoogleRoute, GOOGLE_HTTPS_HOSTS, CCS_HOSTS, CCS_PORTS } from './route.js';
export { FirebaseEnvironment, childEnv, nodeOptionsWithRoute, REGISTER_URL } from './env.js';
export { findBinary, BIN_ENV } from './binary.js';
export { FcmEmuError, EmulatorNotReadyError, BinaryNotFoundError } from './errors.js';
export { toMillis } from './duration.js';
