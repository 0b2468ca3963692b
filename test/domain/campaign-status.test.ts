/**
 * A campaign's statuses exist in three views that must agree: the transition table in
 * src/domain/campaign-status.ts, the States table of docs/campaigns.md, and the CHECK on
 * campaigns.status in both drivers' migrations.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CAMPAIGN_ACTIONS, CAMPAIGN_STATUSES, CAMPAIGN_TRANSITIONS } from '../../src/domain/campaign-status.js';

const doc = readFileSync(new URL('../../docs/campaigns.md', import.meta.url), 'utf8');

/** `status → [action, to]` pairs from the States table's `next` column (e.g. "`pause` → paused; complete → completed"). */
function documentedTransitions(): Map<string, Array<[string, string]>> {
  const section = doc.slice(doc.indexOf('## States'), doc.indexOf('\n## ', doc.indexOf('## States') + 1));
  const out = new Map<string, Array<[string, string]>>();
  for (const line of section.split('\n')) {
    const m = /^\| `([a-z]+)` \|[^|]*\| (.*) \|$/.exec(line);
    if (!m) continue;
    const next = m[2]!.trim() === '—' ? [] : m[2]!.split(';').map((p) => /`?([a-z]+)`? → ([a-z]+)/.exec(p.trim())!.slice(1, 3) as [string, string]);
    out.set(m[1]!, next);
  }
  return out;
}

describe('campaign statuses', () => {
  it('docs/campaigns.md lists every status with exactly the transitions of CAMPAIGN_TRANSITIONS', () => {
    const documented = documentedTransitions();
    expect([...documented.keys()].sort()).toEqual([...CAMPAIGN_STATUSES].sort());
    for (const status of CAMPAIGN_STATUSES) {
      const expected = CAMPAIGN_ACTIONS.filter((a) => CAMPAIGN_TRANSITIONS[a].from.includes(status)).map((a) => [a, CAMPAIGN_TRANSITIONS[a].to]);
      expect(documented.get(status)!.sort(), status).toEqual(expected.sort());
    }
  });

  it.each(['sqlite', 'postgres'])('the %s schema allows exactly these statuses', (driver) => {
    const sql = readFileSync(new URL(`../../src/store/${driver}/migrations/0005_campaigns.sql`, import.meta.url), 'utf8');
    const check = /status\s+TEXT NOT NULL CHECK \(status IN \(([^)]*)\)\)/.exec(sql.slice(sql.indexOf('CREATE TABLE campaigns')));
    expect(
      check![1]!
        .split(',')
        .map((s) => s.trim().replace(/'/g, ''))
        .sort(),
    ).toEqual([...CAMPAIGN_STATUSES].sort());
  });
});
