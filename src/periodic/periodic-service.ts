/**
 * The one shape of a periodic service (sweeper, reconciler, evidence applier, webhook relay and
 * sender, campaign runner, alerter, ...): `start` its loop (a PeriodicRunner), `poke` it when
 * work arrives in this process, `stop` it, waiting for a pass in progress. runtime/node.ts keeps
 * a process's services in one list, starts them in order and stops them in reverse.
 */
export interface PeriodicService {
  start(): void;
  poke(): void;
  stop(): Promise<void>;
}
