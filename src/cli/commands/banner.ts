/** What `herald start` and `herald api` print: where everything is, how to get a key, and a curl to try. */
import { join } from 'node:path';
import type { HeraldConfig } from '../../config/config.js';
import { describeDatabase, type Role } from '../../runtime/node.js';
import type { BootstrapResult } from '../bootstrap-key.js';

export interface BannerFacts {
  config: HeraldConfig;
  roles: Role[];
  apiUrl: string | null;
  sandboxUrl: string | null;
  bootstrap: BootstrapResult | null;
}

/** Prints the banner (bannerLines) to standard output. */
export function printBanner(b: BannerFacts): void {
  process.stdout.write(bannerLines(b).join('\n') + '\n');
}

/** The banner's lines: the API's and the dashboard's URLs first, as a newcomer looks for them. */
export function bannerLines(b: BannerFacts): string[] {
  const lines: string[] = [];
  const out = (s = '') => lines.push(s);
  out(`Herald is running (${b.roles.join(' + ')}).`);
  if (b.apiUrl && b.config.dashboard.enabled) out(`  Dashboard:    ${b.apiUrl}/dashboard/   (sign in with an API key; ${b.apiUrl}/ leads there too)`);
  if (b.apiUrl) out(`  API:          ${b.apiUrl}   (OpenAPI: ${b.apiUrl}/openapi.json)`);
  if (b.sandboxUrl) out(`  Sandbox:      ${b.sandboxUrl}   (ledger: ${b.sandboxUrl}/ledger, faults: ${b.sandboxUrl}/faults)`);
  out(`  Data dir:     ${b.config.data_dir}`);
  out(`  Database:     ${describeDatabase(b.config)}`);
  out(`  Accounts:     ${b.config.provider_accounts.map((a) => `${a.id} (${a.channel})`).join(', ') || 'none'}`);
  let keyExpr = '$HERALD_API_KEY';
  const keyFile = join(b.config.data_dir, 'bootstrap-key');
  switch (b.bootstrap?.kind) {
    case 'created':
      out();
      out(`  Your API key (shown once; also saved to ${b.bootstrap.file}, mode 0600):`);
      out(`    ${b.bootstrap.key}`);
      keyExpr = `$(cat ${keyFile})`;
      break;
    case 'existing':
      out();
      out(
        b.bootstrap.file
          ? `  API key: the first one is in ${b.bootstrap.file}; make more with \`herald keys create --data-dir ${b.config.data_dir}\`.`
          : `  API key: make one with \`herald keys create --data-dir ${b.config.data_dir}\`.`,
      );
      if (b.bootstrap.file) keyExpr = `$(cat ${keyFile})`;
      break;
    case 'from_env':
      out();
      out('  API key: the one in HERALD_BOOTSTRAP_KEY.');
      keyExpr = '$HERALD_BOOTSTRAP_KEY';
      break;
  }
  if (b.apiUrl && b.config.provider_accounts.some((a) => a.channel === 'sms')) {
    out();
    out('  Send a test one-time code:');
    out(`    curl -sS -X POST ${b.apiUrl}/v1/notifications \\`);
    out(`      -H "Authorization: Bearer ${keyExpr}" -H 'Content-Type: application/json' \\`);
    out(`      -H 'Idempotency-Key: "try-1"' \\`);
    out(
      `      -d '{"recipient":{"id":"user-1","phone":"+14155550123"},"purpose":"otp","channels":["sms"],"content":{"text":"Your code is 123456"},"ttl_seconds":300}'`,
    );
    out('  Then follow it: curl -sS -H "Authorization: Bearer ..." ' + `${b.apiUrl}/v1/notifications/<id>`);
  }
  out();
  out('Stop with Ctrl-C: in-flight calls finish and are recorded first.');
  return lines;
}
