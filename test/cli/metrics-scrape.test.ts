/**
 * Scraping the real processes (issue 14, "Done when"): `herald start` and `herald api` on their
 * API port, `herald worker --metrics-port N` on its own, each returning exposition text that
 * the exposition check accepts (two parsers and promlint's rules; promtool too where it is
 * installed: observability/exposition-check.ts), with the state gauges and the
 * process series. The API process reports the store's truth; the worker its own calls (the
 * histograms). Runs the built dist/ (`npm run build`).
 */
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { findPromtool } from '../helpers/promtool.js';
import type { Family } from '../observability/exposition.js';
import { expectExpositionAccepted } from '../observability/exposition-check.js';
import {
  killChildren,
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
const promtool = findPromtool("a second opinion on every scrape (`promtool check metrics`; the npm parser and promlint's rules check them all the same)");

let sandbox: SandboxHandle | null = null;
afterEach(async () => {
  await killChildren();
  await sandbox?.close();
  sandbox = null;
  removeTempDirs();
});

/** Every family a scrape must name, state gauges and process series alike (with their TYPE). */
const EXPECTED: Record<string, 'gauge' | 'counter' | 'histogram'> = {
  herald_deliveries: 'gauge',
  herald_deliveries_unknown: 'gauge',
  herald_due_deliveries: 'gauge',
  herald_due_oldest_age_seconds: 'gauge',
  herald_accepted_without_progress: 'gauge',
  herald_deadline_misses_last_hour: 'gauge',
  herald_provider_failures_last_15m: 'gauge',
  herald_provider_retry_budget_degraded: 'gauge',
  herald_provider_throttle_pause_remaining_seconds: 'gauge',
  herald_devices: 'gauge',
  herald_device_away_seconds: 'gauge',
  herald_device_away_threshold_seconds: 'gauge',
  herald_campaign_deliveries: 'gauge',
  herald_review_queue_size: 'gauge',
  herald_api_attempts_total: 'counter',
  herald_definite_refusals_total: 'counter',
  herald_throttles_total: 'counter',
  herald_downstream_signals_total: 'counter',
  herald_callbacks_received_total: 'counter',
  herald_callbacks_duplicated_total: 'counter',
  herald_callbacks_refused_total: 'counter',
  herald_intake_to_acceptance_seconds: 'histogram',
  herald_provider_call_duration_seconds: 'histogram',
};

async function scrape(url: string): Promise<Map<string, Family>> {
  const r = await fetch(url);
  const text = await r.text();
  expect(r.status, text).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const families = expectExpositionAccepted(text, promtool);
  for (const [name, type] of Object.entries(EXPECTED)) expect(families.get(name)?.type, name).toBe(type);
  return families;
}

const sample = (f: Map<string, Family>, name: string, sampleName: string, labels: Record<string, string>) =>
  f.get(name)!.samples.find((s) => s.name === sampleName && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

describe('scraping the processes', () => {
  it('herald start serves the state gauges and the process series of its worker on the API port', async () => {
    const { banner } = await startHerald(['--port', '0', '--sandbox-port', '0', '--data-dir', join(tempDir(), 'data')]);
    const otp = otpRequest('metrics-start');
    const sent = await postNotification(banner.apiUrl, banner.key!, otp.body, 'metrics-start-1');
    expect(sent.status, JSON.stringify(sent.json)).toBe(202);
    await waitForDeliveryState(banner.apiUrl, banner.key!, sent.json.id, 'accepted');
    const m = await poll(async () => {
      const f = await scrape(`${banner.apiUrl}/metrics`);
      return sample(f, 'herald_intake_to_acceptance_seconds', 'herald_intake_to_acceptance_seconds_count', { channel: 'sms', purpose: 'otp' }) === 1
        ? f
        : undefined;
    }, 'the acceptance observed');
    expect(sample(m, 'herald_deliveries', 'herald_deliveries', { state: 'accepted' })).toBe(1);
    expect(
      sample(m, 'herald_provider_call_duration_seconds', 'herald_provider_call_duration_seconds_count', { channel: 'sms', provider_account: 'sandbox-sms' }),
    ).toBe(1);
    expect(sample(m, 'herald_due_deliveries', 'herald_due_deliveries', { provider_account: 'sandbox-sms', lane: 'auth', purpose: 'otp' })).toBe(0);
  });

  it('herald api on its port and herald worker --metrics-port on its own: the store truth in both, the calls in the worker', async () => {
    sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
    const sandboxPort = new URL(sandbox.url).port;
    const dataDir = join(tempDir(), 'data');
    const api = spawnHerald(['api', '--port', '0', '--sandbox-port', sandboxPort, '--data-dir', dataDir]);
    await api.waitFor(/^Stop with Ctrl-C/m);
    const apiUrl = /^\s*API:\s+(http\S+)/m.exec(api.stdout())![1]!;
    // herald api names the dashboard it serves, as herald start does (issue 23).
    expect(/^\s*Dashboard:\s+(http\S+)/m.exec(api.stdout())?.[1]).toBe(`${apiUrl}/dashboard/`);
    const key = /^\s+(hld_sk_[0-9A-Za-z]+)\s*$/m.exec(api.stdout())![1]!;
    const metricsPort = await freePort();
    const worker = spawnHerald(['worker', '--sandbox-port', sandboxPort, '--data-dir', dataDir, '--metrics-port', String(metricsPort)]);
    await worker.waitFor(/^Stop with Ctrl-C/m);

    // Transactional, not a code: `herald api` sends codes itself when it can (worker.otp_fast_path),
    // and this test is about the calls a worker makes showing in the worker's series only.
    const sent = await postNotification(apiUrl, key, { ...otpRequest('metrics-split').body, purpose: 'transactional' }, 'metrics-split-1');
    expect(sent.status, JSON.stringify(sent.json)).toBe(202);
    await waitForDeliveryState(apiUrl, key, sent.json.id, 'accepted');

    const fromWorker = await poll(async () => {
      const f = await scrape(`http://127.0.0.1:${metricsPort}/metrics`);
      return sample(f, 'herald_deliveries', 'herald_deliveries', { state: 'accepted' }) === 1 ? f : undefined;
    }, 'the worker reporting the acceptance');
    expect(sample(fromWorker, 'herald_api_attempts_total', 'herald_api_attempts_total', { channel: 'sms', purpose: 'transactional' })).toBe(1);
    expect(
      sample(fromWorker, 'herald_intake_to_acceptance_seconds', 'herald_intake_to_acceptance_seconds_count', { channel: 'sms', purpose: 'transactional' }),
    ).toBe(1);

    // The API process made no call: same store truth, none of the worker's events.
    const fromApi = await poll(async () => {
      const f = await scrape(`${apiUrl}/metrics`);
      return sample(f, 'herald_deliveries', 'herald_deliveries', { state: 'accepted' }) === 1 ? f : undefined;
    }, 'the API reporting the acceptance');
    expect(fromApi.get('herald_api_attempts_total')!.samples).toEqual([]);
    expect(
      sample(fromApi, 'herald_intake_to_acceptance_seconds', 'herald_intake_to_acceptance_seconds_count', { channel: 'sms', purpose: 'transactional' }),
    ).toBeUndefined();
  });
});
