/**
 * What Herald's PostgreSQL sessions are doing, sampled every 100 ms from pg_stat_activity
 * (the run's processes connect with PGAPPNAME set, so other sessions on a shared server are
 * left out): how many are running, how many wait for a lock, and how many of those wait on the
 * rate limiter's row lock, which every claim of an account takes in turn (limiter_lock, held
 * until the claim commits). Averages over the samples are mean queue lengths.
 */
import pg from 'pg';

export interface WaitSample {
  samples: number;
  /** Mean sessions with a statement in progress (running or waiting). */
  active: number;
  /** Mean sessions waiting for a heavyweight lock, and of those on the limiter's rows. */
  lockWaits: number;
  limiterWaits: number;
  /** Mean sessions per wait event (type:event; `cpu` = running, no wait), most frequent first. */
  events: Array<[string, number]>;
  /** Mean sessions running (not waiting) per statement (its first words), most frequent first: where PostgreSQL's CPU goes. */
  running: Array<[string, number]>;
}

export interface WaitSampler {
  stop(): Promise<WaitSample>;
}

/** Samples until stopped; one extra connection, one small query per 100 ms. */
export async function startWaitSampler(url: string, applicationName: string): Promise<WaitSampler> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  let running = true;
  let samples = 0;
  let active = 0;
  let lockWaits = 0;
  let limiterWaits = 0;
  const events = new Map<string, number>();
  const onCpu = new Map<string, number>();
  const loop = (async () => {
    while (running) {
      const r = await c
        .query(
          `SELECT coalesce(wait_event_type || ':' || wait_event, 'cpu') AS ev,
                  wait_event_type = 'Lock' AS lock, query LIKE '%FROM rate_limiters%FOR UPDATE%' AS limiter,
                  left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 70) AS stmt
           FROM pg_stat_activity WHERE application_name = $1 AND state = 'active'`,
          [applicationName],
        )
        .catch(() => null);
      if (r) {
        samples++;
        active += r.rows.length;
        for (const row of r.rows as Array<{ ev: string; lock: boolean; limiter: boolean; stmt: string }>) {
          events.set(row.ev, (events.get(row.ev) ?? 0) + 1);
          if (row.ev === 'cpu') onCpu.set(row.stmt, (onCpu.get(row.stmt) ?? 0) + 1);
          if (row.lock) {
            lockWaits++;
            if (row.limiter) limiterWaits++;
          }
        }
      }
      await new Promise((res) => setTimeout(res, 100));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await c.end().catch(() => {});
      const n = Math.max(1, samples);
      return {
        samples,
        active: active / n,
        lockWaits: lockWaits / n,
        limiterWaits: limiterWaits / n,
        events: [...events].map(([k, v]): [string, number] => [k, v / n]).sort((a, b) => b[1] - a[1]),
        running: [...onCpu].map(([k, v]): [string, number] => [k, v / n]).sort((a, b) => b[1] - a[1]),
      };
    },
  };
}
