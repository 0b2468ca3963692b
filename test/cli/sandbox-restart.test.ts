/**
 * Herald restarts while a separately run `herald sandbox` keeps its ledger: a restart neither
 * loses a notification nor sends one twice, and an `unknown` delivery (response lost after the
 * provider accepted) is not resent by the next process. Runs the built dist/ (`npm run build`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import {
  expectCleanStop,
  getNotification,
  killChildren,
  ledger,
  otpRequest,
  poll,
  postNotification,
  removeTempDirs,
  requireBuild,
  spawnHerald,
  startHerald,
  tempDir,
  waitForDeliveryState,
} from './spawn.js';

requireBuild();

afterEach(async () => {
  await killChildren();
  removeTempDirs();
});

it('keeps one ledger entry per delivery across Herald restarts, including an unknown one', async () => {
  const sandbox = spawnHerald(['sandbox', '--port', '0']);
  const sandboxUrl = (await sandbox.waitFor(/listening on (http:\/\/\S+)/))[1]!;

  const dir = tempDir();
  const dataDir = join(dir, 'data');
  const configFile = join(dir, 'cfg.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      sandbox: { enabled: false },
      provider_accounts: (['email', 'sms', 'push'] as const).map((channel) => ({
        id: `ext-${channel}`,
        kind: 'sandbox',
        channel,
        base_url: sandboxUrl,
        timeout_ms: 2_000,
        // No look-up: the reconciler would settle the unknown as accepted by asking the sandbox
        // (test/delivery/reconciler.test.ts); here it must stay unknown and never be resent.
        capabilities: { lookup: false },
      })),
    }),
  );
  const args = ['--config', configFile, '--port', '0', '--data-dir', dataDir];

  // First process: one OTP, accepted.
  const first = await startHerald(args);
  expect(first.banner.sandboxUrl).toBeNull(); // the embedded sandbox is off
  expect(first.child.stdout()).toContain('ext-email (email), ext-sms (sms), ext-push (push)');
  const key = first.banner.key!;
  const one = await postNotification(first.banner.apiUrl, key, otpRequest('user-1').body, 'restart-1');
  expect(one.status).toBe(202);
  const d1 = await waitForDeliveryState(first.banner.apiUrl, key, one.json.id, 'accepted');
  await expectCleanStop(first.child);

  // Second process on the same data dir: the first notification is still there; a second one is sent.
  const second = await startHerald(args);
  expect(second.banner.key).toBeNull();
  const two = await postNotification(second.banner.apiUrl, key, otpRequest('user-2').body, 'restart-2');
  expect(two.status).toBe(202);
  const d2 = await waitForDeliveryState(second.banner.apiUrl, key, two.json.id, 'accepted');
  expect(d2.idempotency_key).not.toBe(d1.idempotency_key);

  const entries = await ledger(sandboxUrl);
  expect(entries).toHaveLength(2);
  expect(entries.map((e) => e.idempotency_key).sort()).toEqual([d1.idempotency_key, d2.idempotency_key].sort());
  const reread = await getNotification(second.banner.apiUrl, key, one.json.id);
  expect(reread.status).toBe(200);
  expect(reread.json.deliveries[0]).toMatchObject({ id: d1.id, state: 'accepted', idempotency_key: d1.idempotency_key });

  // The sandbox accepts the third send and drops the connection: Herald cannot know, so `unknown`.
  const fault = await fetch(`${sandboxUrl}/faults`, { method: 'POST', body: JSON.stringify({ mode: 'lose_response_after_accept', count: 1 }) });
  expect(fault.status).toBe(200);
  const three = await postNotification(second.banner.apiUrl, key, otpRequest('user-3').body, 'restart-3');
  expect(three.status).toBe(202);
  const d3 = await waitForDeliveryState(second.banner.apiUrl, key, three.json.id, 'unknown');
  expect((await ledger(sandboxUrl, d3.idempotency_key)).length).toBe(1);
  await expectCleanStop(second.child);

  // A third process must not resend it: watch the ledger for a few seconds while it runs.
  const third = await startHerald(args);
  const watchedUntil = Date.now() + 3_000;
  let polls = 0;
  await expect(
    poll(
      async () => {
        polls += 1;
        const forKey = await ledger(sandboxUrl, d3.idempotency_key);
        if (forKey.length !== 1) throw new Error(`ledger holds ${forKey.length} entries for the unknown delivery's key`);
        return Date.now() >= watchedUntil ? forKey : undefined;
      },
      'the watch window to pass',
      10_000,
      250,
    ),
  ).resolves.toHaveLength(1);
  expect(polls).toBeGreaterThan(3);
  expect(await ledger(sandboxUrl)).toHaveLength(3);
  const after = await getNotification(third.banner.apiUrl, key, three.json.id);
  expect(after.json.deliveries[0].state).toBe('unknown');
  expect(third.child.stdout() + third.child.stderr()).not.toMatch(/"level":50/); // no errors logged

  await expectCleanStop(third.child);
  sandbox.signal('SIGTERM');
  expect(await sandbox.exited(10_000)).toEqual({ code: 0, signal: null });
});
