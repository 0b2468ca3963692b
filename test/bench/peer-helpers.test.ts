import { describe, expect, it } from 'vitest';
import { ratio, textTable } from '../../bench/peers/compare.js';
import { checkNotification, PRIORITY } from '../../bench/peers/bullmq-notifier/notification.js';
import { smsForm, verdictFor } from '../../bench/peers/bullmq-notifier/sms-call.js';

describe('the benchmarks\u2019 peer comparison', () => {
  it('divides Herald by the peer and says when it cannot', () => {
    expect(ratio(1.625, 1.012)).toBe('1.61×');
    expect(ratio(0, 0)).toBe('1.00×');
    expect(ratio(750, 0)).toBe('∞');
    expect(ratio(NaN, 2)).toBe('—');
  });

  it('pads every column to its widest cell', () => {
    expect(textTable(['a', 'bb'], [['ccc', 'd']])).toEqual(['| a   | bb |', '|-----|----|', '| ccc | d  |']);
  });
});

describe('the BullMQ notifier\u2019s intake checks', () => {
  const body = {
    recipient: { id: 'r1', phone: '+14155550123' },
    purpose: 'otp',
    channels: ['sms'],
    content: { text: 'Your code is 123456' },
    ttl_seconds: 300,
  };

  it('turns a valid code into a job with its TTL and the top priority', () => {
    const r = checkNotification(body, 1_000);
    expect(r).toEqual({ ok: true, job: { to: '+14155550123', text: 'Your code is 123456', purpose: 'otp', receivedAt: 1_000, expiresAt: 301_000 } });
    expect(PRIORITY.otp).toBeLessThan(PRIORITY.marketing);
  });

  it('refuses unknown fields, bad numbers, other channels and coerced types, naming each field', () => {
    const r = checkNotification({ ...body, recipient: { id: 'r1', phone: '+1415' }, channels: ['email'], ttl_seconds: '300', priority: 1 }, 0);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.field).sort()).toEqual(['channels', 'priority', 'recipient.phone', 'ttl_seconds']);
  });

  it('maps sandbox answers to a job step and sends Herald\u2019s SMS form', () => {
    expect(verdictFor(201).kind).toBe('sent');
    expect(verdictFor(429).kind).toBe('retry');
    expect(verdictFor(503).kind).toBe('retry');
    expect(verdictFor(400).kind).toBe('give_up');
    expect(smsForm('+14155550123', 'a b').toString()).toBe('To=%2B14155550123&Body=a+b');
  });
});
