// SPDX-License-Identifier: Apache-2.0
/**
 * A `node:test` fixture: one emulator for the file (or the `describe` it is called in), a fresh
 * project, and an unmodified firebase-admin in the test process pointed at it.
 *
 * ```js
 * import { test } from 'node:test';
 * import { useEmulator } from 'fcm-emu/node-test';
 * import { waitForDelivery } from 'fcm-emu';
 *
 * const fcm = useEmulator();
 * test('a goal reaches the phone', async () => {
 *   const phone = await fcm.project.createDevice('android');
 *   await notifyGoal(phone.token);              // the code under test, unchanged
 *   await waitForDelivery(phone, { where: { 'payload.data.score': '3-0' } });
 * });
 * ```
 * @module fcm-emu/node-test
 */

import { after, before } from 'node:test';
import { Emulator } from './emulator.js';
import { describeUnused, faultRuleIds, unusedFaultRules } from './why.js';

/**
 * Registers `before` and `after` hooks in the current suite: `before` starts an emulator (or
 * attaches to `$FCM_EMU_CONTROL_API`), creates a fresh project and applies
 * {@link Emulator#useFirebase} for it; `after` restores the environment, removes the route and
 * stops the emulator (an attached one keeps running; its project is deleted).
 *
 * Before that, `after` warns (`process.emitWarning`, type `FcmEmuWarning`, code `FCM_EMU_UNUSED_FAULT_RULE`: on stderr, or to
 * a `process.on('warning')` listener) about each fault rule that the suite added, or that names its
 * project, and that never fired; the suite does not fail for it.
 *
 * @param {ConstructorParameters<typeof Emulator>[0] & {project?: string, firebase?: boolean}} [options]
 *   `project`: an existing project id to use instead of a fresh one ("demo" for the demo project);
 *   `firebase`: apply useFirebase (default true); the rest goes to {@link Emulator.start}
 * @returns {{readonly emulator: Emulator, readonly client: import('./client.js').Client,
 *   readonly project: import('./client.js').Project,
 *   readonly firebase: import('./env.js').FirebaseEnvironment|null}} filled in once `before` ran
 */
export function useEmulator({ project, firebase = true, ...startOptions } = {}) {
  const state = { emulator: null, project: null, firebase: null, created: false, rules: null };
  const need = (name) => {
    if (!state[name]) throw new Error(`fcm-emu: ${name} is set in the before() hook of useEmulator(); use it inside a test or a later hook`);
    return state[name];
  };
  before(async () => {
    state.emulator = await Emulator.startOrAttach(startOptions);
    if (project === 'demo') {
      state.project = state.emulator.project();
    } else if (project) {
      state.project = state.emulator.project(project);
    } else {
      state.project = await state.emulator.createProject();
      state.created = true;
    }
    if (firebase) state.firebase = await state.emulator.useFirebase({ project: state.project });
    state.rules = await faultRuleIds(state.emulator.client);
  });
  after(async () => {
    if (!state.emulator) return;
    for (const rule of await unusedFaultRules(state.emulator.client, state.project.id, state.rules)) {
      process.emitWarning(describeUnused(rule, `in the suite of project ${state.project.id}`), { type: 'FcmEmuWarning', code: 'FCM_EMU_UNUSED_FAULT_RULE' });
    }
    if (state.created && state.emulator.attached) await state.project.delete().catch(() => {});
    await state.emulator.stop();
  });
  return {
    get emulator() { return need('emulator'); },
    get client() { return need('emulator').client; },
    get project() { return need('project'); },
    get firebase() { return state.firebase; },
  };
}
