/** The notification every benchmark request sends: one channel, a distinct recipient per message. */
export type Channel = 'email' | 'sms' | 'push';

export function notificationBody(channel: Channel, runId: string, i: number): Record<string, unknown> {
  const id = `bench-${runId}-${i}`;
  const recipient =
    channel === 'sms' ? { id, phone: '+14155550123' } : channel === 'email' ? { id, email: `user${i}@example.com` } : { id, push_token: `token-${runId}-${i}` };
  return {
    recipient,
    purpose: 'transactional',
    channels: [channel],
    content: { subject: 'Your receipt', text: `Order ${i} is confirmed. Thank you for shopping with us.` },
    ttl_seconds: 3600,
  };
}
