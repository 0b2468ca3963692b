/** How the dashboard writes times, durations and counts. */

/** "14:03:07" today, else "29 Nov 14:03"; an em dash for none. */
export function time(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  const sameDay = d.toDateString() === new Date().toDateString();
  return sameDay
    ? d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false })
    : d.toLocaleString([], { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', hour12: false });
}

/** 42 s, 3 min, 2 h 5 min, 3 d. */
export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '—';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86_400)} d`;
}

/** Seconds from `iso` until now (positive in the past). */
export const ageSeconds = (iso: string | null | undefined): number | null => (iso ? (Date.now() - Date.parse(iso)) / 1000 : null);

export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** A datetime-local input's value (local time) as ISO, or '' for none. */
export function localToIso(v: string): string {
  if (v === '') return '';
  const t = new Date(v);
  return Number.isNaN(t.getTime()) ? '' : t.toISOString();
}

/** ISO as a datetime-local input's value. */
export function isoToLocal(v: string | null): string {
  if (!v) return '';
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) return '';
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** A rate in messages per second with three significant digits: 0.00556/s, 40/s, 1230/s. */
export function rate(perSecond: number | null | undefined): string {
  if (perSecond === null || perSecond === undefined || !Number.isFinite(perSecond)) return '—';
  return `${perSecond >= 100 ? Math.round(perSecond) : Number(perSecond.toPrecision(3))}/s`;
}
