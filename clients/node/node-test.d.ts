// SPDX-License-Identifier: Apache-2.0
import type { Client, Emulator, EmulatorOptions, FirebaseEnvironment, Project } from './index.js';

export interface UseEmulatorOptions extends EmulatorOptions {
  /** An existing project id instead of a fresh one; "demo" for the demo project. */
  project?: string;
  /** Apply emulator.useFirebase() for the project (default true). */
  firebase?: boolean;
}
export interface EmulatorFixture {
  readonly emulator: Emulator;
  readonly client: Client;
  readonly project: Project;
  readonly firebase: FirebaseEnvironment | null;
}
/** Registers node:test before/after hooks that start (or attach to) an emulator for the suite. */
export function useEmulator(options?: UseEmulatorOptions): EmulatorFixture;
