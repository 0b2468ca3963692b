/** The sandbox provider's public surface: start it (its handle carries the ledger and the fault, behaviour, callback and quota controllers), and what a caller reads or refuses of its settings. */
export { startSandbox, type SandboxHandle } from './server.js';
export type { NewLedgerEntry } from './ledger.js';
export { FaultSpecError, type ThrottleHeaderSet } from './faults.js';
export { BehaviourSpecError, defaultBehaviour, type SandboxBehaviour } from './behaviour.js';
export { CallbackSpecError, callbackEventBody } from './callback-dispatcher.js';
export { QuotaSpecError } from './quota.js';
