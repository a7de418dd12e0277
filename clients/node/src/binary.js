// SPDX-License-Identifier: Apache-2.0
/**
 * Finding the fcm-emu executable: an explicit path, then `$FCM_EMU_BIN`, then `fcm-emu` on `PATH`.
 * @module fcm-emu/binary
 */

import fs from 'node:fs';
import path from 'node:path';
import { BinaryNotFoundError } from './errors.js';

/** The variable naming the binary. */
export const BIN_ENV = 'FCM_EMU_BIN';

function executable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The fcm-emu executable to run.
 * @param {string} [explicit] a path that wins over everything else
 * @returns {string}
 * @throws {BinaryNotFoundError}
 */
export function findBinary(explicit) {
  if (explicit) {
    if (!executable(explicit)) throw new BinaryNotFoundError(`fcm-emu binary ${explicit} does not exist or is not executable`);
    return explicit;
  }
  const fromEnv = process.env[BIN_ENV];
  if (fromEnv) {
    if (!executable(fromEnv)) throw new BinaryNotFoundError(`${BIN_ENV}=${fromEnv} does not name an executable file`);
    return fromEnv;
  }
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, 'fcm-emu');
    if (executable(candidate)) return candidate;
  }
  throw new BinaryNotFoundError(
    'no fcm-emu binary: set FCM_EMU_BIN to the path of one (e.g. .build/debug/fcm-emu after `swift build`), ' +
    'or put fcm-emu on PATH');
}
