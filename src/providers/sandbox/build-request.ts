/**
 * What Herald puts on the wire for each channel, in the sandbox's provider-shaped formats
 * (Resend for email, Twilio for SMS, FCM HTTP v1 for push). Pure, so the shapes are testable
 * without a socket.
 */
import type { Channel } from '../../domain/index.js';
import type { SubmitRequest } from '../provider.js';

/** The sandbox has no real accounts: Twilio's account SID and FCM's project are this literal. */
export const SANDBOX_ACCOUNT = 'sandbox';

export interface WireRequest {
  /** Path relative to the account's base URL, starting with '/'. */
  path: string;
  contentType: string;
  body: Buffer;
}

/** Builds the provider-shaped request for one submission on the given channel. */
export function buildWireRequest(channel: Channel, request: SubmitRequest): WireRequest {
  const { destination, content } = request;
  switch (channel) {
    case 'email': {
      const payload: Record<string, unknown> = {
        to: destination,
        subject: content.subject ?? '',
        text: content.text,
      };
      if (content.html !== undefined && content.html !== null) payload.html = content.html;
      // The producer's sender and reply address, as Resend takes them; the sandbox has no account default.
      if (content.from != null) payload.from = content.from;
      if (content.reply_to != null) payload.reply_to = content.reply_to;
      // Resend takes extra header fields as an object of strings.
      if (content.headers) payload.headers = { ...content.headers };
      return {
        path: '/emails',
        contentType: 'application/json',
        body: Buffer.from(JSON.stringify(payload)),
      };
    }
    case 'sms': {
      const form = new URLSearchParams({ To: destination, Body: content.text });
      return {
        path: `/2010-04-01/Accounts/${SANDBOX_ACCOUNT}/Messages.json`,
        contentType: 'application/x-www-form-urlencoded',
        body: Buffer.from(form.toString()),
      };
    }
    case 'push': {
      const notification: Record<string, unknown> = { body: content.text };
      if (content.subject !== undefined && content.subject !== null) {
        notification.title = content.subject;
      }
      return {
        path: `/v1/projects/${SANDBOX_ACCOUNT}/messages:send`,
        contentType: 'application/json',
        body: Buffer.from(JSON.stringify({ message: { token: destination, notification } })),
      };
    }
  }
}
