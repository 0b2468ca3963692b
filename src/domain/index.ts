/** The pure rules of Herald: import from here, never from a sibling file outside src/domain. */
export * from './vocabulary.js';
export * from './outcome.js';
export * from './transitions.js';
export * from './retry-policy.js';
export * from './ladders.js';
export * from './decide.js';
export * from './identity.js';
export * from './downstream.js';
export * from './fallback.js';
export * from './retry-budget.js';
export * from './rate-limit.js';
export * from './lease.js';
export * from './lanes.js';
export * from './campaign-plan.js';
export * from './preferences.js';
export * from './message.js';
export * from './callback-event.js';
