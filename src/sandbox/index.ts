/** The sandbox provider's public surface: start it, read its ledger, steer its faults. */
export { startSandbox, type SandboxHandle, type SandboxOptions } from './server.js';
export { Ledger, type LedgerEntry, type LedgerFilter } from './ledger.js';
export {
  FAULT_MODES,
  FaultController,
  FaultSpecError,
  parseFaultSpec,
  type FaultMode,
  type FaultSpec,
} from './faults.js';
export {
  MAGIC_REJECT_EMAIL_DOMAIN,
  MAGIC_REJECT_PHONE,
  MAGIC_REJECT_PUSH_TOKEN_PREFIX,
} from './send-requests.js';
