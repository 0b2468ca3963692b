/**
 * `npx tsx bench/phone-parse.ts [--rounds 7] [--n 20000]`: what reading a recipient's phone
 * number costs per SMS intake (issue 24), in µs of CPU per number, on the API process's event loop.
 *
 * Before issue 24 (main at 21d5866) an SMS notification's number was read by:
 *   - the body check (`recipientAddressError`): E.164 regex + `isValidPhoneNumber` with
 *     libphonenumber-js's default (min) metadata;
 *   - the SMS limits (`IntakeLimiter.checkSms`, whenever a country list or refused number types
 *     are configured, and `PREMIUM_RATE` is refused by default): a parse with the full (max)
 *     metadata, its country and `getType()`;
 *   - a single POST's commit, which ran the body check again to read its fallback plan.
 * That path is copied here as it was; the current one is the real `readPhoneNumber`, once, for
 * every path (single, batch item, campaign fan-out), whatever the limits.
 *
 * Numbers: libphonenumber's example mobile number of every region (245, the world's formats)
 * and, apart, the fixtures' kind of number (+1 415 555 xxxx). Each variant runs over the same
 * numbers `--rounds` times after a warm-up, the variants taking turns within each round; the best
 * round of each is printed. Printed, never asserted
 * (docs/benchmarks-history.md has a run).
 */
import { parseArgs } from 'node:util';
import { getCountries, getExampleNumber, isValidPhoneNumber } from 'libphonenumber-js';
import examples from 'libphonenumber-js/examples.mobile.json';
import { parsePhoneNumberFromString as parseMax } from 'libphonenumber-js/max';
import { readPhoneNumber } from '../src/intake/phone-number.js';

const { values: flags } = parseArgs({ options: { rounds: { type: 'string', default: '7' }, n: { type: 'string', default: '20000' } } });
const ROUNDS = Number(flags.rounds);
const N = Number(flags.n);

const E164 = /^\+[1-9]\d{6,14}$/;
/** The body check before issue 24 (notification-request.ts `recipientAddressError`). */
const bodyCheckBefore = (p: string) => E164.test(p) && isValidPhoneNumber(p);
/** The SMS limits' read before issue 24 (intake-limiter.ts `checkSms`). */
function smsLimitsBefore(p: string): [string, string | undefined] {
  const phone = parseMax(p);
  return [phone?.country ?? '001', phone?.getType()];
}

const world = getCountries().map((c) => getExampleNumber(c, examples)!.number);
const fixtures = Array.from({ length: 1000 }, (_, i) => `+1415555${String(i).padStart(4, '0')}`);

const VARIANTS: Array<[string, (p: string) => unknown]> = [
  ['before, single POST with SMS limits (check + limits + commit re-check)', (p) => [bodyCheckBefore(p), smsLimitsBefore(p), bodyCheckBefore(p)]],
  ['before, batch item or fan-out row with SMS limits (check + limits)', (p) => [bodyCheckBefore(p), smsLimitsBefore(p)]],
  ['before, single POST without SMS limits (check + commit re-check)', (p) => [bodyCheckBefore(p), bodyCheckBefore(p)]],
  ['after, every path: readPhoneNumber once', (p) => readPhoneNumber(p)],
];

let sink = 0;
/**
 * One timed pass of `f` over `list`: µs of this process's CPU (user + system) per number. CPU
 * time rather than wall time: on a shared machine a pass preempted by another job's process is
 * not charged for the time it waited.
 */
function pass(list: readonly string[], f: (p: string) => unknown): number {
  const t = process.cpuUsage();
  for (const p of list) if (f(p)) sink++;
  const used = process.cpuUsage(t);
  return (used.user + used.system) / list.length;
}

for (const [label, numbers] of [
  [`world (${world.length} regions' example mobiles)`, world],
  ['fixtures (+1415555xxxx)', fixtures],
] as const) {
  const list = Array.from({ length: N }, (_, i) => numbers[i % numbers.length]!);
  for (const [, f] of VARIANTS) pass(list, f); // warm-up
  // The variants take turns within each round (the machine's noise falls on all of them); the best round counts.
  const best = VARIANTS.map(() => Infinity);
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < VARIANTS.length; k++) {
      const v = (k + r) % VARIANTS.length;
      best[v] = Math.min(best[v]!, pass(list, VARIANTS[v]![1]));
    }
  }
  console.log(`\n${label}, ${N} numbers a round, best of ${ROUNDS}:`);
  const after = best[best.length - 1]!;
  VARIANTS.forEach(([name], v) => console.log(`  ${best[v]!.toFixed(2).padStart(6)} µs/number  ${(best[v]! / after).toFixed(2)}×  ${name}`));
}
console.log(`\n(node ${process.version}; libphonenumber-js ${(await import('libphonenumber-js/package.json')).default.version}; sink ${sink})`);
