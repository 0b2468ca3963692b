/**
 * A rendered template's push `data` reaches each push kind's request: FCM's data map, APNs'
 * custom keys beside `aps`, the Web Push payload's `data`; content without it builds as before.
 */
import { describe, expect, it } from 'vitest';
import type { MessageContent } from '../../src/domain/index.js';
import { buildApnsRequest } from '../../src/providers/apns/build-request.js';
import { buildFcmMessage } from '../../src/providers/fcm/build-message.js';
import { webPushPayload } from '../../src/providers/webpush/build-request.js';

const T = 1_800_000_000_000;
const templated: MessageContent = {
  subject: 'Hi',
  text: 'Ada',
  channels: { push: { subject: 'Hi', text: 'Ada', data: { url: 'https://app.example.com/a' } } },
};
const plain: MessageContent = { subject: 'Hi', text: 'Ada' };

describe('push data from a template', () => {
  it('FCM: in the data map, with a notification and for a data-only push', () => {
    const base = { token: 'tok', purpose: 'transactional' as const, collapseId: 'c1', expiresAt: T + 60_000, nowMs: T };
    expect(buildFcmMessage({ ...base, content: templated, dataOnly: false }).message).toMatchObject({
      notification: { title: 'Hi', body: 'Ada' },
      data: { url: 'https://app.example.com/a' },
    });
    expect(buildFcmMessage({ ...base, content: templated, dataOnly: true }).message.data).toEqual({
      url: 'https://app.example.com/a',
      title: 'Hi',
      body: 'Ada',
      herald_collapse_id: 'c1',
    });
    expect(buildFcmMessage({ ...base, content: plain, dataOnly: false }).message.data).toBeUndefined();
  });

  it('APNs: custom keys beside aps', () => {
    const base = {
      deviceToken: 'ab'.repeat(32),
      topic: 'com.example.app',
      purpose: 'transactional' as const,
      idempotencyKey: 'k',
      expiresAt: T + 60_000,
      nowMs: T,
      dataOnly: false,
    };
    expect(JSON.parse(buildApnsRequest({ ...base, content: templated }).body.toString())).toEqual({
      url: 'https://app.example.com/a',
      aps: { alert: { title: 'Hi', body: 'Ada' } },
    });
    expect(JSON.parse(buildApnsRequest({ ...base, content: plain }).body.toString())).toEqual({ aps: { alert: { title: 'Hi', body: 'Ada' } } });
  });

  it('Web Push: under data in the payload', () => {
    expect(JSON.parse(webPushPayload(templated, 't'))).toEqual({ title: 'Hi', body: 'Ada', tag: 't', data: { url: 'https://app.example.com/a' } });
    expect(JSON.parse(webPushPayload(plain, 't'))).toEqual({ title: 'Hi', body: 'Ada', tag: 't' });
  });
});
