// SPDX-License-Identifier: Apache-2.0
/**
 * Preloaded by child Node processes (`NODE_OPTIONS=--import=…/register.js`, as
 * `Emulator#env()` sets it): installs the {@link GoogleRoute} from the environment `fcm-emu env`
 * and `fcm-emu exec` set (`FCM_EMU_HTTPS_URL`, `FCM_EMU_CA`, `FCM_EMU_XMPP_PORT`), so that
 * `https`, `http2.connect` and `fetch` reach the emulator on Node 20, which takes no proxy.
 * Does nothing when those are missing, or when `FCM_EMU_NODE_ROUTE=0`.
 * @module fcm-emu/register
 */

import fs from 'node:fs';
import { GoogleRoute } from './route.js';

/** The route this process installed, if any. */
export let route = null;

const httpsUrl = process.env.FCM_EMU_HTTPS_URL;
const caPath = process.env.FCM_EMU_CA;
if (httpsUrl && caPath && process.env.FCM_EMU_NODE_ROUTE !== '0') {
  try {
    const url = new URL(httpsUrl);
    const xmpp = Number(process.env.FCM_EMU_XMPP_PORT);
    route = new GoogleRoute({
      tlsPort: Number(url.port),
      host: url.hostname.replace(/^\[|\]$/g, ''),
      ca: fs.readFileSync(caPath, 'utf8'),
      xmppPorts: Number.isInteger(xmpp) && xmpp > 0 ? [xmpp] : [],
    }).install();
  } catch (error) {
    process.emitWarning(`fcm-emu: no route to the emulator: ${error.message}`, 'FcmEmuWarning');
  }
}
