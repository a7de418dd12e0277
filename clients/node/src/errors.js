// SPDX-License-Identifier: Apache-2.0
/**
 * Errors thrown by the fcm-emu client and launcher.
 * @module fcm-emu/errors
 */

/**
 * A control API call failed. Carries the emulator's own error JSON
 * (`{"error": {"code", "message", "status", "field"}}`).
 */
export class FcmEmuError extends Error {
  /**
   * @param {string} message what went wrong (the API's `error.message` when it gave one)
   * @param {object} [details]
   * @param {number|null} [details.status] HTTP status; null when no answer came
   * @param {number|null} [details.code] the error JSON's `code`
   * @param {string|null} [details.reason] the error JSON's `status`, e.g. "NOT_FOUND"
   * @param {string|null} [details.field] the offending request field, when named
   * @param {string} [details.text] the raw answer body
   * @param {string} [details.method]
   * @param {string} [details.url]
   * @param {unknown} [details.cause]
   */
  constructor(message, details = {}) {
    const { status = null, code = null, reason = null, field = null, text = '', method = '', url = '', cause } = details;
    const where = `${method} ${url}`.trim();
    const head = status === null ? 'no answer' : reason ? `${status} ${reason}` : String(status);
    let full = where ? `${where}: ${head}: ${message}` : `${head}: ${message}`;
    if (field) full += ` (field '${field}')`;
    super(full, cause === undefined ? undefined : { cause });
    this.name = 'FcmEmuError';
    /** The API's message (or a description), without the request in front. */
    this.apiMessage = message;
    this.status = status;
    this.code = code;
    this.reason = reason;
    this.field = field;
    this.text = text;
    this.method = method;
    this.url = url;
  }

  /**
   * Builds the error from an error answer, reading the emulator's `{"error": {...}}`.
   * @param {number} status
   * @param {string} text
   * @param {{method: string, url: string}} request
   * @returns {FcmEmuError}
   */
  static fromResponse(status, text, { method, url }) {
    let error;
    try {
      error = JSON.parse(text)?.error;
    } catch {
      error = undefined;
    }
    if (error && typeof error === 'object') {
      return new FcmEmuError(String(error.message || '') || text.trim() || `HTTP ${status}`, {
        status,
        code: Number.isInteger(error.code) ? error.code : null,
        reason: typeof error.status === 'string' ? error.status : null,
        field: typeof error.field === 'string' ? error.field : null,
        text, method, url,
      });
    }
    return new FcmEmuError(text.trim().slice(0, 500) || `HTTP ${status}`, { status, text, method, url });
  }
}

/** The emulator process exited, or wrote no ready file in time; `logTail` usually says why. */
export class EmulatorNotReadyError extends Error {
  /**
   * @param {string} message
   * @param {{logPath?: string|null, logTail?: string}} [details]
   */
  constructor(message, { logPath = null, logTail = '' } = {}) {
    let text = message;
    if (logPath) text += `\nlog: ${logPath}`;
    if (logTail) text += `\n--- last lines of the log ---\n${logTail}`;
    super(text);
    this.name = 'EmulatorNotReadyError';
    this.logPath = logPath;
    this.logTail = logTail;
  }
}

/** No fcm-emu binary was found (explicit path, `FCM_EMU_BIN`, `PATH`). */
export class BinaryNotFoundError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'BinaryNotFoundError';
    this.code = 'ENOENT';
  }
}
