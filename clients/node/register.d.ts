// SPDX-License-Identifier: Apache-2.0
import type { GoogleRoute } from './index.js';
/** The route installed from FCM_EMU_HTTPS_URL / FCM_EMU_CA / FCM_EMU_XMPP_PORT, or null. */
export let route: GoogleRoute | null;
