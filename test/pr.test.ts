import { it } from 'vitest';
import { createHarness } from './helpers/harness.js';
it('x', async () => {
  const h = await createHarness({});
  for (const url of ['/v1/recipients/%/preferences', '/v1/recipients/%zz', '/v1/notifications/%', '/dashboard/%', '/%']) {
    const r = await h.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${h.apiKey}` } });
    console.log(url, r.statusCode, r.headers['content-type'], r.body);
  }
  await h.close();
});
