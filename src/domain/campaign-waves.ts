/**
 * Campaign waves: a campaign whose purpose has quiet hours is planned per time zone. Each zone's
 * recipients form a wave that may go from when the zone's window ends (now, if it is not quiet
 * there) until it begins again; the waves share the lane's rate, so they drain one after another
 * in the order they may start. The plan says, per zone, how many recipients, when the wave can
 * go, when it is projected to finish, and whether that is before the window closes and before the
 * deadline (docs/scheduling.md "Campaigns in waves"). Best case like `planCampaign`: every permit
 * of the lane used, no retries. Field names are snake_case and times epoch ms, as the API shows them.
 */
import { nextQuietStart, quietUntil, type QuietWindow } from './quiet-hours.js';

export interface WavePlanInput {
  now: number;
  /** When sending may start; a start in the past means now. */
  startAt?: number;
  deadlineAt: number;
  /** Msg/s the campaign's lane gives (planCampaign's `available_rate`). */
  rate: number;
  /** The purpose's quiet hours; null plans one wave per zone that may go at once. */
  window: QuietWindow | null;
  /** Recipients per IANA zone (recipients with no zone of their own counted under the tenant's). */
  zones: { time_zone: string; recipients: number }[];
}

export interface Wave {
  time_zone: string;
  recipients: number;
  /** When the zone's window ends (or the start, when it is not quiet there then): the fan-out's `send_at` for these recipients. */
  send_from: number;
  projected_start: number;
  projected_finish: number;
  /** When the window begins again after `send_from`; null for a purpose without quiet hours. */
  window_closes_at: number | null;
  /** The wave is projected to finish before its window closes (the rest would wait for the next morning). */
  fits_window: boolean;
  meets_deadline: boolean;
}

export interface WavePlan {
  waves: Wave[];
  /** When the last wave is projected to finish. */
  projected_finish_at: number;
  feasible: boolean;
  /** `deadline_missed`: a wave finishes after the deadline at this rate; `window_missed`: one runs into its zone's next quiet hours. */
  warnings: ('deadline_missed' | 'window_missed')[];
}

/** Whole ms to send `n` at `rate` msg/s (rate > 0). */
function drainMs(n: number, rate: number): number {
  return Math.ceil((n * 1000) / rate);
}

/** Plans a campaign's waves: when each zone's recipients may go, and whether the lane's rate gets them out inside their windows and by the deadline. */
export function planWaves(input: WavePlanInput): WavePlan {
  if (!(input.rate > 0) || !Number.isFinite(input.rate)) throw new RangeError(`rate must be > 0 msg/s, got ${input.rate}`);
  const start = Math.max(input.now, input.startAt ?? input.now);
  const waves = input.zones
    .filter((z) => z.recipients > 0)
    .map((z) => {
      const sendFrom = input.window === null ? start : (quietUntil(start, z.time_zone, input.window) ?? start);
      const closes = input.window === null ? null : nextQuietStart(sendFrom, z.time_zone, input.window);
      return { time_zone: z.time_zone, recipients: z.recipients, send_from: sendFrom, window_closes_at: closes };
    })
    .sort((a, b) => a.send_from - b.send_from || a.time_zone.localeCompare(b.time_zone));
  let cursor = start;
  const planned: Wave[] = waves.map((w) => {
    const projectedStart = Math.max(cursor, w.send_from);
    const projectedFinish = projectedStart + drainMs(w.recipients, input.rate);
    cursor = projectedFinish;
    return {
      ...w,
      projected_start: projectedStart,
      projected_finish: projectedFinish,
      fits_window: w.window_closes_at === null || projectedFinish <= w.window_closes_at,
      meets_deadline: projectedFinish <= input.deadlineAt,
    };
  });
  const warnings: WavePlan['warnings'] = [];
  if (planned.some((w) => !w.meets_deadline)) warnings.push('deadline_missed');
  if (planned.some((w) => !w.fits_window)) warnings.push('window_missed');
  return { waves: planned, projected_finish_at: cursor, feasible: warnings.length === 0, warnings };
}
