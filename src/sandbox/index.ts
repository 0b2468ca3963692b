/** The sandbox provider's public surface: start it, read its ledger, steer its faults and behaviour. */
export { startSandbox, type SandboxHandle, type SandboxOptions } from './server.js';
export { Ledger, type LedgerEntry, type LedgerFilter, type NewLedgerEntry, type SecondCount } from './ledger.js';
export {
  FAULT_MODES,
  FaultController,
  FaultSpecError,
  parseFaultSpec,
  THROTTLE_HEADER_SETS,
  type FaultMode,
  type FaultSpec,
  type ThrottleHeaderSet,
} from './faults.js';
export { BehaviourController, BehaviourSpecError, defaultBehaviour, type BehaviourPatch, type SandboxBehaviour } from './behaviour.js';
export {
  CallbackDispatcher,
  CallbackSpecError,
  callbackEventBody,
  type CallbackCounters,
  type CallbackEventFields,
  type CallbackRegistration,
} from './callback-dispatcher.js';
export type { CallbackStatus } from './callback-plan.js';
export { QuotaController, QuotaSpecError, type QuotaSetting } from './quota.js';
export { DEDUPE_WINDOW_MS } from './acceptance-memory.js';
export { MAGIC_REJECT_EMAIL_DOMAIN, MAGIC_REJECT_PHONE, MAGIC_REJECT_PUSH_TOKEN_PREFIX } from './send-requests.js';
