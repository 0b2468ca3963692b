/**
 * One-time codes at a steady rate while the campaign drains: `POST /v1/notifications`
 * (purpose otp, channel sms), request i due at t0 + i / rate (an open loop: a slow answer never
 * delays the next code). Each code goes to its own number, so its sandbox ledger entry is found
 * by destination, and its latency is that entry's `received_at` minus the moment the intake
 * request started (both this machine's wall clock, ms).
 */

/** OTP numbers: 212-2xx-xxxx upwards, disjoint from the campaign's 415-555-xxxx. */
export function otpPhone(i: number): string {
  return `+1212${2_000_000 + i}`;
}

export interface OtpRecord {
  phone: string;
  /** Wall clock (epoch ms) just before the request was written. */
  startedAt: number;
  /** When the answer arrived (epoch ms), or null if it has not. */
  answeredAt: number | null;
  status: number | null;
  error?: string;
}

export interface OtpTraffic {
  records: OtpRecord[];
  /** Stops scheduling; resolves once every request sent has been answered. */
  stop(): Promise<void>;
}

/** Starts sending `rate` codes per second until stopped; code numbers (and phones) start at `firstIndex`. */
export function startOtpTraffic(opts: { apiUrl: string; apiKey: string; rate: number; firstIndex?: number }): OtpTraffic {
  const records: OtpRecord[] = [];
  const inFlight = new Set<Promise<void>>();
  const t0 = Date.now();
  const intervalMs = 1000 / opts.rate;
  let next = 0;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;

  const first = opts.firstIndex ?? 0;
  const send = (n: number) => {
    const i = first + n;
    const rec: OtpRecord = { phone: otpPhone(i), startedAt: Date.now(), answeredAt: null, status: null };
    records.push(rec);
    const body = JSON.stringify({
      recipient: { id: `otp-${i}`, phone: rec.phone },
      purpose: 'otp',
      channels: ['sms'],
      content: { text: `Your code is ${String(100_000 + (i % 900_000))}` },
      ttl_seconds: 300,
    });
    const p = fetch(`${opts.apiUrl}/v1/notifications`, {
      method: 'POST',
      headers: { authorization: `Bearer ${opts.apiKey}`, 'content-type': 'application/json' },
      body,
    })
      .then(async (res) => {
        await res.arrayBuffer();
        rec.status = res.status;
        rec.answeredAt = Date.now();
      })
      .catch((err: Error) => {
        rec.error = err.message;
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  };

  const tick = () => {
    if (stopped) return;
    // Every code now due goes out (catching up after a late timer), then sleep until the next.
    while (t0 + next * intervalMs <= Date.now()) send(next++);
    timer = setTimeout(tick, Math.max(0, t0 + next * intervalMs - Date.now()));
  };
  tick();

  return {
    records,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await Promise.allSettled([...inFlight]);
    },
  };
}
